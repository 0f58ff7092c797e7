"""States are types: no view, command, session, source or store compares a state with
its word, or maps its words by hand. They ask the state (``desktop/core/states.py``).

Read from the source with ``ast``; imports no Qt.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from desktop.core.states import STATE_TYPES

DESKTOP = Path(__file__).resolve().parent.parent / "desktop"
STATE_WORDS: dict[str, set[str]] = {}
for state_type in STATE_TYPES:
    for member in state_type:
        if member.value:
            STATE_WORDS.setdefault(member.value, set()).add(state_type.__name__)

# Words that are states and also the words of another thing compared in the code: the
# other side of such a comparison names that thing (a loading strategy is "dynamic" or
# "always"; a file in a diff is "added", "removed" or "changed").
OTHER_THINGS = frozenset({"strategy", "kind"})


def _word(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in STATE_WORDS else None
    return None


def _words(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [w for e in node.elts if (w := _word(e)) is not None]
    word = _word(node)
    return [word] if word is not None else []


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) for every state word compared with, or used as a state map's key."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                if _name(left) in OTHER_THINGS or _name(right) in OTHER_THINGS:
                    continue
                if isinstance(op, ast.Eq | ast.NotEq):
                    words = _words(left) + _words(right)
                elif isinstance(op, ast.In | ast.NotIn):  # ("a", "b"); not "a" in a mapping
                    listed = isinstance(right, ast.Tuple | ast.List | ast.Set)
                    words = _words(right) if listed else []
                else:
                    continue
                for word in words:
                    yield node.lineno, f"compared with {word!r}"
        elif isinstance(node, ast.Dict):
            keys = [w for k in node.keys if k is not None and (w := _word(k)) is not None]
            kinds: dict[str, int] = {}
            for word in keys:
                for kind in STATE_WORDS[word]:
                    kinds[kind] = kinds.get(kind, 0) + 1
            if any(n >= 2 for n in kinds.values()):
                yield node.lineno, f"a map keyed by state words {sorted(keys)}"


def found() -> list[str]:
    out = []
    for path in sorted(DESKTOP.rglob("*.py")):
        rel = path.relative_to(DESKTOP.parent)
        if rel.parts[1] == "core":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(rel))
        out.extend(f"{rel.as_posix()}:{line}: {what}" for line, what in literals(tree))
    return out


def test_no_state_word_is_compared_or_mapped_outside_core() -> None:
    hits = found()
    assert not hits, (
        "states are compared or mapped by their words outside desktop/core; use the "
        "types and their rules in desktop/core/states.py:\n" + "\n".join(hits)
    )


def test_the_scan_finds_what_it_looks_for() -> None:
    source = (
        "if p.severity in ('invalid', 'error'): pass\n"
        "if status.status != 'error': pass\n"
        "WORDS = {'approved': 'Approved', 'changed': 'Changed'}\n"
        "if loading.strategy == 'dynamic': pass\n"
        "emit({'approved': shown, 'service': name})\n"
        "if 'error' in answer and change.kind == 'changed': pass\n"
        "if 'ok' != words.mark or state not in {'pending'}: pass\n"
    )
    hits = list(literals(ast.parse(source)))
    assert [line for line, _ in hits] == [1, 1, 2, 3, 7, 7]

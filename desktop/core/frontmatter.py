"""Split a SKILL.md into YAML frontmatter and body, and parse the frontmatter safely.

Skill files are untrusted input. The rules here hold wherever a SKILL.md is parsed
(local scan, verification of a fetched file), so one rule parses everywhere:

- a UTF-8 BOM and CRLF line endings are accepted;
- the frontmatter opens with a line ``---`` at the very start and closes with the
  next line that is exactly ``---`` (a ``---`` inside a YAML string is not a line of
  its own, so it does not close it);
- frontmatter over :data:`MAX_FRONTMATTER_BYTES` is refused;
- YAML anchors and aliases are refused outright, so an alias bomb costs nothing;
- nesting deeper than :data:`MAX_DEPTH` is refused;
- the safe loader builds plain JSON values: timestamps stay strings, keys become
  strings, so the result can be compared with a server's JSON entry field by field.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import yaml

from desktop.core.frontmatter_fast import DECLINE, Reader, simple_mapping
from desktop.core.model import Problem

MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_NODES = 20_000
BOM = "\ufeff"
# Whether the simple shape most frontmatter has is read without YAML's event stream
# (see frontmatter_fast); the tests turn it off to compare the two paths.
FAST_PATH = True


class _JsonLoader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings (JSON has no dates)."""


_JsonLoader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(slots=True)
class ParsedSkillMd:
    """The result of reading a SKILL.md's bytes."""

    frontmatter: dict[str, Any] | None
    body: str
    problems: list[Problem] = field(default_factory=list)
    has_frontmatter: bool = False
    # The frontmatter as a YAML 1.2 reader reads it, when that differs from
    # ``frontmatter`` (the YAML 1.1 reading), and the values that differ.
    frontmatter_12: dict[str, Any] | None = None
    differences_12: list[Any] = field(default_factory=list)
    # Set by verification: what is worth knowing about bytes that agree with an entry.
    notes: list[str] = field(default_factory=list)


_CLOSING = re.compile(r"\n---(?:\r\n|\n|\r|\Z)")
# Line breaks other than \n that str.splitlines honours.
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Return (frontmatter text or None, body). ``text`` has its BOM removed already.

    Only the lines up to the first likely closing ``---`` are split (a body can be
    long); the rule is the one :func:`_split_lines` applies to the whole text.
    """
    if text.startswith("---"):
        closing = _CLOSING.search(text, 3)
        if closing is not None:
            end = closing.end()
            head = text[:end]
            if text[3] == "\n" and _OTHER_BREAKS.search(head) is None:
                return text[4 : closing.start() + 1], text[end:]  # only \n breaks: slice
            yaml_text, rest = _split_lines(head)
            if yaml_text is not None:
                return yaml_text, rest + text[end:]
    return _split_lines(text)


def _split_lines(text: str) -> tuple[str | None, str]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None, text
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None, text


_CParser = getattr(yaml, "CSafeLoader", None)


class _FastEvents(_CParser or yaml.SafeLoader):  # type: ignore[misc]
    """The event source: libyaml's parser where available, else PyYAML's own."""


_RESOLVER = _JsonLoader("")
_MERGE = "tag:yaml.org,2002:merge"
MERGE = object()  # a merge key (<<), as a scalar rule returns it


class Refused(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


_STR = "tag:yaml.org,2002:str"
_STANDARD_COLLECTION_TAGS = frozenset({None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})
_IMPLICIT_FIRST = frozenset(_JsonLoader.yaml_implicit_resolvers)


def _scalar_tag(event: yaml.ScalarEvent) -> str:
    tag = event.tag
    if tag is not None and tag != "!":
        return tag
    value = event.value
    if not event.implicit[0]:  # quoted or block scalar: a string
        return _STR
    if value and value[0] not in _IMPLICIT_FIRST:
        return _STR
    return cast(str, cast(Any, _RESOLVER).resolve(yaml.ScalarNode, value, event.implicit))


def _scalar(event: yaml.ScalarEvent, tag: str) -> Any:
    if tag == _STR:
        return event.value
    return _construct(event.value, event.style, tag)


def _construct(value: str, style: str | None, tag: str) -> Any:
    constructor = _JsonLoader.yaml_constructors.get(tag)
    if constructor is None:
        raise Refused(
            Problem(
                "frontmatter-yaml", f"frontmatter uses the unsupported YAML tag {tag}", "invalid"
            )
        )
    # JSON-compatible at once: no second pass over the built value.
    return to_json_value(constructor(_RESOLVER, yaml.ScalarNode(tag, value, style=style)))


_PLAIN_IMPLICIT = (True, False)
_FAST_TAGS = frozenset(
    {
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:null",
    }
)


def _resolve_plain(value: str) -> Any:
    """A one-line plain scalar's value by the same rule as :func:`_scalar_tag`."""
    if not value or value[0] not in _IMPLICIT_FIRST:
        return value
    tag = cast(Any, _RESOLVER).resolve(yaml.ScalarNode, value, _PLAIN_IMPLICIT)
    if tag == _STR:
        return value
    if tag not in _FAST_TAGS:
        return DECLINE
    return _construct(value, None, tag)


_FAST_READER = Reader(_resolve_plain, _IMPLICIT_FIRST)
_ANSWERED = threading.local()  # whether this thread's last reading took the fast path


def _alias_problem() -> Refused:
    return Refused(
        Problem(
            "frontmatter-alias",
            "frontmatter uses YAML anchors or aliases, which are refused "
            "(they can expand into huge structures)",
            "invalid",
        )
    )


@dataclass(frozen=True, slots=True)
class Dialect:
    """One YAML reader's event stream and scalar rule, for :func:`build`.

    ``events(text)`` yields the parser's events; the event classes tell them apart;
    ``scalar(event)`` is a scalar event's JSON value, or :data:`MERGE` for a merge key.
    ``errors`` are the exceptions the parser raises on text that is not YAML.
    """

    events: Callable[[str], Iterable[Any]]
    scalar_event: type
    seq_start: type
    map_start: type
    seq_end: type
    map_end: type
    alias: type
    scalar: Callable[[Any], Any]
    errors: tuple[type[Exception], ...]


def _scalar_11(event: yaml.ScalarEvent) -> Any:
    tag = _scalar_tag(event)
    return MERGE if tag == _MERGE else _scalar(event, tag)


YAML_11 = Dialect(
    events=lambda text: yaml.parse(text, Loader=_FastEvents),
    scalar_event=yaml.ScalarEvent,
    seq_start=yaml.SequenceStartEvent,
    map_start=yaml.MappingStartEvent,
    seq_end=yaml.SequenceEndEvent,
    map_end=yaml.MappingEndEvent,
    alias=yaml.AliasEvent,
    scalar=_scalar_11,
    errors=(yaml.YAMLError,),
)


def _build(yaml_text: str, duplicates: list[str] | None = None, dialect: Dialect = YAML_11) -> Any:
    """Build the value from one pass over the parser's events.

    Anchors and aliases are refused as they appear, explicit tags are limited to the
    safe scalar ones, nesting depth and the number of values are bounded, so no input
    can make this expensive.
    """
    stack: list[Any] = []  # open containers
    keys: list[Any] = []  # for each open container: the pending mapping key (or _NO_KEY)
    # For each open container: the keys a merge (<<) gave it, which a key written in the
    # mapping itself overrides without being a duplicate.
    merged: list[set[Any] | None] = []
    root: list[Any] = []
    nodes = 0
    scalar_event, seq_start, map_start = dialect.scalar_event, dialect.seq_start, dialect.map_start
    end_events = (dialect.seq_end, dialect.map_end)
    alias_event, scalar_of = dialect.alias, dialect.scalar

    event: Any  # the event kinds are told apart by type() below, for speed
    for event in dialect.events(yaml_text):
        kind = type(event)
        if kind is scalar_event or kind is seq_start or kind is map_start:
            if event.anchor is not None:
                raise _alias_problem()
            nodes += 1
            if nodes > MAX_NODES:
                raise Refused(
                    Problem(
                        "frontmatter-too-large",
                        f"frontmatter has more than {MAX_NODES} values",
                        "invalid",
                    )
                )
            if kind is scalar_event:
                value: Any = scalar_of(event)
            else:
                if event.tag not in _STANDARD_COLLECTION_TAGS:
                    raise Refused(
                        Problem(
                            "frontmatter-yaml",
                            f"frontmatter uses the unsupported YAML tag {event.tag}",
                            "invalid",
                        )
                    )
                if len(stack) >= MAX_DEPTH:
                    raise Refused(
                        Problem(
                            "frontmatter-too-deep",
                            f"frontmatter nests deeper than {MAX_DEPTH} levels",
                            "invalid",
                        )
                    )
                stack.append([] if kind is seq_start else {})
                keys.append(_NO_KEY)
                merged.append(None)
                continue
        elif kind in end_events:
            value = stack.pop()
            keys.pop()
            merged.pop()
        elif kind is alias_event:
            raise _alias_problem()
        else:
            continue
        # attach the finished value to its parent
        if not stack:
            root.append(value)
            continue
        parent = stack[-1]
        if type(parent) is list:
            parent.append(value)
        elif keys[-1] is _NO_KEY:
            keys[-1] = value if value is MERGE else _key_of(value)
        else:
            key = keys[-1]
            keys[-1] = _NO_KEY
            if key is MERGE and isinstance(value, dict):
                given = merged[-1]
                if given is None:
                    given = merged[-1] = set()
                for k, v in value.items():
                    if k not in parent:
                        parent[k] = v
                        given.add(k)
            else:
                given = merged[-1]
                if given is not None and key in given:
                    given.discard(key)  # written here: it overrides the merged value
                elif duplicates is not None and key in parent and len(duplicates) < 20:
                    duplicates.append(key)
                parent[key] = value
    if len(root) > 1:
        raise Refused(
            Problem("frontmatter-yaml", "frontmatter holds more than one YAML document", "invalid")
        )
    return root[0] if root else None


_NO_KEY = object()


def _key_of(value: Any) -> str:
    if isinstance(value, dict | list):
        return str(to_json_value(value))
    return _key(value)


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:200]


# (what the reader says, where, the plain sentence): the first that matches is used.
_PLAIN: tuple[tuple[str, str, str], ...] = (
    ("while parsing a flow sequence", "context", "a `[` is never closed"),
    ("while parsing a flow mapping", "context", "a `{` is never closed"),
    ("while scanning a quoted scalar", "context", "a quote is never closed"),
    ("tab character", "problem", "a tab is used for indentation; indent with spaces"),
    ("character '\\t'", "problem", "a tab is used for indentation; indent with spaces"),
    (
        "mapping values are not allowed",
        "problem",
        "a `:` in a value that is not quoted; put the value in quotes",
    ),
    ("expected <block end>", "problem", "the indentation does not line up with the lines above"),
    (
        "did not find expected key",
        "problem",
        "the indentation does not line up with the lines above",
    ),
)


def yaml_sentence(exc: Exception) -> str:
    """A plain sentence for a YAML error, with the line of the SKILL.md it is on: the
    frontmatter starts on the file's line 2, after the opening ``---``."""
    context = str(getattr(exc, "context", None) or "")
    problem = str(getattr(exc, "problem", None) or "")
    marks = {
        "context": getattr(exc, "context_mark", None),
        "problem": getattr(exc, "problem_mark", None),
    }
    said = f"{context} {problem}"
    for words, where, sentence in _PLAIN:
        mark = marks[where] or marks["problem"]
        if words in said and mark is not None:
            return f"Line {mark.line + 2}: {sentence}"
    mark = marks["problem"] or marks["context"]
    if mark is not None and problem:
        return f"Line {mark.line + 2}, column {mark.column + 1}: {' '.join(problem.split())}"
    return f"frontmatter is not valid YAML: {_short(exc)}"


def to_json_value(value: Any) -> Any:
    """Make a safely loaded YAML value JSON-compatible (string keys, finite numbers)."""
    if isinstance(value, dict):
        return {_key(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def parse_frontmatter_text(yaml_text: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Parse frontmatter text into a JSON-compatible mapping, or report why not."""
    return read_with(yaml_text, _FAST_READER, YAML_11)


def read_11(yaml_text: str) -> tuple[dict[str, Any] | None, list[Problem], bool | None]:
    """The YAML 1.1 reading, and whether it met a scalar YAML 1.2 reads otherwise:
    known (``True``/``False``) when the fast reader answered, else ``None``."""
    _FAST_READER.begin()
    _ANSWERED.fast = False
    fields, problems = parse_frontmatter_text(yaml_text)
    if _ANSWERED.fast and _FAST_READER.differs is not None:
        return fields, problems, _FAST_READER.met_other_reading
    return fields, problems, None


def read_with(
    yaml_text: str, reader: Reader, dialect: Dialect
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Read frontmatter text by one YAML reader's rules, within the limits above: the
    fast reader ``reader`` for the plain shape, else ``dialect``'s event stream."""
    size = len(yaml_text.encode("utf-8"))
    if size > MAX_FRONTMATTER_BYTES:
        return None, [
            Problem(
                "frontmatter-too-large",
                f"frontmatter is {size} bytes; at most {MAX_FRONTMATTER_BYTES} are read",
                "invalid",
            )
        ]
    if FAST_PATH:
        simple = simple_mapping(yaml_text, reader, MAX_DEPTH, MAX_NODES)
        if simple is not None:
            _ANSWERED.fast = True
            return simple, []
    duplicates: list[str] = []
    not_yaml: tuple[type[Exception], ...] = (
        *dialect.errors,
        RecursionError,
        ValueError,
        TypeError,
        ArithmeticError,
    )
    try:
        value = _build(yaml_text, duplicates, dialect)
    except Refused as refused:
        return None, [refused.problem]
    except not_yaml as exc:
        return None, [Problem("frontmatter-yaml", yaml_sentence(exc), "invalid")]
    if value is None:
        value = {}
    if not isinstance(value, dict):
        kind = type(value).__name__
        return None, [
            Problem(
                "frontmatter-not-mapping",
                f"frontmatter must be a mapping of fields, found a {kind}",
                "invalid",
            )
        ]
    # A key given twice: YAML says keys are unique, and readers differ on which value wins
    # (an error, the first, the last). The one read here, the last, may not be a host's.
    return value, [  # _build makes JSON-compatible values
        Problem(
            "frontmatter-duplicate-key",
            f"the key {key!r} is given more than once; this reading keeps the last value, "
            "other YAML readers may refuse it or keep the first",
            "warning",
        )
        for key in dict.fromkeys(duplicates)
    ]


def json_depth_ok(value: Any, limit: int = MAX_DEPTH, budget: int = MAX_NODES) -> bool:
    """Whether a JSON value (e.g. a server's frontmatter) stays within depth and size limits."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if depth > limit or seen > budget:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True

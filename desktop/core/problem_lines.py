"""Where in a SKILL.md a problem applies: the line of the field it is about.

A problem names a field (``name``, ``description``, ``metadata.nimblebrain.priority``)
by its code or in its message; a YAML error names its line. :func:`problem_lines`
finds those lines in the SKILL.md text, so a view can mark each problem where it
applies. A problem whose place cannot be found is simply not placed: the list of
problems holds every one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from desktop.core.model import Problem

# Codes whose first word is a top-level field of the frontmatter.
_FIELD_CODES = ("name", "description", "compatibility", "metadata", "license", "allowed-tools")
# The loading values of metadata.nimblebrain, reported as ``<field>-dropped``.
_LOADING_FIELDS = ("loading-strategy", "priority", "triggers", "tool-affinity")
_YAML_LINE = re.compile(r"\bline (\d+)\b")
_FILE_LINE = re.compile(r"^Line (\d+)\b")
_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
_METADATA_KEY = re.compile(r"^metadata\.(.+?) is ")
_UNKNOWN = "fields outside the Agent Skills specification (passed through): "


def frontmatter_lines(text: str) -> list[str]:
    """The frontmatter's lines of a SKILL.md (after its opening ``---``), or none."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return []
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return lines[1:i]
    return []


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_key(line: str, key: str) -> bool:
    body = line.lstrip(" ")
    for shown in (key, f'"{key}"', f"'{key}'"):
        if body.startswith(shown) and body[len(shown) :].lstrip(" ").startswith(":"):
            return True
    return False


def key_lines(lines: list[str], path: list[str]) -> list[int]:
    """The 0-based indexes in ``lines`` of the key ``path`` names (each occurrence of
    its last key within the block of the first occurrence of its parents); the
    deepest parent found when the last key is not."""
    start, end, indent = 0, len(lines), -1
    found: list[int] = []
    for depth, key in enumerate(path):
        hits: list[int] = []
        child_indent: int | None = None
        for i in range(start, end):
            line = lines[i]
            if not line.strip() or line.lstrip(" ").startswith("#"):
                continue
            level = _indent(line)  # within the parent's block: deeper than the parent
            if child_indent is None:
                child_indent = level
            if level == child_indent and _is_key(line, key):
                hits.append(i)
        if not hits:
            return found
        found = hits if depth == len(path) - 1 else [hits[0]]
        first = hits[0]
        indent = _indent(lines[first])
        start = first + 1
        end = next(
            (
                j
                for j in range(start, end)
                if lines[j].strip()
                and not lines[j].lstrip(" ").startswith("#")
                and _indent(lines[j]) <= indent
            ),
            end,
        )
    return found


def _quoted_values(message: str) -> list[str]:
    values = []
    for token in _QUOTED.findall(message):
        try:
            values.append(str(ast.literal_eval(token)))
        except (ValueError, SyntaxError):
            continue  # quotes that are not a Python string's
    return values


def problem_paths(problem: Problem) -> list[list[str]]:
    """The fields ``problem`` is about, each as a path of keys (none when unknown)."""
    code, message = problem.code, problem.message
    if code == "metadata-not-text":
        match = _METADATA_KEY.match(message)
        return [["metadata", match.group(1)]] if match else []
    if code == "loading-block-type":
        return [["metadata", "nimblebrain"]]
    field = code.removesuffix("-dropped")
    if field == "trigger":
        field = "triggers"
    if code.endswith("-dropped") and field in _LOADING_FIELDS:
        # in the mapping, or written as text (``nimblebrain.<field>``)
        return [["metadata", "nimblebrain", field], ["metadata", f"nimblebrain.{field}"]]
    if code == "frontmatter-duplicate-key":
        return [[key] for key in _quoted_values(message)[:1]]
    if code == "frontmatter-yaml-versions":
        return [key.split(".") for key in _quoted_values(message)[:1]]
    if code == "unknown-fields" and message.startswith(_UNKNOWN):
        names = message[len(_UNKNOWN) :].removesuffix(" ...")
        return [[name] for name in names.split(", ") if name]
    for key in _FIELD_CODES:
        if code.startswith(key + "-"):
            return [[key]]
    return []


def _found(lines: list[str], path: list[str]) -> bool:
    """Whether the field at ``path`` itself is there (not only a parent of it)."""
    return any(_is_key(lines[i], path[-1]) for i in key_lines(lines, path))


def problem_lines(text: str, problems: Iterable[Problem]) -> list[tuple[int, Problem]]:
    """``(line, problem)`` for each problem placed on a line of ``text`` (1-based,
    counting the opening ``---`` as line 1), in order of line."""
    lines = frontmatter_lines(text)
    placed: list[tuple[int, Problem]] = []
    for problem in problems:
        if problem.code == "frontmatter-yaml":
            own = _FILE_LINE.match(problem.message)
            if own:  # already the file's line
                placed.append((int(own.group(1)), problem))
                continue
            match = _YAML_LINE.search(problem.message)
            if match:
                placed.append((int(match.group(1)) + 1, problem))
            continue
        paths = problem_paths(problem)
        if problem.code.endswith("-dropped") and len(paths) > 1:
            # A loading value lies in the mapping or is written as text: where it is.
            paths = [next((p for p in paths if _found(lines, p)), paths[0])]
        for path in paths:
            hits = key_lines(lines, path)
            if problem.code == "frontmatter-duplicate-key":
                hits = hits[1:]  # the repeats, past the first
            placed.extend((i + 2, problem) for i in hits)
    placed.sort(key=lambda lp: lp[0])
    return placed

"""The Agent Skills rules, reported as problems with stable codes.

A lenient reader still lists a skill that breaks these rules; only a skill without a
usable ``name`` or ``description`` is invalid.
"""

from __future__ import annotations

import re
from typing import Any

from desktop.core.model import Problem
from desktop.core.visible import cut, hidden_findings, one_line

# \Z, not $: $ also matches before a final line feed, and "pdf\n" would pass.
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500

# Fields of the Agent Skills specification.
KNOWN_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)


def _not_text(key: str, value: Any) -> Problem | None:
    """Why a required text field is unusable (absent, not a string, blank), or None.

    YAML reads ``name: yes`` as a boolean and ``description: 42`` as a number: the
    field is there, and saying it is missing would leave its author guessing.
    """
    if value is None:
        return Problem(f"{key}-missing", f"frontmatter has no '{key}'", "invalid")
    if not isinstance(value, str):
        kind = {bool: "a boolean", int: "a number", float: "a number", list: "a list"}.get(
            type(value), "a mapping" if isinstance(value, dict) else type(value).__name__
        )
        return Problem(
            f"{key}-type",
            f"'{key}' must be text, but YAML reads this value as {kind}: put it in quotes",
            "invalid",
        )
    if not value.strip():
        return Problem(f"{key}-missing", f"frontmatter's '{key}' is blank", "invalid")
    return None


def check_name(name: Any) -> list[Problem]:
    unusable = _not_text("name", name)
    if unusable is not None:
        return [unusable]
    problems: list[Problem] = []
    if len(name) > NAME_MAX:
        problems.append(
            Problem("name-too-long", f"name is {len(name)} characters; at most {NAME_MAX}")
        )
    if not NAME_RE.fullmatch(name):
        problems.append(
            Problem(
                "name-pattern",
                f"name {name!r} must be lowercase letters, digits and single hyphens, "
                "not starting or ending with '-'",
            )
        )
    return problems


def check_frontmatter(frontmatter: dict[str, Any], dir_name: str | None) -> list[Problem]:
    """Check one skill's frontmatter against the Agent Skills rules.

    ``dir_name`` is the skill's directory name (or the URI's last path segment); the
    name must equal it.
    """
    problems = check_name(frontmatter.get("name"))
    name = frontmatter.get("name")
    if isinstance(name, str) and dir_name is not None and name != dir_name:
        problems.append(
            Problem(
                "name-mismatch",
                f"name {name!r} does not match its directory {dir_name!r}",
            )
        )
    description = frontmatter.get("description")
    unusable = _not_text("description", description)
    if unusable is not None:
        problems.append(unusable)
    elif isinstance(description, str) and len(description) > DESCRIPTION_MAX:
        problems.append(
            Problem(
                "description-too-long",
                f"description is {len(description)} characters; at most {DESCRIPTION_MAX}",
            )
        )
    if "compatibility" in frontmatter:
        compat = frontmatter["compatibility"]
        if not isinstance(compat, str):
            problems.append(Problem("compatibility-type", "compatibility must be a string"))
        elif not compat.strip():
            problems.append(
                Problem(
                    "compatibility-empty",
                    f"compatibility is empty; when given it holds 1-{COMPATIBILITY_MAX} characters",
                )
            )
        elif len(compat) > COMPATIBILITY_MAX:
            problems.append(
                Problem(
                    "compatibility-too-long",
                    f"compatibility is {len(compat)} characters; at most {COMPATIBILITY_MAX}",
                )
            )
    if "metadata" in frontmatter and not isinstance(frontmatter["metadata"], dict):
        problems.append(Problem("metadata-type", "metadata must be a mapping"))
    elif isinstance(frontmatter.get("metadata"), dict):
        problems.extend(_metadata_not_text(frontmatter["metadata"]))
    if "license" in frontmatter and not isinstance(frontmatter["license"], str):
        problems.append(Problem("license-type", "license must be a string", "warning"))
    if "allowed-tools" in frontmatter and not isinstance(frontmatter["allowed-tools"], str | list):
        problems.append(
            Problem("allowed-tools-type", "allowed-tools must be a string or a list", "warning")
        )
    problems.extend(frontmatter_hidden_text(frontmatter))
    unknown = sorted(k for k in frontmatter if k not in KNOWN_FIELDS)
    if unknown:
        problems.append(
            Problem(
                "unknown-fields",
                "fields outside the Agent Skills specification (passed through): "
                + ", ".join(unknown[:20])
                + (" ..." if len(unknown) > 20 else ""),
                "info",
            )
        )
    return problems


# How many metadata values one skill reports as not text.
MAX_METADATA_REPORTED = 20


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "empty (null)"
    return "a number"


def _metadata_not_text(metadata: dict[str, Any]) -> list[Problem]:
    """A warning for each metadata value that is not text: the Agent Skills specification
    makes metadata a map of string keys to string values, and strict readers hold to it."""
    odd = [(k, v) for k, v in metadata.items() if not isinstance(v, str)]
    problems = []
    for key, value in odd[:MAX_METADATA_REPORTED]:
        if key == "nimblebrain" and isinstance(value, dict):
            fix = 'write each loading value as text instead (nimblebrain.triggers: "a, b")'
        elif isinstance(value, dict | list):
            fix = "keep it only for hosts that read it"
        else:
            fix = "put it in quotes"
        problems.append(
            Problem(
                "metadata-not-text",
                f"metadata.{key} is {_kind(value)}, not text: the Agent Skills specification "
                "makes metadata a map of text to text, and strict readers refuse it "
                "(fastmcp 4.1.3's client refuses a server's whole listing for one such "
                f"value); {fix}",
                "warning",
            )
        )
    if len(odd) > MAX_METADATA_REPORTED:
        problems.append(
            Problem(
                "metadata-not-text",
                f"{len(odd) - MAX_METADATA_REPORTED} more metadata values are not text",
                "warning",
            )
        )
    return problems


def display_text(value: Any, limit: int = 2000) -> str:
    """A field's value as a short single string for display."""
    if isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Fields of one skill whose hidden text is reported, each on its own (then a count).
MAX_HIDDEN_REPORTED = 10
HIDDEN_TEXT = "hidden-text"
HIDDEN_CHARACTERS = "hidden-characters"


def hidden_text_problems(where: str, text: str) -> list[Problem]:
    """What ``text`` (the field or file named by ``where``) hides in invisible
    characters: an error for tag characters, which a model reads as text and a person
    does not see (with the text they spell); a warning for zero-width characters inside
    a word or in a run (see :func:`desktop.core.visible.hidden_findings`)."""
    found = hidden_findings(text)
    problems = []
    if found.tag_count:
        spelt = " ".join(f"“{one_line(cut(t))}”" for t in found.tag_texts[:3])
        more = f" and {len(found.tag_texts) - 3} more runs" if len(found.tag_texts) > 3 else ""
        problems.append(
            Problem(
                HIDDEN_TEXT,
                f"{where} holds hidden text in {found.tag_count} invisible tag characters, "
                f"which a model reads and a person does not see: {spelt}{more}",
                "error",
            )
        )
    if found.zero_width_count:
        n = found.zero_width_count
        problems.append(
            Problem(
                HIDDEN_CHARACTERS,
                f"{where} holds {n} zero-width character{'s' if n > 1 else ''} "
                f"({', '.join(found.zero_width)}) inside words or in runs: they can split a "
                "word to get it past a check, or spell a hidden message",
                "warning",
            )
        )
    return problems


def frontmatter_hidden_text(frontmatter: dict[str, Any]) -> list[Problem]:
    """:func:`hidden_text_problems` for every key and text value of the frontmatter,
    each named by its path (``'description'``, ``'metadata.author'``,
    ``'allowed-tools[2]'``); at most :data:`MAX_HIDDEN_REPORTED` of them, then a count."""
    found: list[list[Problem]] = []
    stack: list[tuple[str, Any]] = [("", frontmatter)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            found.append(hidden_text_problems(f"'{path}'", value))
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                inner = f"{path}.{key}" if path else str(key)
                stack.append((inner, item))
                if isinstance(key, str):
                    found.append(hidden_text_problems(f"the field name '{inner}'", key))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    found = [f for f in found if f]
    problems = [p for f in found[:MAX_HIDDEN_REPORTED] for p in f]
    if len(found) > MAX_HIDDEN_REPORTED:
        rest = [p for f in found[MAX_HIDDEN_REPORTED:] for p in f]
        error = any(p.severity == "error" for p in rest)
        problems.append(
            Problem(
                HIDDEN_TEXT if error else HIDDEN_CHARACTERS,
                f"{len(found) - MAX_HIDDEN_REPORTED} more frontmatter values hide characters",
                "error" if error else "warning",
            )
        )
    return problems

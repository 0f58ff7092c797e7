"""The Agent Skills rules (F3), reported as problems with stable codes.

A lenient reader still lists a skill that breaks these rules; only a skill without a
usable ``name`` or ``description`` is invalid.
"""

from __future__ import annotations

import re
from typing import Any

from desktop.core.model import Problem

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

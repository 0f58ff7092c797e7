"""Loading configuration from ``metadata.nimblebrain``, read leniently.

The values come from the ``metadata.nimblebrain`` mapping, or written as text under
``metadata`` keys ``nimblebrain.loading-strategy``, ``nimblebrain.priority``,
``nimblebrain.triggers`` and ``nimblebrain.tool-affinity`` (lists separated by commas),
which strict clients accept. The same rules hold for local and server skills, so
identical frontmatter gives identical behaviour. A missing or malformed block never
rejects a skill: values that are not recognised are dropped (with an ``info`` problem
saying so) and defaults apply.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from desktop.core.model import LoadingConfig, Problem, Skill

STRATEGIES = ("always", "dynamic")
DEFAULT_STRATEGY = "dynamic"
TOOL_SEPARATOR = "__"


# The same values written as text, one metadata key each (``nimblebrain.triggers:
# "incident, outage"``): metadata that maps text to text is what strict clients accept.
FLAT_PREFIX = "nimblebrain."
# Fields that hold several values: written as text, they are separated by commas.
LIST_FIELDS = ("triggers", "tool-affinity")


def _block(frontmatter: dict[str, Any] | None) -> tuple[dict[str, Any], list[Problem]]:
    """The loading values: the ``metadata.nimblebrain`` mapping's, and for a field it
    does not hold, the text value of ``metadata["nimblebrain.<field>"]``."""
    metadata = (frontmatter or {}).get("metadata")
    if metadata is None:
        return {}, []
    if not isinstance(metadata, dict):
        return {}, []  # reported by the Agent Skills checks as metadata-type
    flat = _flat(metadata)
    block = metadata.get("nimblebrain")
    if block is None:
        return flat, []
    if not isinstance(block, dict):
        return flat, [
            Problem(
                "loading-block-type",
                "metadata.nimblebrain is not a mapping; loading defaults apply",
                "info",
            )
        ]
    return {**flat, **block}, []


def _flat(metadata: dict[str, Any]) -> dict[str, Any]:
    """The loading values written as ``nimblebrain.<field>`` keys of the metadata."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key.startswith(FLAT_PREFIX):
            continue
        field = key[len(FLAT_PREFIX) :]
        if isinstance(value, str) and field in LIST_FIELDS:
            out[field] = value.split(",")
        elif isinstance(value, str) and field == "priority":
            out[field] = _number(value)
        else:
            out[field] = value
    return out


def _number(text: str) -> float | int | str:
    """A priority written as text, as the number it spells (the text if none)."""
    try:
        value = float(text.strip())
    except ValueError:
        return text
    if not math.isfinite(value):
        return text
    return int(value) if value.is_integer() else value


def _dropped(field: str, value: Any, why: str) -> Problem:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return Problem(f"{field}-dropped", f"{field} {shown} ignored: {why}", "info")


def read_loading(
    frontmatter: dict[str, Any] | None, server_label: str | None
) -> tuple[LoadingConfig, list[Problem]]:
    """Read the loading configuration of one skill.

    ``server_label`` is the publishing server's host-assigned label for server
    skills (tool affinity is scoped to its tools), ``None`` for local skills.
    """
    block, problems = _block(frontmatter)

    strategy, strategy_declared = DEFAULT_STRATEGY, False
    if "loading-strategy" in block:
        raw = block["loading-strategy"]
        if isinstance(raw, str) and raw in STRATEGIES:
            strategy, strategy_declared = raw, True
        else:
            problems.append(_dropped("loading-strategy", raw, "only 'always' or 'dynamic'"))

    priority: float | int | None = None
    priority_declared = False
    if "priority" in block:
        raw = block["priority"]
        if (
            isinstance(raw, int | float)
            and not isinstance(raw, bool)
            and math.isfinite(raw)
            and 0 <= raw <= 100
        ):
            priority, priority_declared = raw, True
        else:
            problems.append(_dropped("priority", raw, "only a number from 0 to 100"))

    triggers: list[str] = []
    triggers_declared = False
    if "triggers" in block:
        raw = block["triggers"]
        items = raw if isinstance(raw, list) else [raw]
        for item in items:
            if isinstance(item, str) and item.strip():
                triggers.append(item.strip())
            else:
                problems.append(_dropped("trigger", item, "only non-blank strings"))
        triggers_declared = bool(triggers)

    patterns: list[str] = []
    if "tool-affinity" in block:
        raw = block["tool-affinity"]
        items = raw if isinstance(raw, list) else [raw]
        for item in items:
            if isinstance(item, str) and item.strip():
                patterns.append(item.strip())
            else:
                problems.append(_dropped("tool-affinity", item, "only tool names or globs"))
    affinity_declared = bool(patterns)
    if server_label is not None:
        if patterns:
            affinity = [f"{server_label}{TOOL_SEPARATOR}{p}" for p in patterns]
        else:
            affinity = [f"{server_label}{TOOL_SEPARATOR}*"]
    else:
        affinity = patterns

    config = LoadingConfig(
        strategy=strategy,
        strategy_declared=strategy_declared,
        priority=priority,
        priority_declared=priority_declared,
        triggers=tuple(triggers),
        triggers_declared=triggers_declared,
        tool_affinity=tuple(affinity),
        tool_affinity_declared=affinity_declared,
    )
    return config, problems


def loaded_always(skill: Skill) -> bool:
    """Whether a host loads ``skill`` with every message: a loadable skill declaring
    ``always``, from a local folder. A server's skill may declare it, but a host does
    not promote third-party content on its say alone."""
    return skill.loadable and skill.loading.strategy == "always" and skill.kind != "mcp"


@dataclass(frozen=True, slots=True)
class TriggerMatch:
    skill: Skill
    trigger: str


def match_triggers(skills: Iterable[Skill], message: str) -> list[TriggerMatch]:
    """Which skills a message would pull in: case-insensitive substring of a trigger."""
    text = message.casefold()
    matches: list[TriggerMatch] = []
    for skill in skills:
        for trigger in skill.loading.triggers:
            if trigger.strip() and trigger.casefold() in text:
                matches.append(TriggerMatch(skill, trigger))
                break
    return matches


@dataclass(frozen=True, slots=True)
class AffinityRow:
    pattern: str
    tools: tuple[str, ...]


class ToolIndex:
    """One server's tool names, each tool-affinity pattern matched against them once.

    Every skill of a server is checked against the same tools, and most share the
    default pattern ``<server>__*``: matched skill by skill, 1,000 skills against
    1,000 tools took 0.6 s. A pattern without wildcards is a set lookup.
    """

    __slots__ = ("_exact", "_found", "_qualified", "label", "tools")

    def __init__(self, label: str, tools: Sequence[str]) -> None:
        self.label = label
        self.tools = tuple(tools)
        self._qualified = tuple(f"{label}{TOOL_SEPARATOR}{t}" for t in self.tools)
        self._exact: frozenset[str] | None = None
        self._found: dict[str, tuple[str, ...]] = {}

    def matching(self, pattern: str) -> tuple[str, ...]:
        """The qualified tool names (``<server>__<tool>``) the pattern governs."""
        found = self._found.get(pattern)
        if found is None:
            if any(c in pattern for c in "*?["):
                found = tuple(t for t in self._qualified if fnmatchcase(t, pattern))
            else:
                if self._exact is None:
                    self._exact = frozenset(self._qualified)
                found = (pattern,) if pattern in self._exact else ()
            self._found[pattern] = found
        return found


def affinity_report(
    skill: Skill, tools: Sequence[str] | ToolIndex | None
) -> tuple[list[AffinityRow], list[Problem]]:
    """Which of a server's tools each tool-affinity pattern of ``skill`` governs.

    ``tools`` are the server's own tool names (unprefixed), or ``None`` when unknown;
    a :class:`ToolIndex` of them when many skills of one server are checked. Matching
    is anchored over ``<server>__<tool>``, so a pattern only narrows within the
    server's own tools. A pattern matching none is a problem: the silent miss.
    """
    if skill.origin.kind != "mcp" or tools is None:
        return [AffinityRow(p, ()) for p in skill.loading.tool_affinity], []
    label = skill.origin.label
    if isinstance(tools, ToolIndex):
        index = tools if tools.label == label else ToolIndex(label, tools.tools)
    else:
        index = ToolIndex(label, tools)
    rows = [AffinityRow(p, index.matching(p)) for p in skill.loading.tool_affinity]
    problems: list[Problem] = []
    if not index.tools:
        if not skill.loading.tool_affinity_declared:
            # A default the skill never declared: said once, on the source (its notes).
            return rows, problems
        problems.append(
            Problem(
                "affinity-no-tools",
                f"server {label!r} lists no tools, so tool affinity "
                f"{', '.join(skill.loading.tool_affinity)} governs nothing",
                "warning",
            )
        )
        return rows, problems
    for row in rows:
        if not row.tools:
            problems.append(
                Problem(
                    "affinity-no-match",
                    f"tool-affinity pattern {row.pattern!r} matches none of the "
                    f"{len(index.tools)} tools server {label!r} lists",
                    "warning",
                )
            )
    return rows, problems

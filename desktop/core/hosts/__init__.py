"""Host profiles: what each agent host does with a skill, as data with sources.

A profile says how a host reads ``SKILL.md`` (its YAML reader and how strict it is),
which name, field and type rules it applies, what it does when a skill breaks one
(the skill is skipped, the whole listing is refused, or a warning only), and how it
lists skills for the model (format and budget). Every rule carries where it comes
from (a documentation page, a code path, an issue); where a fact is not known the
profile says ``unknown`` and no check is made on it. The data is in
:mod:`desktop.core.hosts.data`; :mod:`desktop.core.hosts.verdict` applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN = "unknown"

# What a host does with a skill that breaks one of its rules.
SKIPPED = "skill skipped"
LISTING_REFUSED = "whole listing refused"
WARNING_ONLY = "warning"
MISREAD = "read differently"


@dataclass(frozen=True, slots=True)
class Rule:
    """One fact about a host, in plain words, with where it comes from."""

    kind: str  # reader, name, field, type, failure, listing
    text: str
    source: str


@dataclass(frozen=True, slots=True)
class Listing:
    """How a host lists skills for the model.

    ``fraction`` of the context window (in tokens) goes to the listing, counted as
    ``chars_per_token`` characters each, or ``fallback`` characters when no context
    size is known; each entry is cut at ``entry_cut`` characters. ``None`` where the
    host is not known to have such a limit.
    """

    format: str
    fraction: float | None = None
    chars_per_token: int = 4
    fallback: int | None = None
    entry_cut: int | None = None
    known: bool = True


@dataclass(frozen=True, slots=True)
class HostProfile:
    id: str
    title: str
    reader: str  # pyyaml-like, yaml-1.2, simple-lines, unknown
    # Name rules: ``spec`` (lowercase letters, digits, single hyphens), ``text``
    # (any non-empty text), or unknown.
    name_rule: str
    name_max: int | None
    name_equals_folder: bool | None
    description_max: int | None
    compatibility_max: int | None
    metadata_text_only: bool | None
    short_description_max: int | None
    failure: str  # SKIPPED, LISTING_REFUSED, WARNING_ONLY, MISREAD or UNKNOWN
    listing: Listing
    rules: tuple[Rule, ...]


def profiles() -> tuple[HostProfile, ...]:
    from desktop.core.hosts.data import PROFILES

    return PROFILES


def profile(host_id: str) -> HostProfile:
    for p in profiles():
        if p.id == host_id:
            return p
    raise KeyError(host_id)


def host_ids() -> tuple[str, ...]:
    return tuple(p.id for p in profiles())

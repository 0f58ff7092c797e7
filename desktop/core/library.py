"""The library's views and the words the window says of a skill or a source.

A *view* is one of the sidebar's Library rows (All, To review, ...): a predicate over a
skill and its approval state. Counts, predicates and state words live here so the window
and the command line say the same thing, and so they are tested without Qt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from desktop.core.model import Skill, SourceSpec, SourceStatus

ALL = "all"
TO_REVIEW = "to-review"
CHANGED = "changed"
PROBLEMS = "problems"
APPROVED = "approved"

# (key, label, tooltip) in sidebar order.
VIEWS: tuple[tuple[str, str, str], ...] = (
    (ALL, "All skills", "Every skill from every source that is on"),
    (
        TO_REVIEW,
        "To review",
        "Skills nobody approved yet, or changed since they were approved",
    ),
    (
        CHANGED,
        "Changed since approval",
        "Approved skills whose files are no longer the ones approved",
    ),
    (
        PROBLEMS,
        "Has problems",
        "Skills whose entry is invalid, over a limit, or breaks a rule of the format",
    ),
    (APPROVED, "Approved", "Skills approved for exactly the files they list now"),
)
VIEW_KEYS = frozenset(key for key, _, _ in VIEWS)


def has_problems(skill: Skill) -> bool:
    """Whether the skill has a problem worth a user's eye (an error, not a note)."""
    return skill.has_errors() or skill.state in ("invalid", "over-limit")


def in_view(view: str, skill: Skill, approval: str | None) -> bool:
    """Whether ``skill`` (with its approval state, if known) belongs to ``view``."""
    if view in ("", ALL):
        return True
    if view == TO_REVIEW:
        return approval in ("not-approved", "changed")
    if view == CHANGED:
        return approval == "changed"
    if view == APPROVED:
        return approval == "approved"
    if view == PROBLEMS:
        return has_problems(skill)
    return False


def view_counts(skills: Iterable[Skill], approvals: Mapping[str, str]) -> dict[str, int]:
    """How many skills each view holds."""
    counts = dict.fromkeys((key for key, _, _ in VIEWS), 0)
    for skill in skills:
        approval = approvals.get(skill.id)
        counts[ALL] += 1
        if approval in ("not-approved", "changed"):
            counts[TO_REVIEW] += 1
        if approval == "changed":
            counts[CHANGED] += 1
        if approval == "approved":
            counts[APPROVED] += 1
        if has_problems(skill):
            counts[PROBLEMS] += 1
    return counts


def source_counts(skills: Iterable[Skill]) -> Counter[str]:
    """Skills per source label."""
    return Counter(skill.origin.label for skill in skills)


# -- sources ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceWords:
    """What the sidebar says of a source: its kind, a status word and a mark."""

    kind: str  # "folder" | "local process" | "remote server"
    status: str  # a short word: "Ready", "Reading…", "Failed", "Off", "Empty"
    mark: str  # "ok" | "busy" | "error" | "off" | "empty" | "partial"
    detail: str  # the whole status, for a tooltip or a status line


def kind_word(spec: SourceSpec) -> str:
    if spec.kind == "local":
        return "folder"
    return "local process" if spec.transport == "stdio" else "remote server"


def source_words(spec: SourceSpec, status: SourceStatus | None) -> SourceWords:
    kind = kind_word(spec)
    if not spec.enabled:
        return SourceWords(kind, "Off", "off", "Turned off: its skills are not shown.")
    if status is None or status.status == "pending":
        return SourceWords(kind, "Reading…", "busy", "Being read.")
    message = status.message
    if status.status == "error":
        return SourceWords(kind, "Failed", "error", message or "Could not be read.")
    if status.status == "no-skills":
        return SourceWords(kind, "No skills", "empty", message or "Holds no skills.")
    if status.status == "cancelled":
        return SourceWords(kind, "Stopped", "partial", message or "Reading was stopped.")
    if status.status != "ok":
        return SourceWords(kind, status.status.capitalize(), "partial", message)
    n = status.skill_count
    detail = f"{n} skill{'s' if n != 1 else ''}" + (f"; {message}" if message else "")
    return SourceWords(kind, "Ready", "ok", detail)


def failed_sources(specs: Iterable[SourceSpec], statuses: Mapping[str, SourceStatus]) -> list[str]:
    """Labels of the sources that are on and could not be read."""
    out = []
    for spec in specs:
        status = statuses.get(spec.label)
        if spec.enabled and status is not None and status.status == "error":
            out.append(spec.label)
    return out

"""The catalog in one value: which sources are read, failed or still reading, and how
many skills each gave.

Every part of the window that counts sources or skills (the list's empty state, the
sidebar, the message bar, the status bar) reads this one value, derived from the
session's statuses and skills, so no two of them disagree about a source. A skill that
is gone from its source says so in the words of :func:`gone_words`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.states import SourceState
from desktop.core.words import count

# How many failed sources' names a sentence names before "…".
NAMED = 3


@dataclass(frozen=True, slots=True)
class CatalogSummary:
    """The sources that are on, by what reading them came to, and the skills shown."""

    read: tuple[str, ...] = ()  # labels read (with skills or none)
    failed: tuple[tuple[str, str], ...] = ()  # (label, why) of those that failed
    waiting: tuple[str, ...] = ()  # labels being read (or not read yet)
    unread: tuple[str, ...] = ()  # labels not read: not trusted to start, or stopped
    off: tuple[str, ...] = ()  # labels turned off
    skills: int = 0  # skills in the catalog
    per_source: Mapping[str, int] = field(default_factory=dict)  # skills by label

    @property
    def failed_labels(self) -> list[str]:
        return [label for label, _why in self.failed]

    @property
    def sources(self) -> int:
        """Sources that are on."""
        return len(self.read) + len(self.failed) + len(self.waiting) + len(self.unread)

    def failed_sentence(self) -> str:
        """The failed sources in a sentence ("" when none failed)."""
        n = len(self.failed)
        if not n:
            return ""
        names = ", ".join(self.failed_labels[:NAMED]) + ("…" if n > NAMED else "")
        return f"{count(n, 'source')} could not be read ({names})"

    def status_text(self) -> str:
        """The status bar's count: skills, and the sources that failed, still read or were
        not read."""
        parts = [count(self.skills, "skill")]
        if self.read:
            parts.append(f"from {count(len(self.read), 'source')}")
        text = " ".join(parts)
        if self.failed:
            text += f"; {len(self.failed)} failed"
        if self.waiting:
            text += f"; {len(self.waiting)} reading…"
        if self.unread:
            text += f"; {len(self.unread)} not read"
        return text


def summarize(
    specs: Iterable[SourceSpec],
    statuses: Mapping[str, SourceStatus],
    skills: Iterable[Skill],
) -> CatalogSummary:
    """The summary of the sources ``specs`` (their last statuses by label) and the
    catalog's ``skills``. A source on with no status, or one being read, is waiting; one
    not trusted to start, or whose reading was stopped, is unread; a status word no
    state has counts as read (it was answered)."""
    read: list[str] = []
    failed: list[tuple[str, str]] = []
    waiting: list[str] = []
    unread: list[str] = []
    off: list[str] = []
    for spec in specs:
        if not spec.enabled:
            off.append(spec.label)
            continue
        status = statuses.get(spec.label)
        state = status.state if status is not None else SourceState.PENDING
        if status is not None and state is SourceState.FAILED:
            failed.append((spec.label, status.message))
        elif state in (SourceState.OK, SourceState.NO_SKILLS) or state is None:
            read.append(spec.label)
        elif state is SourceState.PENDING:
            waiting.append(spec.label)
        else:
            unread.append(spec.label)
    per_source = Counter(skill.origin.label for skill in skills)
    return CatalogSummary(
        read=tuple(read),
        failed=tuple(failed),
        waiting=tuple(waiting),
        unread=tuple(unread),
        off=tuple(off),
        skills=sum(per_source.values()),
        per_source=dict(per_source),
    )


def gone_words(skill: Skill) -> tuple[str, str]:
    """What the page says of a skill it showed that its source no longer holds: a title
    (the skill's name) and a sentence."""
    if skill.kind_info.folder_on_disk:
        return skill.name, "This skill is no longer in its folder."
    return skill.name, f"This skill is no longer listed by {skill.origin.label}."


def retry_words(label: str, status: SourceStatus, skills: int) -> tuple[bool, str]:
    """How a retry of source ``label`` ended, in a brief notice: whether it was read,
    and the sentence."""
    if status.state is SourceState.FAILED:
        return False, f"{label} still fails: {status.message or 'it could not be read'}"
    if status.state in (SourceState.OK, SourceState.NO_SKILLS):
        return True, f"Read {count(skills, 'skill')} from {label}"
    word = status.state.label if status.state is not None else status.status
    return False, f"{label}: {word}" + (f": {status.message}" if status.message else "")

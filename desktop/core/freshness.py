"""When a server's listing is asked for again, and what changed when it was.

``ttlMs`` on a ``skills/list`` result is the server's hint for how long the listing
may be treated as current. The window re-lists a server when that time is up, but
never more often than a floor, whatever the server says (a ``ttlMs`` of 0 would
otherwise mean asking without pause), and never less often than once a day. It is a
freshness hint only: re-listed entries are checked exactly like the first ones, and
nothing read against an entry that has since changed counts for the new one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from desktop.core.model import Skill, SourceStatus

RELIST_FLOOR_SECONDS = 60.0
# And at least once a day: a ttlMs of 10**400 is a valid JSON integer, and a timer
# that far off is one no event loop can hold (nor any user wait for).
RELIST_CEILING_SECONDS = 86_400.0


def relist_delay(status: SourceStatus, floor: float = RELIST_FLOOR_SECONDS) -> float | None:
    """Seconds until the server's listing is due again, or ``None`` for never.

    Only a server whose listing arrived and carried a ``ttlMs`` is re-listed. One
    whose listing ended in an error waits for the user's refresh; so do folders and
    servers answered ``-32601`` (no listing, so no ``ttlMs``).
    """
    if status.origin.kind != "mcp" or status.ttl_ms is None or status.status == "error":
        return None
    ceiling_ms = int(RELIST_CEILING_SECONDS * 1000)
    return max(min(status.ttl_ms, ceiling_ms) / 1000.0, floor)


def _entry_key(skill: Skill) -> tuple[Any, ...]:
    manifest: Any = (
        "dynamic" if skill.is_dynamic else tuple((f.uri, f.digest, f.size) for f in skill.files)
    )
    return (repr(skill.frontmatter), manifest, skill.state)


@dataclass(frozen=True, slots=True)
class ListingChanges:
    """Skill ids added, changed (frontmatter, manifest or state) and removed."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def summary(self) -> str:
        if not self:
            return "unchanged"
        return f"{len(self.added)} added, {len(self.changed)} changed, {len(self.removed)} removed"


def listing_changes(old: Iterable[Skill], new: Iterable[Skill]) -> ListingChanges:
    """Compare two listings of one source by skill id (server label + URI)."""
    before = {s.id: _entry_key(s) for s in old}
    after = {s.id: _entry_key(s) for s in new}
    return ListingChanges(
        added=tuple(i for i in after if i not in before),
        changed=tuple(i for i in after if i in before and before[i] != after[i]),
        removed=tuple(i for i in before if i not in after),
    )

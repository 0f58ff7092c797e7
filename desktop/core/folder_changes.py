"""What changed in a watched folder, which skills it touches, and when to read them again.

Pure rules over two listings of a folder taken some time apart (the walk itself is
:mod:`desktop.sources.folder_watch`): no I/O, no clock of its own.

- A listing maps each entry's path (relative to the folder, ``/``-separated) to what
  was seen of it: a directory only by its being there (its modification time changes
  whenever an entry is added or removed, which the entries themselves already say); a
  file or link by its type, size and modification time.
- A changed path touches the outermost skill folder holding it: a skill's manifest
  lists its nested skills' files too, so that one read covers every skill enclosing
  the change. A path in no skill touches nothing, unless it is a folder appearing or
  going (it may hold skills) or a ``SKILL.md`` (its folder becomes, or stops being, a
  skill). The folder itself (``""``) as a region means reading all of it again.
- A burst of saves is one change: the changes seen are held until a listing shows
  nothing new for :attr:`Coalescer.quiet` seconds, and never longer than
  :attr:`Coalescer.longest` (a file written without pause is still read now and then).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from desktop.core.model import Skill

DIRECTORY = (0, 0, 0)
"""How a directory is listed: that it is there, nothing more."""

Seen = tuple[int, int, int]  # (file type bits of st_mode, size, mtime in ns); DIRECTORY
Listing = Mapping[str, Seen]

POLL_SECONDS = 0.25
"""The shortest pause between two listings of a watched folder."""
BURST_SECONDS = 0.1
"""The pause while changes are held, and how long a folder must be quiet to let them go."""
COST_FACTOR = 10
"""The pause is at least this many times what the last listing took: watching takes at
most about a tenth of one processor, whatever the folder's size."""

SKILL_MD = "SKILL.md"
WHOLE = ""
"""The region that is the whole folder."""


def pause(waiting: bool, listing_seconds: float) -> float:
    """Seconds until the next listing: soon while changes are held, else as the cost of
    the last listing (``listing_seconds``) allows."""
    if waiting:
        return BURST_SECONDS
    return max(POLL_SECONDS, COST_FACTOR * listing_seconds)


def changed_paths(old: Listing, new: Listing) -> set[str]:
    """Paths added, removed, or seen differently (type, size or modification time)."""
    changed = {path for path, seen in new.items() if old.get(path) != seen}
    changed.update(path for path in old if path not in new)
    return changed


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _outermost(path: str, skill_dirs: Collection[str]) -> str | None:
    """The outermost skill folder that is ``path`` or holds it, if any."""
    if WHOLE in skill_dirs:
        return WHOLE
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        candidate = "/".join(parts[:i])
        if candidate in skill_dirs:
            return candidate
    return None


def regions(
    changed: Iterable[str],
    skill_dirs: Collection[str],
    directories: Collection[str] = (),
) -> frozenset[str]:
    """The folders to read again for ``changed`` paths, none inside another.

    ``skill_dirs`` are the skill folders known before the change (``""`` for a skill
    that is the folder itself); ``directories`` the paths among ``changed`` that are
    (or were) directories. An empty result: nothing any skill is made of changed.
    """
    found: set[str] = set()
    for path in changed:
        if not path:
            continue
        outer = _outermost(path, skill_dirs)
        if outer is not None:
            found.add(outer)
        elif path in directories:
            found.add(path)
        elif path == SKILL_MD or path.endswith("/" + SKILL_MD):
            found.add(_parent(path))
    if WHOLE in found:
        return frozenset({WHOLE})
    # Sorted, a folder comes before every path below it.
    kept: list[str] = []
    for region in sorted(found):
        if not any(region.startswith(k + "/") for k in kept):
            kept.append(region)
    return frozenset(kept)


def within(rel_dir: str, region: str) -> bool:
    """Whether the folder ``rel_dir`` is ``region`` or lies below it."""
    return region == WHOLE or rel_dir == region or rel_dir.startswith(region + "/")


@dataclass
class Coalescer:
    """Holds the changes of a burst until the folder is quiet, then lets them go as one.

    Feed it every listing's changes (an empty set when nothing changed) with the time
    it was taken; it answers the paths to read again once, when they are due.
    """

    quiet: float = BURST_SECONDS
    longest: float = 2.0
    pending: set[str] = field(default_factory=set)
    first: float | None = None
    last: float | None = None

    def observe(self, changed: Iterable[str], now: float) -> frozenset[str] | None:
        """The held paths when due (and forgets them), else ``None``."""
        new = set(changed)
        if new:
            self.pending |= new
            if self.first is None:
                self.first = now
            self.last = now
        if self.first is None or self.last is None:
            return None
        quiet = not new and now - self.last >= self.quiet
        if quiet or now - self.first >= self.longest:
            batch = frozenset(self.pending)
            self.pending.clear()
            self.first = self.last = None
            return batch
        return None

    @property
    def waiting(self) -> bool:
        """Whether changes are held: the next listing should come soon."""
        return self.first is not None


def skill_dir(uri: str) -> str:
    """The folder of a local skill (relative to its source) from its ``SKILL.md`` URI."""
    return _parent(uri) if uri != SKILL_MD else WHOLE


def replace_in(
    old: Iterable[Skill], chosen: Collection[str], fresh: Iterable[Skill]
) -> list[Skill]:
    """A source's skills with those inside the ``chosen`` regions replaced by ``fresh``
    (read there again), in the order a scan of the whole folder gives (by folder)."""
    kept = [s for s in old if not any(within(skill_dir(s.uri), r) for r in chosen)]
    return sorted([*kept, *fresh], key=lambda s: skill_dir(s.uri))

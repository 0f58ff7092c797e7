"""A watched folder's listing: every entry's type, size and modification time.

The window and ``lint --watch`` take one now and then and compare it with the last
(:mod:`desktop.core.folder_changes` says what changed and which skills it touches).
Only directory entries are read, never a file: one listing of a folder of 10,000
files costs a few tens of milliseconds, and callers run it off the window's thread.

The walk is the scan's (:mod:`desktop.sources.folder`): ``.git`` and the private cache
of verified bytes are never entered, and no link is followed. It is bounded: past
:data:`MAX_ENTRIES` entries the listing stops and says the folder is too large to
watch. A folder that is gone or cannot be read says so in plain words: one never seen
does not exist, one seen before is no longer there.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from desktop.core.folder_changes import DIRECTORY, Seen
from desktop.core.words import count
from desktop.sources.folder import SKIPPED_DIRS, cache_real_path, relative_inside

MAX_ENTRIES = 200_000
"""Entries listed at most per folder: past it the folder is not watched."""

OK = "ok"
GONE = "gone"
UNREADABLE = "unreadable"
TOO_LARGE = "too-large"


@dataclass
class FolderListing:
    """One walk of a watched folder. ``state`` is :data:`OK`, :data:`GONE`,
    :data:`UNREADABLE` or :data:`TOO_LARGE`; ``message`` says why in plain words."""

    root: str
    state: str = OK
    message: str = ""
    entries: dict[str, Seen] = field(default_factory=dict)
    directories: set[str] = field(default_factory=set)


def list_folder(root: str, max_entries: int = MAX_ENTRIES, *, seen: bool = True) -> FolderListing:
    """Walk ``root``; never raises (what goes wrong is the listing's state).

    ``seen`` says whether the folder was listed before: a missing folder never seen
    does not exist, one seen is no longer there."""
    listing = FolderListing(root)
    try:
        st = os.stat(root)
    except FileNotFoundError:
        gone = "is no longer there" if seen else "does not exist"
        listing.state, listing.message = GONE, f"the folder {root} {gone}"
        return listing
    except OSError as exc:
        listing.state = UNREADABLE
        listing.message = f"the folder {root} cannot be read: {exc.strerror or exc}"
        return listing
    if not stat.S_ISDIR(st.st_mode):
        listing.state = GONE
        listing.message = f"{root} is {'no longer' if seen else 'not'} a folder"
        return listing
    real_root = os.path.realpath(root)
    cache = cache_real_path()
    skip = relative_inside(cache, real_root) if cache else None
    entries = listing.entries
    directories = listing.directories
    pending: list[tuple[str, str]] = [(root, "")]
    while pending:
        full, rel = pending.pop()
        try:
            with os.scandir(full) as it:
                found = list(it)
        except OSError as exc:
            if not rel:  # the folder itself: nothing of it can be seen
                listing.state = UNREADABLE
                listing.message = f"the folder {root} cannot be read: {exc.strerror or exc}"
                entries.clear()
                directories.clear()
                return listing
            entries[rel] = (-1, 0, 0)  # a folder that cannot be listed is still seen
            continue
        base = rel + "/" if rel else ""
        for entry in found:
            path = base + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in SKIPPED_DIRS or path == skip:
                        continue
                    entries[path] = DIRECTORY
                    directories.add(path)
                    pending.append((entry.path, path))
                else:
                    s = entry.stat(follow_symlinks=False)
                    entries[path] = (stat.S_IFMT(s.st_mode), s.st_size, s.st_mtime_ns)
            except OSError:
                continue  # gone since the directory was read: the next listing says so
        if len(entries) > max_entries:
            listing.state = TOO_LARGE
            listing.message = (
                f"the folder {root} holds more than {count(max_entries, 'entry', 'entries')}, "
                "too many to watch"
            )
            entries.clear()
            directories.clear()
            return listing
    return listing

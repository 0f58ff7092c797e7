"""How the user's settings files (``sources.json``, ``trust.json``) are changed.

Two commands may run at once (two terminals, a script and the window). A change is a
read-modify-write under a lock file beside the settings file (``.sources.json.lock``):
the file is read again once the lock is held, changed, and written to a temporary file
of its own (a unique name in the same folder), flushed to disk and renamed over the
file, so that a reader sees the old file or the new one, never a part, and no writer's
change is lost or undone by another's. What a command reports is what it wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# How long a change waits for another program's change to the same file.
LOCK_WAIT_S = 30.0

_LOCKS: dict[str, Any] = {}
_LOCKS_GUARD = threading.Lock()


class SettingsBusy(OSError):
    """Another program held the settings file's lock for longer than :data:`LOCK_WAIT_S`."""


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _lock(path: Path) -> Any:
    import filelock

    key = str(lock_path(path))
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            # Reentrant within a thread: a change may call a save that locks again.
            lock = filelock.FileLock(key, mode=0o600)
            _LOCKS[key] = lock
        return lock


@contextlib.contextmanager
def locked(path: Path, wait: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold ``path``'s lock: every read-modify-write of a settings file happens inside.

    Raises :class:`SettingsBusy` when another program holds it for ``wait`` seconds,
    and an ``OSError`` when the folder cannot hold a lock file (nothing is changed)."""
    import filelock

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = _lock(path)
    try:
        lock.acquire(timeout=wait)
    except filelock.Timeout:
        raise SettingsBusy(
            f"{path} was not changed: another Skill Catalog has been changing it for "
            f"{wait:g} s (lock file {lock_path(path)})"
        ) from None
    try:
        yield
    finally:
        lock.release()


def write_json(path: Path, data: Any, *, ensure_ascii: bool = True) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file of its own in the
    same folder (private to the user), flushed to disk, then renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=ensure_ascii)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

"""Skills written into agents' folders, and the locks that record them.

A skill is written whole or not at all: its files go into a temporary folder beside the
target (same file system), and the folder is renamed into place. (Files are not synced
one by one: what is guarded against is a process stopped half way, and a sync per file
made installing thirty times slower than a copy; the lock file itself is synced.) A
process killed half way leaves a ``.skill-catalog-*`` temporary folder, which agents do
not read as a skill (its name starts with a dot) and the next install removes; never a
half-written skill. A folder the catalog did not install is never replaced without
``replace=True``, and then it is first moved aside as a backup.

Locks are JSON files (:func:`desktop.core.install.render_lock`): the user's in the
catalog's state folder, a project's at its root. Each is read and written under a
file lock, so two processes installing at once both end up recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.core.install import (
    LOCK_FILE,
    InstallError,
    LockEntry,
    parse_lock,
    render_lock,
    safe_relative_path,
)

APP_NAME = "skill-catalog"
TEMP_PREFIX = ".skill-catalog-"
BACKUP_PREFIX = ".skill-catalog-backup-"
LOCK_TIMEOUT = 30.0  # seconds to wait for another process's write of a lock
MAX_LOCK_BYTES = 16 * 1024 * 1024
# Reading an installed folder: at most this many files and bytes per skill.
MAX_FILES = 5_000
MAX_BYTES = 256 * 1024 * 1024


def user_lock_path() -> Path:
    """The user's lock: the catalog's state folder (``$XDG_STATE_HOME`` respected)."""
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)) / "installed.json"


def kept_folder(folder: Path, name: str) -> Path:
    """Where the catalog keeps the skill ``name`` of the agents' ``folder`` while it is
    disabled: in its state folder, out of every agent's sight."""
    key = hashlib.sha256(str(folder).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return user_lock_path().parent / "disabled" / key / name


def move_folder(source: Path, target: Path) -> None:
    """Move a skill's folder whole (a rename, or a copy then a removal across file
    systems, the copy made beside the target first)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(source, target)
    except OSError:
        staging = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=target.parent)) / "copy"
        shutil.copytree(source, staging, symlinks=True)
        os.rename(staging, target)
        shutil.rmtree(staging.parent, ignore_errors=True)
        shutil.rmtree(source)


def project_lock_path(project: Path) -> Path:
    return project / LOCK_FILE


@dataclass(frozen=True, slots=True)
class FileToWrite:
    """One file of a skill to install: where in its folder, its bytes, whether it runs."""

    path: str
    data: bytes
    executable: bool = False


def write_skill(
    folder: Path,
    name: str,
    files: Sequence[FileToWrite],
    *,
    replace: bool = False,
    before_rename: Callable[[Path], None] | None = None,
) -> Path | None:
    """Write ``files`` as the skill ``folder/name``, atomically; the backup made of a
    folder it replaced (``replace``), else ``None``.

    ``before_rename`` is called with the finished temporary folder (tests stop there).
    Raises :class:`InstallError` when the target exists and ``replace`` is false.
    """
    folder.mkdir(parents=True, exist_ok=True)
    _sweep_temporaries(folder)
    target = folder / name
    staging = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=folder))
    try:
        for f in files:
            if not safe_relative_path(f.path):
                raise InstallError(f"the file {f.path!r} would be written outside the skill")
            path = staging / f.path
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as out:
                out.write(f.data)
            os.chmod(path, 0o755 if f.executable else 0o644)
        os.chmod(staging, 0o755)
        if before_rename is not None:
            before_rename(staging)
        backup = None
        if target.exists() or target.is_symlink():
            if not replace:
                raise InstallError(f"{target} exists")
            backup = folder / f"{BACKUP_PREFIX}{name}-{time.strftime('%Y%m%d%H%M%S')}"
            os.rename(target, backup)
        os.rename(staging, target)
        return backup
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _sweep_temporaries(folder: Path) -> None:
    """Remove what an interrupted install left (never a backup, never a skill)."""
    with contextlib.suppress(OSError):
        for child in folder.iterdir():
            if child.name.startswith(TEMP_PREFIX) and not child.name.startswith(BACKUP_PREFIX):
                shutil.rmtree(child, ignore_errors=True)


def remove_skill(target: Path) -> None:
    """Remove an installed skill's folder (a link is removed, never followed)."""
    if target.is_symlink():
        target.unlink()
    else:
        shutil.rmtree(target)


def folder_digests(folder: Path) -> dict[str, str]:
    """Every regular file under ``folder``: relative path → SHA-256 hex. A link is
    reported as ``link:<where it points>``, never followed. Bounded by :data:`MAX_FILES`
    and :data:`MAX_BYTES` (:class:`InstallError` beyond)."""
    out: dict[str, str] = {}
    total = 0
    stack = [("", os.fspath(folder))]
    while stack:
        prefix, path = stack.pop()
        with os.scandir(path) as entries:
            for e in entries:
                rel = prefix + e.name
                if e.is_symlink():
                    out[rel] = "link:" + os.readlink(e.path)
                elif e.is_dir(follow_symlinks=False):
                    stack.append((rel + "/", e.path))
                elif e.is_file(follow_symlinks=False):
                    total += e.stat(follow_symlinks=False).st_size
                    if total > MAX_BYTES:
                        raise InstallError(f"{folder} holds more than {MAX_BYTES >> 20} MiB")
                    with open(e.path, "rb") as f:
                        out[rel] = hashlib.file_digest(f, "sha256").hexdigest()
                if len(out) > MAX_FILES:
                    raise InstallError(f"{folder} holds more than {MAX_FILES} files")
    return out


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import filelock

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with filelock.FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT, mode=0o600):
            yield
    except filelock.Timeout as exc:
        raise InstallError(f"another process holds {path} for too long") from exc


def read_lock(path: Path) -> list[LockEntry]:
    """The entries of the lock at ``path`` (none when it does not exist)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOCK_BYTES + 1)
    except FileNotFoundError:
        return []
    if len(data) > MAX_LOCK_BYTES:
        raise InstallError(f"{path} is larger than {MAX_LOCK_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path} is not UTF-8 text") from exc
    try:
        return parse_lock(text)
    except InstallError as exc:
        raise InstallError(f"{path}: {exc}") from exc


def update_lock(path: Path, change: Callable[[list[LockEntry]], list[LockEntry]]) -> None:
    """Read the lock at ``path``, apply ``change``, write it back atomically, all under
    a file lock (two processes at once lose nothing)."""
    with _locked(path):
        entries = change(read_lock(path))
        text = render_lock(entries)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

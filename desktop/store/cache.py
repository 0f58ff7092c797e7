"""A private, content-addressed cache of verified server bytes.

Layout under the user's cache directory (``$XDG_CACHE_HOME/skill-catalog/verified``)::

    <root>/                     mode 0700
      <label>-<hash16>/         one directory per source: label + the server it reaches
                                (its server key; a folder named by an older version's
                                hash is renamed to this on first use)
        source.json             {"label", "endpoint"}: the originating server, readable
        <uri-hash32>/           one directory per skill file URI (hash: safe on any
                                filesystem, no traversal, no case-folding collisions)
          uri                   the URI in full
          <digest hex>          the verified bytes, mode 0400, written once by rename;
                                only the newest version's copy is kept

      approved/                 copies an approval binds, kept while it exists
        <approval name>/        one per stored approval (its keyring entry's name)
          <uri-hash32>/<digest hex>   the verified bytes of each file read when approved

Only verified bytes are cached (the caller passes the digest they matched); a large
file may be written under a temporary name while its digest is computed, and is
renamed into place only once it matched (removed otherwise). Every
read re-hashes the file and compares it with the entry's digest and size; a
mismatch deletes the copy and reports a miss. Nothing is ever rewritten in place.

The copies an approval binds (of a local skill as of a server's) are kept apart from
the newest-version copies, so that a later change can be compared with what was
approved; revoking the approval removes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from desktop.core.manifest import DIGEST_RE
from desktop.core.model import Origin, SkillFile

APP_NAME = "skill-catalog"
APPROVED_DIR = "approved"
_RECORD_LIMIT = 64 * 1024  # a source.json is a label and an address


def default_cache_root() -> Path:
    """The cache root: platformdirs' user cache dir (respects ``XDG_CACHE_HOME``)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "verified"


def _hex(text: str, n: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def _safe_label(label: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in label.lower())
    # 64 bytes, not characters: 64 letters outside ASCII made a name over the 255 bytes
    # a file name may have, and nothing of that server could be cached.
    cut = cleaned.strip(".").encode("utf-8")[:64].decode("utf-8", "ignore")
    return cut or "source"


# A temporary file this old was left by a run that ended between writing and renaming
# (a crash, a kill): nobody is still writing it.
STALE_TEMP_SECONDS = 3600
_DIGEST_NAME_LEN = 64


class StagedFile:
    """Bytes written under a temporary name next to where they will be cached."""

    def __init__(self, tmp: str, target: Path, *, supersedes: bool = False) -> None:
        self.tmp = tmp
        self.target = target
        self.supersedes = supersedes

    def commit(self) -> Path:
        """Make the copy read-only and move it into place in one rename. A file's copy
        supersedes the copies of its earlier versions, which are removed then."""
        try:
            os.chmod(self.tmp, 0o400)
            os.replace(self.tmp, self.target)
        except BaseException:
            self.discard()
            raise
        if self.supersedes:
            _sweep_versions(self.target)
        return self.target

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def _sweep_versions(kept: Path) -> None:
    """Remove, beside a file's newly cached copy, the copies of its other versions and
    temporary files left behind by a run that ended mid-write: without this, a server
    whose files change keeps adding copies until it is removed. Never follows a link;
    whatever cannot be removed stays (every read re-hashes anyway)."""
    import time

    stale = time.time() - STALE_TEMP_SECONDS
    try:
        with os.scandir(kept.parent) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        try:
            if name == kept.name or entry.is_dir(follow_symlinks=False):
                continue
            old_copy = len(name) == _DIGEST_NAME_LEN and all(c in "0123456789abcdef" for c in name)
            left_over = name.startswith(".tmp-") and (
                entry.stat(follow_symlinks=False).st_mtime < stale
            )
            if old_copy or left_over:
                os.unlink(entry.path)
        except OSError:
            continue


def _write_temp(target: Path, data: bytes, *, supersedes: bool = False) -> StagedFile:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
    staged = StagedFile(tmp, target, supersedes=supersedes)
    try:
        # No fsync: every read re-hashes, so a copy torn by a crash is a miss.
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        staged.discard()
        raise
    return staged


class SkillCache:
    """The verified-bytes cache. Cheap to construct; directories appear on first write."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_root()

    # -- paths -------------------------------------------------------------------------

    def source_dir(self, origin: Origin) -> Path:
        """The folder of a source's files: its label and a hash of its label and of the
        server it reaches (:func:`~desktop.core.identity.server_key`: the transport and
        the normalized endpoint with placeholders filled in)."""
        identity = _hex(f"{origin.label}\0{origin.server()}", 16)
        return self.root / f"{_safe_label(origin.label)}-{identity}"

    def legacy_source_dir(self, origin: Origin) -> Path:
        """The folder versions before the server key (up to 3f4c5c9) kept a source's files
        in: a hash of the label, the transport and the endpoint not normalized."""
        endpoint = origin.legacy_endpoint()
        identity = _hex(f"{origin.label}\0{origin.transport}\0{endpoint}", 16)
        return self.root / f"{_safe_label(origin.label)}-{identity}"

    def _moved_source_dir(self, origin: Origin) -> Path:
        """:meth:`source_dir`, after moving there the folder an older version kept the
        source's files in, when there is one and nothing is at the new place yet (one
        rename; a folder that cannot be moved is left, and the files are read again)."""
        current = self.source_dir(origin)
        if os.path.lexists(current):
            return current
        legacy = self.legacy_source_dir(origin)
        if legacy != current and legacy.is_dir() and not legacy.is_symlink():
            with contextlib.suppress(OSError):
                os.replace(legacy, current)
        return current

    def file_dir(self, origin: Origin, uri: str) -> Path:
        return self.source_dir(origin) / _hex(uri, 32)

    def path_for(self, origin: Origin, uri: str, digest: str) -> Path:
        if not DIGEST_RE.match(digest):
            raise ValueError(f"not a sha256 digest: {digest!r}")
        return self.file_dir(origin, uri) / digest.split(":", 1)[1]

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether a path lies inside the cache (a folder scan must never include it)."""
        try:
            here = os.path.realpath(self.root)
            there = os.path.realpath(path)
            return (
                os.path.commonpath([here, there]) == here
                or os.path.commonpath([here, there]) == there
            )
        except ValueError:
            return False

    # -- writing -----------------------------------------------------------------------

    def _mkdir_private(self, path: Path) -> None:
        # A folder inside the cache replaced by a link is not followed: verified bytes
        # would be written wherever it points (into a skill folder a scan reads, say).
        # A file in a folder's place is removed too: it was never replaced, and nothing
        # of that server (or of that file) was cached again. The root itself may be a
        # link someone made on purpose (to another disk) and is left as it is.
        if path != self.root and (
            path.is_symlink() or (os.path.lexists(path) and not path.is_dir())
        ):
            path.unlink()
        # Folders made on the way there (the cache home, the program's own folder) are
        # private too, whatever the umask: under umask 000 they were open to everyone,
        # who could then put a folder or link of their own in the cache's place.
        missing: list[Path] = []
        parent = path.parent
        while parent != parent.parent and not parent.exists():
            missing.append(parent)
            parent = parent.parent
        for folder in reversed(missing):
            try:
                folder.mkdir(mode=0o700)
            except FileExistsError:
                continue
            os.chmod(folder, 0o700)
        path.mkdir(exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)

    def _ensure_dirs(self, origin: Origin, uri: str) -> Path:
        self._mkdir_private(self.root)
        src = self._moved_source_dir(origin)
        self._mkdir_private(src)
        marker = src / "source.json"
        # Its secrets masked, as wherever an endpoint is shown: a secret is never written
        # to a file (the folder's name carries only a hash of it). One written in clear
        # by an earlier version is written again.
        recorded = json.dumps({"label": origin.label, "endpoint": origin.shown_endpoint})
        try:  # a regular file only: whatever else is there is replaced, never waited on
            plain = marker.is_file() and not marker.is_symlink()
            current = marker.read_bytes() if plain else None
        except OSError:
            current = None
        if current != recorded.encode("utf-8"):
            self._write_atomic(marker, recorded.encode("utf-8"))
        fdir = self.file_dir(origin, uri)
        self._mkdir_private(fdir)
        uri_file = fdir / "uri"
        if not uri_file.exists():
            self._write_atomic(uri_file, uri.encode("utf-8", "surrogatepass"))
        return fdir

    def _write_atomic(self, target: Path, data: bytes) -> None:
        _write_temp(target, data).commit()

    def put(
        self, origin: Origin, uri: str, expected: SkillFile, data: bytes, *, hashed: bool = False
    ) -> Path:
        """Store bytes that were verified against ``expected``.

        The bytes are hashed again unless ``hashed`` says the caller has just checked
        this very buffer against ``expected`` (the verified-read path does).
        """
        if len(data) != expected.size:
            raise ValueError(f"refusing to cache bytes that do not match {expected.digest}")
        if not hashed and "sha256:" + hashlib.sha256(data).hexdigest() != expected.digest:
            raise ValueError(f"refusing to cache bytes that do not match {expected.digest}")
        self._ensure_dirs(origin, uri)
        target = self.path_for(origin, uri, expected.digest)
        if target.exists() and self.get(origin, uri, expected) is not None:
            return target
        _write_temp(target, data, supersedes=True).commit()
        return target

    def stage(
        self, origin: Origin, uri: str, expected: SkillFile, data: bytes
    ) -> StagedFile | None:
        """Write bytes that are still being checked to a private temporary file.

        Nothing is cached until the caller, having verified the same buffer against
        ``expected``, calls :meth:`StagedFile.commit`; :meth:`StagedFile.discard`
        removes the file. The temporary name is never one the cache reads. ``None``
        when there is nothing to write (wrong size, or a copy is already in place:
        every read re-hashes it anyway).
        """
        if len(data) != expected.size:
            return None
        self._ensure_dirs(origin, uri)
        target = self.path_for(origin, uri, expected.digest)
        if target.exists():
            return None
        return _write_temp(target, data, supersedes=True)

    # -- reading -----------------------------------------------------------------------

    def get(self, origin: Origin, uri: str, expected: SkillFile) -> bytes | None:
        """Cached bytes for this file if they still hash to ``expected``; else ``None``."""
        if not DIGEST_RE.match(expected.digest):
            return None
        self._moved_source_dir(origin)
        path = self.path_for(origin, uri, expected.digest)
        # Without blocking or following a link: a FIFO put in a file's place held the read
        # (and the window's preview) for ever. Anything but a regular file is dropped.
        # A folder in its place is dropped too (opening it as a file raised, every time).
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            if path.is_symlink():
                self._discard(path)
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                self._discard(path)
                return None
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(expected.size + 1)
        except OSError:  # unreadable (an I/O error): a miss, like a copy that changed
            return None
        if (
            len(data) != expected.size
            or "sha256:" + hashlib.sha256(data).hexdigest() != expected.digest
        ):
            self._discard(path)
            return None
        return data

    def _discard(self, path: Path) -> None:
        try:
            if path.is_dir() and not path.is_symlink():
                _rmtree_private(path)
            else:
                path.unlink()
        except OSError:
            pass

    # -- the approved versions ----------------------------------------------------------

    def approved_dir(self, name: str) -> Path:
        """Where the copies bound by the approval stored as ``name`` are kept."""
        if not name or not all(c.isalnum() or c == "-" for c in name):
            raise ValueError(f"not an approval name: {name!r}")
        return self.root / APPROVED_DIR / name

    def keep_approved(self, name: str, files: Iterable[tuple[SkillFile, bytes]]) -> int:
        """Keep verified copies of an approved version's files (in place of the ones
        kept for an earlier approval of it); returns how many were kept. Bytes that
        do not hash to their entry are refused (``ValueError``)."""
        checked = []
        for expected, data in files:
            if (
                len(data) != expected.size
                or "sha256:" + hashlib.sha256(data).hexdigest() != expected.digest
            ):
                raise ValueError(f"refusing to keep bytes that do not match {expected.digest}")
            checked.append((expected, data))
        self._mkdir_private(self.root)
        self._mkdir_private(self.root / APPROVED_DIR)
        target = self.approved_dir(name)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
        try:
            for expected, data in checked:
                folder = staging / _hex(expected.uri, 32)
                folder.mkdir(mode=0o700, exist_ok=True)
                copy = folder / expected.digest.split(":", 1)[1]
                copy.write_bytes(data)
                os.chmod(copy, 0o400)
            self.release_approved(name)
            os.replace(staging, target)
        except BaseException:
            _rmtree_private(staging)
            raise
        return len(checked)

    def approved_copy(self, name: str, expected: SkillFile) -> bytes | None:
        """The kept copy of a file as approved, if it still hashes to ``expected``."""
        if not DIGEST_RE.match(expected.digest):
            return None
        path = self.approved_dir(name) / _hex(expected.uri, 32) / expected.digest.split(":")[1]
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as fh:
            try:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    return None
                data = fh.read(expected.size + 1)
            except OSError:
                return None
        if len(data) != expected.size or "sha256:" + hashlib.sha256(data).hexdigest() != (
            expected.digest
        ):
            return None
        return data

    def keep_decision(self, name: str, files: list[tuple[SkillFile, bytes]] | None) -> str:
        """Keep the verified copies a decision binds (``None``, its files were not read:
        let go of the copies an earlier approval kept). Returns why not, or ``""``."""
        try:
            if files is None:
                self.release_approved(name)
            else:
                self.keep_approved(name, files)
        except (OSError, ValueError) as exc:
            return f"the approved files could not be kept for a later comparison: {exc}"
        return ""

    def move_approved(self, old: str, new: str) -> bool:
        """Keep the copies an approval stored as ``old`` kept under ``new`` (the record
        was moved under a new key); whether there were any to move."""
        source, target = self.approved_dir(old), self.approved_dir(new)
        if not source.is_dir() or source.is_symlink() or os.path.lexists(target):
            return False
        os.replace(source, target)
        return True

    def release_approved(self, name: str) -> bool:
        """Let go of the copies an approval kept (it was revoked or replaced)."""
        target = self.approved_dir(name)
        if not os.path.lexists(target):
            return False
        _rmtree_private(target)
        return True

    # -- removal -----------------------------------------------------------------------

    def source_dirs(self, label: str) -> list[Path]:
        """Every cache directory recorded for a source label (all its endpoints)."""
        out: list[Path] = []
        if not self.root.is_dir():
            return out
        prefix = _safe_label(label) + "-"
        for child in self.root.iterdir():
            if not child.name.startswith(prefix) or not child.is_dir():
                continue
            recorded = _read_record(child / "source.json")
            if isinstance(recorded, dict) and recorded.get("label") == label:
                out.append(child)
        return out

    def remove_source(self, label: str) -> int:
        """Remove every cached file of a source; returns how many directories went."""
        dirs = self.source_dirs(label)
        for d in dirs:
            _rmtree_private(d)
        return len(dirs)


def _read_record(path: Path) -> object:
    """A folder's ``source.json``, read like a cached file: without blocking or following
    a link, and only so much of it. A FIFO there held a removal (and the window) for ever,
    a link to ``/dev/zero`` took all the memory there was."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, _RECORD_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return json.loads(data) if len(data) <= _RECORD_LIMIT else None
    except ValueError:
        return None


def _rmtree_private(path: Path) -> None:
    """Remove ``path`` and all below it, never following a link (a link is removed).

    A folder made read-only or unreadable is made the owner's again first; whatever
    cannot be removed is left, without an error (an unreadable folder inside a server's
    folder raised a TypeError from the error handler, and its removal stopped there).
    """
    pending: list[tuple[str, bool]] = [(os.fspath(path), False)]
    while pending:
        here, emptied = pending.pop()
        try:
            is_dir = stat.S_ISDIR(os.lstat(here).st_mode)
        except OSError:
            continue
        if is_dir and not emptied:
            with contextlib.suppress(OSError):
                os.chmod(here, 0o700)
            pending.append((here, True))
            try:
                with os.scandir(here) as entries:
                    pending.extend((entry.path, False) for entry in entries)
            except OSError:
                pass
            continue
        remove = os.rmdir if is_dir else os.unlink
        try:
            remove(here)
        except OSError:
            try:  # its folder may have been made read-only
                os.chmod(os.path.dirname(here), 0o700)
                remove(here)
            except OSError:
                pass

"""Opening a served file without ever following a link out of its skill's folder.

Checking a path and then opening it by name leaves a gap: a file swapped for a link
between the two is opened through the link. Here nothing is opened by a full path.
The served folder is opened once per read, and each component below it is opened
relative to the one before (``dir_fd``) with ``O_NOFOLLOW``: a link met on the way is
never entered by the system. A link to a file inside the skill (which the scan lists
as a file of the skill) is read with ``readlink`` and its target walked the same way,
from the skill's folder, after checking that it stays inside; a target that leaves is
refused. What is finally opened is checked by its descriptor (a regular file), so a
file swapped at any moment is either the one inside or refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat

# Links followed by hand on the way to one file, as the system bounds its own (ELOOP).
MAX_LINKS = 8

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# Non-blocking: a listed file swapped for a FIFO would otherwise hold the open for ever.
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK | getattr(os, "O_BINARY", 0)

# Whether this system can open relative to a directory without following links.
SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd


class Outside(Exception):
    """The path leads out of the folder it must stay in (by ``..`` or a link)."""


def _parts(rel: str) -> list[str] | None:
    """The components of a relative POSIX path, ``..`` taken lexically; ``None`` when it
    climbs above its start or is absolute."""
    if rel.startswith("/"):
        return None
    norm = posixpath.normpath(rel)
    if norm == ".":
        return []
    parts = norm.split("/")
    return None if parts[0] == ".." else parts


def _walk_dirs(top_fd: int, parts: list[str]) -> int:
    """Open each directory of ``parts`` below ``top_fd`` without following a link; the
    last one's descriptor (a new one, to be closed by the caller)."""
    fd = os.dup(top_fd)
    try:
        for part in parts:
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link(part, fd)):
                    raise Outside(part) from None  # a link in the way: never entered
                if exc.errno == errno.ENOTDIR:
                    raise FileNotFoundError(errno.ENOENT, "no such folder", part) from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_within(root: str, base: str, path: str) -> int:
    """A read-only descriptor of the regular file ``path``, reached from the served
    folder ``root`` through the skill's folder ``base`` (both absolute, ``base`` at or
    below ``root``) without following any link out of ``base``.

    Raises :class:`Outside` for a path or link that leaves ``base`` (or a directory
    on the way that is a link), ``FileNotFoundError``, ``IsADirectoryError``, and
    ``OSError`` for anything else that is not a regular file or cannot be opened.
    """
    if not SUPPORTED:
        return _open_checked(base, path)
    base_rel = _parts(os.path.relpath(base, root).replace(os.sep, "/"))
    file_rel = _parts(os.path.relpath(path, base).replace(os.sep, "/"))
    if base_rel is None or not file_rel:
        raise Outside(path)
    root_fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        base_fd = _walk_dirs(root_fd, base_rel)
    finally:
        os.close(root_fd)
    try:
        return _open_below(base_fd, file_rel, posixpath.join(root, *base_rel))
    finally:
        os.close(base_fd)


def _open_below(base_fd: int, parts: list[str], real_base: str) -> int:
    """Open ``parts`` below the skill's folder; ``real_base`` is that folder's path,
    which has no link in it (it was walked without following one)."""
    for _ in range(MAX_LINKS + 1):
        dir_fd = _walk_dirs(base_fd, parts[:-1])
        try:
            try:
                fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                # A link: its target, taken from where the link lies, must stay inside.
                target = os.readlink(parts[-1], dir_fd=dir_fd)
            else:
                return _regular(fd)
        finally:
            os.close(dir_fd)
        if target.startswith("/"):
            if not target.startswith(real_base.rstrip("/") + "/"):
                raise Outside(target)
            target = target[len(real_base.rstrip("/")) + 1 :]
        elif parts[:-1]:
            target = posixpath.join(*parts[:-1], target)
        followed = _parts(target)
        if not followed:
            raise Outside(target)
        parts = followed
    raise OSError(errno.ELOOP, "too many links")


def _open_checked(base: str, path: str) -> int:
    """Where no open is relative to a directory: the resolved path checked, then opened
    (a link swapped in between is not caught here)."""
    real_base = os.path.realpath(base)
    real = os.path.realpath(path)
    if os.path.commonpath([real_base, real]) != real_base:
        raise Outside(path)
    return _regular(os.open(real, _FILE_FLAGS))


def _regular(fd: int) -> int:
    """``fd`` if it is a regular file (else closed, and an error raised)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if stat.S_ISREG(mode):
        return fd
    with contextlib.suppress(OSError):
        os.close(fd)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "a directory")
    raise OSError(errno.EINVAL, "not a regular file")

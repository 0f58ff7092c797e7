"""A skill's archive (``.tar.gz`` or ``.zip``) unpacked in memory, every member judged.

Nothing is written to disk. An archive is refused whole, saying why, when a member's
name leaves it (``..``, an absolute path, a drive, a backslash), when a member is a
link (symbolic or hard) or a device, a FIFO or anything but a file or a folder, when
it holds more than :data:`MAX_MEMBERS` members or more than :data:`MAX_TOTAL` bytes
unpacked, or when it unpacks to more than :data:`MAX_RATIO` times its packed size (a
compression bomb). One folder at the top holding everything is taken away, so
``pdf/SKILL.md`` and ``SKILL.md`` are the same skill.
"""

from __future__ import annotations

import io
from pathlib import PurePosixPath

from desktop.core.manifest import MAX_BYTES, MAX_FILES

MAX_MEMBERS = MAX_FILES * 2
MAX_TOTAL = MAX_BYTES
MAX_RATIO = 200
RATIO_FLOOR = 1024 * 1024  # below this many bytes unpacked, the ratio is not asked


class ArchiveError(ValueError):
    """An archive refused, and why."""


def unsafe_name(name: str) -> str:
    """Why a member's name is refused (empty when it is fine)."""
    if "\\" in name or "\0" in name:
        return f"{name!r} holds a backslash or NUL"
    if PurePosixPath(name).is_absolute() or (len(name) > 1 and name[1] == ":"):
        return f"{name!r} is an absolute path"
    if ".." in name.split("/"):
        return f"{name!r} leaves the archive"
    if not _clean(name):
        return f"{name!r} names no file"
    return ""


def _clean(name: str) -> str:
    return "/".join(p for p in name.split("/") if p not in ("", "."))


TAR_GZ = ".tar.gz"
ZIP = ".zip"


def kind_of(url: str) -> str:
    """:data:`TAR_GZ` or :data:`ZIP` by the address's end; empty when neither."""
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    if path.endswith((".tar.gz", ".tgz")):
        return TAR_GZ
    if path.endswith(".zip"):
        return ZIP
    return ""


def unpack(data: bytes, kind: str) -> dict[str, bytes]:
    """The files of an archive by path (one top folder taken away); raises
    :class:`ArchiveError` saying why it is refused."""
    if kind == ZIP:
        files = _unzip(data)
    elif kind == TAR_GZ:
        files = _untar(data)
    else:
        raise ArchiveError("the archive is neither .tar.gz nor .zip")
    total = sum(len(b) for b in files.values())
    if total > RATIO_FLOOR and total > MAX_RATIO * max(len(data), 1):
        raise ArchiveError(
            f"the archive unpacks to {total:,} bytes from {len(data):,}: "
            f"more than {MAX_RATIO} times its size"
        )
    return _strip_top(files)


def _strip_top(files: dict[str, bytes]) -> dict[str, bytes]:
    if "SKILL.md" in files:
        return files
    tops = {name.split("/", 1)[0] for name in files}
    if len(tops) == 1 and all("/" in n for n in files):
        top = tops.pop() + "/"
        return {n[len(top) :]: b for n, b in files.items()}
    return files


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_TOTAL
        self.count = 0

    def member(self) -> None:
        self.count += 1
        if self.count > MAX_MEMBERS:
            raise ArchiveError(f"the archive holds more than {MAX_MEMBERS:,} members")

    def take(self, size: int, name: str) -> int:
        if size > self.left:
            raise ArchiveError(
                f"the archive unpacks to more than {MAX_TOTAL:,} bytes (at {name!r})"
            )
        self.left -= size
        return size


def _untar(data: bytes) -> dict[str, bytes]:
    import tarfile
    import zlib

    budget = _Budget()
    out: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive:
                budget.member()
                why = unsafe_name(member.name)
                if why:
                    raise ArchiveError(why)
                if member.issym() or member.islnk():
                    raise ArchiveError(f"{member.name!r} is a link; links are not unpacked")
                if member.isdir():
                    continue
                if not member.isreg():
                    raise ArchiveError(f"{member.name!r} is a device or special file")
                budget.take(member.size, member.name)
                stream = archive.extractfile(member)
                if stream is None:  # pragma: no cover - a regular file always has one
                    raise ArchiveError(f"{member.name!r} cannot be read")
                body = stream.read(member.size + 1)
                name = _clean(member.name)
                if name in out:
                    raise ArchiveError(f"{member.name!r} is in the archive twice")
                out[name] = body
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise ArchiveError(f"not a readable .tar.gz: {exc}") from None
    return out


def _unzip(data: bytes) -> dict[str, bytes]:
    import stat
    import zipfile
    import zlib

    budget = _Budget()
    out: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            for info in infos:
                budget.member()
                why = unsafe_name(info.filename)
                if why:
                    raise ArchiveError(why)
                mode = info.external_attr >> 16
                if info.create_system == 3 and stat.S_ISLNK(mode):
                    raise ArchiveError(f"{info.filename!r} is a link; links are not unpacked")
                if info.is_dir():
                    continue
                if info.create_system == 3 and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                    raise ArchiveError(f"{info.filename!r} is a device or special file")
                budget.take(info.file_size, info.filename)
            for info in infos:
                if info.is_dir():
                    continue
                with archive.open(info) as stream:
                    body = stream.read(info.file_size + 1)
                if len(body) != info.file_size:
                    raise ArchiveError(f"{info.filename!r} is not the size the archive says")
                name = _clean(info.filename)
                if name in out:
                    raise ArchiveError(f"{info.filename!r} is in the archive twice")
                out[name] = body
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
        raise ArchiveError(f"not a readable .zip: {exc}") from None
    return out

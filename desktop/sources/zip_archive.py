"""The zip archive kind (``--zip [LABEL=]PATH``): skills in a zip file, read only.

Every ``SKILL.md`` in the archive makes a skill of the folder it is in; a file belongs
to the innermost skill folder holding it. A skill's URI and its files' URIs are their
paths in the archive. Nothing in the archive is written, run or extracted: a read
opens the archive again, takes the member's bytes (at most one past its listed size)
and verifies them against the entry, so an archive changed since it was listed is
caught the same way a changed folder is.

Bounded: at most :data:`MAX_MEMBERS` members and :data:`MAX_TOTAL` bytes in all; a
member's name that leaves the archive (``..``, an absolute path, a drive, a
backslash) or a link is never part of a manifest, and said so.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from desktop.core.identity import LABEL_RE, SKILL_MD
from desktop.core.manifest import MAX_BYTES, check_limits, sha256_digest
from desktop.core.model import Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.source_kinds import KindInfo
from desktop.core.states import SourceState
from desktop.sources.base import BaseSource, Kind, SourceContext, SourceRead

if TYPE_CHECKING:  # loaded when an archive is read, not when the kind registers
    import zipfile

    from desktop.core.verify import SkillVerification
    from desktop.sources.reader import ReadResult

MAX_MEMBERS = 10_000
MAX_TOTAL = 256 * 1024 * 1024  # bytes, uncompressed, of the members read

ZIP = KindInfo(
    name="zip",
    transports=("zip",),
    word="zip archive",
    icon="zip archive",
    path_endpoint=True,
    icons={"zip archive": ("package-x-generic", "SP_DriveCDIcon")},
)


class ZipError(ValueError):
    """A ``--zip`` value or a saved archive that cannot be a source."""


def _unsafe(name: str) -> str:
    """Why a member's name is not taken (empty when it is fine)."""
    if "\\" in name or "\0" in name:
        return "its name holds a backslash or NUL"
    if PurePosixPath(name).is_absolute() or (len(name) > 1 and name[1] == ":"):
        return "its name is an absolute path"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return "its name leaves its folder"
    return ""


def _is_link(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return info.create_system == 3 and stat.S_ISLNK(mode)


def _members(archive: zipfile.ZipFile, notes: list[str]) -> dict[str, zipfile.ZipInfo]:
    """The archive's regular files by name; what is left out is said in ``notes``."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ZipError(f"the archive has {len(infos):,} members; at most {MAX_MEMBERS:,} are read")
    out: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename
        if info.is_dir():
            continue
        why = _unsafe(name) or ("it is a link; links are not followed" if _is_link(info) else "")
        if not why and name in out:
            why = "the archive holds it twice"
        if why:
            notes.append(f"{name!r} left out: {why}")
            out.pop(name, None)
            continue
        out[name] = info
    return out


def _skill_dir(uri: str) -> str:
    return uri[: -len(SKILL_MD)].rstrip("/")


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    with archive.open(info) as stream:
        return stream.read(limit)


def scan_archive(spec: SourceSpec) -> SourceRead:
    """List the skills of the archive at ``spec.endpoint`` (hashing every member of a
    skill); never raises for the archive's content (a failure is the status)."""
    import zipfile

    from desktop.core.words import count

    notes: list[str] = []
    try:
        with zipfile.ZipFile(spec.endpoint) as archive:
            members = _members(archive, notes)
            skills = _skills(spec, archive, members)
    except (OSError, zipfile.BadZipFile, ZipError, NotImplementedError) as exc:
        return SourceStatus(spec.origin, SourceState.FAILED, f"cannot read the archive: {exc}"), []
    status = SourceState.OK if skills else SourceState.NO_SKILLS
    files = sum(len(s.files) for s in skills)
    message = (
        f"{count(len(skills), 'skill')} of {count(files, 'file')} in the archive"
        if skills
        else "no SKILL.md in the archive"
    )
    return SourceStatus(
        spec.origin, status, message, notes=notes[:20], skill_count=len(skills)
    ), skills


def _skills(
    spec: SourceSpec, archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo]
) -> list[Skill]:
    from desktop.core.checks import check_frontmatter
    from desktop.core.loading import read_loading
    from desktop.core.skill_md import parse_skill_md

    dirs = sorted(
        (_skill_dir(n) for n in members if n == SKILL_MD or n.endswith("/" + SKILL_MD)),
        key=len,
        reverse=True,
    )
    owned: dict[str, list[str]] = {d: [] for d in dirs}
    for name in sorted(members):
        owner = next((d for d in dirs if not d or name.startswith(d + "/")), None)
        if owner is not None:
            owned[owner].append(name)
    budget = MAX_TOTAL
    skills: list[Skill] = []
    for rel_dir in sorted(dirs):
        files: list[SkillFile] = []
        problems: list[Problem] = []
        skill_md = f"{rel_dir}/{SKILL_MD}" if rel_dir else SKILL_MD
        md_bytes = b""
        for name in owned[rel_dir]:
            info = members[name]
            if info.file_size > MAX_BYTES or info.file_size > budget:
                problems.append(Problem("limit-bytes", f"{name} is over the size read", "error"))
                continue
            data = _read_member(archive, info, info.file_size + 1)
            budget -= len(data)
            files.append(SkillFile(name, sha256_digest(data), len(data)))
            if name == skill_md:
                md_bytes = data
        parsed = parse_skill_md(md_bytes)
        problems.extend(parsed.problems)
        frontmatter = parsed.frontmatter
        dir_name = rel_dir.rsplit("/", 1)[-1] or Path(spec.endpoint).stem
        if frontmatter is not None:
            problems.extend(check_frontmatter(frontmatter, dir_name))
        loading, loading_problems = read_loading(frontmatter, None)
        problems.extend(loading_problems)
        problems.extend(check_limits(files))
        fm = frontmatter or {}
        declared = fm.get("name")
        name = declared if isinstance(declared, str) else dir_name
        description = fm.get("description")
        skills.append(
            Skill(
                origin=spec.origin,
                uri=skill_md,
                name=str(name),
                description=description if isinstance(description, str) else "",
                frontmatter=frontmatter,
                resources=tuple(files),
                loading=loading,
                problems=problems,
                qualified_name=str(name),
            )
        )
    return skills


class _ArchiveBytes:
    """The reader's byte source: one member of the archive, opened afresh."""

    def __init__(self, path: str) -> None:
        self.path = path

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes:
        import asyncio

        return await asyncio.to_thread(self._read, uri, limit or MAX_BYTES + 1)

    def _read(self, uri: str, limit: int) -> bytes:
        import zipfile

        with zipfile.ZipFile(self.path) as archive:
            members = _members(archive, [])
            info = members.get(uri)
            if info is None:
                raise FileNotFoundError(f"{uri} is no longer in the archive")
            return _read_member(archive, info, limit)

    def mark_stale(self, uri: str) -> None:
        return None

    def describe_error(self, exc: BaseException) -> str:
        return f"cannot read it from the archive: {exc}"


class ZipSource(BaseSource):
    """A zip archive of skills, read only."""

    async def _discover(self) -> SourceRead:
        import asyncio

        return await asyncio.to_thread(scan_archive, self.spec)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        from desktop.sources.reader import read_file

        return await read_file(skill, uri, source=_ArchiveBytes(self.spec.endpoint))

    async def verify(self, skill: Skill) -> SkillVerification:
        from desktop.sources.reader import verify_skill

        return await verify_skill(skill, source=_ArchiveBytes(self.spec.endpoint))


def _from_fields(label: str, transport: str, where: str) -> SourceSpec:
    where = where.strip()
    if not where:
        raise ZipError("enter the path of a zip archive")
    from desktop.sources.folder import folder_label

    path = Path(where).expanduser().resolve()
    label = label.strip() or folder_label(path.with_suffix(""))
    if not LABEL_RE.match(label):
        raise ZipError(f"the label {label!r} may use letters, digits, '.', '_' and '-' only")
    return SourceSpec(label, ZIP.name, "zip", str(path))


def _parse(value: str) -> SourceSpec:
    label, sep, rest = value.partition("=")
    if not sep or not LABEL_RE.match(label) or os.sep in label:
        label, rest = "", value
    return _from_fields(label, "zip", rest)


def _make(spec: SourceSpec, context: SourceContext) -> ZipSource:
    return ZipSource(spec, context)


KIND = Kind(
    ZIP,
    _make,
    _from_fields,
    option="--zip",
    metavar="[LABEL=]PATH",
    help="a zip archive of skills (read only)",
    parse=_parse,
)

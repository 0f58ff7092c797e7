"""The folder kind: skills in a folder of this machine (``--folder``).

Listing scans the folder (:func:`desktop.sources.folder.scan_folder`, in a worker
thread: it hashes files); a read opens the file again and verifies it against the
scanned manifest (:mod:`desktop.sources.reader`); a folder of a skill is listed from
its manifest, which a scan makes whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import FOLDER
from desktop.core.states import SourceState
from desktop.sources.base import BaseSource, Kind, SourceContext, SourceRead

if TYPE_CHECKING:
    from desktop.core.verify import SkillVerification
    from desktop.sources.reader import ReadResult


def read_folder(spec: SourceSpec) -> SourceRead:
    """Read one local folder here and now, in the calling thread (it hashes files: not
    on a thread that must stay responsive); never raises."""
    from desktop.sources.folder import scan_folder

    try:
        return scan_folder(spec)
    except Exception as exc:  # noqa: BLE001 - a bug, but the window and CLI must survive it
        return SourceStatus(spec.origin, SourceState.FAILED, f"scan failed: {exc}"), []


class FolderSource(BaseSource):
    """A folder of skills on this machine."""

    async def _discover(self) -> SourceRead:
        import asyncio

        return await asyncio.to_thread(read_folder, self.spec)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        from desktop.sources.reader import read_file

        return await read_file(skill, uri)

    async def verify(self, skill: Skill) -> SkillVerification:
        from desktop.sources.reader import verify_skill

        return await verify_skill(skill)


def _from_fields(label: str, transport: str, where: str) -> SourceSpec:
    from desktop.sources.config.options import source_from_fields

    return source_from_fields(label, "folder", where)


def _parse(value: str) -> SourceSpec:
    from desktop.sources.config.options import parse_folder

    return parse_folder(value)


def _make(spec: SourceSpec, context: SourceContext) -> FolderSource:
    return FolderSource(spec, context)


KIND = Kind(
    FOLDER,
    _make,
    _from_fields,
    option="--folder",
    metavar="[LABEL=]DIR",
    help="a local folder of skills",
    parse=_parse,
)

"""Verified reads for the catalog session: each source read by its kind.

Nothing is shown before it is checked: every read goes to the skill's source (a
:class:`desktop.sources.base.Source` made by its kind), which reads through
:mod:`desktop.sources.reader` and returns bytes only when they agree with the held
entry (or the skill is dynamic, and then marked so). Local files are read and hashed
in worker threads; server files come over a connection kept open per server on the
window's loop (one pool, :class:`desktop.sources.mcp.source.ServerPool`, shared by the
servers' sources).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.entry import skill_md_uri
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import MCP_SERVER
from desktop.core.verify import SkillVerification
from desktop.sources.base import DirectoryChild, Source, SourceContext
from desktop.sources.budgets import Budgets
from desktop.sources.kinds import open_source
from desktop.sources.reader import ReadResult
from desktop.store.cache import SkillCache

if TYPE_CHECKING:
    import asyncio

    from desktop.sources.mcp.source import ServerPool

__all__ = ["ContentReader", "ReadResult"]


class ContentReader:
    """Reads files of local and server skills, verified; opens skills by URI."""

    def __init__(
        self,
        specs: Iterable[SourceSpec] = (),
        *,
        budgets: Budgets | None = None,
        cache: SkillCache | None = None,
    ) -> None:
        self.budgets = budgets
        self.cache = cache if cache is not None else SkillCache()
        self.specs = list(specs)
        self._pool: ServerPool | None = None  # the MCP SDK loads on the first server read
        # Told when a kept server connection is given up between operations, and when
        # it is open again after that.
        self.on_connection: Callable[[SourceStatus], None] | None = None
        self._retired: list[ServerPool] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._fresh_sources()

    def _fresh_sources(self) -> None:
        # The sources by label, made by their kinds on first use; servers share the pool.
        self._sources: dict[str, Source] = {}
        self.context = SourceContext(
            self.budgets, self.cache, shared_makers={MCP_SERVER.name: lambda: self.pool}
        )

    def source(self, label: str) -> Source | None:
        """The source ``label`` as its kind reads it; ``None`` when none is configured."""
        found = self._sources.get(label)
        if found is None:
            spec = next((s for s in self.specs if s.label == label), None)
            if spec is None:
                return None
            found = self._sources[label] = open_source(spec, self.context)
        return found

    def _source_of(self, skill: Skill) -> Source | None:
        """The source of ``skill``: its configured one, or (for a kind that runs
        nothing) one made of the skill's origin, as a folder named on its own is read."""
        found = self.source(skill.origin.label)
        if found is not None and found.spec.origin == skill.origin:
            return found
        if skill.kind_info.runs_code:
            return found
        o = skill.origin
        return open_source(SourceSpec(o.label, o.kind, o.transport, o.endpoint), self.context)

    def use_pool(self, pool: ServerPool) -> None:
        """Read over ``pool``'s connections (its owner closes it)."""
        self._pool = pool
        self._fresh_sources()

    @property
    def pool(self) -> ServerPool:
        if self._pool is None:
            from desktop.sources.mcp.source import ServerPool

            self._pool = ServerPool(
                self.specs, self.budgets, self.cache, on_connection=self._connection
            )
        return self._pool

    def _connection(self, status: SourceStatus) -> None:
        if self.on_connection is not None:
            self.on_connection(status)

    def skill_md_uri(self, skill: Skill) -> str:
        return skill_md_uri(skill)

    def set_specs(self, specs: Iterable[SourceSpec]) -> None:
        """Use a new set of sources.

        Connections to servers whose configuration did not change stay open; the others
        are closed (in the background when a loop runs, else by :meth:`close`).
        """
        old, self._pool = self._pool, None
        self.specs = list(specs)
        self._fresh_sources()
        if old is None:
            return
        import asyncio

        self.pool.take_over(old)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired.append(old)
            return
        task = loop.create_task(old.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        source = self._source_of(skill)
        if source is None:
            from desktop.core.verify import READ_ERROR, FileVerification

            return ReadResult(
                skill.id,
                FileVerification(
                    uri, READ_ERROR, f"the source {skill.origin.label} is not configured"
                ),
            )
        return await source.read(skill, uri, refresh=refresh)

    async def read_unlisted(self, skill: Skill) -> UnlistedText | None:
        """The ``SKILL.md`` of a skill in a folder on this computer whose entry could not
        be made (its frontmatter does not parse, say), as text, and its folder's files:
        the author's own file, shown as it is and said to be checked against nothing.
        ``None`` for any other skill: a server's bytes, a repository's, an archive's, are
        never shown unchecked."""
        if skill.loadable or not skill.kind_info.folder_on_disk or not skill.path:
            return None
        import asyncio

        return await asyncio.to_thread(read_unlisted_folder, skill.path)

    async def discover(self, spec: SourceSpec) -> tuple[SourceStatus, list[Skill]]:
        """A server's skills, listed on the connection its reads will use.

        The server that answered the listing stays connected, so the first preview does
        not wait for it to start again. Never raises for the server's failures.
        """
        if spec.untrusted:  # a project's server not trusted: neither started nor connected
            from desktop.sources.base import untrusted_status

            return untrusted_status(spec), []
        budgets = self.pool.budgets
        return await self.pool.handle(spec.label).discover(timeout=budgets.server_timeout)

    async def read_directory(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        """A folder of a skill as its source lists it, each child judged against the
        held entry; raises ``SourceError`` (or ``KeyError``) with a message."""
        source = self._source_of(skill)
        if source is None:
            raise KeyError(skill.origin.label)
        return await source.list_folder(skill, uri)

    async def get_skill(self, label: str, uri: str) -> Skill:
        """``skills/get`` on the server ``label`` (raises ``SourceError`` with a message)."""
        return await self.pool.handle(label).get_skill(uri)

    def connected(self, label: str) -> bool:
        """Whether the connection to the server ``label`` is open now."""
        pool = self._pool
        return pool is not None and label in pool.specs and pool.handle(label).connected

    def server_output(self, label: str) -> str | None:
        """What the server ``label`` wrote on its stderr since it was last started here
        (bounded, secrets masked): ``None`` for a server over HTTP, ``""`` for one that
        wrote nothing or was not started."""
        pool = self._pool
        if pool is None or label not in pool.specs:
            return ""
        return pool.handle(label).server_output()

    async def connect(self, label: str) -> SourceStatus:
        """The server ``label`` connected (if it is not): its status, or the error."""
        return await self.pool.handle(label).start()

    async def verify(self, skill: Skill) -> SkillVerification:
        """Every file of ``skill`` read and verified, within the skill's deadline."""
        source = self._source_of(skill)
        if source is None:
            raise KeyError(skill.origin.label)
        return await source.verify(skill)

    async def forget_source(self, label: str) -> int:
        """Remove a server's cached verified bytes; returns directories removed.
        Off the loop: a server's cache may hold thousands of files."""
        import asyncio

        return await asyncio.to_thread(self.cache.remove_source, label)

    async def close(self) -> None:
        import asyncio

        pools = [*self._retired, *([self._pool] if self._pool is not None else [])]
        self._retired, self._pool = [], None
        for pool in pools:
            await pool.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


# What an unlisted skill's folder shows at most: the SKILL.md's first bytes, and its files.
UNLISTED_TEXT = 1024 * 1024
UNLISTED_FILES = 500


@dataclass(frozen=True, slots=True)
class UnlistedText:
    """A local skill's SKILL.md read as text (not checked: the entry could not be made),
    whether it was cut, and the files of its folder (path, size)."""

    text: str
    cut: bool
    files: tuple[tuple[str, int], ...]
    more_files: bool = False


def read_unlisted_folder(folder: str) -> UnlistedText | None:
    """The ``SKILL.md`` of ``folder`` as text (at most :data:`UNLISTED_TEXT` bytes) and its
    files (at most :data:`UNLISTED_FILES`; links are named, never followed)."""
    import os

    root = Path(folder)
    try:
        with open(root / "SKILL.md", "rb") as f:
            data = f.read(UNLISTED_TEXT + 1)
    except OSError:
        return None
    files: list[tuple[str, int]] = []
    more = False
    for base, dirs, names in os.walk(root, followlinks=False):
        links = [d for d in dirs if (Path(base) / d).is_symlink()]  # named, not entered
        dirs[:] = sorted(d for d in dirs if d not in links)
        for name in sorted([*names, *links]):
            path = Path(base) / name
            try:
                size = path.lstat().st_size
            except OSError:
                continue
            if len(files) >= UNLISTED_FILES:
                more = True
                break
            files.append((path.relative_to(root).as_posix(), size))
        if more:
            break
    return UnlistedText(
        data[:UNLISTED_TEXT].decode("utf-8", "replace"),
        len(data) > UNLISTED_TEXT,
        tuple(files),
        more,
    )

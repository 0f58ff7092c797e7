"""Verified reads for the catalog session: one pool of kept-open server connections.

Nothing is shown before it is checked: every read goes through
:mod:`desktop.sources.reader` (via :class:`desktop.sources.mcp.source.ServerPool`), which
returns bytes only when they agree with the held entry (or the skill is dynamic, and
then marked so). Local files are read and hashed in worker threads; server files come
over a connection kept open per server on the window's loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from desktop.core.entry import skill_md_uri
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.verify import SkillVerification
from desktop.sources.budgets import Budgets
from desktop.sources.reader import ReadResult, read_file, verify_skill
from desktop.store.cache import SkillCache

if TYPE_CHECKING:
    import asyncio

    from desktop.sources.mcp.source import DirectoryChild, ServerPool

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

    def use_pool(self, pool: ServerPool) -> None:
        """Read over ``pool``'s connections (its owner closes it)."""
        self._pool = pool

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
        if skill.origin.kind == "local":
            return await read_file(skill, uri)
        if skill.origin.label not in {s.label for s in self.specs if s.kind == "mcp"}:
            from desktop.core.verify import READ_ERROR, FileVerification

            return ReadResult(
                skill.id,
                FileVerification(
                    uri, READ_ERROR, f"the server {skill.origin.label} is not configured"
                ),
            )
        return await self.pool.read_file(skill, uri, refresh=refresh)

    async def discover(self, spec: SourceSpec) -> tuple[SourceStatus, list[Skill]]:
        """A server's skills, listed on the connection its reads will use.

        The server that answered the listing stays connected, so the first preview does
        not wait for it to start again. Never raises for the server's failures.
        """
        if spec.untrusted:  # a project's server not trusted: neither started nor connected
            from desktop.sources.gather import untrusted_status

            return untrusted_status(spec), []
        budgets = self.pool.budgets
        return await self.pool.handle(spec.label).discover(timeout=budgets.server_timeout)

    async def read_directory(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        """A folder of a server skill as its server lists it, each child judged against
        the held entry; raises ``SourceError`` with a message."""
        return await self.pool.handle(skill.origin.label).read_directory(skill, uri)

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
        if skill.origin.kind == "local":
            return await verify_skill(skill)
        return await self.pool.verify(skill)

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

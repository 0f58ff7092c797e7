"""Verified reads for the window: one pool of kept-open server connections.

Nothing is shown before it is checked: every read goes through
:mod:`desktop.sources.reader` (via :class:`desktop.sources.mcp.ServerPool`), which
returns bytes only when they agree with the held entry (or the skill is dynamic, and
then marked so). Local files are read and hashed in worker threads; server files come
over a connection kept open per server on the window's loop.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop.core.entry import skill_md_uri
from desktop.core.model import Skill, SourceSpec
from desktop.sources.budgets import Budgets
from desktop.sources.mcp import ServerPool
from desktop.sources.reader import ReadResult
from desktop.store.cache import SkillCache

__all__ = ["ContentReader", "ReadResult"]


class ContentReader:
    """Reads files of local and server skills, verified; opens skills by URI (D7)."""

    def __init__(
        self,
        specs: Iterable[SourceSpec] = (),
        *,
        budgets: Budgets | None = None,
        cache: SkillCache | None = None,
    ) -> None:
        self.budgets = budgets
        self.cache = cache if cache is not None else SkillCache()
        self.pool = ServerPool(list(specs), budgets, self.cache)
        self._retired: list[ServerPool] = []

    def skill_md_uri(self, skill: Skill) -> str:
        return skill_md_uri(skill)

    def set_specs(self, specs: Iterable[SourceSpec]) -> None:
        """Use a new set of sources; open connections are closed by :meth:`close`."""
        self._retired.append(self.pool)
        self.pool = ServerPool(list(specs), self.budgets, self.cache)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        if skill.origin.kind == "mcp" and skill.origin.label not in self.pool.specs:
            from desktop.core.verify import READ_ERROR, FileVerification

            return ReadResult(
                skill.id,
                FileVerification(
                    uri, READ_ERROR, f"the server {skill.origin.label} is not configured"
                ),
            )
        return await self.pool.read_file(skill, uri, refresh=refresh)

    async def get_skill(self, label: str, uri: str) -> Skill:
        """``skills/get`` on the server ``label`` (raises ``SourceError`` with a message)."""
        return await self.pool.handle(label).get_skill(uri)

    def forget_source(self, label: str) -> int:
        """Remove a server's cached verified bytes (V6); returns directories removed."""
        return self.cache.remove_source(label)

    async def close(self) -> None:
        pools, self._retired = [*self._retired, self.pool], []
        for pool in pools:
            await pool.close()

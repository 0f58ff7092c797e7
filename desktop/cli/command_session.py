"""The catalog session of one command: every command reaches skills through one.

A command makes one session for its run (:func:`command_session`): the catalog is
listed, a skill asked for by URI, files read and verified and a server skill's folders
listed through it, on connections to the servers kept open for the whole command, so
each server starts once. For folders alone no connection is made and the MCP client is
not loaded (it takes most of a second).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from desktop.core.model import SourceSpec

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogSession
    from desktop.sources.mcp.source import ServerPool


@contextlib.asynccontextmanager
async def server_pool(specs: Sequence[SourceSpec]) -> AsyncIterator[ServerPool | None]:
    """Kept connections to the servers of ``specs`` (closed after the block); ``None``
    when they name no server: for folders alone the MCP client is not loaded."""
    if not any(s.kind_info.runs_code and s.enabled for s in specs):
        yield None
        return
    from desktop.sources.mcp.source import ServerPool

    async with ServerPool(list(specs)) as pool:
        yield pool


def new_session(
    specs: Sequence[SourceSpec], *, budgets: Any = None, pool: Any = None
) -> CatalogSession:
    """A quiet session of ``specs`` (the command prints what it found itself), on
    ``pool``'s connections when one is given."""
    from desktop.session.catalog_session import CatalogSession, Silent
    from desktop.session.content_reader import ContentReader

    reader = ContentReader(budgets=budgets)
    session = CatalogSession(Silent(), reader=reader, specs=specs, budgets=budgets)
    if pool is not None:  # given after the specs: setting them starts a pool of their own
        reader.use_pool(pool)
    return session


@contextlib.asynccontextmanager
async def command_session(specs: Sequence[SourceSpec]) -> AsyncIterator[CatalogSession]:
    """The session of one command over ``specs``; its connections close after the block."""
    async with server_pool(specs) as pool:
        session = new_session(specs, pool=pool)
        try:
            yield session
        finally:
            if pool is None:  # else the pool's block closes its connections
                await session.reader.close()

"""The configured sources read together, concurrently, whatever their kind.

Every source is read at once on the running asyncio loop (the CLI's ``asyncio.run``
or the window's qasync loop), each by its kind's :class:`~desktop.sources.base.Source`
(:func:`desktop.sources.kinds.open_source`); a kind that hashes files does it in a
worker thread. A source that fails becomes a status with a message; the others still
arrive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from desktop.core.catalog import Catalog, build_catalog
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import MCP_SERVER
from desktop.core.states import SourceState
from desktop.sources.base import UNTRUSTED as UNTRUSTED
from desktop.sources.base import SourceContext, SourceRead
from desktop.sources.base import untrusted_status as untrusted_status
from desktop.sources.folder_source import read_folder as read_folder
from desktop.sources.kinds import open_source

# What is told of each source once it is read.
SourceDone = Callable[[SourceStatus, list[Skill]], None]

__all__ = ["UNTRUSTED", "SourceRead", "discover", "read_all", "read_folder", "read_source"]


async def read_source(
    spec: SourceSpec, *, budgets: Any = None, context: SourceContext | None = None
) -> SourceRead:
    """Read one source by its kind; never raises (a failure is a status). A source
    that is not trusted is neither started nor connected to (its state says why).
    Without ``context`` whatever it opened to list is closed after the listing."""
    source = open_source(spec, context or SourceContext(budgets=budgets))
    try:
        return await source.discover()
    except Exception as exc:  # noqa: BLE001 - one bad source must not stop the others
        return SourceStatus(spec.origin, SourceState.FAILED, f"reading failed: {exc}"), []
    finally:
        if context is None:
            await source.close()


async def read_all(
    specs: Sequence[SourceSpec],
    *,
    budgets: Any = None,
    on_source: SourceDone | None = None,
    pool: Any = None,
    ready: Mapping[str, SourceRead] | None = None,
) -> list[SourceRead]:
    """Read every enabled source concurrently: each one's status and skills, in the
    order of ``specs``.

    ``on_source`` is called as each source finishes (for progress). With ``pool`` (a
    :class:`desktop.sources.mcp.source.ServerPool` of these specs), each server is listed on
    the pool's connection, which stays open for the reads that follow; without it,
    each server's connection closes after its listing. ``ready`` holds sources read a
    moment ago, by label: those are taken as they are, not read again.
    """
    import asyncio

    enabled = [s for s in specs if s.enabled]
    ready = ready or {}
    context = (
        SourceContext(budgets=pool.budgets, shared_makers={MCP_SERVER.name: lambda: pool})
        if pool is not None
        else None
    )

    async def one(spec: SourceSpec) -> SourceRead:
        if spec.label in ready:
            result = ready[spec.label]
        else:
            result = await read_source(spec, budgets=budgets, context=context)
        if on_source is not None:
            on_source(*result)
        return result

    return list(await asyncio.gather(*(one(s) for s in enabled)))


async def discover(
    specs: Sequence[SourceSpec],
    *,
    budgets: Any = None,
    on_source: SourceDone | None = None,
    pool: Any = None,
) -> Catalog:
    """Read every enabled source concurrently (:func:`read_all`) and build the catalog."""
    results = await read_all(specs, budgets=budgets, on_source=on_source, pool=pool)
    statuses = [status for status, _ in results]
    skills = [skill for _, found in results for skill in found]
    return build_catalog(statuses, skills)

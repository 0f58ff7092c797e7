"""The configured sources read together: folders and MCP servers, concurrently.

Every source is read at once on the running asyncio loop (the CLI's ``asyncio.run``
or the window's qasync loop). Folder scans hash files, so they run in a worker thread.
A source that fails becomes a status with a message; the others still arrive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from desktop.core.catalog import Catalog, build_catalog
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.states import SourceState
from desktop.sources.folder import scan_folder
from desktop.sources.launchers import discovery_timeout

# A source as read: its state and its skills.
SourceRead = tuple[SourceStatus, list[Skill]]
# What is told of each source once it is read.
SourceDone = Callable[[SourceStatus, list[Skill]], None]


def untrusted_status(spec: SourceSpec) -> SourceStatus:
    """The state of a server that is not started: what it would run or contact (the
    origin's masked endpoint, and its env and headers masked here) and which file asks."""
    from desktop.core.trust import masked_summary

    notes = [f"would set {what}: {shown}" for what, shown in masked_summary(spec)[1:]]
    return SourceStatus(spec.origin, UNTRUSTED, f"not started: {spec.untrusted}", notes=notes)


UNTRUSTED = SourceState.UNTRUSTED


def read_folder(spec: SourceSpec) -> SourceRead:
    """Read one local folder here and now, in the calling thread (it hashes files: not
    on a thread that must stay responsive); never raises."""
    try:
        return scan_folder(spec)
    except Exception as exc:  # noqa: BLE001 - a bug, but the window and CLI must survive it
        return SourceStatus(spec.origin, "error", f"scan failed: {exc}"), []


async def read_source(spec: SourceSpec, *, budgets: Any = None) -> SourceRead:
    """Read one source; never raises (a failure is a status). A server that is not
    trusted is neither started nor connected to (its state says why)."""
    import asyncio

    if spec.untrusted:
        return untrusted_status(spec), []
    if spec.kind == "local":
        return await asyncio.to_thread(read_folder, spec)
    try:
        from desktop.sources.mcp import source as mcp
    except ImportError as exc:  # pragma: no cover - the package ships with it
        return SourceStatus(spec.origin, "error", f"MCP support is unavailable: {exc}"), []
    try:
        return await mcp.discover_server(spec, budgets)
    except Exception as exc:  # noqa: BLE001 - one bad server must not stop the others
        return SourceStatus(spec.origin, "error", f"discovery failed: {exc}"), []


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

    async def one(spec: SourceSpec) -> SourceRead:
        if spec.label in ready:
            result = ready[spec.label]
        elif pool is not None and spec.kind == "mcp" and not spec.untrusted:
            result = await _on_pool(pool, spec)
        else:
            result = await read_source(spec, budgets=budgets)
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


async def _on_pool(pool: Any, spec: SourceSpec) -> SourceRead:
    """One server listed on the pool's kept connection; never raises."""
    try:
        b = pool.budgets
        whole = discovery_timeout(spec, b.connect_timeout, b.server_timeout)
        found: SourceRead = await pool.handle(spec.label).discover(timeout=whole)
        return found
    except Exception as exc:  # noqa: BLE001 - one bad server must not stop the others
        return SourceStatus(spec.origin, "error", f"discovery failed: {exc}"), []

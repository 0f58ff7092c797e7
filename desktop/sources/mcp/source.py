"""MCP servers as skill sources: discovery, and later operations on an open connection.

- :func:`discover_server` is what the registry calls: connect, apply the era rules,
  walk ``skills/list`` within budgets, check every entry, list the
  server's tools for tool-affinity checks. Never raises; a failure is a status.
- :class:`ServerHandle` keeps one connection open for later work (``skills/get``,
  verified reads, directory reads). A worker task owns the ``async with`` of the
  client (enter and leave in the same task) and runs requests handed to it through a
  queue, so the window's tasks and the CLI share one API.
- One-shot helpers (:func:`get_skill_once`, :func:`with_server`) for the CLI.

Kept as one module: a server's connection lifetime: discovery, the handle that keeps a
connection open, the pool and the Source all decide when a connection is opened, kept
and closed, which is one rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Self, TypeVar

from desktop.core.entry import one_per_uri, parse_entry
from desktop.core.loading import ToolIndex, affinity_report
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import MCP_SERVER
from desktop.core.states import EntryState, SourceState
from desktop.core.verify import SkillVerification
from desktop.core.words import count
from desktop.sources.base import (
    NOT_HELD,
    BaseSource,
    DirectoryChild,
    SourceContext,
    SourceRead,
    judge_children,
)
from desktop.sources.budgets import DEFAULT_BUDGETS, Budgets
from desktop.sources.errors import SourceError
from desktop.sources.launchers import discovery_timeout
from desktop.sources.mcp.connection import McpConnection
from desktop.sources.mcp.errors import NoSkillsMethod, describe_error
from desktop.sources.mcp.reads import read_bytes, read_directory
from desktop.sources.mcp.skills import get_skill, list_skills
from desktop.sources.mcp.tools import list_tools
from desktop.sources.reader import (
    ReadResult,
    flush_cache_writes,
    read_file,
    read_skill_md,
    verify_skill,
)
from desktop.store.cache import SkillCache

T = TypeVar("T")

__all__ = [
    "Budgets",
    "NOT_HELD",
    "DirectoryChild",
    "McpSource",
    "ServerHandle",
    "ServerPool",
    "discover_server",
    "get_skill_once",
    "with_server",
]


# -- discovery ---------------------------------------------------------------------------


def _status(spec: SourceSpec) -> SourceStatus:
    return SourceStatus(spec.origin, status="pending")


def fill_status(status: SourceStatus, conn: McpConnection) -> None:
    status.protocol_version = conn.protocol_version
    status.declares_extension = conn.declares_extension
    status.directory_read = conn.directory_read
    status.instructions = conn.instructions
    if conn.signed_in:
        status.sign_in = "signed-in"
        if conn.account and f"signed in as {conn.account}" not in status.notes:
            status.notes.append(f"signed in as {conn.account}")


async def discover_on(conn: McpConnection, status: SourceStatus) -> list[Skill]:
    """Discovery over an already open connection; fills ``status``."""
    try:
        return await _discover_on(conn, status)
    finally:
        # Anything the server sent that was not JSON-RPC, noted once it is all known.
        status.notes.extend(conn.notes)
        mask_status(status, conn)


def mask_status(status: SourceStatus, conn: McpConnection) -> None:
    """Every secret the connection sent or holds masked in what the status says: a
    server may quote a header (a sign-in's token) in its error, in any words."""
    status.message = conn.masked(status.message)
    status.notes[:] = [conn.masked(note) for note in status.notes]


async def _discover_on(conn: McpConnection, status: SourceStatus) -> list[Skill]:
    spec = conn.spec
    fill_status(status, conn)
    if not conn.modern and conn.declares_extension is None:
        status.notes.append(
            f"{conn.protocol_version} connection: the server declared no extensions (such a "
            "handshake often cannot carry them), so skills/list is asked once"
        )
    if not conn.should_list_skills():
        status.status = "no-skills"
        status.message = (
            "the server does not declare io.modelcontextprotocol/skills; skills/list was not asked"
        )
        tools, notes = await list_tools(conn)
        status.tools = tools
        status.notes.extend(notes)
        return []
    # The listing and the tools are independent: ask for both at once.
    tools_task = asyncio.ensure_future(list_tools(conn))
    skills: list[Skill] = []
    try:
        listing = await list_skills(
            conn, lambda page: skills.extend(parse_entry(raw, spec.origin) for raw in page)
        )
    except NoSkillsMethod as exc:
        status.status = "no-skills"
        status.message = str(exc)
        tools, notes = await tools_task
        status.tools = tools
        status.notes.extend(notes)
        return []
    except BaseException:
        tools_task.cancel()
        raise
    # A URI listed twice (on one page or across pages) is one identity: kept once.
    skills = one_per_uri(skills)
    status.ttl_ms = listing.ttl_ms
    status.notes.extend(listing.notes)
    tools, tool_notes = await tools_task
    status.tools = tools
    status.notes.extend(tool_notes)
    if tools == []:
        status.notes.append(
            "the server lists no tools, so no skill's tool affinity governs anything"
        )
    if tools is not None:
        index = ToolIndex(spec.label, tools)
        for skill in skills:
            if skill.state is EntryState.INVALID:
                continue
            _rows, problems = affinity_report(skill, index)
            skill.problems.extend(problems)
    status.skill_count = len(skills)
    invalid = sum(1 for s in skills if s.state is EntryState.INVALID)
    over = sum(1 for s in skills if s.state is EntryState.OVER_LIMIT)
    # Pages are said when there were several (one page is the usual answer).
    pages = f" in {count(listing.pages, 'page')}" if listing.pages > 1 else ""
    parts = [f"{count(len(skills), 'skill')}{pages}"]
    if invalid:
        parts.append(f"{invalid} invalid")
    if over:
        parts.append(f"{over} over a limit")
    if listing.error:
        status.status = "error"
        # What was kept first: after the error comes the server's own stderr, and a
        # count after it read as the server's words.
        kept = (
            f"{count(len(skills), 'skill')} listed before the error kept"
            if skills
            else "nothing listed"
        )
        status.message = f"{kept}; {listing.error}"
    else:
        status.status = "ok" if skills else "no-skills"
        status.message = ", ".join(parts)
        if listing.stopped:
            status.message += "; listing incomplete: " + listing.stopped
    return skills


async def discover_server(
    spec: SourceSpec, budgets: Budgets | None = None, *, mode: str = "auto"
) -> tuple[SourceStatus, list[Skill]]:
    """Read one MCP server's skills. Never raises: every failure is the status."""
    b = budgets if isinstance(budgets, Budgets) else DEFAULT_BUDGETS
    status = _status(spec)
    skills: list[Skill] = []
    conn = McpConnection(spec, b, mode=mode)
    whole = discovery_timeout(spec, b.connect_timeout, b.server_timeout)

    async def work() -> list[Skill]:
        async with asyncio.timeout(whole):
            async with conn:
                return await discover_on(conn, status)

    # Its own task: when the connection breaks (an HTTP server dying mid-listing), the
    # SDK cancels its own scope, and that cancellation must end this server's discovery,
    # not the caller's (a CLI run with other servers still answering).
    task = asyncio.ensure_future(work())
    try:
        skills = await task
    except asyncio.CancelledError:
        me = asyncio.current_task()
        if me is not None and me.cancelling():
            task.cancel()
            raise
        status.status = "error"
        status.message = conn.explain(SourceError("the connection to the server was lost"))
    except TimeoutError:
        status.status = "error"
        status.message = f"discovery did not finish within {whole:g} s"
        tail = conn.stderr_tail()
        if tail:
            status.message += f" — server stderr: {tail}"
    except SourceError as exc:
        status.status = "error"
        status.message = str(exc)
        status.sign_in = getattr(exc, "sign_in", "")
    except Exception as exc:  # noqa: BLE001 - a broken server must not break discovery
        status.status = "error"
        status.message = describe_error(exc)
    mask_status(status, conn)
    if status.status == SourceState.PENDING:
        status.status = "error"
        status.message = status.message or "discovery ended without a result"
    status.skill_count = len(skills)
    return status, skills


# -- directory reads -----------------------------------------------------------------


# -- a kept-open connection ------------------------------------------------------------------


def _fail(fut: asyncio.Future[Any], error: BaseException) -> None:
    """Fail ``fut`` with ``error``. Whoever awaits it gets the error; if nobody does any
    more (a start or a request cancelled meanwhile), it is not logged as unretrieved."""
    fut.set_exception(error)
    fut.add_done_callback(lambda f: f.exception())


# How long requests on a connection given up may take to end on its fault.
FAULT_GRACE_SECONDS = 2.0


class ServerHandle:
    """One server's connection, kept open by a worker task.

    Use from any task on the loop that created it (the CLI's ``asyncio.run`` or the
    window's qasync loop). Every public method is a coroutine that hands its work to
    the worker and awaits the answer; many may run at once. Failures come back as
    states and messages (or :class:`SourceError` for :meth:`get_skill`), never as
    SDK exceptions. Call :meth:`close` when done (it ends the worker, which leaves
    the client in its own task).
    """

    def __init__(
        self,
        spec: SourceSpec,
        budgets: Budgets | None = None,
        cache: SkillCache | None = None,
        *,
        mode: str = "auto",
    ) -> None:
        self.spec = spec
        self.budgets = budgets or DEFAULT_BUDGETS
        self.cache = cache
        self.mode = mode
        self.status = _status(spec)
        self._queue: asyncio.Queue[
            tuple[Callable[[McpConnection], Awaitable[Any]], asyncio.Future[Any]] | None
        ] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[McpConnection] | None = None
        self._lock = asyncio.Lock()
        self._abandoned: set[asyncio.Task[None]] = set()
        # Told, with the status, when the kept connection is given up between
        # operations, and when it is open again after that.
        self.on_connection: Callable[[SourceStatus], None] | None = None
        # The state and message of the last listing that succeeded.
        self._listed: tuple[str, str] | None = None
        # Why the last opening failed (a sign-in asked for travels with it).
        self._start_error: SourceError | None = None
        # The last connection opened (or tried): what its server wrote on stderr.
        self._output: McpConnection | None = None

    @property
    def connected(self) -> bool:
        return (
            self._worker is not None
            and not self._worker.done()
            and self._ready is not None
            and self._ready.done()
            and not self._ready.exception()
            and not self._ready.result().lost
        )

    @property
    def connection(self) -> McpConnection | None:
        """The open connection (for reading its negotiated state), or None."""
        if self.connected and self._ready is not None:
            return self._ready.result()
        return None

    async def start(self) -> SourceStatus:
        """Open the connection (if not open). Returns the status (error on failure)."""
        async with self._lock:
            if self.connected:
                return self.status
            lost = self._worker is not None
            await self._retire()
            loop = asyncio.get_running_loop()
            self._ready = loop.create_future()
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(
                self._run(self._ready, self._queue), name=f"mcp:{self.spec.label}"
            )
            try:
                conn = await asyncio.shield(self._ready)
            except SourceError as exc:
                self.status.status = "error"
                self.status.message = str(exc)
                self.status.sign_in = getattr(exc, "sign_in", "")
                self._start_error = exc
                return self.status
            self._start_error = None
            fill_status(self.status, conn)
            if self.status.status in (SourceState.PENDING, SourceState.FAILED):
                # Open again after a loss: what the last listing found still holds (its
                # skills are the ones shown); the loss itself stays among the notes.
                self.status.status, self.status.message = self._listed or ("ok", "connected")
            if lost:
                self.status.notes.append(
                    f"connected again at {time.strftime('%H:%M:%S')} after the connection was lost"
                )
                if self.on_connection is not None:
                    self.on_connection(self.status)
            return self.status

    async def _retire(self) -> None:
        """End the worker of a connection that was lost (its task closes the client)."""
        worker, self._worker = self._worker, None
        if worker is not None and not worker.done():
            await _stop_worker(worker, self._queue, 5)

    async def _run(
        self,
        ready: asyncio.Future[McpConnection],
        queue: asyncio.Queue[
            tuple[Callable[[McpConnection], Awaitable[Any]], asyncio.Future[Any]] | None
        ],
    ) -> None:
        running: set[asyncio.Task[Any]] = set()
        try:
            self._output = McpConnection(self.spec, self.budgets, mode=self.mode)
            async with self._output as conn:
                ready.set_result(conn)
                # A connection given up (a flooding server) is closed now, not when the
                # next request finds it lost: until then its server keeps the loop busy.
                conn.on_give_up = functools.partial(queue.put_nowait, None)
                while True:
                    item = await queue.get()
                    if item is None:
                        break
                    fn, fut = item
                    task = asyncio.create_task(_settle(fn, conn, fut))
                    running.add(task)
                    task.add_done_callback(running.discard)
                if running and conn.fault is not None:
                    # Given up (the server exited, flooded its channel): every request
                    # waiting ends on the fault at once. Let them, so that a listing
                    # keeps its pages and names the one that failed, as it does on a
                    # connection of its own, instead of being cancelled and sent again.
                    await asyncio.wait(list(running), timeout=FAULT_GRACE_SECONDS)
                for task in list(running):
                    task.cancel()
                if running:
                    await asyncio.gather(*running, return_exceptions=True)
                if conn.fault is not None:
                    self.status.status = "error"
                    self.status.message = f"connection lost: {conn.fault}"
                    self.status.notes.append(
                        f"{time.strftime('%H:%M:%S')} connection lost: {conn.fault}"
                    )
                    mask_status(self.status, conn)
                    if self.on_connection is not None:
                        self.on_connection(self.status)
        except BaseException as exc:
            error = exc if isinstance(exc, SourceError) else SourceError(describe_error(exc))
            if not ready.done():
                _fail(ready, error)
            else:
                self.status.status = "error"
                self.status.message = f"connection lost: {error}"
            while not queue.empty():
                item = queue.get_nowait()
                if item is not None and not item[1].done():
                    _fail(item[1], error)
            if isinstance(exc, asyncio.CancelledError):
                raise

    async def call(self, fn: Callable[[McpConnection], Awaitable[T]]) -> T:
        """Run ``fn(connection)`` on the open connection.

        A connection found closed (before, or by this very request: the server exited
        or its HTTP session ended) is opened again, and the request is sent once more
        on the new one. Every request sent this way is a read, so sending it twice is
        harmless.
        """
        conn, fut = await self._send(fn)
        try:
            return await fut
        except SourceError:
            if conn is None or not conn.lost:
                raise
        _conn, fut = await self._send(fn)  # once more, on a new connection
        return await fut

    async def _send(
        self, fn: Callable[[McpConnection], Awaitable[T]]
    ) -> tuple[McpConnection | None, asyncio.Future[T]]:
        if not self.connected:
            status = await self.start()
            if not self.connected:
                raise self._start_error or SourceError(status.message or "not connected")
        fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        await self._queue.put((fn, fut))
        return self.connection, fut

    async def close(self) -> None:
        await flush_cache_writes()
        if self._abandoned:
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(15):
                    await asyncio.gather(*self._abandoned, return_exceptions=True)
        worker, self._worker = self._worker, None
        if worker is not None:
            await _stop_worker(worker, self._queue, 15)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    def server_output(self) -> str | None:
        """What the server wrote on stderr since its last start here (bounded, secrets
        masked); ``None`` for a server over HTTP, ``""`` when it wrote nothing."""
        if self.spec.transport != "stdio":
            return None
        return self._output.server_output() if self._output is not None else ""

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- operations --------------------------------------------------------------------

    async def discover(self, *, timeout: float | None = None) -> tuple[SourceStatus, list[Skill]]:
        """Discovery on the kept connection; never raises for the server's failures.

        The connection that answered stays open for the reads that follow (and for a
        re-list after ``ttlMs``). ``timeout`` bounds the whole discovery, connect
        included; on a timeout or a cancellation the connection is abandoned.
        """
        status = _status(self.spec)
        try:
            async with asyncio.timeout(timeout):
                skills = await self.call(lambda conn: discover_on(conn, status))
        except TimeoutError:
            self.abandon()
            status.status = "error"
            status.message = f"discovery did not finish within {timeout:g} s"
            return status, []
        except SourceError as exc:
            status.status, status.message = "error", str(exc)
            status.sign_in = getattr(exc, "sign_in", "")
            skills = []
        except asyncio.CancelledError:
            self.abandon()
            raise
        if status.status == SourceState.FAILED:
            # A server whose listing failed (no answer in time, a dead connection) is
            # started afresh by the next discovery, as a Refresh would expect.
            self.abandon()
            return status, skills
        self.status = status
        self._listed = (status.status, status.message)
        return status, skills

    def abandon(self) -> None:
        """Stop the connection's worker without waiting (its task closes the client and
        ends a stdio server); the next call opens a new connection."""
        worker, self._worker = self._worker, None
        if worker is not None and not worker.done():
            worker.cancel()
            self._abandoned.add(worker)  # awaited by close(): it ends the server
            worker.add_done_callback(self._abandoned.discard)

    async def get_skill(self, uri: str) -> Skill:
        """``skills/get``: the current entry for a URI, checked like a listed one.

        Raises :class:`SourceError` with a user message when there is no such skill.
        """
        raw = await self.call(lambda conn: get_skill(conn, uri))
        skill = parse_entry(raw, self.spec.origin)
        if skill.uri != uri:
            from desktop.core.model import Problem

            skill.problems.append(
                Problem(
                    "get-uri-mismatch",
                    f"asked for {uri}, the server answered with an entry for {skill.uri}",
                    "invalid",
                )
            )
        tools = self.status.tools
        if tools is not None and skill.state is not EntryState.INVALID:
            skill.problems.extend(affinity_report(skill, tools)[1])
        return skill

    async def read_file(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        """A verified read of one listed file; bytes only when usable."""
        return await read_file(
            skill,
            uri,
            source=_HandleSource(self),
            cache=self.cache,
            refresh=refresh,
            max_read_bytes=self.budgets.max_read_bytes,
        )

    async def read_skill_md(self, skill: Skill, *, refresh: bool = False) -> ReadResult:
        return await read_skill_md(
            skill, source=_HandleSource(self), cache=self.cache, refresh=refresh
        )

    async def verify(self, skill: Skill, *, refresh: bool = False) -> SkillVerification:
        return await verify_skill(
            skill,
            source=_HandleSource(self),
            cache=self.cache,
            refresh=refresh,
            deadline=self.budgets.verify_timeout,
            concurrency=self.budgets.max_concurrent_reads,
        )

    async def read_directory(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        """Children of a directory, each marked whether it is in the held entry.

        Raises :class:`SourceError` when the server does not declare ``directoryRead``.
        """
        children = await self.call(lambda conn: read_directory(conn, uri))
        return judge_children(skill, children)


async def _stop_worker(
    worker: asyncio.Task[None], queue: asyncio.Queue[Any], seconds: float
) -> None:
    """Ask a handle's worker to end (it closes its client and ends a stdio server);
    cancel it if it has not within ``seconds``."""
    queue.put_nowait(None)
    try:
        async with asyncio.timeout(seconds):
            await asyncio.shield(worker)
    except BaseException:  # noqa: BLE001 - a stuck worker is cancelled
        worker.cancel()
        with contextlib.suppress(BaseException):
            await worker


async def _settle(
    fn: Callable[[McpConnection], Awaitable[Any]], conn: McpConnection, fut: asyncio.Future[Any]
) -> None:
    try:
        result = await fn(conn)
    except asyncio.CancelledError:
        if not fut.done():
            fut.set_exception(SourceError("the connection was closed"))
        raise
    except BaseException as exc:  # noqa: BLE001
        if not fut.done():
            error = exc if isinstance(exc, SourceError) else SourceError(describe_error(exc))
            # A server's words (an error quoting a header) never carry a secret out.
            said = str(error)
            if conn.masked(said) != said:
                error.args = (conn.masked(said), *error.args[1:])
            fut.set_exception(error)
        return
    if not fut.done():
        fut.set_result(result)


class _HandleSource:
    """The reader's byte source, routed through a handle's worker."""

    def __init__(self, handle: ServerHandle) -> None:
        self.handle = handle

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes:
        return await self.handle.call(
            lambda conn: read_bytes(
                conn, uri, refresh=refresh, limit=limit, expected_size=expected_size
            )
        )

    def mark_stale(self, uri: str) -> None:
        conn = self.handle.connection
        if conn is not None:
            conn.mark_stale(uri)

    def describe_error(self, exc: BaseException) -> str:
        return describe_error(exc)


class ServerPool:
    """Handles by source label, opened on first use, closed together."""

    def __init__(
        self,
        specs: list[SourceSpec],
        budgets: Budgets | None = None,
        cache: SkillCache | None = None,
        *,
        on_connection: Callable[[SourceStatus], None] | None = None,
    ) -> None:
        # A server not trusted keeps its handle, whose connection refuses to open
        # (McpConnection): a read of it says why instead of finding no such server.
        self.specs = {s.label: s for s in specs if s.kind == MCP_SERVER.name}
        self.budgets = budgets or DEFAULT_BUDGETS
        self.cache = cache if cache is not None else SkillCache()
        self.on_connection = on_connection  # given to each handle (see ServerHandle.on_connection)
        self._handles: dict[str, ServerHandle] = {}

    def handle(self, label: str) -> ServerHandle:
        if label not in self._handles:
            if label not in self.specs:
                raise KeyError(label)
            handle = ServerHandle(self.specs[label], self.budgets, self.cache)
            handle.on_connection = self.on_connection
            self._handles[label] = handle
        return self._handles[label]

    def take_over(self, old: ServerPool) -> None:
        """Keep ``old``'s connections to servers configured exactly as here (same label,
        same command or URL, same settings); ``old`` keeps only the others, to close."""
        for label, handle in list(old._handles.items()):
            if self.specs.get(label) == handle.spec and label not in self._handles:
                self._handles[label] = old._handles.pop(label)

    async def read_file(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        """Verified read of a server skill's file on its server's kept connection."""
        return await self.handle(skill.origin.label).read_file(skill, uri, refresh=refresh)

    async def read_skill_md(self, skill: Skill, *, refresh: bool = False) -> ReadResult:
        return await self.handle(skill.origin.label).read_skill_md(skill, refresh=refresh)

    async def verify(self, skill: Skill, *, refresh: bool = False) -> SkillVerification:
        return await self.handle(skill.origin.label).verify(skill, refresh=refresh)

    async def close(self) -> None:
        await flush_cache_writes()
        handles, self._handles = list(self._handles.values()), {}
        await asyncio.gather(*(h.close() for h in handles), return_exceptions=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class McpSource(BaseSource):
    """One MCP server as a :class:`~desktop.sources.base.Source`: listed and read on
    the connection its session's pool keeps open (the context's ``mcp`` share), or,
    without one, listed on a connection closed after the listing."""

    failed = "discovery"

    def __init__(self, spec: SourceSpec, context: SourceContext | None = None) -> None:
        super().__init__(spec, context)
        self._own: ServerPool | None = None

    @property
    def pool(self) -> ServerPool:
        shared = self.context.shared(MCP_SERVER.name)
        if isinstance(shared, ServerPool):
            return shared
        if self._own is None:
            self._own = ServerPool([self.spec], self.context.budgets, self.context.cache)
        return self._own

    def handle(self) -> ServerHandle:
        return self.pool.handle(self.spec.label)

    async def _discover(self) -> SourceRead:
        shared = self.context.shared(MCP_SERVER.name)
        if not isinstance(shared, ServerPool):
            return await discover_server(self.spec, self.context.budgets)
        b = shared.budgets
        whole = discovery_timeout(self.spec, b.connect_timeout, b.server_timeout)
        return await self.handle().discover(timeout=whole)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        return await self.handle().read_file(skill, uri, refresh=refresh)

    async def verify(self, skill: Skill) -> SkillVerification:
        return await self.handle().verify(skill)

    async def list_folder(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        return await self.handle().read_directory(skill, uri)

    async def close(self) -> None:
        own, self._own = self._own, None
        if own is not None:
            await own.close()


# -- one-shot helpers for the CLI ----------------------------------------------------------


async def with_server(
    spec: SourceSpec,
    fn: Callable[[ServerHandle], Awaitable[T]],
    budgets: Budgets | None = None,
    cache: SkillCache | None = None,
) -> T:
    """Open a handle, run ``fn`` with it, close it."""
    handle = ServerHandle(spec, budgets, cache)
    try:
        status = await handle.start()
        if status.status == SourceState.FAILED:
            raise SourceError(status.message)
        return await fn(handle)
    finally:
        await handle.close()


async def get_skill_once(spec: SourceSpec, uri: str, budgets: Budgets | None = None) -> Skill:
    """``skills/get`` on a fresh connection (raises :class:`SourceError` with a message)."""
    return await with_server(spec, lambda h: h.get_skill(uri), budgets)

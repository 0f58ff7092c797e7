"""The stdio transport for MCP servers, reading the server's output in linear time.

The ``mcp`` SDK's stdio reader joins its unfinished text with every 64 KiB chunk and
splits the whole again, so one message of n bytes costs about n²/64 KiB of copying on
the event loop: a 16 MiB file (22 MB of base64 on one line) took 3.9 s of CPU, and a
line that never ends grew until a timeout. Here the chunks of an unfinished line are
kept in a list and joined once, when its end arrives; a message over the size limit
ends the connection with that reason.

Everything else is the SDK's order of things: the server runs in its own process
group with our environment's safe variables, lines that are not JSON-RPC reach the
session as exceptions (its ``message_handler`` counts them), and shutdown closes stdin,
waits, then ends the whole group (SIGTERM, then SIGKILL). Its stderr is read through a
pipe, keeping the tail (:class:`StderrTail`), and paced past a burst so that a server
logging without pause cannot hold the loop. POSIX only; on Windows the SDK's own
transport is used.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import mcp_types
import orjson
from anyio.abc import Process
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from desktop.core.server_output import CAUSE_LINES, bounded_log, is_error_line
from desktop.sources.mcp.notifications import NotificationBudget

UNASKED = (mcp_types.JSONRPCNotification, mcp_types.JSONRPCRequest)

EXIT_GRACE = 2.0  # seconds for the server to exit once its stdin is closed
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to its process group
FLUSH_GRACE = 0.5  # seconds for messages already accepted to be written at close
# A server's stderr is read at once up to STDERR_BURST bytes, then at STDERR_RATE bytes
# a second: one logging without pause would otherwise keep the client's loop (the
# window's own thread) busy for as long as the connection is kept. Past the rate, the
# server's own writes wait for the pipe.
STDERR_BURST = 16 * 2**20
STDERR_RATE = 4 * 2**20
_POLL = 0.01

_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


class StderrTail:
    """What a server wrote to its stderr: its beginning, its tail, and its first lines
    that read like an error (what a message quotes, see ``desktop.core.server_output``).

    A server's stderr is read through a pipe and only these are kept, so one that logs
    all day in a window left open costs a few dozen KiB, not a file growing on disk.
    """

    def __init__(self, keep: int = 8192, head: int = 16384) -> None:
        self._keep = keep
        self._head_size = head
        self._head = bytearray()
        self._data = bytearray()
        self.seen = 0  # bytes read in all
        self.causes: list[str] = []  # the first error-like lines
        self._line = bytearray()  # the line being scanned for causes (its start)

    def feed(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        if len(self.causes) < CAUSE_LINES:
            self._scan(chunk)
        room = self._head_size - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._data += chunk
        if len(self._data) > 2 * self._keep:
            del self._data[: -self._keep]

    def _scan(self, chunk: bytes) -> None:
        *done, rest = chunk.split(b"\n")
        for piece in done:
            self._line += piece[: 4096 - len(self._line)]
            line = self._line.decode("utf-8", "replace")
            self._line.clear()
            if is_error_line(line) and line not in self.causes:
                self.causes.append(line)  # whole: masked before it is cut
                if len(self.causes) >= CAUSE_LINES:
                    return
        self._line += rest[: max(0, 4096 - len(self._line))]

    def text(self) -> str:
        """The last bytes (up to ``keep``), from the head when the stream was short."""
        whole = bytes(self._head[-self._keep :] + self._data)
        return whole[-self._keep :].decode("utf-8", "replace")

    def log(self) -> str:
        """All that was kept, for a person: the beginning and the end, saying what was
        left out between them (see ``desktop.core.server_output.bounded_log``)."""
        tail = bytes(self._data[-self._keep :])
        skipped = self.seen - len(self._head) - len(tail)
        head = bytes(self._head).decode("utf-8", "replace")
        return bounded_log(head, tail.decode("utf-8", "replace"), skipped)


def refused_answer(request_id: Any, message: str) -> SessionMessage:
    """The error put in place of an answer refused unread (see ``ANSWER_REFUSED``)."""
    from desktop.sources.budgets import ANSWER_REFUSED

    return SessionMessage(
        mcp_types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,
            error=mcp_types.ErrorData(code=ANSWER_REFUSED, message=message),
        )
    )


class PendingAnswers:
    """The requests sent and not yet answered, so that an answer over its request's
    own byte limit (a ``tools/list`` page of 45 MB) is dropped before it is parsed."""

    def __init__(
        self, answer_limit: Callable[[str], int], refused: Callable[[str, int | None, int], str]
    ) -> None:
        self._limit = answer_limit
        self._refused = refused
        self._methods: dict[Any, str] = {}
        self.smallest = 0  # the smallest limit of a pending request (0: none pending)

    def sent(self, message: Any) -> None:
        if isinstance(message, mcp_types.JSONRPCRequest):
            self._methods[message.id] = message.method
            self._update()

    def answered(self, message: Any) -> None:
        answer = isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError)
        if answer and self._methods.pop(message.id, None) is not None:
            self._update()

    def _update(self) -> None:
        self.smallest = min((self._limit(m) for m in self._methods.values()), default=0)

    def refusal(self, line: bytes) -> SessionMessage | None:
        """The error to deliver instead of ``line`` when it answers a request whose
        limit it is over; else ``None`` (the line is parsed as usual)."""
        if not self.smallest or len(line) <= self.smallest:
            return None
        try:  # about a tenth of what building the SDK's message costs
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        request_id = value.get("id") if isinstance(value, dict) else None
        del value
        method = self._methods.get(request_id) if isinstance(request_id, int | str) else None
        if method is None or len(line) <= (limit := self._limit(method)):
            return None
        self._methods.pop(request_id, None)
        self._update()
        return refused_answer(request_id, self._refused(method, len(line), limit))


def parse_line(line: bytes) -> SessionMessage | Exception:
    """One line of the server's output: a message, or why it is not one."""
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError, invalid UTF-8 or JSON included
        return exc


class LineSplitter:
    """Cuts a byte stream into lines without copying an unfinished line twice."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines this chunk finishes. Raises ``OverflowError`` past the limit."""
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = chunk[start:end]
            if self._parts:
                self._parts.append(piece)
                piece = b"".join(self._parts)
                self._parts, self._size = [], 0
            lines.append(piece)
            start = end + 1
        if start < len(chunk):
            self._parts.append(chunk[start:])
            self._size += len(chunk) - start
            if self._size > self.limit:
                self._parts, self._size = [], 0
                raise OverflowError(self.limit)
        return lines


@contextlib.asynccontextmanager
async def stdio_transport(
    params: StdioServerParameters,
    stderr: StderrTail,
    *,
    max_message: int,
    on_fault: Callable[[str], None],
    on_exit: Callable[[int | None], None] | None = None,
    starting_graces: tuple[float, float] | None = None,
    pending: PendingAnswers | None = None,
    budget: NotificationBudget | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server and yield the session's (read, write) streams.

    ``on_fault`` is told, in words, why the connection ends (a message over
    ``max_message`` bytes) before the read stream ends. ``on_exit`` is told when the
    server ends its output (it exited) before we asked it to, with its exit code when
    known, once its last stderr has been read. ``starting_graces`` (exit grace, kill
    grace) replace :data:`EXIT_GRACE` and :data:`KILL_GRACE` when the server is
    stopped before it wrote anything: a package runner may still be installing, and
    is given time to finish rather than be ended with a half-written install.
    ``pending`` drops, unparsed, an answer over the byte limit of the request it answers.
    ``budget`` counts the notifications and requests the server sends: past it, they are
    dropped (a line without an ``"id"`` unparsed) and answers still read.
    """
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        stderr=subprocess.PIPE,
        cwd=params.cwd,
        start_new_session=True,
    )
    # No await between the spawn and the task group: a cancellation there would leak it.
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    errors_done = anyio.Event()
    closing = False
    spoke = False

    async def read_output() -> None:
        nonlocal spoke
        assert process.stdout is not None
        lines = LineSplitter(max_message)
        try:
            async with to_session:
                async for chunk in process.stdout:
                    spoke = True
                    try:
                        finished = lines.feed(chunk)
                    except OverflowError:
                        on_fault(
                            f"the server sent a message over {max_message // 2**20} MiB "
                            "(the limit for one message)"
                        )
                        return
                    for line in finished:
                        if not line.strip():
                            continue
                        refused = pending.refusal(line) if pending is not None else None
                        if refused is not None:
                            await to_session.send(refused)
                            continue
                        if budget is not None and budget.over and b'"id"' not in line:
                            budget.allow()  # past the budget: dropped unparsed
                            continue
                        parsed = parse_line(line)
                        if pending is not None and isinstance(parsed, SessionMessage):
                            pending.answered(parsed.message)
                        if (
                            budget is not None
                            and isinstance(parsed, SessionMessage)
                            and isinstance(parsed.message, UNASKED)
                            and not budget.allow()
                        ):
                            continue
                        await to_session.send(parsed)
                if not closing and on_exit is not None:
                    # The server ended its output on its own: it exited (or is about
                    # to). Its last words on stderr and its exit code explain why.
                    with anyio.move_on_after(FLUSH_GRACE):
                        await errors_done.wait()
                    code = None
                    with anyio.move_on_after(FLUSH_GRACE):
                        code = await process.wait()
                    if not closing:
                        on_exit(code)
        except _PIPE_ERRORS:
            pass
        finally:
            # A server blocked on a full pipe cannot see its stdin close: keep reading
            # (and dropping) until shutdown closes the pipe.
            with anyio.CancelScope(shield=True), contextlib.suppress(*_PIPE_ERRORS):
                async for _ in process.stdout:
                    pass

    async def read_errors() -> None:
        assert process.stderr is not None
        # Drained all along: a server blocked on a full stderr pipe would stop answering.
        allowance, last = float(STDERR_BURST), anyio.current_time()
        try:
            with contextlib.suppress(*_PIPE_ERRORS):
                async for chunk in process.stderr:
                    stderr.feed(chunk)
                    now = anyio.current_time()
                    refill = (now - last) * STDERR_RATE
                    allowance = min(STDERR_BURST, allowance + refill) - len(chunk)
                    last = now
                    if allowance < 0:
                        await anyio.sleep(-allowance / STDERR_RATE)
        finally:
            errors_done.set()

    async def write_input() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    if pending is not None:
                        pending.sent(message.message)
                    body = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(body.encode() + b"\n")
        except _PIPE_ERRORS:
            # The server stopped reading: end the session's stream so that no request
            # waits for an answer that cannot come.
            await to_session.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_output)
        tg.start_soon(read_errors)
        tg.start_soon(write_input)
        try:
            yield read_stream, write_stream
        finally:
            closing = True
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(FLUSH_GRACE):
                    await writer_done.wait()
                if starting_graces is not None and not spoke:
                    await _stop(process, *starting_graces)
                else:
                    await _stop(process)
                # What a server said on its way out is what explains its failure.
                with anyio.move_on_after(FLUSH_GRACE):
                    await errors_done.wait()
                with contextlib.suppress(*_PIPE_ERRORS):
                    if process.stderr is not None:
                        await process.stderr.aclose()
                _close_pipes(process)
                for stream in (read_stream, write_stream, to_session, from_session):
                    await stream.aclose()
            tg.cancel_scope.cancel()


async def _stop(
    process: Process, exit_grace: float = EXIT_GRACE, kill_grace: float = KILL_GRACE
) -> None:
    """Close stdin, give the server its grace period, then end its process group.

    The group is ended whether or not the server left on its own: a server that exits
    when its stdin closes may leave children it started (in its group) running."""
    with contextlib.suppress(*_PIPE_ERRORS):
        if process.stdin is not None:
            await process.stdin.aclose()
    await _exited(process, exit_grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        await terminate_posix_process_tree(process, kill_grace)
    await _exited(process, kill_grace)
    with contextlib.suppress(*_PIPE_ERRORS):
        if process.stdout is not None:
            await process.stdout.aclose()


def _close_pipes(process: Process) -> None:
    """Close asyncio's transport for the process and its pipes.

    Closing anyio's streams leaves the pipes open while a child the server left behind
    still holds their other ends; the transport then warns when it is collected,
    after the loop may be gone. Nothing public reaches it, hence the attribute walk.
    """
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError, ProcessLookupError):
            close()


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the process ended within ``seconds``, by its return code.

    Not ``process.wait()``: it also waits for the pipes to close, which a child the
    server left behind can hold open.
    """
    deadline = anyio.current_time() + seconds
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(_POLL)
    return True

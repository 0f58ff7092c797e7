"""One open connection to one MCP server, speaking the Skills extension.

:class:`McpConnection` is an async context manager around ``mcp.Client``. Enter and
leave it in the same task (the SDK's task groups require it); requests may be sent
from other tasks on the same loop while it is open.

It knows the era rules, sends each request within its time limit and watches
what the server sends (floods, what is not JSON-RPC, a server that exits). The requests
themselves are functions of a connection: ``skills/list`` and ``skills/get`` in
:mod:`~desktop.sources.mcp.skills`, ``tools/list`` in :mod:`~desktop.sources.mcp.tools`,
file and directory reads in :mod:`~desktop.sources.mcp.reads`. Its failures and their
messages are in :mod:`~desktop.sources.mcp.errors`, its transports in
:mod:`~desktop.sources.mcp.transport`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any, Self

import anyio
from mcp import Client, MCPError, types
from mcp.client import advertise
from mcp.client.stdio import stdio_client
from mcp_types import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, TypeAdapter

from desktop import __version__
from desktop.core.model import SourceSpec
from desktop.core.secrets import scrub
from desktop.core.server_output import bounded_log, cause_lines, stderr_summary
from desktop.sources.budgets import (
    ANSWER_REFUSED,
    DEFAULT_BUDGETS,
    RESUME_LIMIT,
    UNASKED_WINDOW,
    Budgets,
)
from desktop.sources.errors import SourceError
from desktop.sources.launchers import connect_timeout, stop_graces, timeout_advice
from desktop.sources.mcp.errors import (
    HTTP_HINTS,
    ResumeRefused,
    UnreadableAnswer,
    answered,
    describe_error,
    is_unreadable_answer,
    offending_text,
    refused_answer,
    session_ended,
    shown_seconds,
)
from desktop.sources.mcp.log_filters import COUNT_UNASKED
from desktop.sources.mcp.notifications import NotificationBudget
from desktop.sources.mcp.stdio_transport import PendingAnswers, StderrTail, stdio_transport
from desktop.sources.mcp.transport import (
    close_quietly,
    close_seconds,
    http_transport,
    launch_slot,
    resolved_spec,
    stdio_parameters,
    timed_out,
)

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
_RAW = TypeAdapter(dict[str, Any])


class _Params(types.RequestParams):
    """Params of an extension request: whatever fields the method takes."""

    model_config = ConfigDict(extra="allow")


STDERR_TAIL = 600
# Lines a server may write that are not JSON-RPC (a banner, stray logging) before the
# connection is given up as a server that floods its protocol channel.
STRAY_LIMIT = 1000


class McpConnection:
    """An open connection: era, capabilities, and requests sent within their time limits."""

    def __init__(
        self,
        spec: SourceSpec,
        budgets: Budgets | None = None,
        *,
        mode: str = "auto",
        environ: dict[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self.budgets = budgets or DEFAULT_BUDGETS
        self.mode = mode
        self._environ = environ
        self._stack: AsyncExitStack | None = None
        self._client: Client | None = None
        self._errlog: Any = None  # Windows: the SDK's transport writes stderr to a file
        self._errtail: StderrTail | None = None
        self._http_status: str | None = None
        # URIs whose next read bypasses the SDK's response cache (see mark_stale).
        self.stale: set[str] = set()
        # Messages from the server that were not JSON-RPC: how many, and the first.
        self._stray = 0
        self._stray_first = ""
        # What the server sends unasked, within its budget (see mcp_notifications).
        self._budget = NotificationBudget(
            self.budgets.notification_limit, self.budgets.notification_window, self._give_up
        )
        self._budget_in_transport = False
        # Set once the server floods its channel: every pending request ends with it.
        self._fault: str | None = None
        # Called once the connection is given up (its owner then closes it).
        self.on_give_up: Callable[[], None] | None = None
        self._deadlines: set[asyncio.Timeout] = set()
        # Requests ended early because the server's answer could not be read, and why.
        self._unreadable: dict[asyncio.Timeout, str] = {}
        # Answers that could not be read so far, and the last of them.
        self._unreadable_seen = 0
        self._unreadable_last = ""
        # Set when a request finds the connection gone (the server exited, the HTTP
        # session ended): the kept connection is then replaced before the next request.
        self.lost = False
        self._secrets: list[str] = []
        # Tokens the connection's sign-in sent (each kept once seen, for its masking).
        self._tokens: list[str] = []
        # Why the server's sign-in stopped the connection (see desktop.sources.mcp.signin).
        self._auth_stop: SourceError | None = None
        self._auth: Any = None
        # Event streams resumed in the current window (see _count_resumes).
        self._resumes = 0
        self._resumes_since = 0.0
        self._resumes_refused = False
        # Set once the server answered a skills method with an error that means it
        # publishes no skills (see desktop.sources.mcp.skills).
        self.answered_no_skills = False

    # -- opening -----------------------------------------------------------------------

    def _transport(self) -> Any:
        env = self._environ if self._environ is not None else dict(os.environ)
        spec, self._secrets = resolved_spec(self.spec, env)
        if spec.transport == "stdio":
            params = stdio_parameters(spec)
            if sys.platform == "win32":
                self._close_errlog()
                self._errlog = tempfile.TemporaryFile(  # noqa: SIM115 - see _close_errlog
                    mode="w+", encoding="utf-8", errors="replace"
                )
                return stdio_client(params, errlog=self._errlog)
            self._errtail = StderrTail()
            self._budget_in_transport = True
            return stdio_transport(
                params,
                self._errtail,
                max_message=self.budgets.max_message_bytes,
                on_fault=self._give_up,
                on_exit=self._server_exited,
                starting_graces=stop_graces(self.spec),
                pending=PendingAnswers(self.budgets.answer_limit, refused_answer),
                budget=self._budget,
            )
        if spec.transport == "http":
            transport, self._auth = http_transport(
                spec,
                self.spec,
                env,
                self.budgets,
                on_auth_stop=self._auth_stopped,
                on_request=self._count_resumes,
                on_status=self._note_http_status,
                on_fault=self._give_up,
                budget=self._budget,
            )
            self._budget_in_transport = True
            return transport
        raise SourceError(f"not an MCP transport: {self.spec.transport}")

    def _auth_stopped(self, why: SourceError) -> None:
        """The server asked for a sign-in that cannot happen here (or refused it): every
        pending request ends now, with ``why``."""
        if self._auth_stop is None:
            self._auth_stop = why
        now = asyncio.get_running_loop().time()
        for deadline in list(self._deadlines):
            with contextlib.suppress(RuntimeError):  # already expiring
                deadline.reschedule(now)

    async def _count_resumes(self, request: Any) -> None:
        """Refuse to resume event streams past :data:`RESUME_LIMIT` in a window: the
        request then fails, saying so, instead of the client asking without pause."""
        if request.method != "GET" or "last-event-id" not in request.headers:
            return
        now = time.monotonic()
        if now - self._resumes_since > UNASKED_WINDOW:
            self._resumes, self._resumes_since = 0, now
        self._resumes += 1
        if self._resumes > RESUME_LIMIT:
            self._resumes_refused = True
            raise ResumeRefused(
                f"the server's event stream ended without its answer and was resumed "
                f"{RESUME_LIMIT} times within {UNASKED_WINDOW:g} s; no more were asked"
            )

    async def _note_http_status(self, response: Any) -> None:
        method = getattr(getattr(response, "request", None), "method", "")
        if response.status_code == 405 and method in ("GET", "DELETE"):
            # Streamable HTTP lets a server refuse its own event stream (GET) and the
            # end of a session (DELETE) this way: nothing is wrong with the endpoint.
            return
        if response.status_code >= 400:
            status = f"HTTP {response.status_code} {response.reason_phrase}".strip()
            self._http_status = status + HTTP_HINTS.get(response.status_code, "")

    def stderr_tail(self) -> str:
        """What the server wrote on stderr, in one line for a message: its first lines
        that read like an error, then its last lines (see desktop.core.server_output)."""
        causes: list[str] = []
        if self._errtail is not None:
            text = self._errtail.text()[-4 * STDERR_TAIL :]
            causes = self._errtail.causes
        elif self._errlog is None or self._errlog.closed:
            return ""
        else:
            try:
                self._errlog.flush()
                self._errlog.seek(0)
                head = self._errlog.read(16384)
                self._errlog.seek(0, os.SEEK_END)
                end = self._errlog.tell()
                self._errlog.seek(max(0, end - 4 * STDERR_TAIL))
                text = self._errlog.read()
            except (OSError, ValueError):
                return ""
            causes = cause_lines(head.splitlines())
        lines = [ln for ln in text.splitlines() if ln.strip()]
        # Masked whole, then cut (a secret cut in two would escape the mask).
        masked = [self.masked(ln) for ln in lines[-4:]]
        shown = cause_lines([self.masked(c) for c in causes])
        return stderr_summary(shown, masked, STDERR_TAIL)

    def server_output(self) -> str | None:
        """What the server wrote on stderr on this connection, bounded and masked, for a
        person to read; ``None`` for a server not started here (over HTTP)."""
        if self.spec.transport != "stdio":
            return None
        if self._errtail is not None:
            return self.masked(self._errtail.log())
        if self._errlog is None or self._errlog.closed:
            return ""
        try:
            self._errlog.flush()
            self._errlog.seek(0)
            return self.masked(bounded_log(self._errlog.read(1 << 20), "", 0))
        except (OSError, ValueError):
            return ""

    @property
    def secrets(self) -> list[str]:
        """Every secret this connection sent or holds: its resolved headers, variables
        and arguments, and the tokens of its sign-in (a refreshed one included)."""
        tokens = getattr(getattr(self._auth, "context", None), "current_tokens", None)
        for name in ("access_token", "refresh_token"):
            value = getattr(tokens, name, None)
            if isinstance(value, str) and value and value not in self._tokens:
                self._tokens.append(value)
        return [*self._secrets, *self._tokens]

    def masked(self, text: str) -> str:
        """``text`` with every secret this connection sent or holds masked."""
        return scrub(text, self.secrets)

    def no_skills_answer(self) -> None:
        """The server answered a skills method with an error meaning it has none."""
        self.answered_no_skills = True
        self.answer_taken()

    def answer_taken(self) -> None:
        """An error answer was taken as what it says (no skills, no tools): the HTTP
        status it came with is not a failure of the source."""
        self._http_status = None

    def explain(self, exc: BaseException, timeout: float | None = None) -> str:
        if self._fault is not None:
            return self._fault
        message = describe_error(exc, timeout or self.budgets.request_timeout)
        # Its stderr says why a server failed or went away; beside an error the server
        # answered with, it is only its ordinary logging.
        tail = "" if answered(exc) else self.stderr_tail()
        if tail:
            message += f" — server stderr: {tail}"
        message = self.masked(message)
        if self._http_status:
            message += f" (the server answered {self._http_status})"
        return message

    # -- what the server sent that is not JSON-RPC -------------------------------------

    def _channel(self) -> str:
        return "standard output" if self.spec.transport == "stdio" else "event stream"

    async def _on_message(self, message: Any) -> None:
        """The SDK hands transport faults and what the server sent unasked here: count
        what was not JSON-RPC (what was sent unasked is counted by the transports, which
        drop what is past the budget before it is parsed)."""
        if self._fault is not None:
            return
        if not isinstance(message, Exception):
            if not self._budget_in_transport:
                self._budget.allow()  # counted here, too late to be dropped
            return
        self._stray += 1
        if self._stray == 1:
            self._stray_first = offending_text(message)
        if is_unreadable_answer(message):
            self._answer_unreadable(offending_text(message))
        if self._stray >= STRAY_LIMIT:
            self._give_up(
                f"the server writes what is not JSON-RPC on its {self._channel()} "
                f"({self._stray:,} messages, the first: {self._stray_first})"
            )

    def unreadable_notification(self, why: str) -> None:
        """A notification the SDK could not read (a log level no one knows, params of
        the wrong shape) was dropped: counted, and said once in a note."""
        self._budget.unreadable_one(why)

    def _answer_unreadable(self, excerpt: str) -> None:
        """The server answered something that is not JSON-RPC. With one request waiting
        the answer is taken as its own: that request ends now, saying so, rather than
        waiting out its timeout as if nothing had come. With several, which one it
        answered cannot be told: each that then times out says what came."""
        self._unreadable_seen += 1
        self._unreadable_last = excerpt
        waiting = [d for d in self._deadlines if d not in self._unreadable]
        if len(waiting) == 1:
            self._unreadable[waiting[0]] = excerpt
            with contextlib.suppress(RuntimeError):  # already expiring
                waiting[0].reschedule(asyncio.get_running_loop().time())

    def _why_no_answer(self, what: str, seconds: float, seen: int) -> str:
        """Why ``what`` timed out: no answer came, or (with several requests waiting)
        perhaps one that was not JSON-RPC while it waited (``seen``: how many such
        answers had come before it was sent)."""
        message = f"no answer to {what} within {shown_seconds(seconds)} s"
        if self._unreadable_seen > seen:
            message += (
                "; meanwhile the server sent an answer that is not valid JSON-RPC: "
                + self._unreadable_last
            )
        return message

    def _server_exited(self, code: int | None) -> None:
        """A stdio server ended on its own: whatever was pending, and the kept
        connection, end now with why (its exit code, its last words on stderr)."""
        reason = "the server exited" + (f" with code {code}" if code is not None else "")
        tail = self.stderr_tail()
        self._give_up(reason + (f" — server stderr: {tail}" if tail else ""))

    def _give_up(self, reason: str) -> None:
        """End every pending request now; ``reason`` (and that the connection was given
        up) is their error. The transports call this for a message over the limit."""
        if self._fault is not None:
            return
        self._fault = reason + "; the connection was given up"
        self.lost = True
        if self.on_give_up is not None:
            self.on_give_up()
        now = asyncio.get_running_loop().time()
        for deadline in list(self._deadlines):
            with contextlib.suppress(RuntimeError):  # already expiring
                deadline.reschedule(now)

    @property
    def signed_in(self) -> bool:
        """Whether the connection sends a token from a sign-in."""
        context = getattr(self._auth, "context", None)
        return getattr(context, "current_tokens", None) is not None

    @property
    def account(self) -> str:
        """Whose account the sign-in is for, where the server said ("" if not)."""
        return str(getattr(self._auth, "account", "")) if self.signed_in else ""

    @property
    def fault(self) -> str | None:
        """Why the connection was given up, if it was."""
        return self._fault

    @property
    def notes(self) -> list[str]:
        """What the source's notes should say about this connection."""
        if self._fault is not None:
            return []
        notes = self._budget.notes()
        if not self._stray:
            return notes
        note = (
            f"the server wrote {self._stray} message(s) that are not JSON-RPC on its "
            f"{self._channel()}, ignored (the first: {self._stray_first}); a server "
            "should send only protocol messages there"
        )
        return [note, *notes]

    @contextlib.asynccontextmanager
    async def _deadline(self, seconds: float) -> Any:
        """``asyncio.timeout`` that also ends at once when the connection is given up."""
        async with asyncio.timeout(seconds) as deadline:
            if self._fault is not None:
                deadline.reschedule(asyncio.get_running_loop().time())
            self._deadlines.add(deadline)
            try:
                yield deadline
            finally:
                self._deadlines.discard(deadline)
                if deadline in self._unreadable and not deadline.expired():
                    del self._unreadable[deadline]  # answered after all

    async def __aenter__(self) -> Self:
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            server = self._transport()
            client = Client(
                server,
                mode=self.mode,
                extensions=[advertise(SKILLS_EXTENSION)],
                # Timeouts are ours (per request, scaled for large reads): see bounded.
                read_timeout_seconds=None,
                message_handler=self._on_message,
                client_info=types.Implementation(name="skill-catalog", version=__version__),
            )
            launching = self.spec.transport == "stdio"
            slot = launch_slot() if launching else contextlib.nullcontext()
            connect_seconds = connect_timeout(self.spec, self.budgets.connect_timeout)
            opening = COUNT_UNASKED.set(self.unreadable_notification)
            try:
                async with slot, self._deadline(connect_seconds):
                    await stack.enter_async_context(client)
                    if self.mode in MODERN_PROTOCOL_VERSIONS:
                        # A pinned client adopts a synthesized discover result with no
                        # capabilities: ask the server for its real ones.
                        raw = await client.session.send_discover(self.mode)
                        client.session.adopt(types.DiscoverResult.model_validate(raw))
            finally:
                COUNT_UNASKED.reset(opening)
        except BaseException as exc:
            # The server is stopped, its last words read.
            await close_quietly(stack, close_seconds(self.spec))
            seconds = connect_timeout(self.spec, self.budgets.connect_timeout)
            message = self.explain(exc, seconds)
            if isinstance(exc, TimeoutError) and self._unreadable:
                excerpt = next(iter(self._unreadable.values()))
                message = f"the server's answer is not valid JSON-RPC: {excerpt}"
            elif isinstance(exc, TimeoutError) and self._fault is None:
                message += f" ({timeout_advice(self.spec, seconds)})"
            self._close_errlog()
            if isinstance(exc, asyncio.CancelledError) and not timed_out(exc):
                raise
            if self._auth_stop is not None:
                raise self._auth_stop from None
            raise SourceError(f"could not connect: {message}") from None
        self._stack = stack
        self._client = client
        return self

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            await close_quietly(stack, close_seconds(self.spec))
        self._close_errlog()

    def _close_errlog(self) -> None:
        if self._errlog is not None:
            self._errlog.close()

    # -- what the handshake told us ------------------------------------------------------

    @property
    def client(self) -> Client:
        if self._client is None:
            raise SourceError("the connection is closed")
        return self._client

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version

    @property
    def modern(self) -> bool:
        return self.protocol_version in MODERN_PROTOCOL_VERSIONS

    @property
    def extension_settings(self) -> dict[str, Any] | None:
        caps = self.client.server_capabilities
        extensions = getattr(caps, "extensions", None) or {}
        settings = extensions.get(SKILLS_EXTENSION)
        if settings is None:
            return None
        return settings if isinstance(settings, dict) else {}

    @property
    def declares_extension(self) -> bool | None:
        """True/False on a modern connection; None on a 2025-era one (cannot be told)."""
        if self.extension_settings is not None:
            return True
        return False if self.modern else None

    @property
    def directory_read(self) -> bool:
        settings = self.extension_settings or {}
        nested = settings.get("config")
        if not isinstance(nested, dict):
            nested = {}
        return settings.get("directoryRead") is True or nested.get("directoryRead") is True

    @property
    def instructions(self) -> str | None:
        text = self.client.instructions
        return text if isinstance(text, str) else None

    def should_list_skills(self) -> bool:
        """Modern only when declared; 2025-era always (once per discovery)."""
        return bool(self.declares_extension) if self.modern else True

    # -- requests ----------------------------------------------------------------------

    async def bounded(self, what: str, coro: Any, timeout: float | None = None) -> Any:
        """Await one request within its timeout; a timeout becomes a SourceError."""
        limit = timeout or self.budgets.request_timeout
        deadline: asyncio.Timeout | None = None
        seen = self._unreadable_seen
        try:
            async with self._deadline(limit) as deadline:
                return await coro
        except TimeoutError:
            if self._fault is not None:
                raise SourceError(f"{what} failed: {self._fault}") from None
            if self._auth_stop is not None:
                self.lost = True
                raise self._auth_stop from None
            assert deadline is not None
            excerpt = self._unreadable.pop(deadline, None)
            if excerpt is not None:
                raise UnreadableAnswer(
                    f"{what} failed: the server's answer is not valid JSON-RPC: {excerpt}"
                ) from None
            raise SourceError(self._why_no_answer(what, limit, seen)) from None
        except MCPError as exc:
            if exc.code == ANSWER_REFUSED:  # ours, in place of an answer over its limit
                raise SourceError(exc.message) from None
            if exc.code == CONNECTION_CLOSED and self._resumes_refused:
                raise SourceError(
                    f"{what} failed: the server's event stream ended without its answer "
                    f"and was resumed {RESUME_LIMIT} times within {UNASKED_WINDOW:g} s; "
                    "no more were asked"
                ) from None
            if exc.code == CONNECTION_CLOSED or session_ended(exc):
                # Gone (a restarted HTTP server no longer knows the session): the kept
                # connection is replaced, and the request sent again, once.
                self.lost = True
            if self._fault is not None:
                raise SourceError(f"{what} failed: {self._fault}") from None
            raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self.lost = True
            raise SourceError(f"{what} failed: the connection to the server is gone") from None

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return the raw result (any shape the server sent)."""
        result: dict[str, Any] = await self.bounded(
            method,
            self.client.session.send_request(
                types.Request(method=method, params=_Params(**(params or {}))), _RAW
            ),
        )
        return result

    def mark_stale(self, uri: str) -> None:
        """After a mismatch: the SDK's response cache must not answer for this URI again."""
        self.stale.add(uri)

    def describe_error(self, exc: BaseException) -> str:
        """A failed read in the user's words."""
        return describe_error(exc)

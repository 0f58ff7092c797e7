"""One open connection to one MCP server, speaking the Skills extension.

:class:`McpConnection` is an async context manager around ``mcp.Client``. Enter and
leave it in the same task (the SDK's task groups require it); requests may be sent
from other tasks on the same loop while it is open.

It knows the era rules (D1-D3) and nothing about the catalog: it returns raw wire
data and plain notes; ``desktop.core.entry`` turns entries into skills.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import json
import logging
import os
import re
import sys
import tempfile
import time
import weakref
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, Self

import anyio
import orjson
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client import advertise
from mcp.client.stdio import stdio_client
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, METHOD_NOT_FOUND
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, TypeAdapter, ValidationError

from desktop import __version__
from desktop.core.collector import collector_paused
from desktop.core.model import SourceSpec
from desktop.core.placeholders import UnresolvedPlaceholder, placeholder_values, resolve_spec
from desktop.core.secrets import scrub, spec_secrets
from desktop.core.visible import cut_repr, json_excerpt, quoted
from desktop.core.words import count
from desktop.sources.budgets import (
    ANSWER_REFUSED,
    DEFAULT_BUDGETS,
    RESUME_LIMIT,
    UNASKED_LIMIT,
    UNASKED_WINDOW,
    Budgets,
)
from desktop.sources.errors import SourceError as SourceError
from desktop.sources.launchers import connect_timeout, stop_graces, timeout_advice
from desktop.sources.stdio_transport import PendingAnswers, StderrTail, stdio_transport
from desktop.sources.tls import tls_context

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
_RAW = TypeAdapter(dict[str, Any])


class _Params(types.RequestParams):
    """Params of an extension request: whatever fields the method takes."""

    model_config = ConfigDict(extra="allow")


STDERR_TAIL = 600
# Lines a server may write that are not JSON-RPC (a banner, stray logging) before the
# connection is given up as a server that floods its protocol channel.
STRAY_LIMIT = 1000


class _QuietParseFailures(logging.Filter):
    """Drop the SDK's traceback for each message that is not JSON-RPC, and its log lines
    that the error it raises says again.

    A server writing ``yes`` to its stdout produced one traceback per line on our stderr
    (hundreds of thousands in 20 s, and the time to format them). The connection counts
    these lines and reports them once, in the source's notes or its error.
    """

    DROPPED = frozenset(
        {
            "Failed to parse JSONRPC message from server",
            "Error parsing SSE message",
            "Error parsing JSON response",
        }
    )

    # Logged by the SDK and also carried by the error it raises, which the source's
    # message quotes: on stderr they were said twice more, before the real output.
    SAID_IN_THE_ERROR = ("Unexpected content type", "Redirect to ")

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.msg if isinstance(record.msg, str) else ""
        return msg not in self.DROPPED and not msg.startswith(self.SAID_IN_THE_ERROR)


for _name in ("mcp.client.stdio", "mcp.client.streamable_http"):
    logging.getLogger(_name).addFilter(_QuietParseFailures())

# The connection whose session is running: the SDK's tasks for a connection inherit it
# from the task that opened it, so what the SDK logs can be counted against it.
_OPENING: contextvars.ContextVar[McpConnection | None] = contextvars.ContextVar(
    "skill_catalog_connection", default=None
)


class _CountBadNotifications(logging.Filter):
    """A notification the SDK cannot read (a log level no one knows, params of the wrong
    shape) is dropped with a traceback on stderr and never reaches the connection's
    message handler: 20,000 of them printed 9,276 tracebacks (11 MB) and took the time
    the listing needed. Here each is counted by the flood limit of the connection it
    came on, as a notification sent unasked, and dropped without a word."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "Failed to validate notification: %s":
            return True
        connection = _OPENING.get()
        if connection is not None:
            connection.count_unasked()
        return False


# The SDK's client session logs as "client".
logging.getLogger("client").addFilter(_CountBadNotifications())


class ResumeRefused(Exception):
    """Raised by the HTTP client instead of resuming an event stream once more."""


class NoSkillsMethod(SourceError):
    """The server answered -32601 to a skills method: it has no skills (D3)."""


# What an HTTP status most likely means for a person who typed the URL or the headers.
_HTTP_HINTS = {
    401: ": the server wants credentials; check the source's headers",
    403: ": the server refused the credentials; check the source's headers",
    404: ": nothing is served at this path; is it the MCP endpoint (often ending in /mcp)?",
    405: ": this path does not take MCP requests; is it the MCP endpoint?",
}


def _answered(exc: BaseException) -> bool:
    """Whether ``exc`` is an error the server answered with (not a lost connection or a
    request that timed out)."""
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(first_leaf(exc), ValidationError | UnreadableAnswer):  # answers, unreadable
        return True
    code = getattr(exc, "code", None) if isinstance(exc, MCPError) else None
    return code is not None and code != CONNECTION_CLOSED and not _sdk_timeout(exc)


_SDK_TIMEOUT = re.compile(r"Request '[^']*' timed out")


def _sdk_timeout(exc: BaseException) -> bool:
    """The SDK's own request timeout (-32001 with its message). A server may answer with
    -32001 too (a code JSON-RPC leaves to servers; some use it for refused credentials):
    that is the server's error, said as the server said it."""
    return (
        getattr(exc, "code", None) == -32001
        and isinstance(getattr(exc, "message", None), str)
        and _SDK_TIMEOUT.fullmatch(exc.message) is not None  # type: ignore[attr-defined]
    )


class UnreadableAnswer(SourceError):
    """The server answered a request with what is not JSON-RPC the client can read."""


class NoSuchSkill(SourceError):
    """The server answered ``skills/get`` with -32602: it serves no skill at that URI."""


def _offending_text(exc: Exception) -> str:
    """What a server sent that was not JSON-RPC, quoted and cut short for a message."""
    errors = getattr(exc, "errors", None)
    text: Any = None
    if callable(errors):
        with contextlib.suppress(Exception):
            text = errors(include_url=False)[0].get("input")
    if text is None:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    shown = text if isinstance(text, str) else json.dumps(text, default=str)
    return cut_repr(shown, 80)


def _unreadable_answer(exc: Exception) -> bool:
    """Whether what the server sent, though not JSON-RPC the SDK can read, is an answer
    to a request: an object with an ``id`` and a ``result`` or an ``error`` (its JSON
    broken by a lone surrogate escape, a result that is not an object, an error code
    that is not a number)."""
    text: Any = None
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            text = errors(include_url=False)[0].get("input")
    value = text
    if isinstance(text, str | bytes | bytearray):
        try:
            value = json.loads(text)
        except ValueError:
            return False
    return isinstance(value, dict) and "id" in value and ("result" in value or "error" in value)


def refused_answer(method: str, size: int | None, limit: int) -> str:
    """Why the answer to a ``method`` request was dropped unread (``size``: its bytes,
    when it arrived whole)."""
    weight = f"is {size:,} bytes" if size is not None else f"is over {limit // 2**20} MiB"
    return (
        f"the server's answer to {method} {weight}, more than the {limit // 2**20} MiB "
        f"one {method} answer may take; it was not read"
    )


def _json_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON (what a page weighs against the byte budget)."""
    try:
        return len(orjson.dumps(value))
    except TypeError:  # what orjson refuses (an integer over 64 bits...) the stdlib writes
        return len(json.dumps(value, default=str, separators=(",", ":")))


def first_leaf(exc: BaseException) -> BaseException:
    """Unwrap exception groups (the SDK's task groups wrap what escapes them)."""
    while isinstance(exc, BaseExceptionGroup):
        leaves = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (leaves or list(exc.exceptions))[0]
    return exc


def malformed(exc: ValidationError) -> str:
    """What was wrong with an answer the SDK could not read as its type: the first
    field, what it should be and what came, instead of the validator's whole report
    (several lines, each with a link to its documentation)."""
    errors = exc.errors(include_url=False)
    # The type the answer should have had, where it has a plain name (not a union).
    kind = f" ({exc.title})" if exc.title.isidentifier() else ""
    if not errors:
        return f"malformed answer from the server{kind}"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "(the answer)"
    got = f", got {json_excerpt(first['input'])}" if "input" in first else ""
    more = f" (and {count(len(errors) - 1, 'other problem')})" if len(errors) > 1 else ""
    return (
        f"malformed answer from the server{kind}: {quoted(where, 80)}: "
        f"{first.get('msg', 'invalid')}{got}{more}"
    )


def describe_error(exc: BaseException, timeout: float | None = None) -> str:
    """A one-line human message for anything a connection can raise."""
    leaf = first_leaf(exc)
    if isinstance(leaf, SourceError):
        return str(leaf)
    if isinstance(leaf, ValidationError):
        return malformed(leaf)
    if isinstance(leaf, MCPError):
        if _sdk_timeout(leaf) and timeout:
            return f"no answer within {_seconds(timeout)} s ({quoted(leaf.message)})"
        return f"{quoted(leaf.message)} (error {leaf.code})"
    if isinstance(leaf, TimeoutError | asyncio.TimeoutError):
        return f"no answer within {_seconds(timeout)} s" if timeout else "timed out"
    if isinstance(leaf, FileNotFoundError):
        return f"cannot start the server: {leaf.filename or leaf}: no such file or command"
    if isinstance(leaf, PermissionError):
        return f"cannot start the server: {leaf.filename or leaf}: permission denied"
    if isinstance(leaf, OSError):
        return f"cannot reach the server: {leaf.strerror or leaf}"
    if type(leaf).__name__ in ("ConnectError", "ConnectTimeout"):  # httpx: nothing listening
        return f"cannot reach the server: {leaf}"
    return f"{type(leaf).__name__}: {quoted(str(leaf)) or type(leaf).__name__}"


@dataclass(slots=True)
class Listing:
    """What ``skills/list`` gave, within budgets."""

    entries: list[Any] = field(default_factory=list)
    pages: int = 0
    bytes: int = 0
    ttl_ms: int | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # the walk ended on an error (entries so far are kept)
    # Why the walk stopped before the server's last page (a budget, a bad cursor); also
    # among the notes. A note on a listing that was read whole is not one of these.
    stopped: str | None = None

    def stop(self, why: str) -> None:
        self.notes.append(why)
        self.stopped = self.stopped or why


def _secret_lookup(entry: str) -> str | None:
    """A secret the program saved in the OS keyring (``${keyring:ENTRY}``)."""
    from desktop.sources.config_secrets import secret_lookup

    return secret_lookup(entry)


class McpConnection:
    """An open connection: era, capabilities, and the Skills-extension requests."""

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
        self._stale: set[str] = set()
        # Messages from the server that were not JSON-RPC: how many, and the first.
        self._stray = 0
        self._stray_first = ""
        # Messages the server sent unasked in the current window, and when it began.
        self._unasked = 0
        self._unasked_since = 0.0
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
        # Why the server's sign-in stopped the connection (see desktop.sources.signin).
        self._auth_stop: SourceError | None = None
        self._auth: Any = None
        # Event streams resumed in the current window (see _count_resumes).
        self._resumes = 0
        self._resumes_since = 0.0
        self._resumes_refused = False

    # -- opening -----------------------------------------------------------------------

    def _transport(self) -> Any:
        if self.spec.untrusted:  # never started, no placeholder of its resolved
            raise SourceError(f"not started: {self.spec.untrusted}")
        env = self._environ if self._environ is not None else dict(os.environ)
        try:
            # Placeholders (${VAR}, ${env:VAR}, ${keyring:...}) in the command, URL, env and
            # headers are resolved here, for this connection only; never stored resolved.
            spec = resolve_spec(self.spec, env, secret_lookup=_secret_lookup)
        except UnresolvedPlaceholder as exc:
            verb = "start the server" if self.spec.transport == "stdio" else "connect"
            raise SourceError(f"cannot {verb}: {exc}") from None
        # A server may repeat its arguments or URL in an error: masked there too.
        self._secrets = [
            *spec_secrets(spec),
            *spec_secrets(self.spec),
            *placeholder_values(self.spec, env, secret_lookup=_secret_lookup),
        ]
        if spec.transport == "stdio":
            if not spec.command:
                raise SourceError("no command to start the server")
            extra = dict(spec.env)
            params = StdioServerParameters(
                command=spec.command[0], args=list(spec.command[1:]), env=extra or None
            )
            if sys.platform == "win32":
                self._close_errlog()
                self._errlog = tempfile.TemporaryFile(  # noqa: SIM115 - see _close_errlog
                    mode="w+", encoding="utf-8", errors="replace"
                )
                return stdio_client(params, errlog=self._errlog)
            self._errtail = StderrTail()
            return stdio_transport(
                params,
                self._errtail,
                max_message=self.budgets.max_message_bytes,
                on_fault=self._give_up,
                on_exit=self._server_exited,
                starting_graces=stop_graces(self.spec),
                pending=PendingAnswers(self.budgets.answer_limit, refused_answer),
            )
        if spec.transport == "http":
            headers = dict(spec.headers)
            import httpx2
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

            from desktop.sources.http_limits import cap_responses, request_headers
            from desktop.sources.signin import connection_auth

            http = httpx2.AsyncClient(
                headers=request_headers(headers),
                # Sign-in (OAuth): the stored token, refreshed; a challenge ends the connection.
                auth=(auth := connection_auth(self.spec, spec.endpoint, env, self._auth_stopped)),
                timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                verify=tls_context(),
                event_hooks={
                    "request": [self._count_resumes],
                    "response": [
                        self._note_http_status,
                        cap_responses(
                            self.budgets.max_message_bytes,
                            self._give_up,
                            self.budgets.answer_limit,
                            refused_answer,
                        ),
                    ],
                },
            )
            # The SDK's own limit on one event (1 MiB) refused any file over about 760 KB
            # from a server answering with event streams (its servers' default); ours,
            # above, applies to every message, and this one stays only as a backstop.
            transport = streamable_http_client(
                spec.endpoint,
                http_client=http,
                max_sse_event_size=2 * self.budgets.max_message_bytes,
            )
            self._auth = auth
            return _HttpTransport(http, transport)
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
            self._http_status = status + _HTTP_HINTS.get(response.status_code, "")

    def stderr_tail(self) -> str:
        """The server's last lines on stderr, in one line for a message."""
        if self._errtail is not None:
            text = self._errtail.text()[-4 * STDERR_TAIL :]
        elif self._errlog is None or self._errlog.closed:
            return ""
        else:
            try:
                self._errlog.flush()
                self._errlog.seek(0, os.SEEK_END)
                end = self._errlog.tell()
                self._errlog.seek(max(0, end - 4 * STDERR_TAIL))
                text = self._errlog.read()
            except (OSError, ValueError):
                return ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        # Masked whole, then cut (a secret cut in two would escape the mask), at a
        # word's start and saying so, rather than mid-word.
        tail = scrub(" | ".join(lines[-4:]), self._secrets)
        if len(tail) > STDERR_TAIL:
            tail = tail[-STDERR_TAIL:]
            space = tail.find(" ")
            tail = "…" + (tail[space + 1 :] if 0 <= space < 40 else tail)
        return tail

    def explain(self, exc: BaseException, timeout: float | None = None) -> str:
        if self._fault is not None:
            return self._fault
        message = describe_error(exc, timeout or self.budgets.request_timeout)
        # Its stderr says why a server failed or went away; beside an error the server
        # answered with, it is only its ordinary logging.
        tail = "" if _answered(exc) else self.stderr_tail()
        if tail:
            message += f" — server stderr: {tail}"
        message = scrub(message, self._secrets)
        if self._http_status:
            message += f" (the server answered {self._http_status})"
        return message

    # -- what the server sent that is not JSON-RPC -------------------------------------

    def _channel(self) -> str:
        return "standard output" if self.spec.transport == "stdio" else "event stream"

    async def _on_message(self, message: Any) -> None:
        """The SDK hands transport faults and what the server sent unasked here: count
        what was not JSON-RPC, and how fast the rest comes."""
        if self._fault is not None:
            return
        if not isinstance(message, Exception):
            self.count_unasked()
            return
        self._stray += 1
        if self._stray == 1:
            self._stray_first = _offending_text(message)
        if _unreadable_answer(message):
            self._answer_unreadable(_offending_text(message))
        if self._stray >= STRAY_LIMIT:
            self._give_up(
                f"the server writes what is not JSON-RPC on its {self._channel()} "
                f"({self._stray:,} messages, the first: {self._stray_first})"
            )

    def count_unasked(self) -> None:
        """One more message the server sent unasked (read or not): past the flood limit
        within its window, the connection is given up."""
        if self._fault is not None:
            return
        now = time.monotonic()
        if now - self._unasked_since > UNASKED_WINDOW:
            self._unasked, self._unasked_since = 0, now
        self._unasked += 1
        if self._unasked > UNASKED_LIMIT:
            self._give_up(
                f"the server sent over {UNASKED_LIMIT:,} notifications or requests "
                f"unasked within {UNASKED_WINDOW:g} s"
            )

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
        message = f"no answer to {what} within {_seconds(seconds)} s"
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
        if not self._stray or self._fault is not None:
            return []
        note = (
            f"the server wrote {self._stray} message(s) that are not JSON-RPC on its "
            f"{self._channel()}, ignored (the first: {self._stray_first}); a server "
            "should send only protocol messages there"
        )
        return [note]

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
                # Timeouts are ours (per request, scaled for large reads): see _bounded.
                read_timeout_seconds=None,
                message_handler=self._on_message,
                client_info=types.Implementation(name="skill-catalog", version=__version__),
            )
            launching = self.spec.transport == "stdio"
            slot = _launch_slot() if launching else contextlib.nullcontext()
            connect_seconds = connect_timeout(self.spec, self.budgets.connect_timeout)
            opening = _OPENING.set(self)
            try:
                async with slot, self._deadline(connect_seconds):
                    await stack.enter_async_context(client)
                    if self.mode in MODERN_PROTOCOL_VERSIONS:
                        # A pinned client adopts a synthesized discover result with no
                        # capabilities: ask the server for its real ones.
                        raw = await client.session.send_discover(self.mode)
                        client.session.adopt(types.DiscoverResult.model_validate(raw))
            finally:
                _OPENING.reset(opening)
        except BaseException as exc:
            # The server is stopped, its last words read.
            await _close_quietly(stack, _close_seconds(self.spec))
            seconds = connect_timeout(self.spec, self.budgets.connect_timeout)
            message = self.explain(exc, seconds)
            if isinstance(exc, TimeoutError) and self._unreadable:
                excerpt = next(iter(self._unreadable.values()))
                message = f"the server's answer is not valid JSON-RPC: {excerpt}"
            elif isinstance(exc, TimeoutError) and self._fault is None:
                message += f" ({timeout_advice(self.spec, seconds)})"
            self._close_errlog()
            if isinstance(exc, asyncio.CancelledError) and not _timed_out(exc):
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
            await _close_quietly(stack, _close_seconds(self.spec))
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
        """D2/D3: modern only when declared; 2025-era always (once per discovery)."""
        return bool(self.declares_extension) if self.modern else True

    # -- requests ----------------------------------------------------------------------

    async def _bounded(self, what: str, coro: Any, timeout: float | None = None) -> Any:
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
            if exc.code == CONNECTION_CLOSED or _session_ended(exc):
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
        result: dict[str, Any] = await self._bounded(
            method,
            self.client.session.send_request(
                types.Request(method=method, params=_Params(**(params or {}))), _RAW
            ),
        )
        return result

    async def list_skills(self, on_page: Callable[[list[Any]], None] | None = None) -> Listing:
        """Walk ``skills/list`` within the budgets (D4).

        ``on_page`` is called with each page's entries while the next page is already
        being fetched, so checking the entries overlaps the server's work. The walk
        runs with the cyclic garbage collector paused (see ``desktop.core.collector``):
        it builds thousands of entries and skills and no cycles worth collecting, and
        the collector's passes over them were about a third of the client's CPU for
        10,000 skills.
        """
        with collector_paused():
            return await self._walk_skills(on_page)

    async def _walk_skills(self, on_page: Callable[[list[Any]], None] | None) -> Listing:
        b = self.budgets
        out = Listing()
        cursor: str | None = None
        seen: set[str] = set()
        pending: asyncio.Future[dict[str, Any]] | None = None
        try:
            while True:
                if out.pages >= b.max_pages:
                    out.stop(f"listing stopped after {out.pages} pages (page budget {b.max_pages})")
                    break
                if pending is None:
                    pending = asyncio.ensure_future(self._list_page(cursor))
                try:
                    page = await pending
                except MCPError as exc:
                    if exc.code == METHOD_NOT_FOUND and out.pages == 0:
                        raise NoSkillsMethod(
                            "the server answered skills/list with -32601: it has no skills"
                        ) from None
                    out.error = f"skills/list page {out.pages + 1} failed: {self.explain(exc)}"
                    break
                except Exception as exc:  # noqa: BLE001 - any failure ends the walk with a reason
                    # Ours already names the request: said once, with the page.
                    why = self.explain(exc).removeprefix("skills/list failed: ")
                    out.error = f"skills/list page {out.pages + 1} failed: {why}"
                    break
                finally:
                    pending = None
                out.pages += 1
                size = _json_size(page)
                if out.bytes + size > b.max_bytes:
                    out.stop(
                        f"listing stopped at page {out.pages}: over the {b.max_bytes:,}-byte budget"
                    )
                    break
                out.bytes += size
                if out.pages == 1:
                    ttl = page.get("ttlMs")
                    if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0:
                        out.ttl_ms = ttl
                    if self.modern:
                        out.notes.extend(_cacheable_lapses(page, ttl_ok=out.ttl_ms is not None))
                skills = page.get("skills")
                if not isinstance(skills, list):
                    out.error = f"skills/list page {out.pages} has no 'skills' array"
                    break
                room = b.max_entries - len(out.entries)
                if len(skills) > room:
                    self._take(out, skills[: max(room, 0)], on_page)
                    out.stop(f"listing stopped at {b.max_entries} entries (entry budget)")
                    break
                nxt = page.get("nextCursor")
                stop: str | None = None
                if nxt is not None:
                    if not isinstance(nxt, str) or not nxt:
                        stop = f"listing stopped: page {out.pages} has a malformed nextCursor"
                    elif nxt in seen or nxt == cursor:
                        stop = (
                            f"listing stopped: the server repeated cursor {cut_repr(nxt, 40)} "
                            f"(a loop) at page {out.pages}"
                        )
                    else:
                        seen.add(nxt)
                        cursor = nxt
                        if out.pages < b.max_pages:
                            pending = asyncio.ensure_future(self._list_page(cursor))
                self._take(out, skills, on_page)
                if stop:
                    out.stop(stop)
                if nxt is None or stop:
                    break
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
        return out

    async def _list_page(self, cursor: str | None) -> dict[str, Any]:
        return await self.request("skills/list", {"cursor": cursor} if cursor is not None else {})

    @staticmethod
    def _take(out: Listing, skills: list[Any], on_page: Callable[[list[Any]], None] | None) -> None:
        out.entries.extend(skills)
        if on_page is not None:
            on_page(skills)

    async def list_tools(self) -> tuple[list[str] | None, list[str]]:
        """The server's tool names (all pages within budget), and notes."""
        notes: list[str] = []
        caps = self.client.server_capabilities
        if getattr(caps, "tools", None) is None:
            return [], ["the server declares no tools capability, so it lists no tools"]
        names: list[str] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(self.budgets.max_tool_pages):
            try:
                page = await self._bounded(
                    "tools/list", self.client.list_tools(cursor=cursor, cache_mode="bypass")
                )
            except MCPError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return [], ["the server answered tools/list with -32601: it has no tools"]
                notes.append(f"tools/list failed: {self.explain(exc)}")
                return (names or None), notes
            except Exception as exc:  # noqa: BLE001 - reported as a note
                why = self.explain(exc).removeprefix("tools/list failed: ")
                notes.append(f"tools/list failed: {why}")
                return (names or None), notes
            names.extend(t.name for t in page.tools)
            if len(names) > self.budgets.max_tools:
                del names[self.budgets.max_tools :]
                notes.append(
                    f"tools/list stopped at {self.budgets.max_tools:,} tools (tool budget)"
                )
                return names, notes
            nxt = page.next_cursor
            if nxt is None:
                return names, notes
            if nxt in seen:
                notes.append("tools/list stopped: the server repeated a cursor")
                return names, notes
            seen.add(nxt)
            cursor = nxt
        notes.append(f"tools/list stopped after {self.budgets.max_tool_pages} pages (page budget)")
        return names, notes

    async def get_skill(self, uri: str) -> Any:
        """``skills/get`` for one URI (D7); returns the raw ``skill`` value.

        Asked, like ``skills/list``, of a modern server only when it declares the
        extension (D2); of a 2025-era one always (D3).
        """
        if not self.should_list_skills():
            raise NoSkillsMethod(
                f"the server does not declare {SKILLS_EXTENSION}: skills/get was not asked"
            )
        try:
            result = await self.request("skills/get", {"uri": uri})
        except MCPError as exc:
            if exc.code == METHOD_NOT_FOUND:
                raise NoSkillsMethod(
                    "the server answered skills/get with -32601: it has no skills"
                ) from None
            if exc.code == -32602:
                raise NoSuchSkill(
                    f"the server serves no skill at {uri} ({quoted(exc.message)})"
                ) from None
            raise SourceError(f"skills/get failed: {self.explain(exc)}") from None
        if "skill" not in result:
            raise SourceError("skills/get answered without a 'skill' entry")
        return result["skill"]

    def mark_stale(self, uri: str) -> None:
        """After a mismatch: the SDK's response cache must not answer for this URI again."""
        self._stale.add(uri)

    async def read_bytes(
        self,
        uri: str,
        *,
        refresh: bool = False,
        limit: int | None = None,
        expected_size: int = 0,
    ) -> bytes:
        """``resources/read`` of one URI, returning the raw bytes as received.

        Text is UTF-8 encoded exactly as received (no newline or BOM changes); blobs
        are base64-decoded. ``refresh`` (or an earlier mismatch) bypasses the SDK's
        response cache.
        """
        mode: Literal["refresh", "use"] = "refresh" if (refresh or uri in self._stale) else "use"
        # Large files take time to travel: allow 2 s per MiB on top of the request timeout.
        timeout = self.budgets.request_timeout + 2.0 * expected_size / (1024 * 1024)
        try:
            result = await self._bounded(
                f"resources/read of {uri}", self.client.read_resource(uri, cache_mode=mode), timeout
            )
        except MCPError as exc:
            raise SourceError(f"resources/read of {uri} failed: {self.explain(exc)}") from None
        self._stale.discard(uri)
        contents = list(result.contents)
        matching = [c for c in contents if str(c.uri) == uri]
        if len(matching) == 1:
            item = matching[0]
        elif len(contents) == 1:
            item = contents[0]
        else:
            raise SourceError(
                f"resources/read of {uri} returned {len(contents)} contents,"
                " none unambiguously for it"
            )
        if isinstance(item, types.BlobResourceContents):
            if limit is not None and len(item.blob) > (limit * 4) // 3 + 8:
                raise SourceError(f"{uri} is larger than {limit:,} bytes; not read")
            try:
                return base64.b64decode(item.blob, validate=True)
            except ValueError:
                raise SourceError(f"{uri}: the blob is not valid base64") from None
        text = getattr(item, "text", None)
        if not isinstance(text, str):
            raise SourceError(f"{uri}: the content is neither text nor blob")
        return text.encode("utf-8", "surrogatepass")

    async def read_directory(self, uri: str) -> list[dict[str, Any]]:
        """``resources/directory/read`` (all pages within budget); only where declared (D10)."""
        if not self.directory_read:
            raise SourceError("the server does not declare directoryRead; directories are not read")
        b = self.budgets
        out: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        size = 0
        for pages in range(1, b.max_pages + 1):
            params: dict[str, Any] = {"uri": uri}
            if cursor is not None:
                params["cursor"] = cursor
            try:
                page = await self.request("resources/directory/read", params)
            except MCPError as exc:
                raise SourceError(
                    f"resources/directory/read of {uri} failed: {self.explain(exc)}"
                ) from None
            items = page.get("resources")
            if not isinstance(items, list):
                raise SourceError("resources/directory/read answered without a 'resources' array")
            # The budget is for the whole folder, every page together: a server paging
            # without end would otherwise be followed for max_pages pages of any size.
            size += _json_size(items)
            kept = len(out) + len(items)
            if kept > b.max_directory_entries or size > b.max_directory_bytes:
                over = (
                    f"{b.max_directory_entries:,} entries"
                    if kept > b.max_directory_entries
                    else f"{b.max_directory_bytes // 2**20} MiB"
                )
                raise SourceError(
                    f"the server's listing of {uri} is over {over} (the limit for one "
                    f"folder) by page {pages}; it was not read further"
                )
            out.extend(i for i in items if isinstance(i, dict) and isinstance(i.get("uri"), str))
            nxt = page.get("nextCursor")
            if not isinstance(nxt, str) or nxt in seen:
                break
            seen.add(nxt)
            cursor = nxt
        return out


# Starting a server process (an interpreter, its imports) takes a core for a while; twenty
# at once leave the window's loop thread one twenty-first of the machine. Launches wait
# for a slot, as many slots as cores, and a slot is given up once the server has answered
# its handshake or after LAUNCH_SLOT_SECONDS, so a hung server never holds others back.
LAUNCH_SLOT_SECONDS = 3.0
_launch_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


@contextlib.asynccontextmanager
async def _launch_slot() -> Any:
    loop = asyncio.get_running_loop()
    slots = _launch_slots.get(loop)
    if slots is None:
        slots = _launch_slots[loop] = asyncio.Semaphore(max(2, os.cpu_count() or 2))
    await slots.acquire()
    held = [True]

    def give_up() -> None:
        if held[0]:
            held[0] = False
            slots.release()

    timer = loop.call_later(LAUNCH_SLOT_SECONDS, give_up)
    try:
        yield
    finally:
        timer.cancel()
        give_up()


class _HttpTransport:
    """Streamable HTTP with our own httpx client (for headers), closed after the stream."""

    def __init__(self, http: Any, inner: Any) -> None:
        self._http = http
        self._inner = inner

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        try:
            return await self._inner.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: object) -> Any:
        try:
            return await self._inner.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)


def _cacheable_lapses(page: dict[str, Any], *, ttl_ok: bool) -> list[str]:
    """What a 2026-07-28 listing lacks of the ``ttlMs`` and ``cacheScope`` it requires;
    the listing is read all the same (they are freshness hints, not integrity)."""
    lapses = [] if ttl_ok else [f"ttlMs {_shown(page.get('ttlMs'))}"]
    if page.get("cacheScope") not in ("public", "private"):
        lapses.append(f"cacheScope {_shown(page.get('cacheScope'))}")
    if not lapses:
        return []
    note = (
        f"the listing's {' and '.join(lapses)}: 2026-07-28 requires a non-negative "
        "ttlMs and a cacheScope of public or private (read all the same; re-listing "
        "follows its default)"
    )
    return [note]


def _shown(value: Any) -> str:
    if value is None:
        return "is missing"
    return f"is {json_excerpt(value)}"


def _session_ended(exc: MCPError) -> bool:
    """The SDK's words for a 404 to a request in an HTTP session: the server ended it
    (or restarted, and no longer knows it)."""
    return exc.code == INVALID_REQUEST and exc.message == "Session terminated"


def _timed_out(exc: BaseException) -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() == 0


def _close_seconds(spec: SourceSpec) -> float:
    """How long closing may take: a package runner still installing gets its graces."""
    return 10.0 + sum(stop_graces(spec) or (0.0, 0.0))


async def _close_quietly(stack: AsyncExitStack, seconds: float = 10.0) -> None:
    try:
        async with asyncio.timeout(seconds):
            await stack.aclose()
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError) and not _timed_out(exc):
            raise


def _seconds(value: float) -> str:
    """A time limit as people write it: ``15``, ``17.5``, never ``15.0001``."""
    return f"{round(value, 1 if value >= 1 else 2):g}"

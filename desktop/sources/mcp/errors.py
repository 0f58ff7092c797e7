"""What an MCP connection can fail with, and each failure in plain words.

The exceptions a connection raises (all but :class:`ResumeRefused` are a
:class:`~desktop.sources.errors.SourceError`, whose message is the source's status), and
the functions that turn anything the SDK, the transports or the operating system raise
into one line a person can read: :func:`describe_error`, :func:`malformed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any

from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

from desktop.core.visible import cut_repr, json_excerpt, quoted
from desktop.core.words import count
from desktop.sources.errors import SourceError


class ResumeRefused(Exception):
    """Raised by the HTTP client instead of resuming an event stream once more."""


class NoSkillsMethod(SourceError):
    """The server answered a skills method with an error where it publishes no skills:
    -32601, or (not having declared the extension) any error it answered with."""


def server_answered(exc: BaseException) -> bool:
    """Whether ``exc`` is a JSON-RPC error the server itself answered with, over stdio
    or in an HTTP body (at any status), and not one the client put in place of an
    answer: a timeout, a lost connection or ended session, an answer that could not be
    read or was refused unread, an HTTP status that carried no JSON-RPC error."""
    if not isinstance(exc, MCPError) or not answered(exc):
        return False
    from desktop.sources.budgets import ANSWER_REFUSED

    code, message = exc.code, exc.message if isinstance(exc.message, str) else ""
    if code == ANSWER_REFUSED or session_ended(exc):
        return False
    if code == PARSE_ERROR and message.startswith("Failed to parse"):
        return False
    if code == INTERNAL_ERROR and message == "Server returned an error response":
        return False
    return not (code == INVALID_REQUEST and message.startswith("Unexpected content type"))


def error_code(exc: MCPError) -> str:
    """The code of an error answer and its message, for a note: ``-32602 ("Unknown
    method")``."""
    text = quoted(exc.message, 80) if isinstance(exc.message, str) else ""
    return f'{exc.code} ("{text}")' if text else str(exc.code)


# What an HTTP status most likely means for a person who typed the URL or the headers.
HTTP_HINTS = {
    401: ": the server wants credentials; check the source's headers",
    403: ": the server refused the credentials; check the source's headers",
    404: ": nothing is served at this path; is it the MCP endpoint (often ending in /mcp)?",
    405: ": this path does not take MCP requests; is it the MCP endpoint?",
}


def answered(exc: BaseException) -> bool:
    """Whether ``exc`` is an error the server answered with (not a lost connection or a
    request that timed out)."""
    if isinstance(first_leaf(exc), ValidationError | UnreadableAnswer):  # answers, unreadable
        return True
    code = getattr(exc, "code", None) if isinstance(exc, MCPError) else None
    return code is not None and code != CONNECTION_CLOSED and not sdk_timeout(exc)


_SDK_TIMEOUT = re.compile(r"Request '[^']*' timed out")


def sdk_timeout(exc: BaseException) -> bool:
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


def offending_text(exc: Exception) -> str:
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


def is_unreadable_answer(exc: Exception) -> bool:
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
        if sdk_timeout(leaf) and timeout:
            return f"no answer within {shown_seconds(timeout)} s ({quoted(leaf.message)})"
        return f"{quoted(leaf.message)} (error {leaf.code})"
    if isinstance(leaf, TimeoutError | asyncio.TimeoutError):
        return f"no answer within {shown_seconds(timeout)} s" if timeout else "timed out"
    if isinstance(leaf, FileNotFoundError):
        return f"cannot start the server: {leaf.filename or leaf}: no such file or command"
    if isinstance(leaf, PermissionError):
        return f"cannot start the server: {leaf.filename or leaf}: permission denied"
    if isinstance(leaf, OSError):
        return f"cannot reach the server: {leaf.strerror or leaf}"
    if type(leaf).__name__ in ("ConnectError", "ConnectTimeout"):  # httpx: nothing listening
        return f"cannot reach the server: {leaf}"
    return f"{type(leaf).__name__}: {quoted(str(leaf)) or type(leaf).__name__}"


def session_ended(exc: MCPError) -> bool:
    """The SDK's words for a 404 to a request in an HTTP session: the server ended it
    (or restarted, and no longer knows it)."""
    return exc.code == INVALID_REQUEST and exc.message == "Session terminated"


def shown_seconds(value: float) -> str:
    """A time limit as people write it: ``15``, ``17.5``, never ``15.0001``."""
    return f"{round(value, 1 if value >= 1 else 2):g}"

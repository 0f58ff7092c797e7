"""Filters on the MCP SDK's loggers: what a server sends that is not JSON-RPC, or a
notification the SDK cannot read, is counted by its connection and said once in the
source's notes or its error, never as a traceback per message on stderr.

Installed when this module is first imported (by :mod:`desktop.sources.mcp.connection`).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable

from desktop.core.visible import quoted


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

# How the connection whose session is running counts a message sent unasked: the SDK's
# tasks for a connection inherit it from the task that opened it, so what the SDK logs
# can be counted against that connection.
COUNT_UNASKED: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "skill_catalog_connection", default=None
)


class _CountBadNotifications(logging.Filter):
    """A notification the SDK cannot read (a log level no one knows, params of the wrong
    shape) is dropped with a traceback on stderr and never reaches the connection's
    message handler: 20,000 of them printed 9,276 tracebacks (11 MB) and took the time
    the listing needed. Here each is counted by the connection it came on, dropped
    without a traceback, and said once in the source's notes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "Failed to validate notification: %s":
            return True
        count_unasked = COUNT_UNASKED.get()
        if count_unasked is not None:
            count_unasked(_why(record))
        return False


def _why(record: logging.LogRecord) -> str:
    """The notification's method, and what was wrong with it (its first field)."""
    method = str(record.args[0]) if isinstance(record.args, tuple) and record.args else ""
    exc = record.exc_info[1] if record.exc_info else None
    errors = getattr(exc, "errors", None)
    detail = ""
    if callable(errors):
        try:
            first = errors(include_url=False)[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            detail = f" ({where}: {first.get('msg', 'invalid')})" if where else ""
        except (IndexError, TypeError, ValueError, AttributeError):
            detail = ""
    return quoted(method + detail, 160)


# The SDK's client session logs as "client".
logging.getLogger("client").addFilter(_CountBadNotifications())

"""Limits on what one MCP server may cost us during discovery and reads.

Every limit that stops a walk leaves a note on the server's status saying which
limit it was, so a truncated listing is never mistaken for a complete one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Budgets:
    """Per-server budgets. The defaults suit an interactive window and the CLI."""

    max_pages: int = 200
    """``skills/list`` pages followed before the walk stops."""
    max_entries: int = 20_000
    """Skill entries kept from one server."""
    max_bytes: int = 64 * 1024 * 1024
    """Bytes of ``skills/list`` results (as JSON) accepted from one server."""
    max_tool_pages: int = 50
    """``tools/list`` pages followed (tools are listed for tool-affinity checks)."""
    max_tools: int = 10_000
    """Tool names kept from one server (each skill's tool affinity is matched to them)."""
    request_timeout: float = 15.0
    """Seconds one request may take before the server is reported as not answering."""
    connect_timeout: float = 20.0
    """Seconds to start (or reach) the server and finish the handshake."""
    server_timeout: float = 120.0
    """Seconds one server's whole discovery may take."""
    max_read_bytes: int = 16 * 1024 * 1024
    """Bytes accepted for one dynamic skill's files (its entry has no sizes)."""
    max_message_bytes: int = 64 * 1024 * 1024
    """Bytes one message from a server may take (a 16 MiB file sent as base64 text is
    about 22 MB): a line over stdio, a JSON body or one event over HTTP. A longer one
    ends the connection."""
    max_tool_page_bytes: int = 8 * 1024 * 1024
    """Bytes of one ``tools/list`` answer, counted as it arrives and before it is parsed
    (parsing a 45 MB page took 3.4 GB): a longer one is dropped unread, and that request
    alone fails."""
    max_directory_entries: int = 10_000
    """Entries kept from one ``resources/directory/read``, all pages together."""
    max_directory_bytes: int = 8 * 1024 * 1024
    """Bytes (as JSON) of one ``resources/directory/read``, all pages together."""
    verify_timeout: float = 120.0
    """Seconds one skill's verification (all its reads) may take."""
    max_concurrent_reads: int = 4
    """Reads of one skill's files sent to a server at once."""
    notification_limit: int = 5000
    """Messages a server may send unasked (notifications, requests to the client,
    events of an event stream) within :attr:`notification_window` seconds; past it the
    rest of the window's are dropped unread (see ``desktop.sources.mcp.notifications``)."""
    notification_window: float = 10.0

    def answer_limit(self, method: str) -> int:
        """Bytes the answer to a request for ``method`` may take (before parsing)."""
        if method == "tools/list":
            return min(self.max_tool_page_bytes, self.max_message_bytes)
        if method == "resources/directory/read":
            return min(self.max_directory_bytes, self.max_message_bytes)
        return self.max_message_bytes


DEFAULT_BUDGETS = Budgets()

UNASKED_WINDOW = 10.0
"""The window in which event streams resumed are counted (see :data:`RESUME_LIMIT`)."""

RESUME_LIMIT = 10
"""Times an event stream that ended without its answer is resumed (a GET with
``Last-Event-ID``) within :data:`UNASKED_WINDOW` seconds on one connection. A server
asking for ``retry: 0`` on every stream made about 950 requests of one listing."""

ANSWER_REFUSED = -32900
"""The code of the error the client puts in place of an answer it refused unread (over
the byte limit of its request): never sent by the server, never shown as its code."""


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON (what a page weighs against the byte budget)."""
    import orjson  # here: the window opens without it (it is needed once a server answers)

    try:
        return len(orjson.dumps(value))
    except TypeError:  # what orjson refuses (an integer over 64 bits...) the stdlib writes
        return len(json.dumps(value, default=str, separators=(",", ":")))

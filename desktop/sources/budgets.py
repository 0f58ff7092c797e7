"""Limits on what one MCP server may cost us during discovery (D4) and reads.

Every limit that stops a walk leaves a note on the server's status saying which
limit it was, so a truncated listing is never mistaken for a complete one.
"""

from __future__ import annotations

from dataclasses import dataclass


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


DEFAULT_BUDGETS = Budgets()

UNASKED_LIMIT = 5000
"""Messages a server may send unasked (notifications, requests to the client, events
of an event stream) within :data:`UNASKED_WINDOW` seconds. Past it, the server is
flooding: each costs the client's loop (the window's own thread) time for as long as
the connection is kept, so the connection is given up."""
UNASKED_WINDOW = 10.0

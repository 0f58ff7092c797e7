"""What a server sends unasked, within a budget: notifications never fail a listing.

A server may send notifications (and requests to the client) unasked: log lines,
progress, list changes. Each costs the client's loop time, so they are counted per
connection within :attr:`Budgets.notification_window` seconds. Past
:attr:`Budgets.notification_limit` within one window, further ones are dropped before
they are parsed (answers to requests are never dropped), and the source says so once in
a note. Only a flood without pause (over the limit in :data:`SUSTAINED` windows in a
row: a server that never stops, which would hold a core of the client for as long as
the connection is kept) gives the connection up.

Notifications that cannot be read (not JSON, not JSON-RPC, params of the wrong shape)
are dropped and counted too, and said once in a note.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import orjson

SUSTAINED = 3
"""Windows in a row over the limit after which the connection is given up."""

# An event of an event stream larger than this is taken as an answer (notifications are
# small): it is passed on as it arrives, never held whole to be judged.
SMALL_EVENT = 64 * 1024


class NotificationBudget:
    """Counts what one connection's server sends unasked; says what was dropped."""

    def __init__(
        self, limit: int, window: float, on_flood: Callable[[str], None] | None = None
    ) -> None:
        self.limit = limit
        self.window = window
        self.on_flood = on_flood
        self._count = 0
        self._since = time.monotonic()
        self._over_in_a_row = 0  # windows in a row (before the current one) over the limit
        self.dropped = 0  # past the limit
        self.unreadable = 0  # could not be read
        self.unreadable_first = ""

    @property
    def over(self) -> bool:
        """Whether the current window is past the limit (further ones are dropped)."""
        return self._count >= self.limit and time.monotonic() - self._since <= self.window

    def allow(self) -> bool:
        """One more message sent unasked: whether it may be read (False: drop it)."""
        now = time.monotonic()
        elapsed = now - self._since
        if elapsed > self.window:
            was_over = self._count > self.limit
            consecutive = elapsed <= 2 * self.window
            self._over_in_a_row = self._over_in_a_row + 1 if was_over and consecutive else 0
            self._count, self._since = 0, now
        self._count += 1
        if self._count <= self.limit:
            return True
        self.dropped += 1
        flood = self._count == self.limit + 1 and self._over_in_a_row + 1 >= SUSTAINED
        if flood and self.on_flood is not None:
            self.on_flood(
                f"the server sent over {self.limit:,} notifications or requests unasked "
                f"within {self.window:g} s, {SUSTAINED} times in a row, without pause"
            )
        return False

    def unreadable_one(self, excerpt: str) -> None:
        """A notification that could not be read was dropped."""
        self.unreadable += 1
        if self.unreadable == 1:
            self.unreadable_first = excerpt

    def notes(self) -> list[str]:
        out = []
        if self.dropped:
            out.append(
                f"the server sent over {self.limit:,} notifications or requests unasked "
                f"within {self.window:g} s: {self.dropped:,} past that were dropped unread "
                "(answers to requests were all read)"
            )
        if self.unreadable:
            out.append(
                f"{self.unreadable:,} notification(s) from the server could not be read and "
                f"were dropped (the first: {self.unreadable_first})"
            )
        return out


def judge_event(event: bytes, budget: NotificationBudget, excerpt: Callable[[bytes], str]) -> bool:
    """Whether one whole event of an event stream is passed on to the SDK: answers
    always (a broken one too: the SDK fails its request, saying why); notifications and
    requests within the budget; events without a message (comments, a retry, a
    priming id) within the budget; what is not JSON-RPC never (counted)."""
    parts = []
    for line in event.splitlines():
        if line.startswith(b"data:"):
            value = line[5:]
            parts.append(value[1:] if value.startswith(b" ") else value)
    data = b"\n".join(parts)
    if not data.strip():
        return budget.allow()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        if b'"id"' in data and (b'"result"' in data or b'"error"' in data):
            return True  # an answer, broken: its request fails on it
        budget.unreadable_one(excerpt(data))
        return False
    if isinstance(value, dict) and "id" in value and ("result" in value or "error" in value):
        return True
    if not isinstance(value, dict) or not isinstance(value.get("method"), str):
        budget.unreadable_one(excerpt(data))
        return False
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        budget.unreadable_one(excerpt(data))
        return False
    return budget.allow()


class EventFilter:
    """An event stream cut into whole events, each judged before it is passed on; an
    event larger than :data:`SMALL_EVENT` is passed on as it arrives."""

    def __init__(self, judge: Callable[[bytes], bool]) -> None:
        self._judge = judge
        self._buf = bytearray()
        self._scanned = 0
        self._passing = False

    def feed(self, chunk: bytes) -> bytes:
        out = bytearray()
        self._buf += chunk
        while True:
            end = _first_event_end(self._buf, max(0, self._scanned - 3))
            if end is None:
                if not self._passing and len(self._buf) > SMALL_EVENT:
                    self._passing = True
                if self._passing and len(self._buf) > 3:
                    # All but what may begin the blank line that ends the event.
                    out += self._buf[:-3]
                    del self._buf[:-3]
                self._scanned = len(self._buf)
                return bytes(out)
            event = bytes(self._buf[:end])
            del self._buf[:end]
            self._scanned = 0
            if self._passing:
                self._passing = False
                out += event
            elif self._judge(event):
                out += event

    def rest(self) -> bytes:
        """What is left at the stream's end (an event without its blank line)."""
        rest, self._buf = bytes(self._buf), bytearray()
        return rest


def _first_event_end(buf: bytes | bytearray, start: int) -> int | None:
    ends = [at + len(mark) for mark in (b"\n\n", b"\r\n\r\n") if (at := buf.find(mark, start)) >= 0]
    return min(ends) if ends else None

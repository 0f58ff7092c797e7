"""A size limit on what an MCP server sends over HTTP, applied while it arrives.

The SDK reads a JSON answer whole (``response.aread()``) and an event stream event by
event, with no limit: a server streaming an endless body took over 5 GB of memory in
20 s before the connect timeout ended it. Each response's body is wrapped as soon as
its headers arrive; a JSON body, or one event of an event stream, over the limit ends
the read with :class:`ResponseTooLarge` after ``on_fault`` has been told why.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2


class ResponseTooLarge(httpx2.StreamError):
    """A response body (or one event of it) went over the size limit."""


class CappedStream(httpx2.AsyncByteStream):
    """The body of one response, counted as it arrives."""

    def __init__(
        self, inner: Any, limit: int, *, events: bool, on_fault: Callable[[str], None]
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._events = events
        self._on_fault = on_fault

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._inner:
            size += len(chunk)
            if self._events:
                # Only the event being received counts: what follows the last blank line.
                end = _last_event_end(chunk)
                if end is not None:
                    size = len(chunk) - end
            if size > self._limit:
                what = "one event over" if self._events else "a response over"
                reason = (
                    f"the server sent {what} {self._limit // 2**20} MiB "
                    "(the limit for one message); the connection was given up"
                )
                self._on_fault(reason)
                raise ResponseTooLarge(reason)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def _last_event_end(chunk: bytes) -> int | None:
    """Where the last complete event in ``chunk`` ends (after its blank line), if any."""
    ends = [at + len(mark) for mark in (b"\n\n", b"\r\n\r\n") if (at := chunk.rfind(mark)) >= 0]
    return max(ends) if ends else None


def cap_responses(limit: int, on_fault: Callable[[str], None]) -> Callable[[Any], Any]:
    """An httpx response hook putting every body under ``limit`` bytes per message."""

    async def hook(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type", "").lower()
        response.stream = CappedStream(
            response.stream,
            limit,
            events=content_type.startswith("text/event-stream"),
            on_fault=on_fault,
        )

    return hook

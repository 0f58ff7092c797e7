"""A size limit on what an MCP server sends over HTTP, applied while it arrives.

The SDK reads a JSON answer whole (``response.aread()``) and an event stream event by
event, with no limit: a server streaming an endless body took over 5 GB of memory in
20 s before the connect timeout ended it, and 2 MB of gzip (2 GiB of zeros once
decompressed) took 6.4 GB. Each response's body is wrapped as soon as its headers
arrive and counted after decompression, which happens here, a bounded piece at a time,
instead of in httpx: a JSON body, or one event of an event stream, over the limit ends
the read with :class:`ResponseRefused` after ``on_fault`` has been told why.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

from desktop.sources.budgets import UNASKED_LIMIT, UNASKED_WINDOW

# What the catalog asks for and can decompress within the limit.
ACCEPT_ENCODING = "gzip, deflate"


class ResponseRefused(httpx2.StreamError):
    """A response body went over the size limit, or could not be decompressed."""


class _Inflater:
    """gzip or deflate, decompressed at most ``room`` bytes at a time."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        # deflate is zlib-wrapped by the standard, raw by some servers: tried in that order.
        wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes, room: int) -> bytes:
        """Up to ``room`` bytes of output; exactly ``room`` means there is more."""
        try:
            out = self._inflate.decompress(data, room)
        except zlib.error:
            if self.encoding != "deflate" or self._started:
                raise
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._inflate.decompress(data, room)
        self._started = True
        return out


class CappedStream(httpx2.AsyncByteStream):
    """The body of one response, decompressed here and counted as it arrives."""

    def __init__(
        self,
        inner: Any,
        limit: int,
        *,
        events: bool,
        on_fault: Callable[[str], None],
        encoding: str = "",
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._events = events
        self._on_fault = on_fault
        self._encoding = encoding

    def _refuse(self, reason: str) -> ResponseRefused:
        self._on_fault(reason)
        return ResponseRefused(reason)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        inflater: _Inflater | None = None
        if self._encoding in ("gzip", "x-gzip", "deflate"):
            inflater = _Inflater("deflate" if self._encoding == "deflate" else "gzip")
        elif self._encoding not in ("", "identity"):
            raise self._refuse(
                f"the server compressed its answer as {self._encoding!r}, which the catalog "
                f"did not ask for (it asks for {ACCEPT_ENCODING})"
            )
        size = events = 0
        since = time.monotonic()
        async for raw in self._inner:
            chunk = raw
            if inflater is not None:
                room = self._limit - size + 1
                try:
                    chunk = inflater.feed(raw, room)
                except zlib.error as exc:
                    raise self._refuse(
                        f"the server's {self._encoding} answer is corrupt ({exc})"
                    ) from exc
                if len(chunk) >= room:
                    raise self._too_large()
            size += len(chunk)
            if self._events:
                # Only the event being received counts: what follows the last blank line.
                end = _last_event_end(chunk)
                if end is not None:
                    size = len(chunk) - end
                    # Events without end (keep-alive comments included) keep the loop
                    # busy as long as the stream is open: count them too.
                    now = time.monotonic()
                    if now - since > UNASKED_WINDOW:
                        since, events = now, 0
                    events += chunk.count(b"\n\n") + chunk.count(b"\r\n\r\n")
                    if events > UNASKED_LIMIT:
                        raise self._refuse(
                            f"the server sent over {UNASKED_LIMIT:,} events within "
                            f"{UNASKED_WINDOW:g} s on one event stream"
                        )
            if size > self._limit:
                raise self._too_large()
            if chunk:
                yield chunk

    def _too_large(self) -> ResponseRefused:
        what = "one event over" if self._events else "a response over"
        return self._refuse(
            f"the server sent {what} {self._limit // 2**20} MiB (the limit for one message)"
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _last_event_end(chunk: bytes) -> int | None:
    """Where the last complete event in ``chunk`` ends (after its blank line), if any."""
    ends = [at + len(mark) for mark in (b"\n\n", b"\r\n\r\n") if (at := chunk.rfind(mark)) >= 0]
    return max(ends) if ends else None


def request_headers(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` asking only for encodings :class:`CappedStream` decompresses (unless
    the source's configuration names an ``Accept-Encoding`` itself)."""
    if any(name.lower() == "accept-encoding" for name in headers):
        return headers
    return {"accept-encoding": ACCEPT_ENCODING, **headers}


def cap_responses(limit: int, on_fault: Callable[[str], None]) -> Callable[[Any], Any]:
    """An httpx response hook putting every body under ``limit`` bytes per message.

    The body is decompressed by :class:`CappedStream`, so the response's
    ``Content-Encoding`` is removed before httpx would decompress it again, unbounded.
    """

    async def hook(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type", "").lower()
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if "content-encoding" in response.headers:
            del response.headers["content-encoding"]
        response.stream = CappedStream(
            response.stream,
            limit,
            events=content_type.startswith("text/event-stream"),
            on_fault=on_fault,
            encoding=encoding,
        )

    return hook

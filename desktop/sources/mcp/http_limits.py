"""A size limit on what an MCP server sends over HTTP, applied while it arrives.

The SDK reads a JSON answer whole (``response.aread()``) and an event stream event by
event, with no limit: a server streaming an endless body took over 5 GB of memory in
20 s before the connect timeout ended it, and 2 MB of gzip (2 GiB of zeros once
decompressed) took 6.4 GB. Each response's body is wrapped as soon as its headers
arrive and counted after decompression, which happens here, a bounded piece at a time,
instead of in httpx: a JSON body, or one event of an event stream, over the limit ends
the read with :class:`ResponseRefused` after ``on_fault`` has been told why.

An event stream's events are judged one by one before the SDK sees them
(:mod:`~desktop.sources.mcp.notifications`): what is not JSON-RPC is dropped and
counted, notifications past the connection's budget are dropped, answers always pass.

A request with a smaller limit of its own (a ``tools/list`` page: parsing one of 45 MB
took 3.4 GB) has its answer held until it is whole, within that limit; past it the
answer is dropped unread and an error in its place ends that request alone.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import orjson

from desktop.core.visible import cut_repr
from desktop.sources.budgets import ANSWER_REFUSED
from desktop.sources.mcp.notifications import EventFilter, NotificationBudget, judge_event

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
        refusal: tuple[Any, str] | None = None,
        budget: NotificationBudget | None = None,
    ) -> None:
        self._inner = inner
        self._budget = budget
        self._limit = limit
        self._events = events
        self._on_fault = on_fault
        self._encoding = encoding
        # (request id, why): the answer is held whole and, past the limit, replaced
        # by an error for that request.
        self._refusal = refusal

    def _refuse(self, reason: str) -> ResponseRefused:
        self._on_fault(reason)
        return ResponseRefused(reason)

    def _inflater(self) -> _Inflater | None:
        if self._encoding in ("gzip", "x-gzip", "deflate"):
            return _Inflater("deflate" if self._encoding == "deflate" else "gzip")
        if self._encoding not in ("", "identity"):
            raise self._refuse(
                f"the server compressed its answer as {self._encoding!r}, which the catalog "
                f"did not ask for (it asks for {ACCEPT_ENCODING})"
            )
        return None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        body = self._held(*self._refusal) if self._refusal is not None else self._capped()
        budget = self._budget
        if not self._events or budget is None:
            async for chunk in body:
                yield chunk
            return
        events = EventFilter(lambda event: judge_event(event, budget, _excerpt))
        async for chunk in body:
            kept = events.feed(chunk)
            if kept:
                yield kept
        rest = events.rest()
        if rest:
            yield rest

    async def _capped(self) -> AsyncIterator[bytes]:
        inflater = self._inflater()
        size = 0
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
            if size > self._limit:
                raise self._too_large()
            if chunk:
                yield chunk

    async def _held(self, request_id: Any, why: str) -> AsyncIterator[bytes]:
        """The body given on whole (JSON) or event by event (an event stream), never
        more than the limit held; past it, an error for ``request_id`` instead."""
        inflater = self._inflater()
        held = bytearray()
        async for raw in self._inner:
            chunk = raw
            if inflater is not None:
                room = self._limit - len(held) + 1
                try:
                    chunk = inflater.feed(raw, room)
                except zlib.error as exc:
                    why = f"the server's {self._encoding} answer is corrupt ({exc})"
                    raise self._refuse(why) from None
            held += chunk
            # Only where this chunk may have ended an event is searched (its blank line
            # may have begun in the chunk before).
            end = _last_event_end(held, max(0, len(held) - len(chunk) - 3))
            if self._events and end is not None:
                yield bytes(held[:end])
                del held[:end]
            if len(held) > self._limit:
                del held[:]
                error = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": ANSWER_REFUSED, "message": why},
                }
                body = orjson.dumps(error)
                yield b"event: message\ndata: " + body + b"\n\n" if self._events else body
                return
        if held:
            yield bytes(held)

    def _too_large(self) -> ResponseRefused:
        what = "one event over" if self._events else "a response over"
        return self._refuse(
            f"the server sent {what} {self._limit // 2**20} MiB (the limit for one message)"
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _last_event_end(chunk: bytes | bytearray, start: int = 0) -> int | None:
    """Where the last complete event in ``chunk`` ends (after its blank line), if any
    (its blank line found at or after ``start``)."""
    ends = [
        at + len(mark) for mark in (b"\n\n", b"\r\n\r\n") if (at := chunk.rfind(mark, start)) >= 0
    ]
    return max(ends) if ends else None


def _excerpt(data: bytes) -> str:
    return cut_repr(data.decode("utf-8", "replace"), 80)


def request_headers(headers: dict[str, str]) -> dict[str, str]:
    """``headers`` asking only for encodings :class:`CappedStream` decompresses (unless
    the source's configuration names an ``Accept-Encoding`` itself)."""
    if any(name.lower() == "accept-encoding" for name in headers):
        return headers
    return {"accept-encoding": ACCEPT_ENCODING, **headers}


def cap_responses(
    limit: int,
    on_fault: Callable[[str], None],
    answer_limit: Callable[[str], int] | None = None,
    refused: Callable[[str, int | None, int], str] | None = None,
    budget: NotificationBudget | None = None,
) -> Callable[[Any], Any]:
    """An httpx response hook putting every body under ``limit`` bytes per message.

    The body is decompressed by :class:`CappedStream`, so the response's
    ``Content-Encoding`` is removed before httpx would decompress it again, unbounded.
    ``answer_limit`` gives the smaller limit of a request's own answer (by its method),
    ``refused`` the words for an answer dropped past it. ``budget`` judges each event
    of an event stream (see :class:`~desktop.sources.mcp.notifications.EventFilter`).
    """

    async def hook(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type", "").lower()
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if "content-encoding" in response.headers:
            del response.headers["content-encoding"]
        own, refusal = limit, None
        request = _request_of(response)
        if answer_limit is not None and refused is not None and request is not None:
            request_id, method = request
            own = min(limit, answer_limit(method))
            if own < limit:
                refusal = (request_id, refused(method, None, own))
        response.stream = CappedStream(
            response.stream,
            own,
            events=content_type.startswith("text/event-stream"),
            on_fault=on_fault,
            encoding=encoding,
            refusal=refusal,
            budget=budget,
        )

    return hook


def _request_of(response: httpx2.Response) -> tuple[Any, str] | None:
    """The id and method of the JSON-RPC request a POST's response answers."""
    try:
        request = response.request
        if request.method != "POST":
            return None
        value = json.loads(request.content) if request.content else None
    except (RuntimeError, ValueError, AttributeError):  # a streamed body, not JSON
        return None
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        request_id = value.get("id")
        if isinstance(request_id, int | str) and not isinstance(request_id, bool):
            return request_id, value["method"]
    return None

"""Guarded HTTP reads for the web index kind: what may be fetched, and how much.

Only ``https`` is read, except from this computer (``127.0.0.1``, ``::1``,
``localhost``), where ``http`` is allowed too. Redirects are followed by hand, a few
at most, and each new address is checked again: a redirect to another host is refused,
and so is one from ``https`` to ``http``. Every response is bounded in size (a
``Content-Length`` over the limit is refused before the body is read, and a body is
never read past the limit) and in time. Every failure is a :class:`FetchError`
saying why, in plain words.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    import httpx2

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
MAX_REDIRECTS = 5
CONNECT_SECONDS = 10.0
TOTAL_SECONDS = 60.0  # one response, headers and body
PARALLEL = 16  # requests at once to one index
REDIRECTS = frozenset({301, 302, 303, 307, 308})


class FetchError(Exception):
    """A read that failed or was refused, said in plain words."""


def host_of(url: str) -> str:
    """The host of ``url``, lower case, without brackets."""
    return (urlsplit(url).hostname or "").lower()


def check_url(url: str) -> str:
    """Why ``url`` may not be read (empty when it may): https, or http on this computer."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port out of range raises here, not in the client
    except ValueError as exc:
        return f"{url!r} is not an address: {exc}"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"{url!r} is not an http(s) address"
    if parts.username or parts.password:
        return "an address with a user name or password in it is not read"
    if parts.scheme == "http" and host_of(url) not in LOOPBACK:
        return (
            f"{url} is plain http: an index is read over https only "
            "(http only from this computer: 127.0.0.1, ::1, localhost)"
        )
    return ""


def check_redirect(origin: str, target: str) -> str:
    """Why a redirect from ``origin`` to ``target`` is not followed (empty when it is)."""
    why = check_url(target)
    if why:
        return f"redirected to {target}, which is not read: {why}"
    if host_of(target) != host_of(origin):
        return (
            f"redirected from {host_of(origin)} to another host, {host_of(target)}; "
            "an index is read from its own host only"
        )
    if urlsplit(origin).scheme == "https" and urlsplit(target).scheme != "https":
        return f"redirected from https to plain http ({target}); not followed"
    return ""


@dataclass(frozen=True, slots=True)
class Fetched:
    """A response read whole: the address it came from at last, and its bytes."""

    url: str
    data: bytes


class Fetcher:
    """One client for the reads of one listing, at most :data:`PARALLEL` at once."""

    def __init__(self, *, timeout: float | None = None) -> None:
        import httpx2

        timeout = self.timeout = timeout or TOTAL_SECONDS
        self._client = httpx2.AsyncClient(
            follow_redirects=False,
            timeout=httpx2.Timeout(timeout, connect=CONNECT_SECONDS),
            limits=httpx2.Limits(max_connections=PARALLEL, max_keepalive_connections=PARALLEL),
            headers={"Accept": "application/json, text/markdown, */*"},
            trust_env=False,
        )
        self._slots = asyncio.Semaphore(PARALLEL)

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._client.aclose()

    async def get(self, url: str, limit: int) -> Fetched:
        """The body at ``url`` (redirects followed within the rules), at most ``limit``
        bytes; :class:`FetchError` otherwise."""
        why = check_url(url)
        if why:
            raise FetchError(why)
        async with self._slots:
            try:
                return await asyncio.wait_for(self._get(url, limit), self.timeout)
            except TimeoutError:
                raise FetchError(f"{url} did not answer within {self.timeout:g} s") from None

    async def _get(self, url: str, limit: int) -> Fetched:
        import httpx2

        current = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with self._client.stream("GET", current) as response:
                    if response.status_code in REDIRECTS:
                        target = urljoin(current, response.headers.get("location", ""))
                        why = check_redirect(current, target)
                        if why:
                            raise FetchError(why)
                        current = target
                        continue
                    if response.status_code != 200:
                        raise FetchError(
                            f"{current} answered {response.status_code} "
                            f"{response.reason_phrase}".rstrip()
                        )
                    return Fetched(current, await _body(response, current, limit))
            except (httpx2.HTTPError, httpx2.InvalidURL, OSError, ValueError) as exc:
                raise FetchError(f"cannot read {current}: {exc or type(exc).__name__}") from None
        raise FetchError(f"{url} redirected more than {MAX_REDIRECTS} times")


async def _body(response: httpx2.Response, url: str, limit: int) -> bytes:
    said = response.headers.get("content-length", "")
    if said.isdigit() and int(said) > limit:
        raise FetchError(f"{url} is {int(said):,} bytes; at most {limit:,} are read")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise FetchError(f"{url} is larger than {limit:,} bytes; not read further")
        chunks.append(chunk)
    return b"".join(chunks)

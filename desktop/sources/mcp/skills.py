"""The Skills extension's requests on an open connection: ``skills/list`` walked page
by page within the budgets, and ``skills/get``.

Both return raw wire data; ``desktop.core.entry`` turns entries into skills.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND

from desktop.core.collector import collector_paused
from desktop.core.visible import cut_repr, json_excerpt, quoted
from desktop.sources.budgets import json_size
from desktop.sources.errors import SourceError
from desktop.sources.mcp.connection import SKILLS_EXTENSION, McpConnection
from desktop.sources.mcp.errors import (
    NoSkillsMethod,
    NoSuchSkill,
    error_code,
    first_leaf,
    server_answered,
)


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


async def list_skills(
    conn: McpConnection, on_page: Callable[[list[Any]], None] | None = None
) -> Listing:
    """Walk ``skills/list`` within the budgets.

    ``on_page`` is called with each page's entries while the next page is already
    being fetched, so checking the entries overlaps the server's work. The walk
    runs with the cyclic garbage collector paused (see ``desktop.core.collector``):
    it builds thousands of entries and skills and no cycles worth collecting, and
    the collector's passes over them were about a third of the client's CPU for
    10,000 skills.
    """
    with collector_paused():
        return await _walk_skills(conn, on_page)


async def _walk_skills(conn: McpConnection, on_page: Callable[[list[Any]], None] | None) -> Listing:
    b = conn.budgets
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
                pending = asyncio.ensure_future(_list_page(conn, cursor))
            try:
                page = await pending
            except MCPError as exc:
                if out.pages == 0 and _no_skills(conn, exc):
                    raise _no_skills_error(conn, "skills/list", exc) from None
                out.error = f"skills/list page {out.pages + 1} failed: {conn.explain(exc)}"
                break
            except Exception as exc:  # noqa: BLE001 - any failure ends the walk with a reason
                leaf = first_leaf(exc)
                if isinstance(leaf, SourceError) and getattr(leaf, "sign_in", None):
                    # The server wants a sign-in (again) on a connection kept open: the
                    # source's state, said as at a first connection, not a page's failure.
                    raise leaf from None
                # Ours already names the request: said once, with the page.
                why = conn.explain(exc).removeprefix("skills/list failed: ")
                out.error = f"skills/list page {out.pages + 1} failed: {why}"
                break
            finally:
                pending = None
            out.pages += 1
            size = json_size(page)
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
                if conn.modern:
                    out.notes.extend(_cacheable_lapses(page, ttl_ok=out.ttl_ms is not None))
            skills = page.get("skills")
            if not isinstance(skills, list):
                out.error = f"skills/list page {out.pages} has no 'skills' array"
                break
            room = b.max_entries - len(out.entries)
            if len(skills) > room:
                _take(out, skills[: max(room, 0)], on_page)
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
                        pending = asyncio.ensure_future(_list_page(conn, cursor))
            _take(out, skills, on_page)
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


async def _list_page(conn: McpConnection, cursor: str | None) -> dict[str, Any]:
    return await conn.request("skills/list", {"cursor": cursor} if cursor is not None else {})


def _take(out: Listing, skills: list[Any], on_page: Callable[[list[Any]], None] | None) -> None:
    out.entries.extend(skills)
    if on_page is not None:
        on_page(skills)


async def get_skill(conn: McpConnection, uri: str) -> Any:
    """``skills/get`` for one URI; returns the raw ``skill`` value.

    Asked, like ``skills/list``, of a modern server only when it declares the
    extension; of a 2025-era one always.
    """
    if not conn.should_list_skills():
        raise NoSkillsMethod(
            f"the server does not declare {SKILLS_EXTENSION}: skills/get was not asked"
        )
    try:
        result = await conn.request("skills/get", {"uri": uri})
    except MCPError as exc:
        # -32602 is the answer for a URI it does not serve, unless the server,
        # not having declared the extension, already said it publishes no skills.
        unserved = exc.code == INVALID_PARAMS and not conn.answered_no_skills
        if _no_skills(conn, exc) and not unserved:
            raise _no_skills_error(conn, "skills/get", exc) from None
        if exc.code == INVALID_PARAMS:
            raise NoSuchSkill(
                f"the server serves no skill at {uri} ({quoted(exc.message)})"
            ) from None
        raise SourceError(f"skills/get failed: {conn.explain(exc)}") from None
    if "skill" not in result:
        raise SourceError("skills/get answered without a 'skill' entry")
    return result["skill"]


def _no_skills(conn: McpConnection, exc: MCPError) -> bool:
    """Whether an error answer to a skills method means the server publishes no skills:
    -32601 always; on a 2025-era connection to a server that did not declare the
    extension, any error it answered with (servers on the Python SDK 1.x and FastMCP 3.x
    answer an unknown method with -32602, over HTTP with status 400). A server that
    declared the extension and fails has failed."""
    if not server_answered(exc):
        return False
    return exc.code == METHOD_NOT_FOUND or conn.declares_extension is None


def _no_skills_error(conn: McpConnection, method: str, exc: MCPError) -> NoSkillsMethod:
    conn.no_skills_answer()
    return NoSkillsMethod(
        conn.masked(f"the server answered {method} with {error_code(exc)}: it publishes no skills")
    )


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

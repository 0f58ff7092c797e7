"""Reads on an open connection: ``resources/read`` of one file, as the bytes the server
sent, and ``resources/directory/read`` of one folder, within the budgets."""

from __future__ import annotations

import base64
from typing import Any, Literal

from mcp import MCPError, types

from desktop.sources.budgets import json_size
from desktop.sources.errors import SourceError
from desktop.sources.mcp.connection import McpConnection


async def read_bytes(
    conn: McpConnection,
    uri: str,
    *,
    refresh: bool = False,
    limit: int | None = None,
    expected_size: int = 0,
) -> bytes:
    """``resources/read`` of one URI, returning the raw bytes as received.

    Text is UTF-8 encoded exactly as received (no newline or BOM changes); blobs
    are base64-decoded. ``refresh`` (or an earlier mismatch) bypasses the SDK's
    response cache.
    """
    mode: Literal["refresh", "use"] = "refresh" if (refresh or uri in conn.stale) else "use"
    # Large files take time to travel: allow 2 s per MiB on top of the request timeout.
    timeout = conn.budgets.request_timeout + 2.0 * expected_size / (1024 * 1024)
    try:
        result = await conn.bounded(
            f"resources/read of {uri}", conn.client.read_resource(uri, cache_mode=mode), timeout
        )
    except MCPError as exc:
        raise SourceError(f"resources/read of {uri} failed: {conn.explain(exc)}") from None
    conn.stale.discard(uri)
    contents = list(result.contents)
    matching = [c for c in contents if str(c.uri) == uri]
    if len(matching) == 1:
        item = matching[0]
    elif len(contents) == 1:
        item = contents[0]
    else:
        raise SourceError(
            f"resources/read of {uri} returned {len(contents)} contents, none unambiguously for it"
        )
    if isinstance(item, types.BlobResourceContents):
        if limit is not None and len(item.blob) > (limit * 4) // 3 + 8:
            raise SourceError(f"{uri} is larger than {limit:,} bytes; not read")
        try:
            return base64.b64decode(item.blob, validate=True)
        except ValueError:
            raise SourceError(f"{uri}: the blob is not valid base64") from None
    text = getattr(item, "text", None)
    if not isinstance(text, str):
        raise SourceError(f"{uri}: the content is neither text nor blob")
    return text.encode("utf-8", "surrogatepass")


async def read_directory(conn: McpConnection, uri: str) -> list[dict[str, Any]]:
    """``resources/directory/read`` (all pages within budget); only where declared."""
    if not conn.directory_read:
        raise SourceError("the server does not declare directoryRead; directories are not read")
    b = conn.budgets
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    size = 0
    for pages in range(1, b.max_pages + 1):
        params: dict[str, Any] = {"uri": uri}
        if cursor is not None:
            params["cursor"] = cursor
        try:
            page = await conn.request("resources/directory/read", params)
        except MCPError as exc:
            raise SourceError(
                f"resources/directory/read of {uri} failed: {conn.explain(exc)}"
            ) from None
        items = page.get("resources")
        if not isinstance(items, list):
            raise SourceError("resources/directory/read answered without a 'resources' array")
        # The budget is for the whole folder, every page together: a server paging
        # without end would otherwise be followed for max_pages pages of any size.
        size += json_size(items)
        kept = len(out) + len(items)
        if kept > b.max_directory_entries or size > b.max_directory_bytes:
            over = (
                f"{b.max_directory_entries:,} entries"
                if kept > b.max_directory_entries
                else f"{b.max_directory_bytes // 2**20} MiB"
            )
            raise SourceError(
                f"the server's listing of {uri} is over {over} (the limit for one "
                f"folder) by page {pages}; it was not read further"
            )
        out.extend(i for i in items if isinstance(i, dict) and isinstance(i.get("uri"), str))
        nxt = page.get("nextCursor")
        if not isinstance(nxt, str) or nxt in seen:
            break
        seen.add(nxt)
        cursor = nxt
    return out

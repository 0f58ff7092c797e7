"""``tools/list`` on an open connection: the server's tool names, every page within the
budgets, for the tool-affinity checks of its skills."""

from __future__ import annotations

from mcp import MCPError

from desktop.sources.mcp.connection import McpConnection
from desktop.sources.mcp.errors import error_code, server_answered


async def list_tools(conn: McpConnection) -> tuple[list[str] | None, list[str]]:
    """The server's tool names (all pages within budget), and notes."""
    notes: list[str] = []
    caps = conn.client.server_capabilities
    if getattr(caps, "tools", None) is None:
        return [], ["the server declares no tools capability, so it lists no tools"]
    names: list[str] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(conn.budgets.max_tool_pages):
        try:
            page = await conn.bounded(
                "tools/list", conn.client.list_tools(cursor=cursor, cache_mode="bypass")
            )
        except MCPError as exc:
            if server_answered(exc) and not names:
                # -32601, or -32602 as servers on the Python SDK 1.x answer an unknown
                # method: any error it answered with means it lists no tools.
                conn.answer_taken()
                said = conn.masked(f"the server answered tools/list with {error_code(exc)}")
                return [], [f"{said}: it lists no tools"]
            notes.append(f"tools/list failed: {conn.explain(exc)}")
            return (names or None), notes
        except Exception as exc:  # noqa: BLE001 - reported as a note
            why = conn.explain(exc).removeprefix("tools/list failed: ")
            notes.append(f"tools/list failed: {why}")
            return (names or None), notes
        names.extend(t.name for t in page.tools)
        if len(names) > conn.budgets.max_tools:
            del names[conn.budgets.max_tools :]
            notes.append(f"tools/list stopped at {conn.budgets.max_tools:,} tools (tool budget)")
            return names, notes
        nxt = page.next_cursor
        if nxt is None:
            return names, notes
        if nxt in seen:
            notes.append("tools/list stopped: the server repeated a cursor")
            return names, notes
        seen.add(nxt)
        cursor = nxt
    notes.append(f"tools/list stopped after {conn.budgets.max_tool_pages} pages (page budget)")
    return names, notes

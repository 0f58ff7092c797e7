"""A stock server on the official Python SDK 1.x (FastMCP 1.x), as people run them.

Run with an interpreter that has ``mcp`` 1.x installed: ``python stock_sdk1.py`` serves
stdio, ``python stock_sdk1.py --http PORT`` Streamable HTTP on 127.0.0.1:PORT/mcp. It
knows nothing of skills: an unknown method is answered with -32602.
"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP

port = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[1] == "--http" else 0
server = FastMCP("stock", host="127.0.0.1", port=port or 8000)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    server.run(transport="streamable-http" if port else "stdio")

"""Loading the MCP client off the loop's thread.

Importing the MCP SDK takes seconds (pydantic builds its models), and the SDK imports
more modules on its first connection. Done on the loop's thread, either would freeze
the window; here it happens once, in a worker thread, and every caller waits for it.
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import TYPE_CHECKING

from desktop.core.collector import collector_paused

if TYPE_CHECKING:
    import asyncio

_mcp_import: asyncio.Future[None] | None = None
# Imported by the MCP SDK on its first connection; loaded with it, off the loop's thread.
_MCP_MODULES = (
    "desktop.sources.mcp.source",
    "anyio._backends._asyncio",
    "anyio._core._subprocesses",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "platformdirs",
)


def _import_mcp_modules() -> None:
    # The import allocates hundreds of thousands of objects; the full collections that
    # would otherwise run in the middle of it hold the interpreter lock for over 100 ms
    # each, and the window's loop waits for them. Nothing it builds is garbage.
    with collector_paused():
        for name in _MCP_MODULES:
            try:
                importlib.import_module(name)
            except ImportError:
                if name == _MCP_MODULES[0]:
                    raise
        # What the import leaves (its pydantic models) lives as long as the program.
        # Moved out of the collector's reach, it is no longer traversed by every full
        # collection, each of which otherwise froze the window for over 100 ms once the
        # client was loaded.
        gc.freeze()


async def load_mcp_support() -> None:
    """Import the MCP client in a worker thread: it takes seconds, and an import on the
    loop's thread would freeze the window meanwhile. Every caller waits for the one
    import (a half-imported module is already in ``sys.modules``)."""
    import asyncio

    global _mcp_import
    loop = asyncio.get_running_loop()
    module = sys.modules.get("desktop.sources.mcp.source")
    if module is not None and hasattr(module, "ServerPool") and _mcp_import is None:
        return  # loaded before (and completely)
    if (
        _mcp_import is None
        or _mcp_import.get_loop() is not loop
        or (_mcp_import.done() and _mcp_import.exception() is not None)
    ):
        _mcp_import = asyncio.ensure_future(asyncio.to_thread(_import_mcp_modules))
    importing = _mcp_import
    await asyncio.shield(importing)

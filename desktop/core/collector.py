"""Pausing Python's cyclic garbage collector around short bursts of allocation.

Scanning a folder or printing a catalog builds tens of thousands of small objects
and no reference cycles worth collecting; the collector's passes over everything
already alive cost a sixth of that work. Reference counting still frees what is
dropped. Only for work that ends: a long-running loop keeps the collector on.

The collector is one switch for the whole process, and pauses overlap (a folder scan
in one worker thread, the MCP SDK's import in another): the first pause turns it off,
and only the last one to end turns it back on, if it was on before the first.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Turn the collector off for the block (see the module's note on overlaps)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()

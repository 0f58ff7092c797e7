"""A cheaper answer to the question PySide6 asks of every module imported after it.

Once ``PySide6.QtCore`` is loaded, PySide checks each newly imported module for the text
"PySide6" (to decide whether its opt-in ``__feature__`` switches apply there) through
``inspect.getsource``, which goes through ``linecache`` and splits the whole file into
lines. The MCP SDK the window loads after Qt is about 500 modules; that check alone
took over 0.1 s of its import, all of it holding the interpreter lock the window's
loop needs (reading the bytes instead: a quarter of that).

:func:`install` answers the same question from the file's bytes. Modules without a
``.py`` file, or a PySide without this hook, are left to PySide's own check.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, cast

_MARK = b"PySide6"


def _reads_pyside(original: Any) -> Any:
    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as fh:
                    return _MARK in fh.read()
            except OSError:
                pass
        return bool(original(module))

    uses_pyside.reads_bytes = True  # type: ignore[attr-defined]
    return uses_pyside


def install() -> bool:
    """Replace PySide's per-import source check; True when it is in place."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(original):
        return False
    if not getattr(original, "reads_bytes", False):
        cast(Any, feature)._mod_uses_pyside = _reads_pyside(original)
    return True

"""Output helpers shared by the commands: JSON for scripts, plain text for people."""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Any, NoReturn


class UsageError(Exception):
    """Bad usage: the command exits 2 with this one-line reason."""


class CheckFailed(Exception):
    """A check failed: the command exits 1 with this message on stderr."""


def fail_usage(message: str) -> NoReturn:
    raise UsageError(message)


def json_bytes(obj: Any) -> bytes:
    """``obj`` as indented UTF-8 JSON, the same text ``json.dumps(indent=2)`` writes.

    pydantic-core's encoder (already here for the ``mcp`` SDK) writes it several
    times faster; anything it refuses (a lone surrogate from a server) goes through
    the standard library, escaped.
    """
    import pydantic_core

    try:
        return pydantic_core.to_json(obj, indent=2, inf_nan_mode="strings")
    except (ValueError, TypeError):
        return json.dumps(obj, indent=2, ensure_ascii=True, default=str).encode("ascii")


def emit_json(obj: Any) -> None:
    data = json_bytes(obj) + b"\n"
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(data.decode("utf-8"))
        return
    out.flush()
    buffer.write(data)
    buffer.flush()


def err(message: str) -> None:
    print(message, file=sys.stderr)


def cells(text: str) -> int:
    """Terminal columns a string takes (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def shorten(text: str, width: int) -> str:
    """One line of at most ``width`` terminal columns."""
    text = " ".join(str(text).split())
    if cells(text) <= width:
        return text
    out, used = [], 0
    for c in text:
        w = 2 if unicodedata.east_asian_width(c) in "WF" else 1
        if used + w > width - 1:
            break
        out.append(c)
        used += w
    return "".join(out) + "…"


def pad(text: str, width: int) -> str:
    return text + " " * max(width - cells(text), 0)


def table(rows: list[list[str]], headers: list[str], max_widths: list[int] | None = None) -> str:
    """A plain text table, columns padded; long cells shortened to ``max_widths``."""
    limits = max_widths or [60] * len(headers)
    shown = [[shorten(c, w) for c, w in zip(r, limits, strict=False)] for r in rows]
    widths = [len(h) for h in headers]
    for r in shown:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], cells(c))
    lines = ["  ".join(pad(h, widths[i]) for i, h in enumerate(headers)).rstrip()]
    for r in shown:
        lines.append("  ".join(pad(c, widths[i]) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)

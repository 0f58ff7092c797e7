"""Output helpers shared by the commands: JSON for scripts, plain text for people."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn


class UsageError(Exception):
    """Bad usage: the command exits 2 with this one-line reason."""


class CheckFailed(Exception):
    """A check failed: the command exits 1 with this message on stderr."""


def fail_usage(message: str) -> NoReturn:
    raise UsageError(message)


def emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False, sort_keys=False)
    sys.stdout.write("\n")


def err(message: str) -> None:
    print(message, file=sys.stderr)


def shorten(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def table(rows: list[list[str]], headers: list[str], max_widths: list[int] | None = None) -> str:
    """A plain text table, columns padded; long cells shortened to ``max_widths``."""
    limits = max_widths or [60] * len(headers)
    cells = [[shorten(c, w) for c, w in zip(r, limits, strict=False)] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    lines = ["  ".join(h.ljust(widths[i]) for i, h in enumerate(headers)).rstrip()]
    for r in cells:
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)

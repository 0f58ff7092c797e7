"""Output helpers shared by the commands: JSON for scripts, plain text for people."""

from __future__ import annotations

import io
import json
import math
import re
import sys
import unicodedata
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

from desktop.core.visible import one_line, visible

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalRecord
    from desktop.session.decisions import Decision


class UsageError(Exception):
    """Bad usage: the command exits 2 with this one-line reason."""


class CheckFailed(Exception):
    """A check failed: the command exits 1 with this message on stderr."""


def fail_usage(message: str) -> NoReturn:
    raise UsageError(message)


def json_bytes(obj: Any) -> bytes:
    """``obj`` as indented UTF-8 JSON, the text ``json.dumps(indent=2)`` writes.

    Always strict JSON: a non-finite number (YAML's ``.inf``) is written as ``null``.
    orjson writes it several times faster than the standard library; what orjson
    refuses (a lone surrogate from a server, an integer over 64 bits, a key that is not
    a string) goes through the standard library, non-ASCII escaped.
    """
    try:
        data = orjson.dumps(obj, option=orjson.OPT_INDENT_2)
    except TypeError:  # orjson.JSONEncodeError
        text = json.dumps(_finite(obj), indent=2, ensure_ascii=True, allow_nan=False, default=str)
        return text.encode("ascii")
    return _JSON_UNSAFE.sub(_json_escape, data) if _JSON_UNSAFE.search(data) else data


# What orjson writes as it is but a terminal or a reader of the JSON would be misled by,
# as UTF-8: C1 controls (U+0080-U+009F; U+009B starts an escape sequence on some
# terminals), the bidirectional formatting characters, line and paragraph separators,
# zero-width characters (U+200B-U+200D, U+2060-U+2064, U+FEFF) and tag characters
# (U+E0000-U+E007F). These only occur inside JSON strings, where their ``\u`` escape
# means the same character to any JSON reader.
_JSON_UNSAFE = re.compile(
    rb"\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]"
    rb"|\xef\xbb\xbf|\xf3\xa0[\x80\x81][\x80-\xbf]"
)


def _json_escape(match: re.Match[bytes]) -> bytes:
    code = ord(match.group().decode("utf-8"))
    if code > 0xFFFF:  # a tag character: its UTF-16 surrogate pair, as JSON writes it
        code -= 0x10000
        return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return b"\\u%04x" % code


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (as orjson writes it)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


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


_PARTIAL_CODE = re.compile(r"\\u[0-9a-f]{0,3}$")


def _cell(c: str) -> int:
    if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
        return 0  # combining marks and zero-width characters
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


def cells(text: str) -> int:
    """Terminal columns a string takes (East Asian wide characters take two, combining
    and zero-width characters none)."""
    if text.isascii():  # every ASCII character takes one column (measured: 10,000 rows
        return len(text)  # of `list` spent 0.3 s here, character by character)
    return sum(map(_cell, text))


def shorten(text: str, width: int) -> str:
    """One line of at most ``width`` terminal columns, as the terminal will show it:
    control characters are written as their codes first, then measured."""
    text = " ".join(visible(str(text)).split())
    if cells(text) <= width:
        return text
    out, used = [], 0
    for c in text:
        w = _cell(c)
        if used + w > width - 1:
            break
        out.append(c)
        used += w
    # Never half a code: "\u20…" would read as something else.
    return _PARTIAL_CODE.sub("", "".join(out)) + "…"


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


class VisibleText(io.TextIOBase):
    """A text stream writing what it is given through :func:`visible`.

    The commands print names, descriptions and messages written by third parties; every
    line of human output goes through this, so none of it can steer the terminal.
    JSON output (written to the binary buffer, control characters escaped by JSON
    itself) and ``show``'s bytes do not pass here.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return bool(self._inner.isatty())

    def fileno(self) -> int:
        return int(self._inner.fileno())

    @property
    def buffer(self) -> Any:
        return self._inner.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._inner, "encoding", "utf-8"))

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._inner, "errors", None)

    def writable(self) -> bool:
        return True


def say_notices(command: str, notices: list[str]) -> None:
    """What a store did beyond what was asked (an approvals index rebuilt), on stderr."""
    for notice in notices:
        err(f"skill-catalog {command}: {notice}")
    notices.clear()


def said_decision(command: str, done: Decision) -> ApprovalRecord | None:
    """Say on stderr what a decision did beyond what was asked, why nothing was stored,
    and why its verified copies were not kept; its record, or ``None`` when none was
    stored."""
    say_notices(command, list(done.notices))
    if done.record is None:
        err(f"skill-catalog {command}: {one_line(done.error)}")
        return None
    if done.copies:
        err(f"skill-catalog {command}: {done.copies}")
    return done.record

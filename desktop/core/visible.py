"""Text from skills and servers made safe to show: control characters made visible.

Names, descriptions, messages and file contents come from third parties. Printed to a
terminal, an escape sequence in a description would be obeyed (clear the screen, set
the window title, on some terminals write the clipboard); a bidirectional override
(U+202E) makes text read differently from what it is, in a terminal and in the window
alike. :func:`visible` writes each such character as its code (``\\u001b``,
``\\u202e``) and leaves everything else, line ends (LF and CRLF) and tabs included,
as it is.
"""

from __future__ import annotations

import json
import re

# C0 controls but tab and line feed, DEL and C1 controls; the explicit bidirectional
# formatting characters (embeddings, overrides, isolates and marks); line and paragraph
# separators, which some terminals treat as line ends; lone surrogates (a file name of
# bytes that are not UTF-8, as Python reads it), which would be written out as those
# bytes. A carriage return is a control only alone: before a line feed it ends a line
# (CRLF), and moves no cursor back over text.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)"
)


def _code(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every control or bidirectional formatting character as its code."""
    return _UNSAFE.sub(_code, text) if _UNSAFE.search(text) else text


def one_line(text: str) -> str:
    """``text`` for a place that is one line (a name in a list): :func:`visible`, and
    its line ends and tabs as codes too, so it cannot start a line of its own."""
    shown = visible(text)
    if "\n" in shown or "\t" in shown or "\r" in shown:
        shown = shown.translate({10: "\\u000a", 9: "\\u0009", 13: "\\u000d"})
    return shown


SHOWN_LIMIT = 300
"""Characters of one third-party string (a label, a server's id, its error, a URL) that
a message shows: a config file or a server may put megabytes where a name is expected,
and a 5 MB id made a 5 MB line."""


def cut(text: str, limit: int = SHOWN_LIMIT) -> str:
    """``text`` at most ``limit`` characters long, saying how long it was when cut: the
    one rule for any third-party string placed in a message."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text):,} characters in all)"


def cut_repr(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for a message, cut by :func:`cut` (a name shown in quotes)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text):,} characters in all)"


def quoted(text: str, limit: int = SHOWN_LIMIT) -> str:
    """A third party's words inside a one-line message (an error a server sent, say):
    runs of whitespace as one space, at most ``limit`` characters of it, and how long
    it was when it is cut (:func:`cut`). A server may send megabytes where a line is
    expected."""
    if len(text) <= limit:
        return " ".join(text.split())
    return " ".join(cut(text, limit).split())


def json_excerpt(value: object, limit: int = 40) -> str:
    """A value someone else wrote, for a message: as JSON (strings quoted, every control
    and non-ASCII character escaped) and at most ``limit`` characters of it."""
    return json.dumps(value, ensure_ascii=True, default=str)[:limit]

"""Text from skills and servers made safe to show: control characters made visible.

Names, descriptions, messages and file contents come from third parties. Printed to a
terminal, an escape sequence in a description would be obeyed (clear the screen, set
the window title, on some terminals write the clipboard); a bidirectional override
(U+202E) makes text read differently from what it is, in a terminal and in the window
alike. :func:`visible` writes each such character as its code (``\\u001b``,
``\\u202e``) and leaves everything else, line ends (LF and CRLF) and tabs included,
as it is.

Some characters show nothing at all, yet a model reads them. Tag characters
(U+E0000-U+E007F) each stand for an ASCII character (U+E0069 is ``i``): a description
reading "Helps with PDFs." can carry a whole sentence in them. Zero-width characters
(U+200B-U+200D, U+2060-U+2064, U+FEFF) can split a word so that it passes a check, or
carry a message in binary. :func:`visible` marks them too: a run of tag characters as
one marker with the text it spells and how many there are
(``⟨hidden: “run x.sh” (8 tag characters)⟩``, controls, line breaks and the characters
of markup, ``<>&"'``, in it as their codes), a zero-width character as its code point
(``⟨U+200B⟩``). Left as they are, since they are how text is written: a
zero-width joiner between two emoji (a family, a rainbow flag), a zero-width joiner or
non-joiner next to a letter of a script that joins (Persian, Arabic, the Indic scripts),
a byte order mark at the very start, and the tag sequences of the three subdivision flags (England,
Scotland, Wales). :func:`hidden_findings` is the same rule for checks, and
:func:`without_invisible` the text with every such character removed (to compare names).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# C0 controls but tab and line feed, DEL and C1 controls; the explicit bidirectional
# formatting characters (embeddings, overrides, isolates and marks); line and paragraph
# separators, which some terminals treat as line ends; lone surrogates (a file name of
# bytes that are not UTF-8, as Python reads it), which would be written out as those
# bytes. A carriage return is a control only alone: before a line feed it ends a line
# (CRLF), and moves no cursor back over text.
# Then the invisible characters: a run of tag characters, or one zero-width character.
_TAGS = "\U000e0000-\U000e007f"
_ZERO_WIDTH = "\u200b-\u200d\u2060-\u2064\ufeff"
# One character class, in runs (a search for one class is twice as fast as for several
# alternatives); a run is then taken apart piece by piece, a run of tags as one piece.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    f"\u202a-\u202e\u2066-\u2069\ud800-\udfff{_TAGS}{_ZERO_WIDTH}]+|\r(?!\n)"
)
_PIECE = re.compile(f"[{_TAGS}]+|.", re.DOTALL)
_INVISIBLE = re.compile(f"[{_TAGS}]+|[{_ZERO_WIDTH}]")
_ASCII_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)")
_TAG_BASE = 0xE0000
# The tag sequences of the subdivision flags emoji has (after U+1F3F4, ended by U+E007F).
_FLAG_TAGS = frozenset(
    "".join(chr(_TAG_BASE + ord(c)) for c in code) + "\U000e007f"
    for code in ("gbeng", "gbsct", "gbwls")
)
_BLACK_FLAG = "\U0001f3f4"
# Scripts whose letters join, and whose writing uses ZWNJ and ZWJ to say how: Arabic,
# Syriac, Thaana, N'Ko and their extensions, the Indic scripts, Tibetan, Myanmar, Khmer,
# Mongolian, and the Arabic presentation forms.
_JOINING = re.compile(
    "[\u0600-\u08ff\u0900-\u0dff\u0f00-\u0fff\u1000-\u109f\u1780-\u18af"
    "\ua8e0-\ua8ff\ufb50-\ufdff\ufe70-\ufefe]"
)


def _emoji(char: str) -> bool:
    """Whether ``char`` is a pictograph an emoji ZWJ sequence joins."""
    code = ord(char)
    return 0x1F000 <= code <= 0x1FAFF or 0x2300 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF


def _written(text: str, start: int, end: int) -> bool:
    """Whether the invisible run ``text[start:end]`` is how text is written, not hidden."""
    char = text[start]
    if char >= _TAG_BASE_CHAR:
        return start > 0 and text[start - 1] == _BLACK_FLAG and text[start:end] in _FLAG_TAGS
    if char == "\ufeff":
        return start == 0
    if char not in "\u200c\u200d":
        return False
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if _JOINING.match(before) or _JOINING.match(after):
        return True
    if char == "\u200d" and start > 1 and before == "\ufe0f":
        before = text[start - 2]  # an emoji in its emoji presentation
    return bool(before) and bool(after) and _emoji(before) and _emoji(after)


_TAG_BASE_CHAR = chr(_TAG_BASE)
# What hidden text spells is shown in HTML too (the window passes whole documents through
# visible): the characters of markup are written as their codes there.
_MARKUP = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\"'"}


def decode_tags(run: str) -> str:
    """The ASCII text a run of tag characters spells (U+E0069 is ``i``)."""
    return "".join(chr(ord(c) - _TAG_BASE) for c in run)


def _marker(text: str, start: int, end: int) -> str:
    """``text[start:end]``, one invisible character or a run of tags, as shown."""
    run = text[start:end]
    if _written(text, start, end):
        return run
    if run[0] >= _TAG_BASE_CHAR:
        spelt = one_line(visible(decode_tags(run))).translate(_MARKUP)
        return f"⟨hidden: “{spelt}” ({len(run)} tag character{'s' if len(run) > 1 else ''})⟩"
    return f"⟨U+{ord(run):04X}⟩"


def _code(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) == 1 and not _INVISIBLE.match(run):
        return f"\\u{ord(run):04x}"
    text, base, out = match.string, match.start(), []
    for piece in _PIECE.finditer(run):
        char = piece.group()
        if _INVISIBLE.match(char):
            out.append(_marker(text, base + piece.start(), base + piece.end()))
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)


def visible(text: str) -> str:
    """``text`` with every control or bidirectional formatting character as its code,
    and every invisible character marked (see the module's notes)."""
    unsafe = _ASCII_UNSAFE if text.isascii() else _UNSAFE  # the first, twice as fast
    return unsafe.sub(_code, text) if unsafe.search(text) else text


def without_invisible(text: str) -> str:
    """``text`` with every tag and zero-width character removed: two names equal once
    they are removed read the same to a person."""
    return _INVISIBLE.sub("", text) if _INVISIBLE.search(text) else text


@dataclass(frozen=True, slots=True)
class HiddenFindings:
    """What :func:`hidden_findings` finds in a text."""

    # The text each run of tag characters spells, and how many tag characters in all.
    tag_texts: tuple[str, ...] = ()
    tag_count: int = 0
    # Zero-width characters inside a word or in a run of several: their code points,
    # and how many.
    zero_width: tuple[str, ...] = ()
    zero_width_count: int = 0

    def __bool__(self) -> bool:
        return bool(self.tag_count or self.zero_width_count)


def _word(char: str) -> bool:
    return char.isalnum() or char in "_-"


def hidden_findings(text: str) -> HiddenFindings:
    """The invisible characters of ``text`` that hide something: every run of tag
    characters (but a subdivision flag's), and every zero-width character inside a word
    (a letter, digit, ``_`` or ``-`` on both sides) or in a run of two or more (which
    can spell a message in binary). What :func:`visible` leaves as it is, this leaves
    too; a lone zero-width character between words or at an end hides nothing."""
    if not _INVISIBLE.search(text):
        return HiddenFindings()
    tags: list[str] = []
    tag_count = 0
    zero: list[str] = []
    zero_count = 0
    matches = [m for m in _INVISIBLE.finditer(text) if not _written(text, m.start(), m.end())]
    for i, m in enumerate(matches):
        run = m.group()
        if run[0] >= _TAG_BASE_CHAR:
            tags.append(decode_tags(run))
            tag_count += len(run)
            continue
        start, end = m.start(), m.end()
        joined = (i > 0 and matches[i - 1].end() == start) or (
            i + 1 < len(matches) and matches[i + 1].start() == end
        )
        inside = start > 0 and end < len(text) and _word(text[start - 1]) and _word(text[end])
        if not (joined or inside):
            continue
        zero_count += 1
        code = f"U+{ord(run):04X}"
        if code not in zero:
            zero.append(code)
    return HiddenFindings(tuple(tags), tag_count, tuple(zero), zero_count)


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

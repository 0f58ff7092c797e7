"""A fast reader for the plain shape most frontmatter has, or ``None`` to let YAML decide.

Nearly every SKILL.md's frontmatter is a block mapping of simple keys whose values are
one-line scalars, one-line flow sequences, short block sequences and nested mappings
of the same. Building that from libyaml's event stream costs far more than reading the
file, so this module reads exactly that shape line by line and declines (returns
``None``) at the first thing outside it: block scalars, multi-line scalars, comments
after a value, escapes, anchors, tags, flow mappings, tabs, any character YAML treats
specially. A declined text goes to the full YAML path, so the fast reader never has to
be complete, only right: for every text it accepts, the result equals the YAML path's
(``tests/core/test_frontmatter_fast.py`` checks that over generated texts).

Plain scalars are resolved by the caller's ``resolve_plain``, the same rule the YAML
path uses, so a ``true``, ``0x1F`` or ``.inf`` means the same thing on both paths.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

DECLINE = object()  # returned by resolve_plain for a value the fast reader must not take

# One line: indent, then a "key:" with its value, a "- " item, a comment, or nothing.
# The value and the item take the rest of the line (greedy: a lazy match retried the
# end anchor at every character); their trailing spaces are stripped by the reader.
_LINE = re.compile(r"( *)(?:([A-Za-z][A-Za-z0-9_.-]*):(?: +(.*))?|- +(.*)|#.*|) *\Z")
_DOUBLE = re.compile(r'"([^"\\]*)"\Z')
_SINGLE = re.compile(r"'((?:[^']|'')*)'\Z")
# A plain scalar may not start with an indicator; inside a flow sequence it may not
# hold flow indicators, quotes or a colon either.
_INDICATOR_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_FORBIDDEN = re.compile(r"[\[\]{},:#'\"&*!|>%@`]")
_MISSING = object()  # not among the remembered plain scalars
_CACHE_LIMIT = 4096


class Reader:
    """The resolving rule for plain scalars, with the answers for repeated ones kept."""

    def __init__(self, resolve_plain: Callable[[str], Any], implicit_first: frozenset[str]):
        self.resolve_plain = resolve_plain
        self.implicit_first = implicit_first
        self.keys: set[str] = set()  # keys known to read as themselves
        self.plain: dict[str, Any] = {}  # plain scalars that YAML resolves to a non-string
        # Whether another reader may read a plain scalar otherwise (set by the module that
        # knows that reader); the texts known to, and whether this thread's current
        # reading met one (see :meth:`begin`, :attr:`met_other_reading`).
        self.differs: Callable[[str], bool] | None = None
        self.flagged: set[str] = set()
        self._seen = threading.local()

    def begin(self) -> None:
        """Start a reading in this thread (clears :attr:`met_other_reading`)."""
        self._seen.hit = False

    @property
    def met_other_reading(self) -> bool:
        """Whether the reading since :meth:`begin` met a scalar ``differs`` flags."""
        return bool(getattr(self._seen, "hit", False))

    def key_ok(self, key: str) -> bool:
        if key in self.keys:
            return True
        if key[0] in self.implicit_first:
            if self.resolve_plain(key) != key:
                return False  # a key YAML would read as a boolean, null or number
            if self.differs is not None and self.differs(key):
                self._seen.hit = True
                return True  # not kept: each reading must see it
        if len(self.keys) < _CACHE_LIMIT:
            self.keys.add(key)
        return True

    def value(self, text: str) -> Any:
        """One value on the line of its key or item, or DECLINE."""
        first = text[0]
        if first in _INDICATOR_START:
            if first == '"' or first == "'":
                return _quoted(text)
            if first == "[":
                return self.flow_sequence(text)
            return DECLINE
        if ": " in text or " #" in text or text[-1] == ":":
            return DECLINE
        if first not in self.implicit_first:
            return text
        return self.resolved(text)

    def resolved(self, text: str) -> Any:
        value = self.plain.get(text, _MISSING)
        if value is _MISSING:
            value = self.resolve_plain(text)
            other = self.differs is not None and self.differs(text)
            if other:
                self._seen.hit = True
            if len(self.plain) < _CACHE_LIMIT and len(text) < 64:
                self.plain[text] = value
                if other:
                    self.flagged.add(text)
        elif text in self.flagged:
            self._seen.hit = True
        return value

    def flow_sequence(self, text: str) -> Any:
        if text[-1] != "]":
            return DECLINE
        inner = text[1:-1].strip(" ")
        if not inner:
            return []
        out: list[Any] = []
        for part in inner.split(","):
            part = part.strip(" ")
            if not part:
                return DECLINE
            first = part[0]
            if first == '"' or first == "'":
                value = _quoted(part)
            elif first in "-?" or _FLOW_FORBIDDEN.search(part):
                return DECLINE
            elif first not in self.implicit_first:
                value = part
            else:
                value = self.resolved(part)
            if value is DECLINE:
                return DECLINE
            out.append(value)
        return out


def _quoted(text: str) -> Any:
    """A one-line quoted scalar without escapes, or DECLINE."""
    if text[0] == '"':
        quoted = _DOUBLE.match(text)
        return quoted.group(1) if quoted else DECLINE
    quoted = _SINGLE.match(text)
    return quoted.group(1).replace("''", "'") if quoted else DECLINE


def simple_mapping(
    text: str, reader: Reader, max_depth: int, max_nodes: int
) -> dict[str, Any] | None:
    """The mapping ``text`` holds, if it has the simple shape; otherwise ``None``."""
    if "\t" in text:
        return None
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    # Control characters, NBSP, line separators, BOMs: YAML decides.
    if not text.replace("\n", " ").isprintable():
        return None
    if text.startswith(("---", "...", "%")) or "\n---" in text or "\n..." in text or "\n%" in text:
        return None  # document markers and directives
    root: dict[str, Any] = {}
    # Open containers: (indent of their lines, container). The root's lines start at 0.
    stack: list[tuple[int, Any]] = [(0, root)]
    top: Any
    top_indent, top = 0, root
    pending: tuple[dict[str, Any], str, int] | None = None  # "key:" waiting for a block
    nodes = 1  # counted as the YAML path counts them: every scalar and collection
    match = _LINE.match
    value_of = reader.value
    for line in text.split("\n"):
        m = match(line)
        if m is None:
            return None
        spaces, key, rest, item = m.groups()
        if key is None and item is None:
            continue  # blank or comment
        if rest:
            rest = rest.rstrip(" ")
        elif item:
            item = item.rstrip(" ")
        indent = len(spaces)
        if pending is not None:
            parent, pending_key, key_indent = pending
            pending = None
            nodes += 1
            if item is not None and indent >= key_indent:
                opened: Any = []
            elif key is not None and indent > key_indent:
                opened = {}
            else:
                opened = None
            parent[pending_key] = opened
            if opened is not None:
                if len(stack) >= max_depth:
                    return None
                stack.append((indent, opened))
                top_indent, top = indent, opened
        if top_indent != indent or (item is None and type(top) is list):
            while stack[-1][0] > indent:
                stack.pop()
            top_indent, top = stack[-1]
            if item is None and type(top) is list:
                stack.pop()  # a block sequence at its key's indent ends at the next key
                top_indent, top = stack[-1]
            if top_indent != indent:
                return None  # a continuation line or an indentation YAML may read otherwise
        if item is not None:
            if type(top) is not list or not item:
                return None
            value = value_of(item)
            if value is DECLINE:
                return None
            nodes += 1 + (len(value) if type(value) is list else 0)
            top.append(value)
            continue
        if not reader.key_ok(key) or key in top:
            return None  # a key given twice: the full path says so
        if not rest:
            nodes += 1
            pending = (top, key, indent)
            continue
        value = value_of(rest)
        if value is DECLINE:
            return None
        nodes += 2 + (len(value) if type(value) is list else 0)
        if nodes > max_nodes:
            return None
        top[key] = value
    if pending is not None:
        parent, pending_key, _ = pending
        parent[pending_key] = None
        nodes += 1
    return root if nodes <= max_nodes else None

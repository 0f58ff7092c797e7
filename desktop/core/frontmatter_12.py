"""Frontmatter read as a YAML 1.2 reader reads it, and where that differs from YAML 1.1.

The catalog reads frontmatter with PyYAML, which follows YAML 1.1. Many publishers
and hosts read it as YAML 1.2 (core schema), and the two disagree on some plain
scalars: ``017`` is 15 in 1.1 and 17 in 1.2, ``yes`` and ``on`` are booleans in 1.1
and strings in 1.2, ``1:30`` is 90 in 1.1 and a string in 1.2, ``1.0e3`` is a string
in 1.1 and 1000.0 in 1.2. A quoted value is a string in both.

The second reading uses ruamel.yaml's YAML 1.2 parser and resolver, within the same
limits as the first (size, no anchors or aliases, depth, number of values; see
:mod:`desktop.core.frontmatter`). It is made only for a text holding a plain scalar
the two versions may read differently (:func:`may_differ`), so the plain frontmatter
most skills have costs nothing more; ruamel.yaml is loaded (:mod:`desktop.core.yaml12`)
only when a text holds such a scalar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from desktop.core import frontmatter
from desktop.core.frontmatter import read_with
from desktop.core.jsondiff import ABSENT, differences
from desktop.core.model import Problem

# How many differing values one skill reports (a hostile file may hold thousands).
MAX_REPORTED = 20

# A plain scalar (key or value) that YAML 1.1 and 1.2 may read differently: the 1.1
# booleans yes/no/on/off, numbers with a leading zero or an 0o prefix, base-60 numbers
# (1:30), exponents without a dot or a sign (1e3, 1.0e3), and "=". Anything else is read
# alike by both (tests/core/test_frontmatter_12.py checks that over generated texts).
# Deliberately generous: a match only means the second reading is made.
_CANDIDATE = re.compile(
    r"(?i:yes|no|on|off)"
    r"|[-+]?0[0-9_o][0-9a-fA-F_.:eEoxX+-]*"
    r"|[-+]?[0-9][0-9_]*(?::[0-9_]+)+(?:\.[0-9_]*)?"
    r"|[-+]?[0-9_.]*[0-9_.][0-9_.]*[eE][-+]?[0-9_]*"
    r"|="
)
_FLOW = re.compile(r"[,\[\]{}]")


def _scalars(line: str) -> list[str]:
    """The texts on one line that may each be a whole plain scalar: a key, a value, an
    item of a flow collection, the line's last word (generous: more is only slower)."""
    line = line.split(" #", 1)[0].strip()
    while line[:2] in ("- ", "? ", ": "):
        line = line[2:].lstrip()
    found = [line, line.rsplit(None, 1)[-1].rstrip(":")] if line else []
    key, sep, value = line.partition(": ")
    if sep:
        found += [key, value.strip()]
    elif line.endswith(":"):
        found.append(line[:-1])
    if "[" in line or "{" in line:
        for part in _FLOW.split(value if sep else line):
            k, _, v = part.partition(": ")
            found += [k.strip(), v.strip()]
    return found


# Text holding none of these holds no candidate at all (one search, most texts).
_ROUGH = re.compile(
    r"(?i:\b(?:yes|no|on|off)\b)|(?<![\w.-])[-+]?(?:[0-9.][0-9_.]*[eE]|0[0-9_o])|[0-9]:[0-9]|="
)


def may_differ(yaml_text: str) -> bool:
    """Whether ``yaml_text`` may hold a value YAML 1.1 and 1.2 read differently."""
    if _ROUGH.search(yaml_text) is None:
        return False
    fullmatch = _CANDIDATE.fullmatch
    return any(
        fullmatch(text)
        for line in yaml_text.splitlines()
        if line.strip()
        for text in _scalars(line)
    )


def _differs(text: str) -> bool:
    """Whether YAML 1.2 reads the plain scalar ``text`` otherwise than YAML 1.1 does
    (a text that is no candidate never is, so most values need no YAML 1.2 reader)."""
    if _CANDIDATE.fullmatch(text) is None:
        return False
    from desktop.core import yaml12

    return yaml12.differs(text)


# The YAML 1.1 fast reader flags, as it reads, each scalar YAML 1.2 reads otherwise.
frontmatter._FAST_READER.differs = _differs


def parse_frontmatter_text_12(yaml_text: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Frontmatter text as a YAML 1.2 reader reads it, within the same limits."""
    from desktop.core import yaml12

    return read_with(yaml_text, yaml12.FAST_READER, yaml12.YAML_12)


@dataclass(frozen=True, slots=True)
class VersionDifference:
    """One value YAML 1.1 and YAML 1.2 read differently (``path``: dotted, as in
    ``metadata.build``; a key one reading lacks has the value ``ABSENT`` there)."""

    path: str
    yaml11: Any
    yaml12: Any

    def describe(self) -> str:
        return f"{self.path!r} is {_shown(self.yaml11)} in YAML 1.1, {_shown(self.yaml12)} in 1.2"


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    from desktop.core.entry import short

    return short(value)


def second_reading(
    yaml_text: str, first: dict[str, Any], *, known: bool = False
) -> tuple[dict[str, Any] | None, list[VersionDifference]]:
    """The YAML 1.2 reading of a text whose YAML 1.1 reading is ``first``, when the two
    differ, with the values that differ; ``(None, [])`` when they agree or the text is
    no valid YAML 1.2 (a host reading it so refuses it whatever it says). ``known``:
    the first reading met a scalar the second reads otherwise (no need to look)."""
    if not known and not may_differ(yaml_text):
        return None, []
    reading, _problems = parse_frontmatter_text_12(yaml_text)
    if reading is None:
        return None, []
    found = differences(first, reading, limit=MAX_REPORTED + 1)
    if not found:
        return None, []
    return reading, [VersionDifference(path, a, b) for path, a, b in found]


def version_problems(found: list[VersionDifference]) -> list[Problem]:
    """A warning for each value YAML 1.1 and 1.2 read differently, saying to quote it."""
    problems = [
        Problem(
            "frontmatter-yaml-versions",
            f"YAML readers disagree on this value: {d.describe()}; "
            "put it in quotes (or write it so both read it alike) so every host reads the same",
            "warning",
        )
        for d in found[:MAX_REPORTED]
    ]
    if len(found) > MAX_REPORTED:
        problems.append(
            Problem(
                "frontmatter-yaml-versions",
                f"more values than these {MAX_REPORTED} are read differently by YAML 1.1 and 1.2",
                "warning",
            )
        )
    return problems

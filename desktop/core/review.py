"""A review's rules: what may be decided on the evidence read, and what changed in a file.

Pure: the window's review view and the command line ask these. A skill may be
approved once every file of its manifest was read and verified, or when the reviewer
chooses, explicitly, to approve files not read; one with error-level problems only
when the reviewer chooses to approve it despite them. :func:`text_diff` compares the
bytes an approval kept with the bytes listed now, line by line, within bounds: of
size, of lines shown and of time (:data:`DIFF_SECONDS`; past it, :class:`TooManyChanges`).
"""

from __future__ import annotations

import difflib
import hashlib
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from desktop.core.approvals import error_problems, unapprovable_reason
from desktop.core.model import Skill, SkillFile

# A diff shows at most this many lines, of files of at most this many bytes: a diff of
# two large files is quadratic in the worst case.
DIFF_MAX_LINES = 2000
DIFF_MAX_BYTES = 512 * 1024
# How long a line diff may take. Two files changed on every other line take time that
# grows with the square of their size (seconds for a few hundred KB): past this, they
# are said to hold too many changes to show line by line, and shown side by side.
DIFF_SECONDS = 2.0


class TooManyChanges(Exception):
    """A line diff that did not finish within its time: too many changes to show."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the line diff took more than {seconds:g} s")
        self.seconds = seconds


class _TimedMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher, stopped when its time is up: it looks for the longest match
    of a range once per step of its recursion, each step bounded by the range."""

    def __init__(self, a: list[str], b: list[str], seconds: float) -> None:
        self._seconds = seconds
        self._end = time.monotonic() + seconds
        super().__init__(None, a, b)

    def find_longest_match(self, *args: int) -> difflib.Match:  # type: ignore[override]
        if time.monotonic() > self._end:
            raise TooManyChanges(self._seconds)
        return super().find_longest_match(*args)


def _hunk_range(start: int, length: int) -> str:
    """A side of a unified diff's hunk header (``start,length``), as difflib writes it."""
    beginning = start + 1
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


@dataclass(frozen=True, slots=True)
class Gate:
    """Whether Approve may be pressed now, and if not, why (in plain words)."""

    allowed: bool
    why: str = ""


def unread_files(skill: Skill, verified: Iterable[str]) -> list[str]:
    """The manifest files of ``skill`` whose bytes were not read and verified."""
    done = set(verified)
    return sorted(f.uri for f in skill.files if f.uri not in done)


def approve_gate(
    skill: Skill,
    verified: Iterable[str],
    *,
    confirm_unread: bool = False,
    despite_problems: bool = False,
) -> Gate:
    """Whether ``skill`` may be approved with the files ``verified`` read and verified."""
    reason = unapprovable_reason(skill)
    if reason:
        return Gate(False, f"It cannot be approved: {reason}.")
    errors = error_problems(skill)
    if errors and not despite_problems:
        return Gate(
            False,
            f"It has {len(errors)} error{'s' if len(errors) != 1 else ''}: approve it "
            "despite its problems only if you mean to (that choice is recorded).",
        )
    unread = unread_files(skill, verified)
    if unread and not confirm_unread:
        n = len(skill.files)
        return Gate(
            False,
            f"{n - len(unread)} of {n} files read. Read every file, or choose to approve "
            "files you have not read (that choice is recorded).",
        )
    return Gate(True)


def verified_pairs(skill: Skill, read: Mapping[str, bytes]) -> list[tuple[SkillFile, bytes]]:
    """The files of ``skill`` whose bytes in ``read`` (by URI) hash to its manifest's
    digest and size: the reads an approval may say were made."""
    out = []
    for f in sorted(skill.files, key=lambda f: f.uri):
        data = read.get(f.uri)
        if (
            data is not None
            and len(data) == f.size
            and "sha256:" + hashlib.sha256(data).hexdigest() == f.digest
        ):
            out.append((f, data))
    return out


def is_binary(data: bytes) -> bool:
    """Bytes shown by size and digest rather than as text: a NUL, or not UTF-8."""
    if b"\0" in data[:8192]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a diff: ``kind`` is ``+`` added, ``-`` removed, `` `` kept, ``@`` a
    hunk header, ``!`` a note (the diff was cut short)."""

    kind: str
    text: str


def text_diff(
    old: bytes, new: bytes, *, context: int = 3, seconds: float | None = DIFF_SECONDS
) -> list[DiffLine]:
    """The line diff of two text files (unified, ``context`` lines around each change).

    Bounded: files over :data:`DIFF_MAX_BYTES` are compared on their first bytes, at
    most :data:`DIFF_MAX_LINES` lines are returned, each noted, and a diff taking more
    than ``seconds`` raises :class:`TooManyChanges` (``None``: no time bound). It takes
    seconds only for large files with many changes: run it off any event loop.
    """
    notes: list[DiffLine] = []
    if len(old) > DIFF_MAX_BYTES or len(new) > DIFF_MAX_BYTES:
        notes.append(DiffLine("!", f"only the first {DIFF_MAX_BYTES // 1024} KiB are compared"))
        old, new = old[:DIFF_MAX_BYTES], new[:DIFF_MAX_BYTES]
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    if seconds is None:
        matcher = difflib.SequenceMatcher(None, a, b)
    else:
        matcher = _TimedMatcher(a, b, seconds)
    out: list[DiffLine] = []
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old_range = _hunk_range(first[1], last[2] - first[1])
        new_range = _hunk_range(first[3], last[4] - first[3])
        out.append(DiffLine("@", f"@@ -{old_range} +{new_range} @@"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [DiffLine(" ", line) for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += [DiffLine("-", line) for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += [DiffLine("+", line) for line in b[j1:j2]]
        if len(out) >= DIFF_MAX_LINES:
            notes.append(DiffLine("!", f"the diff is cut at {DIFF_MAX_LINES} lines"))
            out = out[:DIFF_MAX_LINES]
            break
    return notes + out


def diff_counts(lines: Iterable[DiffLine]) -> tuple[int, int]:
    """(lines added, lines removed) of a diff."""
    added = removed = 0
    for line in lines:
        added += line.kind == "+"
        removed += line.kind == "-"
    return added, removed


def read_count(skill: Skill, states: Mapping[str, bool]) -> str:
    """``3 of 5 files read``: how much of the manifest was read and verified."""
    n = len(skill.files)
    done = sum(1 for f in skill.files if states.get(f.uri))
    return f"{done} of {n} file{'s' if n != 1 else ''} read"

"""A review's rules: what may be decided on the evidence read, and what changed in a file.

Pure: the window's review view and the command line ask these. A skill may be
approved once every file of its manifest was read and verified, or when the reviewer
chooses, explicitly, to approve files not read; one with error-level problems only
when the reviewer chooses to approve it despite them. :func:`text_diff` compares the
bytes an approval kept with the bytes listed now, line by line, within bounds.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from desktop.core.approvals import error_problems, unapprovable_reason
from desktop.core.model import Skill, SkillFile

# A diff shows at most this many lines, of files of at most this many bytes: a diff of
# two large files is quadratic in the worst case.
DIFF_MAX_LINES = 2000
DIFF_MAX_BYTES = 512 * 1024


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


def text_diff(old: bytes, new: bytes, *, context: int = 3) -> list[DiffLine]:
    """The line diff of two text files (unified, ``context`` lines around each change).

    Bounded: files over :data:`DIFF_MAX_BYTES` are compared on their first bytes, and
    at most :data:`DIFF_MAX_LINES` lines are returned, each noted.
    """
    notes: list[DiffLine] = []
    if len(old) > DIFF_MAX_BYTES or len(new) > DIFF_MAX_BYTES:
        notes.append(DiffLine("!", f"only the first {DIFF_MAX_BYTES // 1024} KiB are compared"))
        old, new = old[:DIFF_MAX_BYTES], new[:DIFF_MAX_BYTES]
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    out: list[DiffLine] = []
    for line in difflib.unified_diff(a, b, "approved", "now", n=context, lineterm=""):
        if line.startswith(("---", "+++")) and not out:
            continue
        if line.startswith("@@"):
            out.append(DiffLine("@", line))
        else:
            out.append(DiffLine(line[:1] or " ", line[1:]))
        if len(out) >= DIFF_MAX_LINES:
            notes.append(DiffLine("!", f"the diff is cut at {DIFF_MAX_LINES} lines"))
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

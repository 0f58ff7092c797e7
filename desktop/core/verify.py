"""Check fetched bytes against the held entry, and summarise per skill.

Pure functions: bytes and an entry in, a result out. The order is fixed: a file not
in the manifest is refused before anything else, then size, then the
SHA-256 of the raw bytes, then for ``SKILL.md`` the parsed frontmatter field by
field. A ``"dynamic"`` skill is never ``verified``: its bytes can only be
checked for frontmatter.

A ``verified`` state means "these bytes agree with this manifest", never "safe".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop.core.entry import short, skill_md_uri
from desktop.core.frontmatter import ParsedSkillMd
from desktop.core.jsondiff import ABSENT, differences
from desktop.core.manifest import format_size
from desktop.core.model import DYNAMIC as DYNAMIC
from desktop.core.model import INVALID as INVALID
from desktop.core.model import OVER_LIMIT as OVER_LIMIT
from desktop.core.model import Skill, SkillFile
from desktop.core.skill_md import parse_skill_md
from desktop.core.states import Verification
from desktop.core.words import count

VERIFIED = Verification.VERIFIED
SIZE_MISMATCH = Verification.SIZE_MISMATCH
DIGEST_MISMATCH = Verification.DIGEST_MISMATCH
FRONTMATTER_MISMATCH = Verification.FRONTMATTER_MISMATCH
UNLISTED_FILE = Verification.UNLISTED_FILE
READ_ERROR = Verification.READ_ERROR
# Some of a skill's files read and matching, the others not read yet.
PARTIAL = Verification.PARTIAL

STATES = (
    VERIFIED,
    SIZE_MISMATCH,
    DIGEST_MISMATCH,
    FRONTMATTER_MISMATCH,
    UNLISTED_FILE,
    DYNAMIC,
    INVALID,
    OVER_LIMIT,
    READ_ERROR,
)
# States whose bytes must be discarded (never shown, never cached).
MISMATCHES: frozenset[str] = frozenset(v for v in Verification if v.mismatch)


@dataclass(frozen=True, slots=True)
class Measured:
    digest: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "size": self.size}


@dataclass(frozen=True, slots=True)
class FileVerification:
    """The outcome of checking one file's bytes against the held entry."""

    uri: str
    state: str
    message: str
    expected: SkillFile | None = None
    actual: Measured | None = None
    field: str | None = None  # the first differing frontmatter field, for frontmatter-mismatch
    fields: tuple[str, ...] = ()  # every differing field named (at most MAX_NAMED_FIELDS)
    # Worth knowing about bytes that verified: fields read as YAML 1.2 reads them.
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.state == VERIFIED

    @property
    def usable(self) -> bool:
        """Whether the bytes may be shown at all (verified, or dynamic and marked so)."""
        return self.state in (VERIFIED, DYNAMIC)

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "state": self.state,
            "expected": (
                {"digest": self.expected.digest, "size": self.expected.size}
                if self.expected
                else None
            ),
            "actual": self.actual.to_json() if self.actual else None,
            **({"fields": list(self.fields)} if self.fields else {}),
            **({"notes": list(self.notes)} if self.notes else {}),
        }


@dataclass(slots=True)
class SkillVerification:
    """Every file of one skill, and the skill's overall state."""

    id: str
    state: str
    message: str
    files: list[FileVerification] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.state == VERIFIED

    @property
    def notes(self) -> list[str]:
        """What is worth knowing about files that verified (each file's notes)."""
        return [note for f in self.files for note in f.notes]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "state": self.state,
            "message": self.message,
            "files": [f.to_json() for f in self.files],
        }
        if self.notes:
            out["notes"] = self.notes
        return out


def measure(data: bytes) -> Measured:
    return Measured("sha256:" + hashlib.sha256(data).hexdigest(), len(data))


def check_listed(skill: Skill, uri: str) -> FileVerification | None:
    """Refuse a read before fetching: unlisted file, invalid or over-limit entry.

    Returns ``None`` when the file may be fetched.
    """
    if skill.state == INVALID:
        reasons = skill.invalid_reasons
        return FileVerification(
            uri, INVALID, f"the entry is invalid and cannot be loaded: {reasons}"
        )
    if skill.state == OVER_LIMIT:
        reasons = "; ".join(p.message for p in skill.problems if p.code.startswith("limit-"))
        return FileVerification(uri, OVER_LIMIT, f"the skill is declined: {reasons}")
    if skill.is_dynamic:
        return None
    if skill.file(uri) is None:
        return FileVerification(
            uri,
            UNLISTED_FILE,
            f"{uri} is not part of the skill you hold: it is not in the entry's "
            f"{len(skill.files)} listed files; refresh the entry with skills/get to see it",
        )
    return None


def verify_file(
    skill: Skill, uri: str, data: bytes, measured: Measured | None = None
) -> tuple[FileVerification, ParsedSkillMd | None]:
    """Check one file's raw bytes against the held entry.

    ``measured`` may be passed when the digest was computed elsewhere (a worker
    thread); it must be the digest and size of ``data``. Returns the verification
    and, for the skill's ``SKILL.md``, the parsed document (body for the preview).
    """
    refused = check_listed(skill, uri)
    if refused is not None:
        return refused, None
    actual = measured or measure(data)
    is_skill_md = uri == skill_md_uri(skill)
    if skill.is_dynamic:
        if is_skill_md:
            mismatch, parsed = compare_skill_md(skill, data)
            if mismatch is not None:
                return _fm_mismatch(uri, None, actual, mismatch), None
            return (
                FileVerification(
                    uri,
                    DYNAMIC,
                    "dynamic skill: the server publishes no digest, so these bytes are "
                    "unverified (frontmatter matches the entry)",
                    None,
                    actual,
                    notes=tuple(parsed.notes) if parsed is not None else (),
                ),
                parsed,
            )
        return (
            FileVerification(
                uri,
                DYNAMIC,
                "dynamic skill: the server publishes no digest, so these bytes are unverified",
                None,
                actual,
            ),
            None,
        )
    expected = skill.file(uri)
    assert expected is not None  # check_listed refused unlisted files
    if actual.size != expected.size:
        return (
            FileVerification(
                uri,
                SIZE_MISMATCH,
                f"{uri}: expected {_size(expected.size)}, received {_size(actual.size)}; "
                "the content was discarded",
                expected,
                actual,
            ),
            None,
        )
    if actual.digest != expected.digest:
        return (
            FileVerification(
                uri,
                DIGEST_MISMATCH,
                f"{uri}: expected digest {expected.digest}, received bytes hash to "
                f"{actual.digest}; the content was discarded",
                expected,
                actual,
            ),
            None,
        )
    parsed = None
    if is_skill_md:
        mismatch, parsed = compare_skill_md(skill, data)
        if mismatch is not None:
            return _fm_mismatch(uri, expected, actual, mismatch), None
    return (
        FileVerification(
            uri,
            VERIFIED,
            f"{uri}: {actual.size} bytes match the entry's size and digest"
            + (" and its frontmatter matches field by field" if is_skill_md else ""),
            expected,
            actual,
            notes=tuple(parsed.notes) if parsed is not None else (),
        ),
        parsed,
    )


def _fm_mismatch(
    uri: str, expected: SkillFile | None, actual: Measured, mismatch: FrontmatterMismatch
) -> FileVerification:
    return FileVerification(
        uri,
        FRONTMATTER_MISMATCH,
        f"{uri}: {mismatch.message}; the content was discarded",
        expected,
        actual,
        field=mismatch.fields[0],
        fields=mismatch.fields,
    )


@dataclass(frozen=True, slots=True)
class FrontmatterMismatch:
    """Every field where an entry's frontmatter is none of the SKILL.md's readings."""

    fields: tuple[str, ...]
    message: str


# How many differing fields one mismatch names (a hostile entry may differ in thousands).
MAX_NAMED_FIELDS = 20


def compare_skill_md(
    skill: Skill, data: bytes
) -> tuple[FrontmatterMismatch | None, ParsedSkillMd | None]:
    """Parse a fetched SKILL.md and compare its frontmatter with the entry's.

    Each top-level field of the entry must equal the field as a YAML 1.1 reader (PyYAML)
    or a YAML 1.2 reader (ruamel.yaml) reads the file: publishers read frontmatter by
    either. Returns (the mismatch or None, parsed document); a document whose fields
    agree only with the YAML 1.2 reading carries :attr:`ParsedSkillMd.notes` saying
    which, with both values.
    """
    parsed = parse_skill_md(data)
    if parsed.frontmatter is None:
        reason = "; ".join(p.message for p in parsed.problems) or "no frontmatter"
        return FrontmatterMismatch(
            ("(frontmatter)",),
            f"the fetched SKILL.md's frontmatter cannot be read: {reason}",
        ), None
    entry = skill.frontmatter or {}
    read_11 = parsed.frontmatter
    read_12 = parsed.frontmatter_12  # None: both readings agree
    unmatched: list[tuple[str, Any, Any, Any]] = []  # path, entry's, 1.1's, 1.2's value
    notes: list[str] = []
    for key in sorted(set(entry) | set(read_11) | set(read_12 or {})):
        mine = entry.get(key, ABSENT)
        as_11 = read_11.get(key, ABSENT)
        off_11 = differences(mine, as_11, key, limit=MAX_NAMED_FIELDS)
        if not off_11:
            continue
        if read_12 is None:
            unmatched.extend((path, exp, got, got) for path, exp, got in off_11)
        else:
            as_12 = read_12.get(key, ABSENT)
            off_12 = {path: got for path, _exp, got in differences(mine, as_12, key)}
            if not off_12:  # the field as a YAML 1.2 reader reads it
                notes.extend(
                    f"field {path!r} agrees with the entry as YAML 1.2 reads it: "
                    f"{_value(b)} (YAML 1.1 reads {_value(a)})"
                    for path, a, b in differences(as_11, as_12, key, limit=MAX_NAMED_FIELDS)
                )
                continue
            unmatched.extend((path, exp, got, off_12.get(path, exp)) for path, exp, got in off_11)
        if len(unmatched) > MAX_NAMED_FIELDS:
            break
    if unmatched:
        return _mismatch(unmatched), None
    parsed.notes = notes
    return None, parsed


def _mismatch(unmatched: list[tuple[str, Any, Any, Any]]) -> FrontmatterMismatch:
    shown = unmatched[:MAX_NAMED_FIELDS]
    fields = tuple(dict.fromkeys(path for path, *_ in shown))
    said = []
    for _path, exp, as_11, as_12 in shown:
        got = _value(as_11)
        if differences(as_11, as_12, limit=1):
            got = f"{got} (as YAML 1.1 reads it) or {_value(as_12)} (as YAML 1.2 does)"
        said.append(f"the entry has {_value(exp)}, the SKILL.md has {got}")
    if len(shown) == 1:
        return FrontmatterMismatch(fields, f"frontmatter field {fields[0]!r} differs: {said[0]}")
    more = "; and more fields differ" if len(unmatched) > MAX_NAMED_FIELDS else ""
    listed = "; ".join(f"{path!r}: {what}" for (path, *_), what in zip(shown, said, strict=True))
    return FrontmatterMismatch(fields, f"frontmatter: {len(fields)} fields differ: {listed}{more}")


def _value(value: Any) -> str:
    return "absent" if value is ABSENT else short(value)


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first field (dotted path) where two JSON values differ, or None (see
    :func:`desktop.core.jsondiff.differences`; an absent field is ``ABSENT``)."""
    found = differences(expected, actual, path, limit=1)
    return found[0] if found else None


def _size(n: int) -> str:
    """``12 bytes``; ``16,777,217 bytes (16.0 MiB)`` where the unit helps."""
    return count(n, "byte") + (f" ({format_size(n)})" if n >= 1024 else "")


def summarize(skill: Skill, files: list[FileVerification]) -> SkillVerification:
    """One skill's state from its files: verified only when every file verified."""
    sid = skill.id
    if skill.state == INVALID:
        reasons = skill.invalid_reasons
        return SkillVerification(sid, INVALID, f"the entry is invalid: {reasons}", files)
    if skill.state == OVER_LIMIT:
        reasons = "; ".join(p.message for p in skill.problems if p.code.startswith("limit-"))
        return SkillVerification(sid, OVER_LIMIT, f"declined: {reasons}", files)
    bad = [f for f in files if f.state not in (VERIFIED, DYNAMIC)]
    if bad:
        first = bad[0]
        more = f" (and {len(bad) - 1} more files)" if len(bad) > 1 else ""
        return SkillVerification(sid, first.state, first.message + more, files)
    if skill.is_dynamic:
        return SkillVerification(
            sid,
            DYNAMIC,
            f"dynamic skill: {len(files)} file(s) read,"
            " none can be verified (no digests published)",
            files,
        )
    if len(files) < len(skill.files):
        return SkillVerification(sid, READ_ERROR, "not every listed file was read", files)
    total = sum(f.expected.size for f in files if f.expected)
    return SkillVerification(
        sid,
        VERIFIED,
        f"{'all ' if len(files) > 1 else ''}{count(len(files), 'file')} "
        f"{'agree' if len(files) > 1 else 'agrees'} with the entry ({format_size(total)}); "
        "this says the bytes match the manifest, not that they are safe",
        files,
    )


# What a skill none of whose files has been read says of its checks.
NOT_READ = "not read yet"


def files_so_far(skill: Skill, seen: Mapping[str, FileVerification]) -> tuple[str, str]:
    """(state, short text) of the files of ``skill`` read so far, by URI: ``""`` when
    none was read; the first unusable file's state; ``dynamic`` for a skill without
    digests; ``verified`` once every listed file matched, ``partial`` before."""
    if not seen:
        return "", ""
    bad = [f for f in seen.values() if not f.usable]
    if bad:
        return bad[0].state, bad[0].state
    if skill.is_dynamic:
        return DYNAMIC, f"dynamic: {len(seen)} read, unverifiable"
    total = len(skill.files)
    ok = sum(1 for f in seen.values() if f.state == VERIFIED)
    return (VERIFIED if ok >= total else PARTIAL), f"{ok} of {total} files verified"

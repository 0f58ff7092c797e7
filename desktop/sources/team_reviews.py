"""A repository's review folder (``.skill-reviews/``): its signed records read and
verified, new ones written, and every skill of its agent folders (and of its install
lock, ``skill-catalog.lock.json``) judged by them.

Nothing here touches the keyring or the network: ``audit`` runs in CI. The skills
are the ones in the repository's agent skill folders (``.agents/skills``,
``.claude/skills``, ``.github/skills``), scanned as a folder source scans them. A
record is counted only when it parses, its signature verifies with ``ssh-keygen``
against ``allowed_signers`` as the reviewer it names, and it agrees with itself and
with where it is filed; every other record is reported with why.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.install import LOCK_FILE, InstallError, parse_lock
from desktop.core.model import Skill, SourceSpec
from desktop.core.review_record import (
    ALLOWED_SIGNERS,
    MAX_RECORD_BYTES,
    MAX_SIGNERS_BYTES,
    NAMESPACE,
    POLICY_FILE,
    RECORD_SUFFIX,
    REVIEWS_DIR,
    AllowedSigner,
    Judgement,
    Policy,
    RecordError,
    Review,
    ReviewStatement,
    check_statement,
    judge,
    parse_allowed_signers,
    parse_envelope,
    parse_policy,
    principals_for,
    record_path,
    safe_name,
    set_digest,
    signature_info,
    skill_files,
)
from desktop.core.states import SourceState, TeamReview
from desktop.sources.config.known_folders import PROJECT_KINDS
from desktop.sources.folder import scan_folder
from desktop.store.review_signing import ToVerify, verify_many

MAX_RECORDS = 100_000  # records read from one review folder


@dataclass(frozen=True, slots=True)
class Trust:
    """Who may review (``allowed_signers``) and the policy, or why they cannot be used."""

    signers_file: Path
    signers: tuple[AllowedSigner, ...] = ()
    policy: Policy = Policy()
    problems: tuple[str, ...] = ()


def read_trust(folder: Path) -> Trust:
    """The review folder's ``allowed_signers`` and ``policy.json`` (missing: nobody may
    review; the default policy: one approval, anyone allowed may reject)."""
    reviews = folder / REVIEWS_DIR
    signers_file = reviews / ALLOWED_SIGNERS
    problems: list[str] = []
    signers: list[AllowedSigner] = []
    try:
        data = _read_bounded(signers_file, MAX_SIGNERS_BYTES)
        signers = parse_allowed_signers(data.decode("utf-8", "replace"))
    except FileNotFoundError:
        problems.append(f"{REVIEWS_DIR}/{ALLOWED_SIGNERS} does not exist: nobody may review")
    except (OSError, RecordError) as exc:
        problems.append(f"{REVIEWS_DIR}/{ALLOWED_SIGNERS} cannot be read: {_why(exc)}")
    policy = Policy()
    try:
        policy = parse_policy(_read_bounded(reviews / POLICY_FILE, MAX_SIGNERS_BYTES).decode())
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError, RecordError) as exc:
        problems.append(
            f"{REVIEWS_DIR}/{POLICY_FILE} cannot be used ({_why(exc)}): one approval is required"
        )
    return Trust(signers_file, tuple(signers), policy, tuple(problems))


def _read_bounded(path: Path, limit: int) -> bytes:
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise RecordError(f"it is larger than {limit // 1024} KiB")
    return data


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


# --- records -----------------------------------------------------------------------------


def record_files(folder: Path) -> list[tuple[str, Path]]:
    """(the folder a record is filed under, its path) for every record file, sorted."""
    root = folder / REVIEWS_DIR
    out: list[tuple[str, Path]] = []
    try:
        groups = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return out
    for group in groups:
        try:
            names = sorted(os.listdir(group))
        except OSError:
            continue
        for name in names:
            if name.endswith(RECORD_SUFFIX) and len(out) < MAX_RECORDS:
                out.append((group.name, group / name))
    return out


@dataclass(slots=True)
class _Pending:
    filed_under: str
    file: str
    review: Review
    check: ToVerify | None = None


def read_reviews(folder: Path, trust: Trust, only: str | None = None) -> dict[str, list[Review]]:
    """Every record of ``folder``'s review folder (``only``: those filed under that
    name), verified and judged on its own, by the folder it is filed under (a skill's
    safe name)."""
    pending: list[_Pending] = []
    for filed_under, path in record_files(folder):
        if only is not None and filed_under != only:
            continue
        rel = path.relative_to(folder).as_posix()
        pending.append(_read_one(filed_under, path, rel, trust))
    checks = [p for p in pending if p.check is not None]
    results = verify_many(trust.signers_file, [p.check for p in checks if p.check is not None])
    for item, why in zip(checks, results, strict=True):
        if why:
            r = item.review
            item.review = Review(r.file, r.signer, r.decision, r.time, False, why, None)
    out: dict[str, list[Review]] = {}
    for item in pending:
        out.setdefault(item.filed_under, []).append(item.review)
    return out


def _read_one(filed_under: str, path: Path, rel: str, trust: Trust) -> _Pending:
    def bad(why: str, signer: str = "", st: ReviewStatement | None = None) -> _Pending:
        decision, time = (st.decision, st.time) if st else ("", "")
        return _Pending(filed_under, rel, Review(rel, signer, decision, time, False, why))

    if path.is_symlink():
        return bad("it is a link, not a record")
    try:
        envelope = parse_envelope(_read_bounded(path, MAX_RECORD_BYTES))
        info = signature_info(envelope.sig)
        statement = ReviewStatement.from_payload(envelope.payload)
    except OSError as exc:
        return bad(f"it cannot be read: {_why(exc)}")
    except RecordError as exc:
        return bad(str(exc))
    signer = statement.reviewer
    if info.namespace != NAMESPACE:
        return bad(f"it is signed for {info.namespace!r}, not for skill reviews", signer, statement)
    allowed = principals_for(info.key, trust.signers)
    if not allowed:
        return bad(
            f"its signer ({info.fingerprint}) is not in {ALLOWED_SIGNERS}", signer, statement
        )
    if not any(s.allows(signer) for s in trust.signers if s.key == info.key):
        return bad(
            f"it names {signer} but is signed by the key of {', '.join(allowed)}",
            signer,
            statement,
        )
    try:
        check_statement(statement, filed_under, path.name, info.fingerprint)
    except RecordError as exc:
        return bad(str(exc), signer, statement)
    review = Review(
        rel, signer, statement.decision, statement.time, True, "", statement, info.fingerprint
    )
    return _Pending(filed_under, rel, review, ToVerify(signer, envelope.sig, envelope.signed_bytes))


def write_record(folder: Path, statement: ReviewStatement, keyid: str, text: str) -> Path:
    """Write a record's ``text`` where it goes below ``folder``'s review folder, whole or
    not at all (a temporary file renamed into place); its path."""
    target = folder / REVIEWS_DIR / record_path(statement.name, statement.digest, keyid)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".record-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


# --- the audit ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditedSkill:
    name: str
    path: str  # the skill's folder, relative to the repository
    digest: str
    judgement: Judgement

    @property
    def state(self) -> TeamReview:
        return self.judgement.state

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "digest": "sha256:" + self.digest,
            "state": str(self.state),
            "approvals": self.judgement.approvals,
            "reviews": [r.to_json() for r in self.judgement.reviews],
        }
        if self.judgement.changed:
            out["changed"] = [{"path": p, "change": c} for p, c in self.judgement.changed]
        return out


@dataclass(frozen=True, slots=True)
class Audit:
    skills: tuple[AuditedSkill, ...]
    unattached: tuple[Review, ...] = ()  # records filed under no skill found
    problems: tuple[str, ...] = ()  # the trust files, folders that could not be read
    policy: Policy = field(default_factory=Policy)

    @property
    def passes(self) -> bool:
        return all(s.state.passes for s in self.skills)

    def to_json(self) -> dict[str, Any]:
        return {
            "passes": self.passes,
            "require": self.policy.require,
            "skills": [s.to_json() for s in self.skills],
            "unattached": [r.to_json() for r in self.unattached],
            "problems": list(self.problems),
        }


def repository_skills(folder: Path) -> tuple[list[Skill], list[str]]:
    """The skills in ``folder``'s agent skill folders, and what could not be read."""
    skills: list[Skill] = []
    problems: list[str] = []
    for kind in PROJECT_KINDS:
        where = folder / kind.relpath
        if not where.is_dir():
            continue
        spec = SourceSpec(f"{kind.family}-project", "local", "folder", str(where.resolve()))
        status, found = scan_folder(spec)
        if status.state is SourceState.FAILED:
            problems.append(f"{kind.relpath}: {status.message}")
        skills.extend(found)
    return skills, problems


def locked_skills(folder: Path) -> tuple[list[tuple[str, str, tuple[tuple[str, str], ...]]], str]:
    """(name, path, files) of every skill the project's install lock records, and why
    the lock cannot be read ('' when it can, or there is none)."""
    path = folder / LOCK_FILE
    try:
        entries = parse_lock(_read_bounded(path, MAX_SIGNERS_BYTES * 16).decode("utf-8"))
    except FileNotFoundError:
        return [], ""
    except (OSError, UnicodeDecodeError, RecordError, InstallError, RecursionError) as exc:
        return [], f"{LOCK_FILE} cannot be read: {_why(exc)}"
    out = []
    for entry in entries:
        files = tuple(sorted((f.path, f.sha256) for f in entry.files))
        out.append((entry.name, f"{entry.folder}/{entry.name}", files))
    return out, ""


def audit(folder: Path, require: int | None = None) -> Audit:
    """Every skill of ``folder``'s agent folders and of its install lock (those not
    found on disk: moved aside, or installed into another folder) judged by its
    review records."""
    trust = read_trust(folder)
    policy = trust.policy if require is None else Policy(require, trust.policy.may_reject)
    skills, problems = repository_skills(folder)
    locked, lock_problem = locked_skills(folder)
    if lock_problem:
        problems.append(lock_problem)
    reviews = read_reviews(folder, trust)
    items: list[tuple[str, str, tuple[tuple[str, str], ...], str]] = []
    for skill in sorted(skills, key=lambda s: s.path or s.uri):
        why = "" if skill.files else skill.invalid_reasons or "it lists no files"
        items.append((_name_of(skill), _relative(skill, folder), skill_files(skill), why))
    on_disk = {item[1] for item in items}
    items += [(name, where, files, "") for name, where, files in locked if where not in on_disk]
    out: list[AuditedSkill] = []
    used: set[str] = set()
    for name, where, files, why in items:
        filed = safe_name(name)
        used.add(filed)
        if why:
            review = Review(where, valid=False, why=f"the skill cannot be reviewed: {why}")
            judgement = Judgement(TeamReview.UNREVIEWED, reviews=(review,))
            out.append(AuditedSkill(name, where, "", judgement))
            continue
        judgement = judge(files, reviews.get(filed, []), policy)
        out.append(AuditedSkill(name, where, set_digest(files), judgement))
    unattached = tuple(r for k, rs in sorted(reviews.items()) if k not in used for r in rs)
    return Audit(tuple(out), unattached, (*trust.problems, *problems), policy)


def _name_of(skill: Skill) -> str:
    return skill.name or Path(skill.path or skill.uri).parent.name


def _relative(skill: Skill, folder: Path) -> str:
    where = Path(skill.path) if skill.path else Path(skill.origin.endpoint) / skill.uri
    if where.name == "SKILL.md":
        where = where.parent
    try:
        return where.resolve().relative_to(folder.resolve()).as_posix()
    except (ValueError, OSError):
        return where.as_posix()


def judged_sorted(skills: Sequence[AuditedSkill]) -> list[AuditedSkill]:
    """The skills as a report lists them: what fails the audit first."""
    return sorted(skills, key=lambda s: (s.state.rank, s.path))


def team_rejection(folder: Path, name: str, files: Sequence[tuple[str, str]]) -> str:
    """Why the skill ``name`` with ``files`` may not go into the repository ``folder``:
    an allowed reviewer rejected exactly these bytes in its review records ('' when
    none did, or it has no review folder)."""
    if not (folder / REVIEWS_DIR).is_dir():
        return ""
    trust = read_trust(folder)
    filed = safe_name(name)
    judgement = judge(files, read_reviews(folder, trust, filed).get(filed, []), trust.policy)
    if judgement.state is not TeamReview.REJECTED:
        return ""
    first = judgement.reviews[0]  # counted rejections come first
    reason = first.statement.reason if first.statement is not None else ""
    return (
        f"{first.signer} rejected these files for the team (a signed review in "
        f"{REVIEWS_DIR}/)" + (f": {reason}" if reason else "")
    )

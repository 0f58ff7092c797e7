"""Signed review records: a person's decision on a skill's exact bytes, kept in the
repository for the whole team, and how a set of them is judged.

Pure: no processes, no files, no clock. Signing and verifying with ``ssh-keygen`` is
:mod:`desktop.store.review_signing`; reading a repository's records is
:mod:`desktop.sources.team_reviews`.

- **The digest** of a skill is the Agent Skills discovery digest of its whole file set:
  SHA-256 over the lines ``path NUL sha256hex LF``, one per file, sorted by their
  bytes (:func:`set_digest`). The same bytes have the same digest wherever they came
  from: a folder, a git commit, an index or an MCP server.
- **A record** is a DSSE envelope (``payloadType`` ``application/vnd.in-toto+json``)
  holding an in-toto Statement v1: its subject is the skill (name and digest), its
  predicate (:data:`PREDICATE_TYPE`) the decision, the grants, whether every file was
  read, a rejection's reason, the reviewer, the time, the source and provenance the
  reviewer saw, and every file's path and digest. Its one signature is an SSH signature
  (namespace :data:`NAMESPACE`) over the DSSE pre-authentication encoding (:func:`pae`).
- **One file per skill digest and signing key** (:func:`record_path`), formatted the
  same way every time (:func:`envelope_text`), so two branches that add records merge
  without conflicts.
- **Trust** is the repository's: ``allowed_signers`` in OpenSSH's format names who may
  review (:func:`parse_allowed_signers`), ``policy.json`` how many approvals are needed
  and who may reject (:func:`parse_policy`). :func:`judge` gives a skill's
  :class:`~desktop.core.states.TeamReview` state from the reviews that verified.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import hashlib
import json
import re
import shlex
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.manifest import MAX_FILES
from desktop.core.model import Skill
from desktop.core.states import TeamReview

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://skill-catalog.dev/attestation/skill-review/v1"
NAMESPACE = "skill-review"  # the ssh-keygen -Y namespace of every review signature
REVIEWS_DIR = ".skill-reviews"
ALLOWED_SIGNERS = "allowed_signers"
POLICY_FILE = "policy.json"
RECORD_SUFFIX = ".dsse.json"
MAX_RECORD_BYTES = 512 * 1024  # a record with every file of a skill at its limit fits
MAX_SIGNERS_BYTES = 1024 * 1024
REASON_LIMIT = 2000
DECISIONS = ("approved", "rejected")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SAFE = re.compile(r"[^a-z0-9._-]+")


class RecordError(Exception):
    """A record, a trust file or a policy that cannot be used, and why in plain words."""


# --- the digest --------------------------------------------------------------------------


def set_digest(files: Iterable[tuple[str, str]]) -> str:
    """The hex SHA-256 over the sorted lines ``path\\0sha256hex\\n`` of ``files``."""
    lines = sorted(f"{path}\0{hexdigest}\n".encode() for path, hexdigest in files)
    return hashlib.sha256(b"".join(lines)).hexdigest()


def skill_files(skill: Skill) -> tuple[tuple[str, str], ...]:
    """Each file of ``skill`` as (path relative to the skill's folder, sha256 hex),
    sorted: a local skill's URIs are those paths already; a server skill's are taken
    below the folder of its ``SKILL.md``."""
    base = skill.uri.rsplit("/", 1)[0] + "/" if "/" in skill.uri else ""
    local = skill.kind_info.folder_on_disk
    out = []
    for f in skill.files:
        path = f.uri if local or not f.uri.startswith(base) else f.uri[len(base) :]
        out.append((path, f.digest.removeprefix("sha256:")))
    return tuple(sorted(out))


def changed_files(
    before: Sequence[tuple[str, str]], now: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """(path, what happened: ``added``, ``removed``, ``changed``) between two file sets."""
    old, new = dict(before), dict(now)
    out = [(p, "changed") for p in new if p in old and old[p] != new[p]]
    out += [(p, "added") for p in new if p not in old]
    out += [(p, "removed") for p in old if p not in new]
    return sorted(out)


# --- DSSE --------------------------------------------------------------------------------


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body)
    SP body``, lengths in bytes as decimal ASCII: what a signature covers."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def envelope_text(payload: bytes, keyid: str, sig: str) -> str:
    """The envelope as its file holds it: keys sorted, two-space indent, one final LF."""
    envelope = {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": PAYLOAD_TYPE,
        "signatures": [{"keyid": keyid, "sig": sig}],
    }
    return json.dumps(envelope, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


@dataclass(frozen=True, slots=True)
class Envelope:
    """A record's envelope read: its payload's bytes and its one signature."""

    payload: bytes
    keyid: str
    sig: str

    @property
    def signed_bytes(self) -> bytes:
        return pae(PAYLOAD_TYPE, self.payload)


def parse_envelope(data: bytes) -> Envelope:
    """The envelope in ``data``; raises :class:`RecordError` saying why it is not one."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"it is larger than {MAX_RECORD_BYTES // 1024} KiB")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RecordError(f"it is not JSON ({_first_line(exc)}): truncated or damaged") from exc
    if not isinstance(obj, dict):
        raise RecordError("it is not a DSSE envelope (not a JSON object)")
    if obj.get("payloadType") != PAYLOAD_TYPE:
        raise RecordError(f"its payloadType is not {PAYLOAD_TYPE}")
    payload, sigs = obj.get("payload"), obj.get("signatures")
    if not isinstance(payload, str):
        raise RecordError("it has no payload")
    try:
        raw = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RecordError("its payload is not base64") from exc
    if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], dict):
        raise RecordError("it does not hold exactly one signature")
    keyid, sig = sigs[0].get("keyid", ""), sigs[0].get("sig")
    if not isinstance(sig, str) or not isinstance(keyid, str):
        raise RecordError("its signature is not text")
    return Envelope(raw, keyid, sig)


# --- SSH signatures and keys -------------------------------------------------------------

_ARMOR = re.compile(
    r"\A\s*-----BEGIN SSH SIGNATURE-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END SSH SIGNATURE-----\s*\Z"
)


def _ssh_string(blob: bytes, at: int) -> tuple[bytes, int]:
    if at + 4 > len(blob):
        raise RecordError("its signature is cut short")
    (n,) = struct.unpack(">I", blob[at : at + 4])
    if at + 4 + n > len(blob):
        raise RecordError("its signature is cut short")
    return blob[at + 4 : at + 4 + n], at + 4 + n


@dataclass(frozen=True, slots=True)
class SignatureInfo:
    """What an SSH signature says of itself, before it is verified."""

    key_type: str
    key: str  # the public key blob, base64, as allowed_signers writes it
    namespace: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def signature_info(armored: str) -> SignatureInfo:
    """The key and namespace an armored SSH signature (``SSHSIG``) names; raises
    :class:`RecordError` when it is not one. Says nothing of whether it verifies."""
    m = _ARMOR.match(armored)
    if m is None:
        raise RecordError("its signature is not an SSH signature")
    try:
        blob = base64.b64decode("".join(m.group(1).split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RecordError("its signature is not base64") from exc
    if not blob.startswith(b"SSHSIG") or len(blob) < 10:
        raise RecordError("its signature is not an SSH signature")
    key, at = _ssh_string(blob, 10)
    namespace, at = _ssh_string(blob, at)
    key_type, _ = _ssh_string(key, 0)
    return SignatureInfo(
        key_type.decode("ascii", "replace"),
        base64.b64encode(key).decode("ascii"),
        namespace.decode("utf-8", "replace"),
    )


def fingerprint(key_b64: str) -> str:
    """OpenSSH's ``SHA256:`` fingerprint of a public key blob given in base64."""
    try:
        blob = base64.b64decode(key_b64, validate=True)
    except (binascii.Error, ValueError):
        blob = key_b64.encode()
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def public_key_text(text: str) -> tuple[str, str]:
    """(key type, base64 blob) of a public key line (``ssh-ed25519 AAAA… comment``,
    or git's ``key::ssh-ed25519 AAAA…``); raises :class:`RecordError` when none."""
    parts = text.strip().removeprefix("key::").split()
    if len(parts) < 2 or not _is_key_type(parts[0]):
        raise RecordError("it is not an SSH public key")
    return parts[0], parts[1]


def _is_key_type(word: str) -> bool:
    return word.startswith(("ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-"))


@dataclass(frozen=True, slots=True)
class AllowedSigner:
    """One line of ``allowed_signers``: who (principal patterns) holds which key."""

    principals: tuple[str, ...]
    key_type: str
    key: str

    def allows(self, principal: str) -> bool:
        return any(fnmatch.fnmatchcase(principal, p) for p in self.principals)


def parse_allowed_signers(text: str) -> list[AllowedSigner]:
    """The lines of an ``allowed_signers`` file (comments and blank lines skipped);
    ``ssh-keygen`` reads the same file again for each verification, options included."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            words = shlex.split(line, posix=True)
        except ValueError:
            continue
        for i, word in enumerate(words[1:-1], start=1):
            if _is_key_type(word):
                principals = tuple(p for p in words[0].split(",") if p)
                out.append(AllowedSigner(principals, word, words[i + 1]))
                break
    return out


def principals_for(key: str, signers: Iterable[AllowedSigner]) -> tuple[str, ...]:
    """The principal patterns ``allowed_signers`` gives the key ``key`` (base64)."""
    return tuple(p for s in signers if s.key == key for p in s.principals)


# --- the statement -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReviewStatement:
    """The in-toto Statement a record signs: a decision on a skill's exact files."""

    name: str
    files: tuple[tuple[str, str], ...]  # (path, sha256 hex), sorted
    decision: str  # "approved" or "rejected"
    reviewer: str
    time: str
    tools: tuple[str, ...] = ()
    scripts: bool = False
    all_files_read: bool = False
    reason: str = ""
    source: Mapping[str, str] = field(default_factory=dict)
    provenance: Mapping[str, str] = field(default_factory=dict)
    digest: str = ""  # the subject's digest; set_digest(files) when made here

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", set_digest(self.files))

    @property
    def approves(self) -> bool:
        return self.decision == "approved"

    def to_json(self) -> dict[str, Any]:
        return {
            "_type": STATEMENT_TYPE,
            "subject": [{"name": self.name, "digest": {"sha256": self.digest}}],
            "predicateType": PREDICATE_TYPE,
            "predicate": {
                "decision": self.decision,
                "grants": {"tools": list(self.tools), "scripts": self.scripts},
                "all_files_read": self.all_files_read,
                "reason": self.reason,
                "reviewer": self.reviewer,
                "time": self.time,
                "source": dict(self.source),
                "provenance": dict(self.provenance),
                "files": [{"path": p, "sha256": d} for p, d in self.files],
            },
        }

    def payload(self) -> bytes:
        """The statement's bytes: compact JSON, keys sorted (what is signed)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return text.encode("utf-8")

    @classmethod
    def from_payload(cls, payload: bytes) -> ReviewStatement:
        """The statement in ``payload``; raises :class:`RecordError` saying what is wrong.
        The subject's digest is kept as written: :func:`check_statement` compares it."""
        try:
            obj = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise RecordError("its payload is not JSON") from exc
        if not isinstance(obj, dict) or obj.get("_type") != STATEMENT_TYPE:
            raise RecordError("its payload is not an in-toto Statement v1")
        if obj.get("predicateType") != PREDICATE_TYPE:
            raise RecordError("its predicate is not a skill review")
        subject, pred = obj.get("subject"), obj.get("predicate")
        if not isinstance(subject, list) or len(subject) != 1 or not isinstance(subject[0], dict):
            raise RecordError("it does not name exactly one subject")
        name, digest = subject[0].get("name"), subject[0].get("digest")
        if not isinstance(name, str) or not isinstance(digest, dict):
            raise RecordError("its subject has no name or digest")
        sha = digest.get("sha256")
        if not isinstance(sha, str) or not _HEX64.fullmatch(sha):
            raise RecordError("its subject has no sha256 digest")
        if not isinstance(pred, dict):
            raise RecordError("it has no predicate")
        return cls(name=name, digest=sha, **_predicate(pred))


def _predicate(pred: dict[str, Any]) -> dict[str, Any]:
    decision = pred.get("decision")
    if decision not in DECISIONS:
        raise RecordError("its decision is neither approved nor rejected")
    grants = pred.get("grants") or {}
    tools = grants.get("tools", []) if isinstance(grants, dict) else None
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise RecordError("its grants are not a list of tools")
    files = pred.get("files")
    if not isinstance(files, list) or not files or len(files) > MAX_FILES:
        raise RecordError("its list of files is missing or too long")
    pairs = []
    for f in files:
        path = f.get("path") if isinstance(f, dict) else None
        sha = f.get("sha256") if isinstance(f, dict) else None
        if not isinstance(path, str) or not isinstance(sha, str) or not _HEX64.fullmatch(sha):
            raise RecordError("a file in its list has no path or sha256 digest")
        pairs.append((path, sha))
    texts = {}
    for name in ("reviewer", "time", "reason"):
        value = pred.get(name, "")
        if not isinstance(value, str):
            raise RecordError(f"its {name} is not text")
        texts[name] = value
    if not texts["reviewer"]:
        raise RecordError("it names no reviewer")
    maps = {}
    for name in ("source", "provenance"):
        value = pred.get(name) or {}
        maps[name] = {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
    return {
        "files": tuple(sorted(pairs)),
        "decision": decision,
        "tools": tuple(tools),
        "scripts": grants.get("scripts") is True if isinstance(grants, dict) else False,
        "all_files_read": pred.get("all_files_read") is True,
        **texts,
        **maps,
    }


_NOT_ONE_PRINCIPAL = re.compile(r"[\s,*?!]")


def check_statement(
    statement: ReviewStatement, filed_under: str, file_name: str, fingerprint: str = ""
) -> None:
    """Raise :class:`RecordError` when a signed statement contradicts itself or where
    it is filed: its subject names other bytes than its files, or another skill, its
    file is not the one of its digest and signing key (``fingerprint``), or its
    reviewer is a pattern rather than one principal."""
    if _NOT_ONE_PRINCIPAL.search(statement.reviewer) or len(statement.reviewer) > 320:
        raise RecordError("its reviewer is not one principal (a pattern, a list, too long)")
    if set_digest(statement.files) != statement.digest:
        raise RecordError("its subject names other bytes than the files it lists")
    if safe_name(statement.name) != filed_under:
        raise RecordError(f"it reviews {statement.name!r} but is filed under {filed_under!r}")
    if not file_name.startswith(statement.digest[:16] + "-"):
        raise RecordError("its file name names other bytes than its subject")
    if fingerprint:
        expected = record_path(statement.name, statement.digest, fingerprint).rsplit("/", 1)[1]
        if file_name != expected:
            raise RecordError("its file name is not the one of its signing key")


# --- where records go --------------------------------------------------------------------


def safe_name(name: str) -> str:
    """A skill name as one folder name: lower case ``a-z0-9._-``, at most 64 characters."""
    cleaned = _SAFE.sub("-", name.casefold()).strip(".-")[:64]
    return cleaned or "unnamed"


def record_path(name: str, digest: str, keyid: str) -> str:
    """Where a record goes below the review folder: one file per skill digest and
    signing key, so a second decision by the same key on the same bytes replaces it."""
    key = hashlib.sha256(keyid.encode()).hexdigest()[:16]
    return f"{safe_name(name)}/{digest[:16]}-{key}{RECORD_SUFFIX}"


# --- the policy and the judgement --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Policy:
    """How many approvals a skill needs, and who may reject (``None``: any reviewer)."""

    require: int = 1
    may_reject: tuple[str, ...] | None = None

    def may_reject_as(self, principal: str) -> bool:
        if self.may_reject is None:
            return True
        return any(fnmatch.fnmatchcase(principal, p) for p in self.may_reject)


def parse_policy(text: str) -> Policy:
    """The policy in ``policy.json``; raises :class:`RecordError` saying what is wrong."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"it is not JSON ({_first_line(exc)})") from exc
    if not isinstance(obj, dict):
        raise RecordError("it is not a JSON object")
    require = obj.get("require", 1)
    if not isinstance(require, int) or isinstance(require, bool) or not 1 <= require <= 100:
        raise RecordError("require is not a number of approvals from 1 to 100")
    may = obj.get("may_reject")
    if may is not None and (not isinstance(may, list) or not all(isinstance(p, str) for p in may)):
        raise RecordError("may_reject is not a list of principals")
    return Policy(require, tuple(may) if may is not None else None)


@dataclass(frozen=True, slots=True)
class Review:
    """One record as judged: who signed it (verified), what it decided, and whether it
    counts; ``why`` says why it is not valid, or why a valid one does not count."""

    file: str
    signer: str = ""
    decision: str = ""
    time: str = ""
    valid: bool = False
    why: str = ""
    statement: ReviewStatement | None = None
    key: str = ""  # the signing key's fingerprint: one key counts once

    @property
    def approves(self) -> bool:
        """A valid approval (counted or not)."""
        return self.valid and self.decision == "approved"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "signer": self.signer,
            "decision": self.decision,
            "time": self.time,
            "valid": self.valid,
            "why": self.why,
        }


@dataclass(frozen=True, slots=True)
class Judgement:
    """A skill's state from its reviews, and what changed since the latest earlier one."""

    state: TeamReview
    approvals: int = 0
    changed: tuple[tuple[str, str], ...] = ()
    reviews: tuple[Review, ...] = ()


def judge(files: Sequence[tuple[str, str]], reviews: Sequence[Review], policy: Policy) -> Judgement:
    """The state of a skill with ``files`` now: rejected (a reviewer who may reject
    rejected these bytes), reviewed (enough approvals by distinct reviewers), changed
    (valid reviews exist for other bytes only), or unreviewed. A valid review that does
    not count (a rejection by someone the policy does not let reject) says why."""
    digest = set_digest(files)
    judged: list[Review] = []
    approvers: set[str] = set()
    rejected = False
    earlier: list[Review] = []
    for review in reviews:
        st = review.statement
        if not review.valid or st is None:
            judged.append(review)
            continue
        if st.digest != digest:
            earlier.append(review)
            judged.append(_why(review, "it is for earlier bytes of the skill"))
        elif st.decision == "rejected":
            if policy.may_reject_as(review.signer):
                rejected = True
                judged.append(review)
            else:
                judged.append(_why(review, "the policy does not let this reviewer reject"))
        else:
            approvers.add(review.key or review.signer)
            judged.append(review)
    order = sorted(judged, key=lambda r: r.file)
    order.sort(key=lambda r: r.time, reverse=True)  # the latest first within a group
    order.sort(key=_shown_group)
    if rejected:
        return Judgement(TeamReview.REJECTED, len(approvers), (), tuple(order))
    if len(approvers) >= policy.require:
        return Judgement(TeamReview.REVIEWED, len(approvers), (), tuple(order))
    if earlier and not approvers:
        latest = max(earlier, key=lambda r: r.time)
        assert latest.statement is not None
        diff = changed_files(latest.statement.files, files)
        return Judgement(TeamReview.CHANGED, 0, tuple(diff), tuple(order))
    return Judgement(TeamReview.UNREVIEWED, len(approvers), (), tuple(order))


def short_date(time: str) -> str:
    """An ISO 8601 time as a day and month ("2 Dec"); the text as written when it is not one."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(time)
    except ValueError:
        return time
    return f"{when.day} {when:%b}"


def describe_review(review: Review) -> str:
    """One review in a sentence: "Approved by alice@example.com, 2 Dec (signature valid)"."""
    if not review.valid:
        return f"A review record is not counted ({review.file}): {review.why}"
    word = "Rejected" if review.decision == "rejected" else "Approved"
    text = f"{word} by {review.signer}, {short_date(review.time)} (signature valid)"
    if review.statement is not None and review.decision == "rejected" and review.statement.reason:
        text += f": {review.statement.reason[:REASON_LIMIT]}"
    return text + (f"; not counted: {review.why}" if review.why else "")


def _shown_group(review: Review) -> int:
    """Counted rejections first, then counted approvals, valid reviews that do not
    count, and records that are not valid."""
    if not review.valid:
        return 3
    if review.why:
        return 2
    return 0 if review.decision == "rejected" else 1


def _why(review: Review, why: str) -> Review:
    return Review(
        review.file,
        review.signer,
        review.decision,
        review.time,
        True,
        why,
        review.statement,
        review.key,
    )


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__

"""Approvals of skills, bound to the exact set of files a reviewer saw.

Pure: no keyring, no filesystem, no clock. The store (``desktop.store.approvals``)
keeps records in the OS keyring; this module decides what a record means.

- :class:`ApprovalKey` names what an approval belongs to, derived from the skill's
  :class:`~desktop.core.identity.SkillIdentity`. A server skill is (label, server
  key, uri): the server it reaches (:func:`~desktop.core.identity.server_key`: its
  transport and its normalized endpoint) is part of it so an approval never moves to
  another server that takes over a label. A local skill is its resolved skill
  folder path. :meth:`ApprovalKey.legacy_for_identity` is the key versions before the
  server key wrote (no transport, endpoint not normalized), by which the store finds
  and moves their records.
- :func:`file_set_hash` hashes the canonical sorted (uri, digest) set.
- :func:`bind` compares a skill with its record: ``not-approved``, ``approved``,
  ``changed`` (with a :class:`SetDiff`) or ``unapprovable``.
- Grants: each requested tool from ``allowed-tools`` is granted explicitly;
  running bundled scripts is a separate yes/no, offered only for a skill with
  scripts (:mod:`desktop.core.grants` says what each allows). Nothing is granted
  unless the skill is ``approved`` right now.
- A record says whether every file was read and verified when it was made, or the
  decision was taken from the listing alone (``files_read``; ``None`` in records
  made before it was kept), and which error-level problems it was approved despite.
- A rejection is a record of its own kind, bound to the same digest set, with an
  optional reason: the skill shows as ``rejected`` until its files change, and is
  then waiting for a decision again. It never grants anything, and a version that
  does not know rejections cannot read it as an approval.

Kept as one module: the meaning of an approval record: its key, its fields, its binding
to digests and its checks are one format, read and written together.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# The state names are the approval rules' own; re-exported for the modules using both.
from desktop.core.approval_states import APPROVED as APPROVED
from desktop.core.approval_states import CHANGED as CHANGED
from desktop.core.approval_states import NOT_APPROVED as NOT_APPROVED
from desktop.core.approval_states import REJECTED as REJECTED
from desktop.core.approval_states import UNAPPROVABLE as UNAPPROVABLE
from desktop.core.identity import QUALIFIER, SkillIdentity, server_key, skill_id
from desktop.core.model import DYNAMIC, INVALID, OVER_LIMIT, Skill, SkillFile
from desktop.core.source_kinds import kind_info
from desktop.core.states import Severity, needs_decision

FORMAT_VERSION = 1
RECORD_KIND = "skill-approval"
REJECTION_KIND = "skill-rejection"
DECISION_KINDS = {RECORD_KIND: "approved", REJECTION_KIND: "rejected"}
REASON_LIMIT = 2000  # characters of a rejection's reason
STORAGE_PREFIX = "approval-"  # what every approval's keyring entry name starts with
# Codes of a stored record that is damaged (altered, unreadable, gone): shown, never honoured.
DAMAGED_CODES = frozenset({"tampered", "unparseable", "missing"})


class ApprovalError(Exception):
    """An approval that cannot be made or read, with a stable code and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True, order=True)
class ApprovalKey:
    """What an approval belongs to.

    ``kind`` ``mcp``: (label, endpoint, uri) of a server skill, with ``transport``:
    the label and the server key (transport and endpoint). ``kind`` ``local``: ``uri``
    holds the resolved skill folder path; label and endpoint stay empty, so the same
    folder keeps its approval whatever label the folder source has. A key with no
    ``transport`` is one written before the server key (see
    :meth:`legacy_for_identity`).
    """

    kind: Literal["local", "mcp"]
    label: str
    endpoint: str
    uri: str
    transport: str = ""

    @classmethod
    def for_skill(cls, skill: Skill, environ: Mapping[str, str] | None = None) -> ApprovalKey:
        """The key of ``skill``: :meth:`for_identity` of its identity and folder."""
        return cls.for_identity(skill.full_identity, skill.path, environ)

    @classmethod
    def for_identity(
        cls,
        identity: SkillIdentity,
        folder: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ApprovalKey:
        """The key of the skill ``identity`` names. A server skill's is its label, the
        server key of its source (:func:`~desktop.core.identity.server_key`:
        transport, endpoint with placeholders filled in from ``environ``, the process's
        by default, normalized; ``serve ${DIR}`` is another server when DIR changes)
        and its URI. A local skill's is its resolved ``folder`` alone."""
        if kind_info(identity.source.kind).folder_on_disk:
            if not folder:
                raise ApprovalError("no-path", f"{identity}: a local skill without a folder path")
            return cls("local", "", "", folder)
        server = identity.source.server(environ)
        return cls("mcp", identity.label, server.endpoint, identity.uri, server.transport)

    @classmethod
    def legacy_for_identity(
        cls, identity: SkillIdentity, environ: Mapping[str, str] | None = None
    ) -> ApprovalKey | None:
        """The key versions before the server key (up to 3f4c5c9) stored a server skill's
        approval under: label, endpoint with placeholders filled in (not normalized),
        URI, no transport. ``None`` for a local skill, whose key did not change."""
        if kind_info(identity.source.kind).path_endpoint:
            return None
        return cls("mcp", identity.label, identity.source.legacy_endpoint(environ), identity.uri)

    def moved_to(self, key: ApprovalKey) -> bool:
        """Whether this key, written by a version before the server key (no transport),
        names what ``key`` names: the same label and URI, and its endpoint (placeholders
        already filled in then) is ``key``'s once normalized by ``key``'s transport. The
        record it names must say that transport too (older keys could not tell)."""
        if self.transport or self.kind != "mcp" or not key.transport:
            return False
        if (self.kind, self.label, self.uri) != (key.kind, key.label, key.uri):
            return False
        server = server_key("mcp", key.transport, self.endpoint, {})
        return server == (key.transport, key.endpoint)

    @property
    def storage_name(self) -> str:
        """The keyring entry name: a digest of the key (any length, any characters)."""
        fields = [self.kind, self.label, self.endpoint, self.uri]
        if self.transport:
            fields.insert(2, self.transport)
        raw = json.dumps(fields, ensure_ascii=False)
        return STORAGE_PREFIX + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]

    @property
    def skill_id(self) -> str:
        """The id of the skill a server key names (``LABEL:URI``); a local key's folder."""
        if self.kind == "local":
            return self.uri
        return skill_id(self.label, self.uri)

    @staticmethod
    def is_storage_name(text: str) -> bool:
        """Whether ``text`` is written as a storage name is (``approvals --json`` shows
        them), not as an id."""
        return text.startswith(STORAGE_PREFIX) and QUALIFIER not in text

    def describe(self) -> str:
        if self.kind == "local":
            return f"local folder {self.uri}"
        return f"{self.skill_id} (at {self.shown_endpoint})"

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as shown to people: secrets in a command or URL masked."""
        from desktop.core.secrets import mask_endpoint

        return mask_endpoint(self.transport or None, self.endpoint)

    def to_json(self) -> dict[str, str]:
        """The key as stored (the endpoint whole: it is what approvals are found by)."""
        out = {"kind": self.kind, "label": self.label, "endpoint": self.endpoint, "uri": self.uri}
        if self.transport:
            out["transport"] = self.transport
        return out

    def shown_json(self) -> dict[str, str]:
        """The key as output shows it: secrets in the endpoint masked."""
        return {**self.to_json(), "endpoint": self.shown_endpoint}

    @classmethod
    def from_json(cls, data: Any) -> ApprovalKey:
        if not isinstance(data, dict):
            raise TypeError("identity is not an object")
        kind = data.get("kind")
        if kind not in ("local", "mcp"):
            raise ValueError(f"unknown identity kind {kind!r}")
        parts = [data.get(k) for k in ("label", "endpoint", "uri")]
        transport = data.get("transport", "")
        if not all(isinstance(p, str) for p in (*parts, transport)) or not parts[2]:
            raise ValueError("identity fields must be strings")
        return cls(kind, parts[0], parts[1], parts[2], transport)  # type: ignore[arg-type]


def canonical_set(files: tuple[SkillFile, ...] | list[SkillFile]) -> list[tuple[str, str]]:
    """The sorted (uri, digest) pairs an approval binds to."""
    return sorted((f.uri, f.digest) for f in files)


def file_set_hash(files: tuple[SkillFile, ...] | list[SkillFile]) -> str:
    """``sha256:<hex>`` of the canonical set, serialized as compact JSON (unambiguous)."""
    blob = json.dumps(canonical_set(files), separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def frontmatter_hash(frontmatter: dict[str, Any] | None) -> str:
    """``sha256:<hex>`` of a listed frontmatter as canonical JSON ("" when none)."""
    if frontmatter is None:
        return ""

    def plain(value: Any) -> Any:  # YAML keys may be numbers or dates: sorted as text
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    blob = json.dumps(
        plain(frontmatter), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Grants:
    """What an approval grants beyond reading: named tools, and running bundled scripts."""

    tools: tuple[str, ...] = ()
    scripts: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"tools": list(self.tools), "scripts": self.scripts}


@dataclass(frozen=True, slots=True)
class ApprovalRecord:
    """One stored decision: who approved (or rejected) which exact files of which
    skill, when, and on what evidence."""

    key: ApprovalKey
    skill_id: str
    name: str
    transport: str
    files: tuple[SkillFile, ...]
    set_hash: str
    grants: Grants
    requested_tools: tuple[str, ...]
    approved_at: str
    approved_by: str
    format: int = FORMAT_VERSION
    # The frontmatter listed when approved (its name, description, requests): the entry
    # a reviewer was shown. "" in records made before it was kept.
    frontmatter_hash: str = ""
    decision: Literal["approved", "rejected"] = "approved"
    # True: every file was read and its bytes verified before the decision; False: it
    # was taken from the listing alone; None: not recorded (an older record).
    files_read: bool | None = None
    # The error-level problems the reviewer chose to approve despite.
    despite_problems: tuple[str, ...] = ()
    reason: str = ""  # a rejection's reason, as the reviewer wrote it

    @property
    def rejected(self) -> bool:
        return self.decision == "rejected"

    def evidence(self) -> str:
        """What the decision was taken on, in plain words."""
        if self.files_read is True:
            return "every file was read and verified"
        if self.files_read is False:
            return "from the listing alone (the files were not read)"
        return "not recorded (a record made before this was kept)"

    @property
    def file_count(self) -> int:
        return len(self.files)

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)

    def to_json(self, *, with_files: bool = True) -> dict[str, Any]:
        kind = REJECTION_KIND if self.rejected else RECORD_KIND
        out: dict[str, Any] = {
            "format": self.format,
            "kind": kind,
            "identity": self.key.to_json(),
            "skill_id": self.skill_id,
            "name": self.name,
            "transport": self.transport,
            "set_hash": self.set_hash,
            "file_count": self.file_count,
            "total_size": self.total_size,
            "grants": self.grants.to_json(),
            "requested_tools": list(self.requested_tools),
            "approved_at": self.approved_at,
            "approved_by": self.approved_by,
        }
        if self.frontmatter_hash:
            out["frontmatter_hash"] = self.frontmatter_hash
        if self.files_read is not None:
            out["files_read"] = self.files_read
        if self.despite_problems:
            out["despite_problems"] = list(self.despite_problems)
        if self.rejected:
            out["reason"] = self.reason
        if with_files:
            out["files"] = [f.to_json() for f in self.files]
        return out

    @classmethod
    def from_json(cls, data: Any) -> ApprovalRecord:
        """Parse a stored record; raises :class:`ApprovalError` (``unparseable``, ``tampered``)."""
        try:
            record = cls._parse(data)
        except (ValueError, TypeError, KeyError) as exc:
            raise ApprovalError(
                "unparseable", f"the stored approval cannot be read: {exc}"
            ) from exc
        actual = file_set_hash(record.files)
        if actual != record.set_hash:
            raise ApprovalError(
                "tampered",
                "the stored approval does not match its own hash (it was altered outside "
                f"Skill Catalog): stored {record.set_hash}, its files hash to {actual}",
            )
        # A record made before the requested tools were kept cannot be checked on its own;
        # its grants are still checked against the skill when it is bound (bind).
        if "requested_tools" in data:
            problem = grants_problem(record, record.requested_tools, record_has_scripts(record))
            if problem is not None:
                raise problem
        return record

    @classmethod
    def _parse(cls, data: Any) -> ApprovalRecord:
        if not isinstance(data, dict):
            raise TypeError("not an object")
        decision = DECISION_KINDS.get(data.get("kind"))  # type: ignore[arg-type]
        if decision is None:
            raise ValueError(f"not an approval record (kind {data.get('kind')!r})")
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown format version {data.get('format')!r}")
        files = []
        for item in data["files"]:
            uri, digest, size = item["uri"], item["digest"], item["size"]
            if not isinstance(uri, str) or not isinstance(digest, str):
                raise TypeError("file entries need a string uri and digest")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ValueError(f"bad size for {uri!r}")
            files.append(SkillFile(uri, digest, size))
        grants = data["grants"]
        tools = grants["tools"]
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise ValueError("grants.tools must be a list of strings")
        if not isinstance(grants["scripts"], bool):
            raise TypeError("grants.scripts must be true or false")
        strings = {k: data[k] for k in ("skill_id", "name", "transport", "set_hash")}
        strings |= {k: data[k] for k in ("approved_at", "approved_by")}
        for k, v in strings.items():
            if not isinstance(v, str):
                raise TypeError(f"{k} must be a string")
        requested = data.get("requested_tools", [])
        if not isinstance(requested, list) or not all(isinstance(t, str) for t in requested):
            raise ValueError("requested_tools must be a list of strings")
        listed = data.get("frontmatter_hash", "")
        if not isinstance(listed, str):
            raise TypeError("frontmatter_hash must be a string")
        files_read = data.get("files_read")
        if files_read is not None and not isinstance(files_read, bool):
            raise TypeError("files_read must be true or false")
        despite = data.get("despite_problems", [])
        if not isinstance(despite, list) or not all(isinstance(t, str) for t in despite):
            raise ValueError("despite_problems must be a list of strings")
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise TypeError("reason must be a string")
        return cls(
            key=ApprovalKey.from_json(data["identity"]),
            skill_id=strings["skill_id"],
            name=strings["name"],
            transport=strings["transport"],
            files=tuple(sorted(files, key=lambda f: f.uri)),
            set_hash=strings["set_hash"],
            grants=Grants(tuple(tools), grants["scripts"]),
            requested_tools=tuple(requested),
            approved_at=strings["approved_at"],
            approved_by=strings["approved_by"],
            frontmatter_hash=listed,
            decision=decision,  # type: ignore[arg-type]
            files_read=files_read,
            despite_problems=tuple(despite),
            reason=reason,
        )


def record_has_scripts(record: ApprovalRecord) -> bool:
    """Whether the files ``record`` approved include a script."""
    from desktop.core.grants import is_script

    return any(is_script(f.uri) for f in record.files)


def grants_problem(
    record: ApprovalRecord, requested: tuple[str, ...], scripts: bool
) -> ApprovalError | None:
    """Why ``record`` grants more than a reviewer could have given, or ``None``.

    A reviewer grants only tools the skill requests (``requested``, its
    ``allowed-tools``) and allows scripts only for a skill that has some
    (``scripts``); a rejection grants nothing. A record granting more was written
    outside Skill Catalog, even when every checksum in it agrees: it is damaged,
    shown with this problem and never honoured.
    """
    extra = [t for t in record.grants.tools if record.rejected or t not in requested]
    why = []
    if extra:
        asked = ", ".join(requested) if requested else "no tools"
        why.append(f"grants {', '.join(extra)}, which the skill does not request ({asked})")
    if record.grants.scripts and (record.rejected or not scripts):
        why.append("allows running scripts, which the skill does not have")
    if not why:
        return None
    return ApprovalError(
        "tampered",
        f"the stored approval {' and '.join(why)}: no reviewer could have given that, so "
        "it was altered outside Skill Catalog; it is damaged and not honoured",
    )


def skill_grants_problem(record: ApprovalRecord, skill: Skill) -> ApprovalError | None:
    """:func:`grants_problem` of ``record`` against what ``skill`` requests and holds."""
    from desktop.core.grants import has_scripts

    return grants_problem(record, tuple(skill.allowed_tools()), has_scripts(skill))


# Problems of a local scan meaning files may be missing from the manifest.
MANIFEST_GAPS = frozenset({"file-unreadable", "folder-unreadable", "file-special"})
# Links a local scan does not follow: an agent reading the folder follows them, to
# content no manifest lists, which may change while every listed digest stays.
UNBOUND_LINKS = frozenset({"symlink-outside", "symlink-directory"})


def unapprovable_reason(skill: Skill) -> str | None:
    """Why a skill cannot be approved against content, or ``None``."""
    state = skill.state
    if state == DYNAMIC:
        return (
            'the server publishes this skill as "dynamic": it has no file manifest, so an '
            "approval could not be bound to content"
        )
    if state == INVALID:
        why = skill.invalid_reasons
        return f"the entry is invalid ({why})" if why else "the entry is invalid"
    if state == OVER_LIMIT:
        why = "; ".join(p.message for p in skill.problems if p.code.startswith("limit-"))
        return f"the skill is over a limit ({why})" if why else "the skill is over a limit"
    if not skill.files:
        return "the entry lists no files"
    unread = [p.message for p in skill.problems if p.code in MANIFEST_GAPS]
    if unread:
        return (
            f"part of its folder could not be read ({'; '.join(unread)}), so its file "
            "list may be missing files an approval would have to cover"
        )
    links = [p.message for p in skill.problems if p.code in UNBOUND_LINKS]
    if links and skill.kind_info.folder_on_disk:
        return (
            f"it holds links that are not followed ({'; '.join(links)}): what an agent "
            "reads through them is in no file list an approval could bind, and could "
            "change while every listed file stays the same"
        )
    return None


def error_problems(skill: Skill) -> list[str]:
    """The messages of ``skill``'s error-level problems (they block an approval)."""
    return [p.message for p in skill.problems if p.severity == Severity.ERROR]


def make_record(
    skill: Skill,
    *,
    grant_tools: tuple[str, ...] | list[str] = (),
    allow_scripts: bool = False,
    approved_at: str,
    approved_by: str,
    files_read: bool = False,
    despite_problems: bool = False,
) -> ApprovalRecord:
    """Build the record approving ``skill`` as listed now; raises :class:`ApprovalError`.

    Only tools the skill requests in ``allowed-tools`` can be granted: granting a
    tool it never asked for would record a power no reviewer was shown. Running
    scripts can be allowed only for a skill that has scripts. A skill with
    error-level problems is approved only ``despite_problems``, which the record
    keeps with the problems' messages. ``files_read`` is the caller's word that every
    file was read and verified against this very entry.
    """
    from desktop.core.grants import has_scripts

    reason = unapprovable_reason(skill)
    if reason:
        raise ApprovalError("unapprovable", f"{skill.id} cannot be approved: {reason}")
    errors = error_problems(skill)
    if errors and not despite_problems:
        raise ApprovalError(
            "has-errors",
            f"{skill.id} has {len(errors)} error{'s' if len(errors) != 1 else ''} "
            f"({'; '.join(errors[:3])}{'; …' if len(errors) > 3 else ''}); it is approved "
            "only by choosing to approve it despite its problems, which is recorded",
        )
    if allow_scripts and not has_scripts(skill):
        raise ApprovalError(
            "no-scripts", f"{skill.id} has no scripts: there is nothing to allow running"
        )
    requested = tuple(dict.fromkeys(skill.allowed_tools()))
    unknown = [t for t in grant_tools if t not in requested]
    if unknown:
        asked = ", ".join(requested) if requested else "no tools"
        raise ApprovalError(
            "tool-not-requested",
            f"{skill.id} does not request {', '.join(unknown)} in allowed-tools "
            f"(it requests {asked}); only requested tools can be granted",
        )
    return _bound_record(
        skill,
        at=approved_at,
        by=approved_by,
        files_read=files_read,
        grants=Grants(tuple(dict.fromkeys(grant_tools)), allow_scripts),
        despite_problems=tuple(errors) if despite_problems else (),
    )


def _bound_record(
    skill: Skill,
    *,
    at: str,
    by: str,
    files_read: bool,
    grants: Grants,
    decision: Literal["approved", "rejected"] = "approved",
    despite_problems: tuple[str, ...] = (),
    reason: str = "",
) -> ApprovalRecord:
    """A decision on ``skill`` bound to what it lists now: its key, its files and their
    set hash, the tools it requests and its frontmatter."""
    files = tuple(sorted(skill.files, key=lambda f: f.uri))
    return ApprovalRecord(
        key=ApprovalKey.for_skill(skill),
        skill_id=skill.id,
        name=skill.name,
        transport=skill.origin.transport,
        files=files,
        set_hash=file_set_hash(files),
        requested_tools=tuple(dict.fromkeys(skill.allowed_tools())),
        approved_at=at,
        approved_by=by,
        frontmatter_hash=frontmatter_hash(skill.frontmatter),
        grants=grants,
        decision=decision,
        files_read=files_read,
        despite_problems=despite_problems,
        reason=reason,
    )


def make_rejection(
    skill: Skill,
    *,
    reason: str = "",
    rejected_at: str,
    rejected_by: str,
    files_read: bool = False,
) -> ApprovalRecord:
    """Build the record rejecting ``skill`` as listed now (bound to its digest set like an
    approval, granting nothing); raises :class:`ApprovalError`."""
    why = unapprovable_reason(skill)
    if why:
        raise ApprovalError(
            "unapprovable", f"{skill.id} cannot be decided on against content: {why}"
        )
    if len(reason) > REASON_LIMIT:
        raise ApprovalError(
            "reason-too-long", f"the reason is {len(reason)} characters; at most {REASON_LIMIT}"
        )
    return _bound_record(
        skill,
        at=rejected_at,
        by=rejected_by,
        files_read=files_read,
        grants=Grants(),
        decision="rejected",
        reason=reason.strip(),
    )


@dataclass(frozen=True, slots=True)
class FileChange:
    """One difference between the approved set and the listed one."""

    uri: str
    old_digest: str | None = None
    old_size: int | None = None
    new_digest: str | None = None
    new_size: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri}
        if self.old_digest is not None:
            out |= {"old_digest": self.old_digest, "old_size": self.old_size}
        if self.new_digest is not None:
            out |= {"new_digest": self.new_digest, "new_size": self.new_size}
        return out


@dataclass(frozen=True, slots=True)
class SetDiff:
    added: tuple[FileChange, ...] = ()
    removed: tuple[FileChange, ...] = ()
    changed: tuple[FileChange, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def summary(self) -> str:
        parts = []
        for label, items in (("added", self.added), ("removed", self.removed)):
            if items:
                parts.append(f"{len(items)} {label}")
        if self.changed:
            parts.append(f"{len(self.changed)} changed")
        return ", ".join(parts) if parts else "no change"

    def to_json(self) -> dict[str, Any]:
        return {
            "added": [c.to_json() for c in self.added],
            "removed": [c.to_json() for c in self.removed],
            "changed": [c.to_json() for c in self.changed],
        }


def diff_sets(old: tuple[SkillFile, ...], new: tuple[SkillFile, ...]) -> SetDiff:
    """What changed from the approved files ``old`` to the listed files ``new``."""
    before = {f.uri: f for f in old}
    after = {f.uri: f for f in new}
    added = tuple(
        FileChange(u, new_digest=after[u].digest, new_size=after[u].size)
        for u in sorted(after.keys() - before.keys())
    )
    removed = tuple(
        FileChange(u, old_digest=before[u].digest, old_size=before[u].size)
        for u in sorted(before.keys() - after.keys())
    )
    changed = tuple(
        FileChange(u, before[u].digest, before[u].size, after[u].digest, after[u].size)
        for u in sorted(before.keys() & after.keys())
        if before[u].digest != after[u].digest
    )
    return SetDiff(added, removed, changed)


@dataclass(slots=True)
class ApprovalState:
    """A skill's approval as of its current listing.

    ``problem`` is set when the keyring or the record could not be read: the skill
    is then ``not-approved`` and the message says why. ``elsewhere`` lists
    approvals of the same label and URI recorded for another endpoint (they do
    not apply).
    """

    state: str
    reason: str = ""
    record: ApprovalRecord | None = None
    diff: SetDiff | None = None
    problem: ApprovalError | None = None
    elsewhere: list[ApprovalKey] = field(default_factory=list)

    @property
    def approved(self) -> bool:
        return self.state == APPROVED

    @property
    def needs_decision(self) -> bool:
        """Waiting for a reviewer: not approved yet, or changed since approval."""
        return needs_decision(self.state)

    def tool_granted(self, tool: str) -> bool:
        """Whether ``tool`` may be used for this skill: only when approved and granted."""
        return self.approved and self.record is not None and tool in self.record.grants.tools

    @property
    def damaged(self) -> bool:
        """Whether the stored record is damaged (altered or unreadable): not honoured."""
        return self.problem is not None and self.problem.code in DAMAGED_CODES

    @property
    def scripts_allowed(self) -> bool:
        return self.approved and self.record is not None and self.record.grants.scripts

    def message(self) -> str:
        if self.problem is not None:
            return self.problem.message
        if self.state == REJECTED and self.record is not None:
            rec = self.record
            why = f": {rec.reason}" if rec.reason else " (no reason given)"
            return f"rejected by {rec.approved_by} at {rec.approved_at}{why}"
        if self.state == CHANGED and self.diff is not None:
            if not self.diff and self.reason:
                return f"changed since approval: {self.reason}"
            return f"changed since approval: {self.diff.summary()}"
        if self.reason:
            return self.reason
        if self.elsewhere:
            where = "; ".join(k.shown_endpoint for k in self.elsewhere)
            return f"approved only for a previous endpoint of this label ({where})"
        return ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state}
        msg = self.message()
        if msg:
            out["message"] = msg
        if self.reason:
            out["reason"] = self.reason
        if self.problem is not None:
            out["error"] = self.problem.to_json()
            if self.damaged:
                out["damaged"] = True
        if self.record is not None:
            rec = self.record
            out["set_hash"] = rec.set_hash
            out["approved_at"] = rec.approved_at
            out["approved_by"] = rec.approved_by
            out["grants"] = rec.grants.to_json() if self.state == APPROVED else None
            out["decision"] = rec.decision
            if rec.files_read is not None:
                out["files_read"] = rec.files_read
            if rec.rejected:
                out["rejection_reason"] = rec.reason
        if self.diff is not None:
            out["diff"] = self.diff.to_json()
        if self.elsewhere:
            out["approved_elsewhere"] = [k.shown_json() for k in self.elsewhere]
        return out


def bind(
    skill: Skill,
    record: ApprovalRecord | None,
    *,
    problem: ApprovalError | None = None,
    elsewhere: list[ApprovalKey] | None = None,
) -> ApprovalState:
    """The state of ``skill`` against its stored ``record``."""
    reason = unapprovable_reason(skill)
    if reason:
        return ApprovalState(UNAPPROVABLE, reason=reason, record=record, problem=problem)
    if problem is not None:
        return ApprovalState(NOT_APPROVED, problem=problem, elsewhere=list(elsewhere or []))
    if record is None:
        return ApprovalState(NOT_APPROVED, elsewhere=list(elsewhere or []))
    key = ApprovalKey.for_skill(skill)
    if record.key != key:
        err = ApprovalError(
            "tampered",
            f"the stored approval names {record.key.describe()}, not {key.describe()}",
        )
        return ApprovalState(NOT_APPROVED, problem=err)
    current = tuple(sorted(skill.files, key=lambda f: f.uri))
    if record.rejected:
        same = file_set_hash(current) == record.set_hash and (
            not record.frontmatter_hash
            or record.frontmatter_hash == frontmatter_hash(skill.frontmatter)
        )
        if same:
            return ApprovalState(REJECTED, record=record)
        # Another version than the one rejected: it waits for a decision again.
        diff = diff_sets(record.files, current)
        return ApprovalState(
            NOT_APPROVED,
            reason=f"rejected earlier; it changed since ({diff.summary()})",
            record=record,
            diff=diff,
        )
    if file_set_hash(current) == record.set_hash:
        listed = frontmatter_hash(skill.frontmatter)
        if record.frontmatter_hash and record.frontmatter_hash != listed:
            # Same files, other words: the entry no longer describes the SKILL.md whose
            # digest was approved (a read would fail its frontmatter check).
            return ApprovalState(
                CHANGED,
                reason="the listed frontmatter is not the one approved, while the files "
                "are: the entry no longer matches its SKILL.md",
                record=record,
                diff=SetDiff(),
            )
        # The very entry approved: what it requests is all a reviewer could grant.
        damaged = skill_grants_problem(record, skill)
        if damaged is not None:
            return ApprovalState(NOT_APPROVED, problem=damaged)
        return ApprovalState(APPROVED, record=record)
    return ApprovalState(CHANGED, record=record, diff=diff_sets(record.files, current))

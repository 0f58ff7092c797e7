"""Installing approved skills into agents' folders: the rules, without touching a disk.

An install writes the bytes a person approved into a folder an agent reads, and records
it (the *lock*): the skill's name, the folder, the source's identity, the provenance,
every file's path, size and SHA-256, the digest-set hash, and who approved it when. From
the lock and what is on disk now, :func:`installed_state` says whether an installed
skill is still what was approved.

This module decides; :mod:`desktop.store.installs` writes and reads the folders and the
lock files, and :mod:`desktop.session.installer` gets the approved bytes.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from desktop.core.approval_states import APPROVED, CHANGED, REJECTED
from desktop.core.model import Skill, SkillFile
from desktop.core.states import Installed

LOCK_VERSION = 1
LOCK_FILE = "skill-catalog.lock.json"
# A skill's files that run: executable only when the approval allowed scripts.
SCRIPT_DIRS = ("scripts", "bin")


class InstallError(ValueError):
    """An install that must not happen, with the reason in plain words."""


def folded(name: str) -> str:
    """``name`` as a file system that folds case and normalizes Unicode may see it."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFC", name)).casefold()


def name_clash(name: str, existing: Iterable[str]) -> str | None:
    """The existing folder name that ``name`` would collide with (not equal to it), if any.

    Two names collide when they differ but are one after case folding or Unicode
    normalization (NFC, NFKC): on macOS and Windows they are one folder, and elsewhere a
    person cannot tell them apart.
    """
    mine = folded(name)
    for other in existing:
        if other != name and folded(other) == mine:
            return other
    return None


def safe_folder_name(name: str) -> str | None:
    """Why ``name`` cannot be a skill's folder name, or ``None`` when it can."""
    if not name or name in (".", ".."):
        return "it has no name to install under"
    if "/" in name or "\\" in name or "\0" in name:
        return f"its name {name!r} holds a path separator"
    if name.startswith("."):
        return f"its name {name!r} starts with a dot"
    if any(unicodedata.category(c).startswith("C") for c in name):
        return f"its name {name!r} holds a control character"
    return None


def safe_relative_path(path: str) -> bool:
    """Whether ``path`` stays inside the skill's folder once written."""
    if not path or "\\" in path or "\0" in path:
        return False
    pure = PurePosixPath(path)
    return not pure.is_absolute() and all(p not in ("", ".", "..") for p in path.split("/"))


def refusal(skill: Skill, state: str, reason: str = "") -> str | None:
    """Why ``skill`` in approval state ``state`` may not be installed, or ``None``."""
    if skill.is_dynamic:
        return "its files are built by its server when read, so there are no bytes to install"
    if state == APPROVED:
        return None
    if state == CHANGED:
        return "it changed since it was approved: review the change and approve it first"
    if state == REJECTED:
        return "it was rejected"
    why = f" ({reason})" if reason else ""
    return f"it is not approved for its current files{why}: approve it first"


def is_script(path: str) -> bool:
    """Whether ``path`` is one of a skill's scripts (made executable when allowed)."""
    return path.split("/", 1)[0] in SCRIPT_DIRS


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class LockFile:
    """One installed file: its path in the skill's folder, size and SHA-256 (hex)."""

    path: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "size": self.size}

    @classmethod
    def of(cls, f: SkillFile) -> LockFile:
        return cls(f.uri, f.size, f.digest.removeprefix("sha256:"))


@dataclass(frozen=True, slots=True)
class LockEntry:
    """One install: which skill, into which folder, from where, which bytes, approved how."""

    name: str
    agent: str
    folder: str  # the skills folder written into: relative to the project for a project lock
    source: Mapping[str, str]
    uri: str
    files: tuple[LockFile, ...]
    set_hash: str
    approved_by: str = ""
    approved_at: str = ""
    installed_at: str = ""
    scripts: bool = False
    provenance: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True  # False: moved out of the agent's folder into the catalog's keeping

    @property
    def key(self) -> tuple[str, str]:
        return (self.folder, self.name)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "agent": self.agent,
            "folder": self.folder,
            "source": dict(sorted(self.source.items())),
            "uri": self.uri,
            "files": [f.to_json() for f in sorted(self.files, key=lambda f: f.path)],
            "set_hash": self.set_hash,
            "approved_by": self.approved_by,
            "approved_at": self.approved_at,
            "installed_at": self.installed_at,
            "scripts": self.scripts,
        }
        if self.provenance:
            out["provenance"] = dict(sorted(self.provenance.items()))
        if not self.enabled:
            out["enabled"] = False
        return out

    @classmethod
    def from_json(cls, data: object) -> LockEntry:
        if not isinstance(data, dict):
            raise InstallError("an entry of the lock is not an object")
        try:
            files = tuple(
                LockFile(str(f["path"]), int(f["size"]), str(f["sha256"])) for f in data["files"]
            )
            source = {str(k): str(v) for k, v in dict(data["source"]).items()}
            provenance = {str(k): str(v) for k, v in dict(data.get("provenance", {})).items()}
            entry = cls(
                name=str(data["name"]),
                agent=str(data["agent"]),
                folder=str(data["folder"]),
                source=source,
                uri=str(data["uri"]),
                files=files,
                set_hash=str(data["set_hash"]),
                approved_by=str(data.get("approved_by", "")),
                approved_at=str(data.get("approved_at", "")),
                installed_at=str(data.get("installed_at", "")),
                scripts=bool(data.get("scripts", False)),
                provenance=provenance,
                enabled=data.get("enabled", True) is not False,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InstallError(f"an entry of the lock is malformed ({exc})") from exc
        bad = safe_folder_name(entry.name)
        if bad is not None:
            raise InstallError(f"an entry of the lock cannot be installed: {bad}")
        for f in entry.files:
            if not safe_relative_path(f.path):
                raise InstallError(
                    f"the lock's entry {entry.name!r} names a file {f.path!r} outside its folder"
                )
        return entry


def parse_lock(text: str) -> list[LockEntry]:
    """The entries of a lock file's text; :class:`InstallError` saying what is wrong."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"the lock is not JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("skills"), list):
        raise InstallError('the lock has no "skills" list')
    if data.get("version") != LOCK_VERSION:
        raise InstallError(f"the lock's version {data.get('version')!r} is not one this reads")
    return [LockEntry.from_json(item) for item in data["skills"]]


def render_lock(entries: Iterable[LockEntry]) -> str:
    """A lock's text: stably sorted, two-space indented, one trailing newline."""
    items = sorted(entries, key=lambda e: (e.folder, e.name, e.agent))
    data = {"version": LOCK_VERSION, "skills": [e.to_json() for e in items]}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def merged(entries: Iterable[LockEntry], new: LockEntry) -> list[LockEntry]:
    """``entries`` with ``new`` in place of the entry for the same folder and name."""
    return [e for e in entries if e.key != new.key] + [new]


@dataclass(frozen=True, slots=True)
class InstalledSkill:
    """One skill found in an agent's folder, and what the catalog can say of it."""

    name: str
    agent: str
    path: str
    state: Installed
    installed_by: str = ""
    files_changed: tuple[str, ...] = ()
    reason: str = ""
    enabled: bool = True  # False: kept by the catalog, out of the agent's sight

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agent": self.agent,
            "path": self.path,
            "state": str(self.state),
            "installed_by": self.installed_by,
            "files_changed": list(self.files_changed),
            "enabled": self.enabled,
        }


def drifted_files(entry: LockEntry, on_disk: Mapping[str, str]) -> tuple[str, ...]:
    """The paths whose bytes on disk differ from the lock's, or that were added or removed."""
    locked = {f.path: f.sha256 for f in entry.files}
    paths = sorted(set(locked) | set(on_disk))
    return tuple(p for p in paths if locked.get(p) != on_disk.get(p))


def installed_state(
    entry: LockEntry,
    on_disk: Mapping[str, str],
    approval: str | None,
    approved_set: str | None,
    published_set: str | None,
) -> tuple[Installed, tuple[str, ...]]:
    """The state of a skill the catalog installed, and the files that drifted.

    ``on_disk``: path → SHA-256 hex of what the agent's folder holds now. ``approval``
    and ``approved_set``: the stored decision on the skill's source and URI (``None``
    when there is none) and the digest set it binds. ``published_set``: the digest set
    its source lists now (``None`` when the source was not read).
    """
    changed = drifted_files(entry, on_disk)
    if changed:
        return Installed.DRIFTED, changed
    if published_set is not None and published_set != entry.set_hash:
        return Installed.CHANGED_UPSTREAM, ()
    if approval != APPROVED or approved_set != entry.set_hash:
        return Installed.NOT_APPROVED, ()
    return Installed.APPROVED, ()


def other_tool(frontmatter: Mapping[str, Any] | None) -> str:
    """Who installed a skill, as its own frontmatter says (``gh skill`` records its
    repository there), or ``""``."""
    meta = (frontmatter or {}).get("metadata")
    if isinstance(meta, Mapping) and meta.get("github-repo"):
        ref = meta.get("github-ref") or meta.get("github-tree-sha") or ""
        at = f" at {ref}" if ref else ""
        return f"gh skill from {meta['github-repo']}{at}"
    return ""


def skills_cli_names(data: object) -> dict[str, str]:
    """Skill name → where it came from, in a ``skills`` CLI lock (``skills-lock.json``,
    ``~/.agents/.skill-lock.json``); empty when the text is not one."""
    out: dict[str, str] = {}
    skills = data.get("skills") if isinstance(data, dict) else None
    if isinstance(skills, dict):
        for name, item in skills.items():
            where = item.get("source", "") if isinstance(item, dict) else ""
            out[str(name)] = f"skills CLI from {where}" if where else "skills CLI"
    elif isinstance(skills, list):
        for item in skills:
            if isinstance(item, dict) and item.get("name"):
                where = item.get("source") or item.get("sourceUrl") or ""
                out[str(item["name"])] = f"skills CLI from {where}" if where else "skills CLI"
    return out


def toolhive_names(data: object) -> dict[str, str]:
    """Skill name → where it came from, in a ToolHive ``toolhive.lock.yaml``."""
    out: dict[str, str] = {}
    skills = data.get("skills") if isinstance(data, dict) else None
    items: Iterable[Any] = ()
    if isinstance(skills, dict):
        items = ({"name": k, **(v if isinstance(v, dict) else {})} for k, v in skills.items())
    elif isinstance(skills, list):
        items = skills
    for item in items:
        if isinstance(item, dict) and item.get("name"):
            where = item.get("reference") or item.get("source") or ""
            out[str(item["name"])] = f"ToolHive from {where}" if where else "ToolHive"
    return out

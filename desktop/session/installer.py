"""Install approved skills into agents' folders, and say what every installed skill is.

The bytes installed are the ones the approval binds: the copies the approval kept when
its files were read, else the private cache's verified copies, else a read through the
session's reader, each checked against the approval's digest before anything is written
(a mismatch stops the install). The rules are :mod:`desktop.core.install`'s; the writes
and the locks :mod:`desktop.store.installs`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.approvals import ApprovalKey, ApprovalState, file_set_hash
from desktop.core.compare import relative_files
from desktop.core.install import (
    InstalledSkill,
    InstallError,
    LockEntry,
    LockFile,
    folded,
    installed_state,
    is_script,
    merged,
    name_clash,
    other_tool,
    refusal,
    safe_folder_name,
    sha256_hex,
)
from desktop.core.model import Skill
from desktop.core.states import Installed
from desktop.store.installs import (
    FileToWrite,
    folder_digests,
    kept_folder,
    move_folder,
    project_lock_path,
    read_lock,
    remove_skill,
    update_lock,
    user_lock_path,
    write_skill,
)

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogSession

CATALOG = "skill-catalog"  # who installed what the catalog's lock records


@dataclass(frozen=True, slots=True)
class Place:
    """A skills folder to install into, the agents that read it, and its lock."""

    folder: Path
    agents: tuple[str, ...]
    project: Path | None = None  # the project whose lock records it; None: the user's

    @property
    def lock_path(self) -> Path:
        return project_lock_path(self.project) if self.project else user_lock_path()

    @property
    def lock_folder(self) -> str:
        """The folder as its lock writes it: relative to the project, or absolute."""
        if self.project is not None:
            return self.folder.relative_to(self.project).as_posix()
        return str(self.folder)


@dataclass(slots=True)
class Done:
    """What an install wrote: each target folder, and the backups of replaced folders."""

    written: list[Path] = field(default_factory=list)
    backups: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


async def approved_bytes(
    session: CatalogSession, skill: Skill
) -> tuple[ApprovalState, list[FileToWrite]]:
    """The approved files of ``skill``, checked against its approval; :class:`InstallError`
    saying why when it may not be installed or a file cannot be had as approved."""
    bad = safe_folder_name(skill.name)
    if bad is not None:
        raise InstallError(bad)
    states = await session.approvals.states([skill])
    state = states.get(skill.id)
    if state is None:
        raise InstallError("its approval could not be read")
    why = refusal(skill, state.state, state.reason)
    if why is not None:
        raise InstallError(why)
    record = state.record
    assert record is not None  # approved: a record binds its files
    relative = dict(zip((f.uri for f in skill.files), relative_files(skill), strict=True))
    out: list[FileToWrite] = []
    for f in sorted(skill.files, key=lambda f: f.uri):
        data = session.approved_copy(state, f)
        if data is None:
            result = await session.read(skill, f.uri)
            data = result.data if result.verified else None
            if data is None:
                raise InstallError(f"{f.uri} could not be read as approved: {result.message}")
        if "sha256:" + sha256_hex(data) != f.digest or len(data) != f.size:
            raise InstallError(f"{f.uri} is not the approved file")
        path = relative[f.uri].uri
        out.append(FileToWrite(path, data, executable=is_script(path) and record.grants.scripts))
    return state, out


def lock_entry(
    skill: Skill, state: ApprovalState, place: Place, files: Sequence[FileToWrite], at: str
) -> LockEntry:
    record = state.record
    assert record is not None
    key = ApprovalKey.for_skill(skill)
    source = {
        "label": skill.origin.label,
        "kind": skill.origin.kind,
        "transport": skill.origin.transport,
        "endpoint": skill.origin.shown_endpoint,
        "approval": key.storage_name,
    }
    return LockEntry(
        name=skill.name,
        agent=", ".join(place.agents),
        folder=place.lock_folder,
        source=source,
        uri=skill.uri,
        files=tuple(LockFile(f.path, len(f.data), sha256_hex(f.data)) for f in files),
        set_hash=record.set_hash,
        approved_by=record.approved_by,
        approved_at=record.approved_at,
        installed_at=at,
        scripts=record.grants.scripts,
        provenance=dict(skill.provenance),
    )


def _check_target(place: Place, name: str, entries: Iterable[LockEntry], ours: str) -> bool:
    """Whether the target folder holds this very skill installed by the catalog (then it
    may be replaced); :class:`InstallError` when the name collides with another folder."""
    folder = place.folder
    existing = [c.name for c in folder.iterdir()] if folder.is_dir() else []
    clash = name_clash(name, existing)
    managed = {e.name: e for e in entries if e.folder == place.lock_folder}
    if clash is not None:
        raise InstallError(
            f"{folder / name} would collide with {folder / clash}: the names differ only in "
            "case or Unicode form"
        )
    if name not in existing:
        return False
    entry = managed.get(name)
    return entry is not None and entry.source.get("approval") == ours


@dataclass(frozen=True, slots=True)
class Prepared:
    """A skill ready to install: its approval and its approved files."""

    skill: Skill
    state: ApprovalState
    files: tuple[FileToWrite, ...]


def install(
    batch: Sequence[Prepared], places: Sequence[Place], *, at: str, replace: bool = False
) -> Done:
    """Write every skill of ``batch`` into every place and record each in its lock (one
    write of each lock for the batch, under its file lock).

    A folder of the same name is replaced only when the catalog installed this same
    skill there, or with ``replace`` (moved aside as a backup first). A skill that
    cannot be written is said in :attr:`Done.failed`; the others are still installed."""
    done = Done()
    for place in places:

        def change(entries: list[LockEntry], place: Place = place) -> list[LockEntry]:
            for item in batch:
                skill = item.skill
                entry = lock_entry(skill, item.state, place, item.files, at)
                target = place.folder / skill.name
                blocked = team_blocks(place, skill)
                if blocked:
                    done.failed.append((target, blocked))
                    continue
                try:
                    ours = ApprovalKey.for_skill(skill).storage_name
                    same = _check_target(place, skill.name, entries, ours)
                    if same and folder_digests(target) == {f.path: f.sha256 for f in entry.files}:
                        done.unchanged.append(target)
                    else:
                        backup = write_skill(
                            place.folder, skill.name, item.files, replace=same or replace
                        )
                        if backup is not None and not same:
                            done.backups.append(backup)
                        elif backup is not None:
                            remove_skill(backup)  # our own earlier install: nothing to keep
                        done.written.append(target)
                except (InstallError, OSError) as exc:
                    done.failed.append((target, str(exc)))
                    continue
                entries = merged(entries, entry)
            return entries

        update_lock(place.lock_path, change)
    return done


def team_blocks(place: Place, skill: Skill) -> str:
    """Why a project's team does not let ``skill`` in: a signed rejection of its bytes."""
    if place.project is None:
        return ""
    from desktop.core.review_record import skill_files
    from desktop.sources.team_reviews import team_rejection

    return team_rejection(place.project, skill.name, skill_files(skill))


def locked_files(entry: LockEntry, skill: Skill) -> list[tuple[str, str]]:
    """Pairs (path, uri) of ``skill``'s files that a lock's ``entry`` names; raises
    :class:`InstallError` when the skill's files are not the lock's."""
    relative = dict(zip((f.uri for f in relative_files(skill)), skill.files, strict=True))
    listed = {p: f for p, f in relative.items()}
    want = {f.path: f for f in entry.files}
    if set(listed) != set(want):
        missing = sorted(set(want) - set(listed))
        extra = sorted(set(listed) - set(want))
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append("not in the lock: " + ", ".join(extra))
        raise InstallError(
            f"{entry.name}: the source's files are not the lock's ({'; '.join(parts)})"
        )
    for path, f in listed.items():
        if f.digest != "sha256:" + want[path].sha256:
            raise InstallError(f"{entry.name}: {path} is not the file the lock records")
    return [(p, f.uri) for p, f in sorted(listed.items())]


async def bytes_for_lock(
    session: CatalogSession, skill: Skill, entry: LockEntry
) -> list[FileToWrite]:
    """The files ``entry`` records, read from ``skill`` and checked against the lock."""
    out = []
    want = {f.path: f for f in entry.files}
    for path, uri in locked_files(entry, skill):
        result = await session.read(skill, uri)
        if not result.verified or result.data is None:
            raise InstallError(f"{entry.name}: {path} could not be read: {result.message}")
        if sha256_hex(result.data) != want[path].sha256:
            raise InstallError(f"{entry.name}: {path} is not the file the lock records")
        out.append(FileToWrite(path, result.data, is_script(path) and entry.scripts))
    return out


def install_locked(
    entry: LockEntry, files: Sequence[FileToWrite], project: Path, *, at: str
) -> Path:
    """Write a lock's entry into ``project`` (the lock itself is left as it is)."""
    folder = project / entry.folder
    target = folder / entry.name
    if target.exists():
        if folder_digests(target) == {f.path: f.sha256 for f in entry.files}:
            return target
        raise InstallError(f"{target} exists and holds other files")
    existing = [c.name for c in folder.iterdir()] if folder.is_dir() else []
    clash = name_clash(entry.name, existing)
    if clash is not None:
        raise InstallError(f"{target} would collide with {folder / clash}")
    write_skill(folder, entry.name, files)
    return target


@dataclass(frozen=True, slots=True)
class Approvals:
    """The stored decisions by storage name: (approved?, the digest set it binds)."""

    by_name: Mapping[str, tuple[bool, str]]

    def of(self, name: str) -> tuple[str | None, str | None]:
        from desktop.core.approval_states import APPROVED, NOT_APPROVED

        found = self.by_name.get(name)
        if found is None:
            return None, None
        return (APPROVED if found[0] else NOT_APPROVED), found[1]


async def stored_approvals(session: CatalogSession) -> Approvals:
    records = await session.approvals.records()
    out: dict[str, tuple[bool, str]] = {}
    for stored in records:
        if stored.record is not None:
            out[stored.entry.name] = (not stored.record.rejected, stored.record.set_hash)
    return Approvals(out)


def published_sets(skills: Iterable[Skill]) -> dict[str, str]:
    """Storage name of each skill's approval key → the digest set its source lists now."""
    out: dict[str, str] = {}
    for skill in skills:
        if not isinstance(skill.resources, tuple):
            continue
        try:
            out[ApprovalKey.for_skill(skill).storage_name] = file_set_hash(skill.files)
        except Exception:  # noqa: BLE001 - a skill with no key is not one installed
            continue
    return out


def _managed(
    entry: LockEntry,
    path: Path,
    agent: str,
    approvals: Approvals,
    published: Mapping[str, str],
) -> InstalledSkill:
    """The state of a skill the catalog installed, its files now at ``path``."""
    try:
        disk = folder_digests(path)
    except (InstallError, OSError) as exc:
        return InstalledSkill(
            entry.name, agent, str(path), Installed.DRIFTED, CATALOG, (), str(exc), entry.enabled
        )
    key = entry.source.get("approval", "")
    approval, approved_set = approvals.of(key)
    state, changed = installed_state(entry, disk, approval, approved_set, published.get(key))
    return InstalledSkill(
        entry.name, agent, str(path), state, CATALOG, changed, enabled=entry.enabled
    )


def _unmanaged(child: Path, agent: str, other_records: Mapping[str, str]) -> InstalledSkill:
    from desktop.core.frontmatter import parse_frontmatter_text, split_frontmatter

    by = other_records.get(child.name, "")
    if not by:
        try:
            text = (child / "SKILL.md").read_text("utf-8", errors="replace")[:65536]
            fm, _ = parse_frontmatter_text(split_frontmatter(text)[0] or "")
            by = other_tool(fm)
        except (OSError, ValueError):  # an unreadable file says nothing of who wrote it
            by = ""
    return InstalledSkill(child.name, agent, str(child), Installed.UNMANAGED, by)


def installed_in(
    folders: Sequence[tuple[Path, tuple[str, ...], Path | None]],
    approvals: Approvals,
    published: Mapping[str, str],
    other_records: Mapping[str, str],
) -> list[InstalledSkill]:
    """Every skill in ``folders`` (folder, agents, project or None) with its state, and
    the ones the catalog keeps disabled for them."""
    locks: dict[Path, list[LockEntry]] = {}
    out: list[InstalledSkill] = []
    for folder, agents, project in folders:
        lock_path = project_lock_path(project) if project else user_lock_path()
        if lock_path not in locks:
            try:
                locks[lock_path] = read_lock(lock_path)
            except InstallError:
                locks[lock_path] = []
        place = Place(folder, agents, project)
        entries = {e.name: e for e in locks[lock_path] if e.folder == place.lock_folder}
        agent = ", ".join(agents)
        for kept in entries.values():
            if not kept.enabled:
                out.append(
                    _managed(kept, kept_folder(folder, kept.name), agent, approvals, published)
                )
        if not folder.is_dir():
            continue
        for child in sorted(folder.iterdir(), key=lambda p: p.name):
            if child.name.startswith(".") or not (child / "SKILL.md").is_file():
                continue
            found = entries.get(child.name)
            if found is None or not found.enabled:
                out.append(_unmanaged(child, agent, other_records))
            else:
                out.append(_managed(found, child, agent, approvals, published))
    return out


def set_enabled(place: Place, name: str, enabled: bool) -> Path:
    """Move the skill ``name`` the catalog installed in ``place`` out of the agents'
    sight into the catalog's keeping (``enabled`` false), or back; where it is now."""
    target = place.folder / name
    kept = kept_folder(place.folder, name)
    moved: list[Path] = []

    def change(entries: list[LockEntry]) -> list[LockEntry]:
        entry = next((e for e in entries if e.folder == place.lock_folder and e.name == name), None)
        if entry is None:
            raise InstallError(f"{target} was not installed by the catalog")
        if entry.enabled == enabled:
            moved.append(target if enabled else kept)
            return entries
        if enabled:
            if target.exists():
                raise InstallError(f"{target} exists: move it away first")
            move_folder(kept, target)
            moved.append(target)
        else:
            move_folder(target, kept)
            moved.append(kept)
        return merged(entries, replace(entry, enabled=enabled))

    update_lock(place.lock_path, change)
    return moved[0]


def adopt(skill: Skill, state: ApprovalState, place: Place, *, at: str) -> LockEntry:
    """Record the skill found at ``place.folder/skill.name``, not installed by the
    catalog, as installed by it: it must be approved as it is, in that folder."""
    why = refusal(skill, state.state, state.reason)
    if why is not None:
        raise InstallError(why)
    target = place.folder / skill.name
    if Path(skill.path or "") != target.resolve():
        raise InstallError(f"{skill.path} is not {target}")
    disk = folder_digests(target)
    listed = {f.uri: f for f in relative_files(skill)}
    if set(disk) != set(listed) or any("sha256:" + disk[p] != f.digest for p, f in listed.items()):
        raise InstallError(f"{target} holds other files than the ones approved")
    files = tuple(LockFile(p, f.size, disk[p]) for p, f in sorted(listed.items()))
    entry = replace(lock_entry(skill, state, place, (), at), files=files)

    def change(entries: list[LockEntry]) -> list[LockEntry]:
        if any(e.folder == place.lock_folder and e.name == skill.name for e in entries):
            raise InstallError(f"{target} is already installed by the catalog")
        return merged(entries, entry)

    update_lock(place.lock_path, change)
    return entry


def uninstall(place: Place, name: str, *, force: bool = False) -> tuple[str, ...]:
    """Remove the skill ``name`` the catalog installed in ``place`` and its lock entry;
    the files that had drifted (removed only with ``force``)."""
    target = place.folder / name
    drifted: tuple[str, ...] = ()

    def change(entries: list[LockEntry]) -> list[LockEntry]:
        nonlocal drifted
        entry = next((e for e in entries if e.folder == place.lock_folder and e.name == name), None)
        if entry is None:
            raise InstallError(f"{target} was not installed by the catalog: it is left as it is")
        if target.exists():
            from desktop.core.install import drifted_files

            drifted = drifted_files(entry, folder_digests(target))
            if drifted and not force:
                raise InstallError(
                    f"{target} changed since it was installed ({', '.join(drifted)}): "
                    "pass --force to remove it anyway"
                )
            remove_skill(target)
        return [e for e in entries if e is not entry]

    update_lock(place.lock_path, change)
    return drifted


def same_folder_name(a: str, b: str) -> bool:
    return folded(a) == folded(b)

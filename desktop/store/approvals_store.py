"""Approvals kept in the OS keyring, with an index of what is stored.

One keyring value per approved skill, named by a digest of its
:class:`~desktop.core.approvals.ApprovalKey`, plus an ``index`` value listing the
stored keys (a keyring cannot enumerate). All methods block on the keyring and may
be called from any worker thread; each is bounded by the store's ``timeout``.

For the window (all blocking; run them on a worker thread, e.g. ``asyncio.to_thread``):
``store.states(skills) -> {id: ApprovalState}`` (never raises), ``store.state(skill)``,
``store.approve(skill, grant_tools=[...], allow_scripts=False) -> ApprovalRecord``,
``store.revoke(skill.id, key=ApprovalKey.for_skill(skill))``, ``store.records()``;
``ApprovalState.diff`` holds a ``changed`` skill's added/removed/changed files, and
``ApprovalState.tool_granted(name)`` / ``.scripts_allowed`` are the gates.
Write calls raise :class:`~desktop.core.approvals.ApprovalError` with ``.message``.

An approval stored by a version before the server key (up to 3f4c5c9: its key had
no transport and its endpoint was not normalized) is found by
:meth:`~desktop.core.approvals.ApprovalKey.legacy_for_identity` when its skill's state
is asked for and nothing is stored under the new key, and moved under the new key:
the same record (its files, digests, grants, who and when) with the new key, the
index entry with it, the approved copies in the cache renamed with it. A record whose
transport is not the skill's is not moved: it was another server's.

Failures never delete or rewrite what is stored: a record that cannot be read
(unparseable, or altered so that its own hash no longer matches its files) makes
its skill ``not-approved`` with the reason, and stays as it is until the reviewer
approves again or revokes it.

Kept as one module: the one writer of approval records: reading, writing, the index,
moving records from older keys and checking them share the record format and the lock
that keeps two processes from losing a record.
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from desktop.core.approvals import (
    FORMAT_VERSION,
    NOT_APPROVED,
    ApprovalError,
    ApprovalKey,
    ApprovalRecord,
    ApprovalState,
    bind,
    make_record,
    make_rejection,
    unapprovable_reason,
)
from desktop.core.identity import Identity, qualified_name
from desktop.core.model import Skill
from desktop.core.words import count
from desktop.store.approvals_keyring import (
    Deadline,
    KeyringBlobs,
    backend_name,
    choose_backend,
    default_service,
    default_timeout,
    run_bounded,
)
from desktop.store.cache import SkillCache

INDEX_NAME = "index"
INDEX_KIND = "skill-approval-index"
# Errors of the keyring as a whole (as opposed to one damaged record).
KEYRING_FAILURES = frozenset(
    {"no-backend", "refused-backend", "locked", "timeout", "keyring-error", "busy"}
)

T = TypeVar("T")

# Index read-modify-write is serialized: between this process's threads by this lock,
# between processes (two commands, a command and the window) by a lock file.
_INDEX_LOCK = threading.Lock()
_FILE_LOCKS: dict[str, Any] = {}


@contextlib.contextmanager
def _writing(service: str, timeout: float) -> Iterator[None]:
    """Hold the approvals of ``service`` for one read-modify-write.

    The index lists every stored approval; two writers each reading it, adding their
    own and writing it back would drop one of the two (and two writers of one chunked
    record would interleave its chunks). Where no lock file can be made (a read-only
    home), only this process's writers are serialized.
    """
    # Half the keyring's deadline: a wait for another writer ends, and says so, before
    # the whole operation is given up as a keyring that did not answer.
    wait = timeout / 2
    if not _INDEX_LOCK.acquire(timeout=wait):
        raise _busy(wait, "another task of this program")
    try:
        lock = _file_lock(service)
        if lock is None:
            yield
            return
        import filelock

        try:
            lock.acquire(timeout=wait)
        except filelock.Timeout:
            raise _busy(wait, f"another Skill Catalog (lock file {lock.lock_file})") from None
        except OSError:  # the lock file cannot be opened: this process's lock only
            yield
            return
        try:
            yield
        finally:
            lock.release()
    finally:
        _INDEX_LOCK.release()


def _busy(waited: float, who: str) -> ApprovalError:
    return ApprovalError(
        "busy", f"{who} has been changing approvals for {waited:g} s; nothing was changed"
    )


def _file_lock(service: str) -> Any:
    """The lock file of ``service``'s approvals (one per service), or ``None``."""
    known = _FILE_LOCKS.get(service)
    if known is not None:
        return known
    import filelock
    import platformdirs

    try:
        folder = platformdirs.user_state_path("skill-catalog")
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        digest = hashlib.sha256(service.encode("utf-8")).hexdigest()[:16]
        lock = filelock.FileLock(str(folder / f"approvals-{digest}.lock"), mode=0o600)
    except (OSError, ValueError):
        return None
    _FILE_LOCKS[service] = lock
    return lock


def current_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no USER/LOGNAME and no passwd entry
        return os.environ.get("USERNAME") or "unknown"


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """What the index says about one stored approval."""

    name: str
    key: ApprovalKey
    skill_id: str
    skill_name: str
    approved_at: str
    qualified_name: str = ""  # as `list` showed it when approved ("" in older entries)

    @classmethod
    def of(cls, record: ApprovalRecord, qualified_name: str = "") -> IndexEntry:
        """The entry listing ``record``."""
        return cls(
            record.key.storage_name,
            record.key,
            record.skill_id,
            record.name,
            record.approved_at,
            qualified_name,
        )

    def named(self, target: str) -> bool:
        """Whether ``target`` is the name ``list`` showed: the qualified name recorded
        at approval, or the label and the skill's name."""
        if self.qualified_name and target == self.qualified_name:
            return True
        if not self.skill_name:
            return False
        if not self.qualified_name and self.key.kind == "local" and target == self.skill_name:
            # An entry rebuilt from its record (or written by an older version) does not
            # know the name `list` showed; a local skill's is its bare name.
            return True
        try:
            label = Identity.parse(self.skill_id).label
        except ValueError:
            return False
        return target == qualified_name(label, self.skill_name)

    def matches(self, target: str) -> bool:
        if target in (self.name, self.skill_id):
            return True
        return target == self.key.skill_id

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "identity": self.key.to_json(),
            "skill_id": self.skill_id,
            "skill_name": self.skill_name,
            "approved_at": self.approved_at,
        }
        if self.qualified_name:
            out["qualified_name"] = self.qualified_name
        return out

    @classmethod
    def from_json(cls, data: Any) -> IndexEntry:
        if not isinstance(data, dict):
            raise TypeError("index entry is not an object")
        key = ApprovalKey.from_json(data.get("identity"))
        fields = [data.get(k) for k in ("name", "skill_id", "skill_name", "approved_at")]
        if not all(isinstance(f, str) for f in fields):
            raise ValueError("index entry fields must be strings")
        shown = data.get("qualified_name", "")
        if not isinstance(shown, str):
            raise TypeError("index entry fields must be strings")
        return cls(fields[0], key, fields[1], fields[2], fields[3], shown)  # type: ignore[arg-type]


@dataclass(slots=True)
class StoredApproval:
    """One index entry with its record, or the problem that kept it from being read."""

    entry: IndexEntry
    record: ApprovalRecord | None = None
    problem: ApprovalError | None = None
    chunks: int = 0

    def to_json(self) -> dict[str, Any]:
        if self.record is not None:
            out = self.record.to_json()
        else:
            out = {"identity": self.entry.key.to_json(), "skill_id": self.entry.skill_id}
        out["identity"] = self.entry.key.shown_json()  # output, not storage: masked
        out["name"] = self.entry.skill_name if self.record is None else self.record.name
        out["storage_name"] = self.entry.name
        if self.problem is not None:
            out["error"] = self.problem.to_json()
        return out


def _entry_of(name: str, value: Any) -> IndexEntry | None:
    """The index entry of a stored record found by listing the keyring. A damaged record
    (altered, or of a format not known) is listed too when it names its key, so that it
    keeps showing with its problem; ``None`` when it names none, or another."""
    try:
        entry = IndexEntry.of(ApprovalRecord.from_json(value))
    except ApprovalError:
        try:
            key = ApprovalKey.from_json(value.get("identity"))
        except (AttributeError, TypeError, ValueError):
            return None
        fields = (str(value.get(k) or "") for k in ("skill_id", "name", "approved_at"))
        entry = IndexEntry(key.storage_name, key, *fields)
    return entry if entry.name == name else None


def _parse_index(value: Any) -> list[IndexEntry]:
    try:
        if not isinstance(value, dict) or value.get("kind") != INDEX_KIND:
            raise ValueError("not an approvals index")
        if value.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown index format {value.get('format')!r}")
        return [IndexEntry.from_json(e) for e in value["entries"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise ApprovalError(
            "index-unreadable",
            f"the index of stored approvals cannot be read ({exc}); it was left as it is",
        ) from exc


class ApprovalStore:
    """Approvals in one keyring service (default ``skill-catalog-approvals``)."""

    def __init__(
        self,
        service: str | None = None,
        *,
        backend: Any = None,
        timeout: float | None = None,
        cache: SkillCache | None = None,
    ) -> None:
        self.service = service or default_service()
        self._backend = backend
        # Where the approved copies are kept (renamed when a record is moved).
        self.cache = cache
        self.timeout = timeout if timeout is not None else default_timeout()
        # What the store did beyond what was asked (an index rebuilt), for the caller to say.
        self.notices: list[str] = []

    # -- plumbing ---------------------------------------------------------

    def backend(self) -> Any:
        """The OS keyring backend in use; raises :class:`ApprovalError` if there is none."""
        return choose_backend(self._backend)

    def backend_name(self) -> str:
        return backend_name(self.backend())

    def _run(self, fn: Callable[[KeyringBlobs], T]) -> T:
        """Run ``fn`` on a worker thread, bounded; choosing the backend (which may start
        the Secret Service over D-Bus) is bounded too."""

        def work(deadline: Deadline) -> T:
            return fn(KeyringBlobs(self.backend(), self.service, deadline))

        return run_bounded(work, self.timeout)

    @staticmethod
    def _read_index(blobs: KeyringBlobs) -> list[IndexEntry] | None:
        value = blobs.read(INDEX_NAME)
        return None if value is None else _parse_index(value)

    @staticmethod
    def _write_index(blobs: KeyringBlobs, entries: list[IndexEntry]) -> None:
        entries = sorted(entries, key=lambda e: (e.key, e.name))
        blobs.write(
            INDEX_NAME,
            {
                "format": FORMAT_VERSION,
                "kind": INDEX_KIND,
                "entries": [e.to_json() for e in entries],
            },
        )

    @staticmethod
    def _read_record(blobs: KeyringBlobs, key: ApprovalKey) -> ApprovalRecord | None:
        value = blobs.read(key.storage_name)
        if value is None:
            return None
        record = ApprovalRecord.from_json(value)
        if record.key != key:
            raise ApprovalError(
                "tampered",
                f"the stored approval for {key.describe()} names {record.key.describe()} "
                "(it was altered or copied outside Skill Catalog)",
            )
        return record

    def _index_for_writing(self, blobs: KeyringBlobs) -> list[IndexEntry]:
        """The index, for a change to it (under :func:`_writing`). When it is missing or
        cannot be read, it is first rebuilt from the records in the keyring where the
        backend can list them; a new index holding only the change would hide every
        other approval. Elsewhere a missing index starts empty (the approvals of
        skills listed later are found again by their keys), and an unreadable one is
        left alone with a message saying how to start a new one."""
        try:
            entries = self._read_index(blobs)
        except ApprovalError as exc:
            if exc.code in KEYRING_FAILURES:
                raise
            rebuilt = self._rebuilt_index(blobs, force=True)
            if rebuilt is None:
                raise ApprovalError(
                    exc.code,
                    f"{exc.message}. To start a new index, delete the keyring entry "
                    f"'{INDEX_NAME}' of service {self.service}: the approvals of the "
                    "skills listed next are found again by their keys",
                ) from exc
            return rebuilt
        if entries is not None:
            return entries
        return self._rebuilt_index(blobs) or []

    def _rebuilt_index(
        self, blobs: KeyringBlobs, *, force: bool = False
    ) -> list[IndexEntry] | None:
        """Rebuild the index from every record the backend can list, and store it;
        ``None`` when it cannot list them. Under :func:`_writing`: another process may
        have written an index meanwhile, which is then kept (unless ``force``: the one
        there cannot be read)."""
        if not force:
            with contextlib.suppress(ApprovalError):
                current = self._read_index(blobs)
                if current is not None:
                    return current
        names = blobs.names()
        if names is None:
            return None
        if not force and not any(n != INDEX_NAME for n in names):
            return []  # nothing was ever approved here: no index to write yet
        rebuilt: list[IndexEntry] = []
        for name in names:
            if name == INDEX_NAME or "." in name:  # the index, or a chunk of a record
                continue
            try:
                value = blobs.read(name)
            except ApprovalError as exc:
                if exc.code in KEYRING_FAILURES:
                    raise
                continue  # not even readable: it names no key to list it under
            entry = _entry_of(name, value) if value is not None else None
            if entry is not None:
                rebuilt.append(entry)
        self._write_index(blobs, rebuilt)
        self.notices.append(
            f"the index of stored approvals was missing or could not be read; it was "
            f"rebuilt from the {count(len(rebuilt), 'approval')} in the keyring"
        )
        return rebuilt

    # -- writing ----------------------------------------------------------

    def approve(
        self,
        skill: Skill,
        *,
        grant_tools: Iterable[str] = (),
        allow_scripts: bool = False,
        files_read: bool = False,
        despite_problems: bool = False,
        who: str | None = None,
        when: str | None = None,
    ) -> ApprovalRecord:
        """Approve ``skill`` exactly as listed now (no file is read here).

        ``files_read`` is the caller's word that it read and verified every file of
        this entry; ``despite_problems`` approves a skill with errors (recorded)."""
        record = make_record(
            skill,
            grant_tools=tuple(grant_tools),
            allow_scripts=allow_scripts,
            approved_at=when or now_utc(),
            approved_by=who or current_user(),
            files_read=files_read,
            despite_problems=despite_problems,
        )
        return self._store(record, skill)

    def reject(
        self,
        skill: Skill,
        *,
        reason: str = "",
        files_read: bool = False,
        who: str | None = None,
        when: str | None = None,
    ) -> ApprovalRecord:
        """Record a rejection of ``skill`` as listed now; it replaces an approval."""
        record = make_rejection(
            skill,
            reason=reason,
            rejected_at=when or now_utc(),
            rejected_by=who or current_user(),
            files_read=files_read,
        )
        return self._store(record, skill)

    def _store(self, record: ApprovalRecord, skill: Skill) -> ApprovalRecord:
        """Write ``record`` in place of the skill's decision, and list it in the index."""
        entry = IndexEntry.of(record, skill.qualified_name)

        def work(blobs: KeyringBlobs) -> ApprovalRecord:
            with _writing(self.service, self.timeout):
                entries = self._index_for_writing(blobs)
                blobs.write(entry.name, record.to_json())
                # An older version's record of the same skill is replaced by this one.
                legacy = self._legacy_entries(blobs, entries, record.key)
                self._drop_legacy(blobs, legacy)
                gone = {entry.name, *(e.name for e in legacy)}
                others = [e for e in entries if e.name not in gone]
                self._write_index(blobs, [*others, entry])
            return record

        return self._run(work)

    def revoke(
        self,
        target: str,
        *,
        key: ApprovalKey | None = None,
        damaged: dict[str, str] | None = None,
    ) -> list[IndexEntry]:
        """Remove the approvals matching ``target`` (a skill id, storage name or local path).

        With ``key`` (resolved from a catalog), that exact approval alone is removed, even
        if the index lost track of it. Returns what was removed. ``damaged``, when given,
        is filled with the storage name and the reason of each removed record the index
        listed that could not be used (it is read once, just before it goes).
        """

        def work(blobs: KeyringBlobs) -> list[IndexEntry]:
            with _writing(self.service, self.timeout):
                try:
                    entries = self._index_for_writing(blobs)
                    index_ok = True
                except ApprovalError as exc:
                    if key is None or exc.code in KEYRING_FAILURES:
                        raise
                    entries, index_ok = [], False
                # With a key (the sources were given) only that approval goes: the same
                # label and URI approved at another endpoint is another approval.
                gone = [e for e in entries if (e.key == key if key else e.matches(target))]
                if key is not None:  # and what an older version stored for it
                    gone += self._legacy_entries(blobs, entries, key)
                if not gone and key is None:
                    gone = [e for e in entries if e.named(target)]
                    skills = sorted({e.skill_id for e in gone})
                    if len(skills) > 1:
                        raise ApprovalError(
                            "ambiguous",
                            f"{target!r} names {len(skills)} approved skills; give one id: "
                            + ", ".join(skills[:5]),
                        )
                for e in gone:
                    if damaged is not None:
                        _, problem = self._read_entry(blobs, e)
                        if problem is not None:
                            damaged[e.name] = problem.message
                    blobs.delete(e.name)
                if key is not None and not gone and blobs.delete(key.storage_name):
                    gone.append(IndexEntry(key.storage_name, key, target, "", ""))
                if gone and index_ok:
                    names = {e.name for e in gone}
                    self._write_index(blobs, [e for e in entries if e.name not in names])
                return gone

        return self._run(work)

    # -- reading ----------------------------------------------------------

    def records(self) -> list[StoredApproval]:
        """Every stored approval, each with its record or the problem reading it."""

        def work(blobs: KeyringBlobs) -> list[StoredApproval]:
            try:
                entries = self._read_index(blobs)
            except ApprovalError as exc:
                if exc.code in KEYRING_FAILURES:
                    raise
                entries = None
            if entries is None:
                with _writing(self.service, self.timeout):
                    entries = self._index_for_writing(blobs)
            read = blobs.map(lambda e: self._read_entry(blobs, e), entries)
            return [StoredApproval(e, *found) for e, found in zip(entries, read, strict=True)]

        return self._run(work)

    @classmethod
    def _read_entry(
        cls, blobs: KeyringBlobs, entry: IndexEntry
    ) -> tuple[ApprovalRecord | None, ApprovalError | None]:
        """The record an index entry names, or the problem with it (one gone is one)."""
        record, problem = cls._try_read(blobs, entry.key)
        if record is None and problem is None:
            problem = ApprovalError(
                "missing", "the index lists this approval but its record is gone"
            )
        return record, problem

    @classmethod
    def _try_read(
        cls, blobs: KeyringBlobs, key: ApprovalKey
    ) -> tuple[ApprovalRecord | None, ApprovalError | None]:
        """A record, or the problem with it; a keyring that fails as a whole raises."""
        try:
            return cls._read_record(blobs, key), None
        except ApprovalError as exc:
            if exc.code in KEYRING_FAILURES:
                raise
            return None, exc

    def _reindex(self, blobs: KeyringBlobs, lookups: list[Any], read: list[Any]) -> None:
        """The index is gone (deleted by hand) but records were found for the skills at
        hand: list them again. Otherwise they would count while `approvals` showed none,
        and the next approval, writing a new index, would silently void them."""
        healed = [
            IndexEntry(key.storage_name, key, skill.id, record.name, record.approved_at)
            for (skill, key, _elsewhere), (record, problem) in zip(lookups, read, strict=True)
            if record is not None and problem is None
        ]
        if not healed:
            return
        with _writing(self.service, self.timeout):
            if self._read_index(blobs) is None:
                self._write_index(blobs, healed)

    def _legacy_entries(
        self, blobs: KeyringBlobs, entries: list[IndexEntry], key: ApprovalKey
    ) -> list[IndexEntry]:
        """The entries an older version stored for what ``key`` names (see
        :meth:`~desktop.core.approvals.ApprovalKey.moved_to`) whose record is of
        ``key``'s transport (or cannot be read to say): replaced or revoked with it."""
        out = []
        for e in entries:
            if e.key.moved_to(key):
                record, _ = self._try_read(blobs, e.key)
                if record is None or record.transport == key.transport:
                    out.append(e)
        return out

    def _drop_legacy(self, blobs: KeyringBlobs, gone: list[IndexEntry]) -> None:
        """Remove the records of older versions' entries ``gone`` and their kept copies."""
        cache = self.cache or SkillCache()
        for e in gone:
            blobs.delete(e.name)
            with contextlib.suppress(OSError, ValueError):
                cache.release_approved(e.name)

    def _move_legacy(
        self, blobs: KeyringBlobs, skill: Skill, key: ApprovalKey
    ) -> tuple[ApprovalRecord | None, ApprovalError | None] | None:
        """Move the record an older version stored for ``skill`` (under the key of
        :meth:`~desktop.core.approvals.ApprovalKey.legacy_for_identity`) under ``key``,
        keeping everything it binds; the record and its problem when one was there,
        ``None`` when there was none. A damaged one stays where it is, with its problem."""
        legacy = ApprovalKey.legacy_for_identity(skill.full_identity)
        if legacy is None or not legacy.moved_to(key):
            return None
        with _writing(self.service, self.timeout):
            record, problem = self._try_read(blobs, legacy)
            if record is None:
                return None if problem is None else (None, problem)
            if record.transport != key.transport:
                return None  # another server's, as the older key could not tell
            if self._try_read(blobs, key)[0] is not None:
                return None  # decided again since: the newer record stands
            moved = dataclasses.replace(record, key=key)
            entries = self._index_for_writing(blobs)
            shown = next((e.qualified_name for e in entries if e.key == legacy), "")
            blobs.write(key.storage_name, moved.to_json())
            others = [e for e in entries if e.key not in (legacy, key)]
            self._write_index(blobs, [*others, IndexEntry.of(moved, shown)])
            blobs.delete(legacy.storage_name)
            cache = self.cache or SkillCache()
            with contextlib.suppress(OSError, ValueError):
                cache.move_approved(legacy.storage_name, key.storage_name)
        self.notices.append(
            f"the approval of {skill.id} was stored by an earlier version; it was moved "
            "under the server's new key"
        )
        return moved, None

    def state(self, skill: Skill) -> ApprovalState:
        return self.states([skill])[skill.id]

    def states(self, skills: Iterable[Skill]) -> dict[str, ApprovalState]:
        """The approval state of each skill by id. Never raises: problems are in the states."""
        skills = list(skills)
        wanted = [s for s in skills if unapprovable_reason(s) is None]
        found: dict[str, ApprovalState] = {}

        def work(blobs: KeyringBlobs) -> None:
            unreadable = False
            try:
                entries = self._read_index(blobs)
            except ApprovalError as exc:
                if exc.code != "index-unreadable" and exc.code != "unparseable":
                    raise
                entries, unreadable = None, True
            if entries is None:
                with _writing(self.service, self.timeout):
                    rebuilt = self._rebuilt_index(blobs)
                if rebuilt is not None:
                    entries, unreadable = rebuilt, False
            stored = {e.key for e in entries} if entries is not None else None
            lookups: list[tuple[Skill, ApprovalKey, list[ApprovalKey]]] = []
            for skill in wanted:
                key = ApprovalKey.for_skill(skill)
                elsewhere = [
                    e.key
                    for e in entries or []
                    if key.kind == "mcp"
                    and e.key.kind == "mcp"
                    and (e.key.label, e.key.uri) == (key.label, key.uri)
                    and (e.key.transport, e.key.endpoint) != (key.transport, key.endpoint)
                    and not e.key.moved_to(key)
                ]
                if stored is not None and key not in stored:
                    legacy = ApprovalKey.legacy_for_identity(skill.full_identity)
                    moved = self._move_legacy(blobs, skill, key) if legacy in stored else None
                    record, problem = moved or (None, None)
                    found[skill.id] = bind(skill, record, problem=problem, elsewhere=elsewhere)
                else:
                    lookups.append((skill, key, elsewhere))
            read = blobs.map(lambda item: self._try_read(blobs, item[1]), lookups)
            for i, (skill, key, elsewhere) in enumerate(lookups):
                record, problem = read[i]
                if record is None and problem is None and key.kind == "mcp":
                    moved = self._move_legacy(blobs, skill, key)
                    if moved is not None:
                        record, problem = read[i] = moved
                found[skill.id] = bind(skill, record, problem=problem, elsewhere=elsewhere)
            if entries is None and not unreadable:
                self._reindex(blobs, lookups, read)

        problem: ApprovalError | None = None
        if wanted:
            try:
                self._run(work)
            except ApprovalError as exc:
                problem = exc
        out = {}
        for skill in skills:
            if skill.id in found:
                out[skill.id] = found[skill.id]
            elif problem is not None and unapprovable_reason(skill) is None:
                out[skill.id] = ApprovalState(NOT_APPROVED, problem=problem)
            else:
                out[skill.id] = bind(skill, None)
        return out


def approval_states(catalog: Any, store: ApprovalStore | None = None) -> dict[str, dict[str, Any]]:
    """``approval`` for each skill of a catalog, as JSON (for ``list --json``).

    When the keyring cannot be used, every approvable skill says ``not-approved``
    with the reason in ``error``; listing still works.
    """
    store = store or ApprovalStore()
    states = store.states(catalog.skills)
    return {skill_id: state.to_json() for skill_id, state in states.items()}

"""The catalog as the window and the command line hold it: one session, no Qt.

A session reads every enabled source as asyncio tasks (folder scans and hashing in
worker threads, servers listed on connections kept open for the reads that follow),
builds the catalog, lists servers again when their ``ttlMs`` is up, asks ``skills/get``
for skills opened by URI, makes verified reads and keeps their states per skill, lists
a server skill's folders, and keeps the approval state of every skill.

It reports what happens through :class:`SessionEvents` (plain calls, which the window
turns into Qt signals) and tells people what went right or wrong through a
:class:`Notices` (the window's notifier, or the terminal). A failure becomes a notice,
never an exception out of the session.

Kept as one module: the session's state: reads, re-listings, read states and approval
states change together, under one set of tasks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from desktop.core.catalog import Catalog, build_catalog
from desktop.core.catalog_summary import CatalogSummary, retry_words, summarize
from desktop.core.folder_changes import regions, replace_in, skill_dir
from desktop.core.freshness import (
    RELIST_FLOOR_SECONDS,
    ListingChanges,
    listing_changes,
    relist_delay,
)
from desktop.core.model import OPENED_BY_URI, Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.states import Severity, SourceState
from desktop.core.verify import MISMATCHES, FileVerification, SkillVerification, files_so_far
from desktop.core.words import count
from desktop.session import decisions
from desktop.session.approval_service import ApprovalService
from desktop.session.content_reader import ContentReader, ReadResult
from desktop.session.mcp_loading import load_mcp_support
from desktop.sources.folder import scan_regions
from desktop.sources.gather import SourceRead, read_all, read_source

if TYPE_CHECKING:
    import asyncio

    from desktop.core.approvals import ApprovalKey, ApprovalRecord, ApprovalState
    from desktop.core.trust import ProjectServer
    from desktop.session.decisions import Decision, Revocation

INTERIM_EVERY = 0.3  # seconds between partial catalogs while sources arrive
# Seconds the MCP client's import waits for the folders when the window reads its sources.
FOLDERS_FIRST = 0.25
AGAIN = "listing again at"  # the note a re-list leaves on its source

# What a server answered to skills/get (see CatalogSession.ask_skill).
ENTRY = "entry"  # the skill's entry
NOT_SERVED = "not-served"  # it serves no skill at that URI
NO_SKILLS_GET = "no-skills-get"  # it has no skills/get
FAILED = "failed"  # no answer about the skill: the server could not be asked


@dataclass(slots=True)
class Asked:
    """A server's answer to ``skills/get`` for one URI: the entry, or why none."""

    answer: str
    skill: Skill | None = None
    message: str = ""  # why there is no entry, in the server's or the connection's words
    connected: bool = True  # whether the server's connection is open after the question


class Notices(Protocol):
    """Where a session's messages for people go."""

    def error(self, text: str) -> object: ...

    def warning(self, text: str) -> object: ...

    def info(self, text: str) -> object: ...


class Silent:
    """Notices nobody reads: a command that prints what it found itself."""

    def error(self, text: str) -> None:
        """Dropped."""

    def warning(self, text: str) -> None:
        """Dropped."""

    def info(self, text: str) -> None:
        """Dropped."""


@dataclass(frozen=True, slots=True)
class CatalogChange:
    """What a new catalog is, told with it."""

    # A partial catalog while sources still read: those may hold skills it lacks.
    interim: bool = False
    # Read again after a change on disk: views keep their place in it.
    from_disk: bool = False


class SessionEvents:
    """What a session reports as it happens; each does nothing unless overridden."""

    def catalog_changed(self, change: CatalogChange) -> None:
        """A new catalog (or an interim one while sources are still read)."""

    def source_done(self, status: SourceStatus) -> None:
        """A source was read (or listed again, or its connection changed)."""

    def progress(self, done: int, total: int, what: str) -> None:
        """``done`` of ``total`` (0: idle) steps, and what is happening."""

    def busy_changed(self, busy: bool) -> None:
        """The session started work with none running, or finished all of it."""

    def verification_changed(self, skill_id: str) -> None:
        """A file of this skill was read, or one of its folders listed."""

    def approvals_changed(self) -> None:
        """Approval states were read again."""

    def skills_updated(self, skill_ids: list[str]) -> None:
        """These skills were read again after a change on disk, and nothing else changed
        (no skill came or went, no other skill's name or collisions): a view may update
        them where they are rather than start over."""


class CatalogSession:
    def __init__(
        self,
        notifier: Notices,
        *,
        events: SessionEvents | None = None,
        reader: ContentReader | None = None,
        approvals: ApprovalService | None = None,
        specs: Iterable[SourceSpec] = (),
        budgets: Any = None,
    ) -> None:
        self.notifier = notifier
        self.events = events or SessionEvents()
        self.reader = reader or ContentReader()
        self.reader.on_connection = self._connection_changed
        self.approvals = approvals or ApprovalService(cache=self.reader.cache)
        self.specs: list[SourceSpec] = list(specs)
        self.reader.set_specs(self.specs)
        self.budgets = budgets
        self.catalog = Catalog()
        self.files: dict[str, dict[str, FileVerification]] = {}
        # Folders listed with resources/directory/read, by skill id, with the entry they
        # were judged against (a new entry makes them stale).
        self._directories: dict[str, tuple[Skill, dict[str, list[Any]]]] = {}
        self.approval_states: dict[str, ApprovalState] = {}
        # The last status told of each source, by label: pending while it is read. The
        # one state of a source every view reads (see summary()).
        self.statuses: dict[str, SourceStatus] = {}
        self._said_errors: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._discovery: asyncio.Task[Any] | None = None
        self._busy = 0
        self._approval_problems: set[str] = set()  # keyring failures already said
        self.closing = False  # set as the window closes: cancelled work starts nothing new
        # Servers re-listed when their ttlMs is up, no more often than the floor.
        self.relist_floor = RELIST_FLOOR_SECONDS
        self._relists: dict[str, tuple[asyncio.Handle, float]] = {}  # label: (timer, due)
        self._generation = 0  # one per full discovery; a late re-list of an older one is dropped

    def _told(self, status: SourceStatus) -> None:
        """A source's new status: kept as its one state, and told."""
        self.statuses[status.origin.label] = status
        self.events.source_done(status)

    def _reading(self, specs: Iterable[SourceSpec]) -> None:
        """These sources are being read: each is pending until its status comes."""
        for spec in specs:
            self._told(SourceStatus(spec.origin, SourceState.PENDING))

    def summary(self) -> CatalogSummary:
        """The sources read, failed and still reading, and the skills shown: the one
        value every view counts from."""
        return summarize(self.specs, self.statuses, self.catalog.skills)

    def _connection_changed(self, status: SourceStatus) -> None:
        """A kept server connection was given up between operations (a server exiting
        or flooding it): say so, the next read connects again; or it is open again: the
        source shows what its listing found once more."""
        if status.status == SourceState.FAILED:
            self.notifier.warning(f"{status.origin.label}: {status.message}")
        else:
            self.notifier.info(f"{status.origin.label}: connected again")
        self._told(status)

    # -- tasks ---------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str = "") -> asyncio.Task[Any]:
        """Run ``coro`` as a task; its failure is a notice, never an escaped exception."""
        import asyncio

        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        self._set_busy(+1)
        if what:
            self.events.progress(0, 0, what + "…")

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            self._set_busy(-1)
            if t.cancelled():
                return
            exc = t.exception()
            if exc is not None:
                self.notifier.error(f"{what or 'work'} failed: {exc}")

        task.add_done_callback(done)
        return task

    def _set_busy(self, delta: int) -> None:
        was = self._busy > 0
        self._busy += delta
        if was != (self._busy > 0):
            self.events.busy_changed(self._busy > 0)
            if self._busy == 0:
                self.events.progress(0, 0, "")

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def cancel(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            self.notifier.info(f"cancelled {len(tasks)} running task(s)")

    async def wait_idle(self) -> None:
        """Wait until every task but the caller's own has finished."""
        import asyncio

        me = asyncio.current_task()
        while others := [t for t in self._tasks if t is not me]:
            await asyncio.gather(*others, return_exceptions=True)

    # -- discovery -----------------------------------------------------------

    def set_specs(self, specs: Iterable[SourceSpec]) -> None:
        self.specs = list(specs)
        self.reader.set_specs(self.specs)
        labels = {s.label for s in self.specs}
        self.statuses = {k: v for k, v in self.statuses.items() if k in labels}

    def refresh(self, read: Mapping[str, SourceRead] | None = None) -> asyncio.Task[Any]:
        """Read the sources again (as a task; returns it at once). ``read`` holds
        folders read a moment ago by label, such as the window's first look: they are
        taken as they are, not read again."""
        if self._discovery is not None and not self._discovery.done():
            self._discovery.cancel()
        self.stop_relisting()
        self._generation += 1
        self._discovery = self.spawn(self._discover(read), "reading sources")
        return self._discovery

    def show_partial(self, statuses: Iterable[SourceStatus], skills: Iterable[Skill]) -> None:
        """Show what some sources gave while others still read: a partial catalog (the
        names and collisions come with the full one)."""
        statuses = list(statuses)
        for status in statuses:  # those still reading stay pending
            held = self.statuses.get(status.origin.label)
            if held is None or held.state is not SourceState.PENDING:
                self.statuses[status.origin.label] = status
        self.catalog = Catalog(sources=statuses, skills=list(skills))
        self.events.catalog_changed(CatalogChange(interim=True))

    async def read_sources(
        self,
        specs: list[SourceSpec],
        on_source: Callable[[SourceStatus, list[Skill]], None] | None = None,
        *,
        folders_first: float = 0.0,
        ready: Mapping[str, SourceRead] | None = None,
    ) -> list[SourceRead]:
        """Each of ``specs`` read once, in their order; ``on_source`` is told as each
        finishes. Folders are read while the MCP client loads (off the loop); servers
        are listed on the kept connections that reads then use. With ``folders_first``
        the client's import waits up to that many seconds for the folders: the import
        holds the interpreter most of the time, and the folders' skills show sooner.
        The folders in ``ready`` (by label) were read a moment ago: they are taken as
        they are."""
        import asyncio

        served = [s for s in specs if s.kind_info.runs_code and not s.untrusted]
        others = [s for s in specs if s not in served]
        # Only what was read of these very folders, where they are now.
        ready = {
            s.label: ready[s.label]
            for s in others
            if ready and s.label in ready and ready[s.label][0].origin == s.origin
        }
        local = asyncio.ensure_future(
            read_all(others, budgets=self.budgets, on_source=on_source, ready=ready)
        )

        async def servers() -> list[SourceRead]:
            if not served:
                return []
            if folders_first > 0:
                await asyncio.wait([local], timeout=folders_first)
            await load_mcp_support()
            return await read_all(
                served, budgets=self.budgets, on_source=on_source, pool=self.reader.pool
            )

        read, listed = await asyncio.gather(local, servers())
        ordered = iter(read), iter(listed)
        return [next(ordered[s in served]) for s in specs]

    async def read_catalog(
        self, on_source: Callable[[SourceStatus, list[Skill]], None] | None = None
    ) -> Catalog:
        """Every enabled source read once and the catalog built: what a command that
        lists the catalog shows. Nothing is scheduled (no re-listing) and no approval
        state is read."""
        import asyncio

        results = await self.read_sources([s for s in self.specs if s.enabled], on_source)
        self.catalog, _ = await asyncio.to_thread(_assemble, [], results)
        return self.catalog

    async def _discover(self, read: Mapping[str, SourceRead] | None = None) -> None:
        import asyncio

        enabled = [s for s in self.specs if s.enabled]
        total = len(enabled)
        done = 0
        generation = self._generation
        before = list(self.catalog.skills)
        before_sources = list(self.catalog.sources)
        self.events.progress(0, max(total, 1), f"reading {total} source(s)…")
        self._reading(s for s in enabled if not read or s.label not in read)

        statuses: list[SourceStatus] = []
        found: list[Skill] = []
        shown_at = [0.0]

        def on_source(status: SourceStatus, skills: list[Skill]) -> None:
            nonlocal done
            done += 1
            statuses.append(status)
            found.extend(skills)
            self.events.progress(done, max(total, 1), f"read {status.origin.label}")
            self._told(status)
            now = time.monotonic()
            if done < total and skills and now - shown_at[0] >= INTERIM_EVERY:
                # Show what has arrived (at most a few times a second).
                shown_at[0] = now
                # The sources not read yet keep what they showed: no row goes and comes
                # back while the others arrive.
                waiting = {s.label for s in enabled} - {s.origin.label for s in statuses}
                self.show_partial(
                    [*statuses, *(s for s in before_sources if s.origin.label in waiting)],
                    [*found, *(s for s in before if s.origin.label in waiting)],
                )

        try:
            results = await self.read_sources(
                enabled, on_source, folders_first=FOLDERS_FIRST, ready=read
            )
        except asyncio.CancelledError:
            # Cut short by a newer discovery, that one says how each source stands.
            self._cut_short(enabled, statuses, found, tell=generation == self._generation)
            raise
        # Names, collisions and what changed, for thousands of skills: off the loop.
        catalog, gone = await asyncio.to_thread(_assemble, before, results)
        self.catalog = catalog
        ids = {s.id for s in catalog.skills} - gone
        self.files = {k: v for k, v in self.files.items() if k in ids}
        # Each source's failure is said once, not again after every change elsewhere
        # (its row in the sources panel keeps showing it); a new failure is said.
        said = {}
        for status in catalog.sources:
            if status.status == SourceState.FAILED:
                label = status.origin.label
                said[label] = status.message
                if self._said_errors.get(label) != status.message:
                    self.notifier.error(f"{label}: {status.message}")
        self._said_errors = said
        self.events.catalog_changed(CatalogChange())
        self.events.progress(total, max(total, 1), count(len(catalog.skills), "skill"))
        self._schedule_relists(catalog.sources)
        await self.load_approvals()

    def _cut_short(
        self,
        enabled: list[SourceSpec],
        statuses: list[SourceStatus],
        found: list[Skill],
        *,
        tell: bool = True,
    ) -> None:
        """Discovery was cancelled: keep what the sources that answered gave, and mark
        the others cancelled rather than leave them reading (told unless ``tell`` is
        false: a newer discovery reads them)."""
        answered = {s.origin.label for s in statuses}
        for spec in enabled:
            if spec.label not in answered:
                status = SourceStatus(
                    spec.origin, "cancelled", "not read: press F5 to read it again"
                )
                statuses.append(status)
                if tell:
                    self._told(status)
        self.catalog = build_catalog(statuses, found)
        self.events.catalog_changed(CatalogChange())
        if not self.closing:  # the skills that did arrive get their approval states
            self.spawn(self.load_approvals(), "reading approvals")

    # -- re-listing when a listing's ttlMs is up ----------------------------

    def stop_relisting(self) -> None:
        for handle, _due in self._relists.values():
            handle.cancel()
        self._relists.clear()

    def relist_due(self) -> dict[str, float]:
        """Seconds until each scheduled server is listed again (by label)."""
        now = time.monotonic()
        return {label: due - now for label, (_h, due) in self._relists.items()}

    def _schedule_relists(self, statuses: Iterable[SourceStatus]) -> None:
        for status in statuses:
            self._schedule(status.origin.label, relist_delay(status, self.relist_floor))

    def _schedule(self, label: str, delay: float | None) -> None:
        """List ``label`` again in ``delay`` seconds (``None``: not on a timer)."""
        import asyncio

        old = self._relists.pop(label, None)
        if old is not None:
            old[0].cancel()
        if delay is not None:
            loop = asyncio.get_running_loop()
            timer = loop.call_later(delay, self._relist_when_due, label, self._generation)
            self._relists[label] = (timer, time.monotonic() + delay)

    def _relist_when_due(self, label: str, generation: int) -> None:
        self._relists.pop(label, None)
        if generation == self._generation:
            self.spawn(self.relist(label), f"listing {label} again (its ttlMs is up)")

    async def relist(self, label: str) -> None:
        """List one server again on its kept connection and merge what changed.

        The new entries are checked like the first ones. Verification states of
        entries that changed are dropped (they were read against the old manifest)
        and approvals are re-evaluated. If the server cannot answer, its earlier
        listing stays, marked with the failure, and the next attempt follows the floor.
        """
        generation = self._generation
        spec = next((s for s in self.specs if s.label == label and s.enabled), None)
        old_status = next((s for s in self.catalog.sources if s.origin.label == label), None)
        if spec is None or not spec.kind_info.asks_again or old_status is None:
            return
        await load_mcp_support()
        status, skills = await self.reader.discover(spec)
        if generation != self._generation:
            return  # a full refresh started meanwhile: its result wins
        stamp = time.strftime("%H:%M:%S")
        if status.status == SourceState.FAILED:
            # A new status in the old one's place: the one views hold stays as it was.
            failed = f"{AGAIN} {stamp} failed: {status.message}; the earlier listing is kept"
            kept = replace(
                old_status,
                notes=[failed, *(n for n in old_status.notes if not n.startswith(AGAIN))],
            )
            self._set_sources([kept if s is old_status else s for s in self.catalog.sources])
            self.notifier.warning(f"{label}: listing again failed: {status.message}")
            self._told(kept)
            self._schedule(label, self.relist_floor)  # whatever the ttlMs
            return
        old = [s for s in self.catalog.skills if s.origin.label == label]
        listed = {s.id for s in skills}
        # Skills opened by URI are in no listing: each is asked for again.
        by_uri = [s for s in old if s.id not in listed and s.opened_by_uri]
        opened, notes = await self._get_again(label, by_uri)
        if generation != self._generation:
            return
        changes = listing_changes(old, [*skills, *opened])
        status = replace(
            status, notes=[f"{AGAIN} {stamp}: {changes.summary()}", *notes, *status.notes]
        )
        self._told(status)
        statuses = [status if s.origin.label == label else s for s in self.catalog.sources]
        if changes:
            for skill_id in (*changes.changed, *changes.removed):
                self.files.pop(skill_id, None)
            others = [s for s in self.catalog.skills if s.origin.label != label]
            self._rebuild(statuses, [*others, *opened, *skills])
            self.notifier.info(f"{label}: listed again, {changes.summary()}")
            await self.load_approvals([*skills, *opened])
        else:
            self._set_sources(statuses)
        self._schedule_relists([status])

    # -- one source read again when a person asks (Retry) ---------------------------

    def retry(self, label: str) -> asyncio.Task[Any] | None:
        """Read the source ``label`` again, alone (a task; ``None`` when no such source
        is on). It is pending at once (its row says so) and a line says the retry
        started; a notice says how it ended ("Read 3 skills from X" or "X still fails:
        why"), the task's result as ``(read, sentence)``. A full refresh started
        meanwhile wins (its result is ``(False, "")``)."""
        spec = next((s for s in self.specs if s.label == label and s.enabled), None)
        if spec is None:
            return None
        self._reading([spec])
        self.notifier.info(f"Reading {label} again…")
        return self.spawn(self._retry(spec, self._generation), f"reading {label} again")

    async def _retry(self, spec: SourceSpec, generation: int) -> tuple[bool, str]:
        label = spec.label
        if spec.kind_info.runs_code and not spec.untrusted:
            await load_mcp_support()
            status, skills = await self.reader.discover(spec)
        else:
            status, skills = await read_source(spec, budgets=self.budgets)
        if generation != self._generation or self.closing:
            return False, ""
        old = [s for s in self.catalog.skills if s.origin.label == label]
        changes = listing_changes(old, skills)
        for skill_id in (*changes.changed, *changes.removed):
            self.files.pop(skill_id, None)
            self._directories.pop(skill_id, None)
        catalog = _merged(self.catalog, label, status, skills)
        if catalog.source(label) is None:  # not in the catalog before: added
            catalog = build_catalog([*catalog.sources, status], catalog.skills)
        self.catalog = catalog
        if status.status == SourceState.FAILED:
            self._said_errors[label] = status.message
        else:
            self._said_errors.pop(label, None)
        self.events.catalog_changed(CatalogChange())
        self._told(self.catalog.source(label) or status)
        ok, text = retry_words(label, status, len(skills))
        (self.notifier.info if ok else self.notifier.error)(text)
        self._schedule_relists([status])
        await self.load_approvals(skills)
        return ok, text

    def mark_reading(self, labels: Iterable[str]) -> None:
        """The sources ``labels`` are about to be read (a refresh asked for): each is
        pending at once, before the configuration is loaded again."""
        wanted = set(labels)
        self._reading(s for s in self.specs if s.enabled and s.label in wanted)

    def _set_sources(self, statuses: list[SourceStatus]) -> None:
        """The catalog with these statuses, its skills as they are: a new catalog object,
        the one views were handed stays as it was."""
        old = self.catalog
        self.catalog = Catalog(sources=statuses, skills=old.skills, collisions=old.collisions)

    # -- local folders read again after a change on disk ---------------------------

    async def reread_folder(
        self,
        label: str,
        changed: Collection[str] = (),
        directories: Collection[str] = (),
        *,
        trouble: str = "",
        whole: bool = False,
    ) -> None:
        """Read again what changed on disk in the local source ``label``.

        Only the skills the ``changed`` paths touch are read (the outermost skill folder
        holding each, see :func:`desktop.core.folder_changes.regions`); the whole folder
        when ``whole``, when the change is at its top, or when its folder cannot be
        scanned. With ``trouble`` (the folder is gone or cannot be read) the source shows
        that and holds no skills. What was read of a changed skill is forgotten; its
        approval is evaluated again. Same skills with nothing else changed come as
        :meth:`SessionEvents.skills_updated`, else as a new catalog.
        """
        import asyncio

        generation = self._generation
        found = (s for s in self.specs if s.label == label and s.enabled)
        spec = next((s for s in found if s.kind_info.folder_on_disk), None)
        old_status = self.catalog.source(label)
        if spec is None or old_status is None or self.closing:
            return
        old = [s for s in self.catalog.skills if s.origin.label == label]
        status = old_status
        fresh: list[Skill] = []
        chosen = (
            frozenset()
            if whole or trouble
            else regions(changed, {skill_dir(s.uri) for s in old}, directories)
        )
        if trouble:
            status = SourceStatus(spec.origin, "error", trouble)
        else:
            if not whole and not chosen:
                return  # nothing any skill is made of
            result = None if whole else await asyncio.to_thread(scan_regions, spec, chosen)
            if result is None:
                status, fresh = await read_source(spec, budgets=self.budgets)
            else:
                part, errors = result
                fresh = replace_in(old, chosen, part)
                for error in errors[:3]:
                    self.notifier.warning(f"{label}: {error}")
        if generation != self._generation or self.closing:
            return  # a full refresh started meanwhile: its result wins
        changes = listing_changes(old, fresh)
        same_source = status is old_status or (
            status.status == old_status.status and status.message == old_status.message
        )
        if not changes and same_source:
            return  # saved as it was
        for skill_id in (*changes.changed, *changes.removed):
            self.files.pop(skill_id, None)
            self._directories.pop(skill_id, None)
        base = self.catalog
        before = {s.id: _shown_names(s) for s in base.skills if s.origin.label != label}
        # Names and collisions for thousands of skills: off the loop, as after a discovery.
        catalog = await asyncio.to_thread(_merged, base, label, status, fresh)
        if generation != self._generation or self.closing:
            return
        if self.catalog is not base:  # another source was listed again meanwhile
            catalog = _merged(self.catalog, label, status, fresh)
        self.catalog = catalog
        in_place = (
            not changes.added
            and not changes.removed
            and all(
                _shown_names(s) == before.get(s.id)
                for s in self.catalog.skills
                if s.origin.label != label
            )
        )
        if in_place:
            self.events.skills_updated(list(changes.changed))
        else:
            self.events.catalog_changed(CatalogChange(from_disk=True))
        self._told(self.catalog.source(label) or status)
        if changes and not trouble:  # a folder gone was said by who saw it go
            self.notifier.info(f"{label}: {_said_changes(self.catalog, changes, old)}")
        touched = [s for s in self.catalog.skills if s.id in {*changes.changed, *changes.added}]
        await self.load_approvals(touched)

    async def _get_again(self, label: str, skills: list[Skill]) -> tuple[list[Skill], list[str]]:
        """The current entries of skills opened by URI, asked for with ``skills/get``.

        A skill the server now says it does not serve is dropped; one it cannot answer
        for keeps its earlier entry. Returns the entries to keep and a note for each
        that was not renewed.
        """
        kept: list[Skill] = []
        notes: list[str] = []
        for skill in skills:
            name = f"{skill.qualified_name} (opened by URI)"
            asked = await self.ask_skill(label, skill.uri)
            if asked.skill is not None:
                kept.append(_opened_by_uri(asked.skill, label))
            elif asked.answer in (NOT_SERVED, NO_SKILLS_GET):
                notes.append(f"{name} is no longer served: {asked.message}")
            else:
                notes.append(
                    f"{name}: skills/get failed ({asked.message}); the earlier entry is kept"
                )
                kept.append(skill)
        return kept, notes

    def _rebuild(self, statuses: list[SourceStatus], skills: list[Skill]) -> None:
        """A new catalog from these statuses and skills; collisions found afresh."""
        self.catalog = build_catalog(statuses, skills)
        self.events.catalog_changed(CatalogChange())

    async def load_approvals(self, skills: Iterable[Skill] | None = None) -> None:
        chosen = list(self.catalog.skills if skills is None else skills)
        if not chosen:
            return
        states = await self.approvals.states(chosen)
        self.approval_states.update(states)
        for notice in self.approvals.take_notices():
            self.notifier.info(f"approvals: {notice}")
        problems = {s.problem.message for s in states.values() if s.problem is not None}
        # Said once, not after every listing: until the keyring answers again.
        for message in sorted(problems - self._approval_problems)[:3]:
            self.notifier.warning(f"approvals: {message}")
        self._approval_problems = problems
        self.events.approvals_changed()

    async def ask_skill(self, label: str, uri: str) -> Asked:
        """The entry of the skill at ``uri`` as the server ``label`` gives it now, asked
        for with ``skills/get`` on the kept connection; nothing is added to the
        catalog. Never raises for the server's failures: :attr:`Asked.answer` says what
        came back instead of an entry."""
        from desktop.sources.errors import SourceError
        from desktop.sources.mcp.errors import NoSkillsMethod, NoSuchSkill

        try:
            return Asked(ENTRY, await self.reader.get_skill(label, uri))
        except NoSuchSkill as exc:
            return Asked(NOT_SERVED, message=str(exc), connected=True)
        except NoSkillsMethod as exc:
            return Asked(NO_SKILLS_GET, message=str(exc), connected=self.reader.connected(label))
        except (SourceError, KeyError) as exc:
            return Asked(FAILED, message=str(exc), connected=self.reader.connected(label))

    async def open_uri(self, label: str, uri: str, *, refresh: bool = False) -> Skill | None:
        """Confirm a skill URI with the server's ``skills/get`` and add it.

        With ``refresh`` the held entry is replaced by the server's current one (after
        a mismatch); what was read against the old entry is forgotten.
        """
        asked = await self.ask_skill(label, uri)
        skill = asked.skill
        if skill is None:
            if asked.answer == NOT_SERVED:
                self.notifier.error(f"{label}: {asked.message}")  # it names the URI itself
            else:  # not an answer about the skill: the server could not be asked
                self.notifier.error(f"{label}: could not ask for {uri}: {asked.message}")
            return None
        skills = [s for s in self.catalog.skills if s.id != skill.id]
        previous = self.catalog.get(skill.id)
        if previous is None or previous.opened_by_uri:
            skill = _opened_by_uri(skill, label)  # no listing carries it, now or after a refresh
        if refresh or (previous is not None and listing_changes([previous], [skill])):
            self.files.pop(skill.id, None)  # read against the entry this one replaces
            self._directories.pop(skill.id, None)
        self._rebuild(self.catalog.sources, [*skills, skill])
        skill = self.catalog.get(skill.id) or skill  # with its shown name
        what = "refreshed the entry of" if refresh else "opened by URI"
        self.notifier.info(f"{label}: {what} {skill.qualified_name} ({skill.state})")
        await self.load_approvals([skill])
        return skill

    async def server_status(self, label: str) -> SourceStatus:
        """The server ``label`` connected (if it is not): its status, with what it said
        as it connected (its instructions among them), or the error."""
        return await self.reader.connect(label)

    def server_output(self, label: str) -> str | None:
        """What the server ``label`` wrote on its stderr since it was last started here
        (bounded, secrets masked); ``None`` for a server over HTTP."""
        return self.reader.server_output(label)

    # -- verified reads ------------------------------------------------------

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        """A verified read; ``refresh`` asks the server again rather than any copy."""
        result = await self.reader.read(skill, uri, refresh=refresh)
        vf = result.verification
        self.files.setdefault(skill.id, {})[uri] = vf
        if vf.state in MISMATCHES:
            self.notifier.error(f"{skill.qualified_name}: {vf.message}")
        elif not vf.usable:
            self.notifier.warning(f"{skill.qualified_name}: {vf.message}")
        self.events.verification_changed(skill.id)
        return result

    async def verify(self, skill: Skill) -> SkillVerification:
        """Every file of ``skill`` read and verified (within the skill's deadline); each
        file's state is kept as a read's is."""
        result = await self.reader.verify(skill)
        self.files.setdefault(skill.id, {}).update({f.uri: f for f in result.files})
        self.events.verification_changed(skill.id)
        return result

    async def read_directory(self, skill: Skill, uri: str) -> list[Any] | None:
        """A folder of a server skill as the server lists it (only where it declares
        ``directoryRead``), each child marked in or out of the held entry."""
        children, trouble = await self.list_directory(skill, uri)
        if children is None:
            self.notifier.warning(f"{skill.qualified_name}: cannot list {uri}: {trouble}")
        return children

    async def list_directory(self, skill: Skill, uri: str) -> tuple[list[Any] | None, str]:
        """:meth:`read_directory` without a notice: the children, or ``None`` and why
        the server could not list them."""
        from desktop.sources.errors import SourceError

        await load_mcp_support()
        try:
            children = await self.reader.read_directory(skill, uri)
        except (SourceError, KeyError) as exc:
            return None, str(exc)
        listings = {**self.directory_listings(skill), uri: children}  # a new one: views keep theirs
        self._directories[skill.id] = (skill, listings)
        self.events.verification_changed(skill.id)
        return children, ""

    async def read_kept(self, skill: Skill, uri: str) -> ReadResult | None:
        """The verified copy of a server skill's file kept here, read again without
        asking the server (a skill checked earlier shows what was checked); ``None``
        when no matching copy is kept. The file's state stays as it was: it was checked
        already, and this copy is the one that was."""
        from desktop.sources.reader import read_file

        result = await read_file(skill, uri, source=_NothingAsked(), cache=self.reader.cache)
        return result if result.from_cache else None

    def directory_listings(self, skill: Skill) -> dict[str, list[Any]]:
        """Folders of ``skill`` listed so far, if listed for this very entry."""
        held = self._directories.get(skill.id)
        if held is None:
            return {}
        entry, listings = held
        return listings if entry is skill or not listing_changes([entry], [skill]) else {}

    def file_state(self, skill_id: str, uri: str) -> FileVerification | None:
        return self.files.get(skill_id, {}).get(uri)

    def verification_of(self, skill: Skill) -> tuple[str, str]:
        """(state for filters, text for people) of a skill's files read so far."""
        return files_so_far(skill, self.files.get(skill.id, {}))

    # -- approvals -----------------------------------------------------------

    def _current(self, skill: Skill, doing: str) -> Skill | None:
        """The catalog's entry for ``skill`` if it is still the one the reviewer was
        shown; otherwise ``None``, with a message. A review dialog stays open while the
        catalog is read again, so the skill it shows may have changed meanwhile."""
        current = self.catalog.get(skill.id)
        if current is None:
            self.notifier.error(
                f"{doing} {skill.qualified_name}: it is no longer in the catalog; nothing done"
            )
            return None
        if listing_changes([skill], [current]):
            self.notifier.error(
                f"{doing} {skill.qualified_name}: it changed since its review opened "
                "(files or frontmatter); nothing done: review it again"
            )
            return None
        return current

    async def approve(
        self,
        skill: Skill,
        *,
        grant_tools: Iterable[str] = (),
        allow_scripts: bool = False,
        read: Mapping[str, bytes] | None = None,
        despite_problems: bool = False,
    ) -> ApprovalRecord | None:
        """Approve ``skill`` as listed. ``read`` holds the verified bytes the reviewer read,
        by URI: when they cover every file the record says so, and they are kept in the
        private cache for as long as the approval exists (to show a later change)."""
        from desktop.core.review import verified_pairs

        current = self._current(skill, "approve")
        if current is None:
            return None
        skill = current
        pairs = verified_pairs(skill, read or {})
        files_read = len(pairs) == len(skill.files)
        done = await self.record_approval(
            skill,
            grant_tools=grant_tools,
            allow_scripts=allow_scripts,
            pairs=pairs if files_read else None,
            despite_problems=despite_problems,
        )
        record = self._say_decision(done, f"approve {skill.qualified_name}")
        if record is None:
            return None
        read_words = "every file read" if files_read else "files not read"
        self.notifier.info(
            f"approved {skill.qualified_name} ({count(record.file_count, 'file')}, "
            f"{read_words}, {record.set_hash[:19]}…)"
        )
        await self.load_approvals([skill])
        return record

    async def reject(
        self, skill: Skill, *, reason: str = "", read: Mapping[str, bytes] | None = None
    ) -> ApprovalRecord | None:
        """Record a rejection of ``skill`` as listed (with the reviewer's reason)."""
        from desktop.core.review import verified_pairs

        current = self._current(skill, "reject")
        if current is None:
            return None
        skill = current
        files_read = len(verified_pairs(skill, read or {})) == len(skill.files)
        done = await self.record_rejection(skill, reason=reason, files_read=files_read)
        record = self._say_decision(done, f"reject {skill.qualified_name}")
        if record is None:
            return None
        self.notifier.info(f"rejected {skill.qualified_name}")
        await self.load_approvals([skill])
        return record

    def _say_decision(self, done: Decision, doing: str) -> ApprovalRecord | None:
        """The notices of a decision; its record, or ``None`` when nothing was stored."""
        for notice in done.notices:
            self.notifier.info(f"approvals: {notice}")
        if done.record is None:
            self.notifier.error(f"{doing}: {done.error}")
            return None
        if done.copies:
            self.notifier.warning(done.copies)
        return done.record

    async def record_approval(
        self,
        skill: Skill,
        *,
        grant_tools: Iterable[str] = (),
        allow_scripts: bool = False,
        pairs: list[tuple[SkillFile, bytes]] | None = None,
        despite_problems: bool = False,
    ) -> Decision:
        """Approve ``skill`` as the caller found it now, and say nothing: what was done
        comes back (a command prints it). ``pairs``: every file's verified bytes, when
        all were read (kept with the approval), else ``None``."""
        return await decisions.approve(
            self.approvals,
            self.reader.cache,
            skill,
            grant_tools=grant_tools,
            allow_scripts=allow_scripts,
            pairs=pairs,
            despite_problems=despite_problems,
        )

    async def record_rejection(
        self, skill: Skill, *, reason: str = "", files_read: bool = False
    ) -> Decision:
        """Reject ``skill`` as the caller found it now, and say nothing."""
        return await decisions.reject(
            self.approvals, self.reader.cache, skill, reason=reason, files_read=files_read
        )

    async def remove_decisions(
        self, targets: Sequence[str], *, key: ApprovalKey | None = None
    ) -> Revocation:
        """Remove the decisions the first matching of ``targets`` names (a skill id, a
        storage name, a local skill's folder; with ``key`` that one decision alone), with
        the copies kept for them, and say nothing."""
        return await decisions.revoke(self.approvals, self.reader.cache, targets, key=key)

    async def trust_servers(self, servers: Sequence[ProjectServer]) -> int:
        """Trust a project folder's servers as written now (how many were trusted); raises
        ``TrustNotSaved`` or ``OSError`` when the trust file cannot be saved. The sources
        are not read again here: the caller does that with the specs it builds."""
        return await decisions.trust(servers)

    async def untrust_folder(self, project: str) -> int:
        """Withdraw the trust given to the project folder ``project``'s servers."""
        return await decisions.untrust(project)

    def approved_copy(self, state: ApprovalState | None, old: SkillFile) -> bytes | None:
        """The bytes of ``old`` as its approval kept them, or ``None``."""
        if state is None or state.record is None or state.record.rejected:
            return None
        try:
            return self.reader.cache.approved_copy(state.record.key.storage_name, old)
        except (OSError, ValueError):
            return None

    async def revoke(self, skill: Skill) -> int:
        from desktop.core.approvals import ApprovalError, ApprovalKey

        try:
            key = ApprovalKey.for_skill(skill)
        except ApprovalError as exc:
            self.notifier.error(f"revoke {skill.qualified_name}: {exc.message}")
            return 0
        done = await self.remove_decisions([skill.id], key=key)
        for notice in done.notices:
            self.notifier.info(f"approvals: {notice}")
        if done.error:
            self.notifier.error(f"revoke {skill.qualified_name}: {done.error}")
            return 0
        for why_not in done.copies.values():
            self.notifier.warning(why_not)
        gone = done.removed
        self.notifier.info(f"revoked {count(len(gone), 'decision')} of {skill.qualified_name}")
        # Evaluated for the entry the catalog holds now, which a refresh may have renewed.
        current = self.catalog.get(skill.id)
        if current is not None:
            await self.load_approvals([current])
        return len(gone)

    def needs_decision(self) -> list[Skill]:
        """Skills waiting for a reviewer: not approved, or changed since approval."""
        out = []
        for skill in self.catalog.skills:
            state = self.approval_states.get(skill.id)
            if state is not None and state.needs_decision:
                out.append(skill)
        return out


class _NothingAsked:
    """A byte source that asks nobody: a read through it finds the kept copy or
    nothing."""

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes:
        raise LookupError(f"{uri} is not kept here")

    def mark_stale(self, uri: str) -> None:
        """Nothing was asked: nothing is stale."""

    def describe_error(self, exc: BaseException) -> str:
        return str(exc)


def _assemble(before: list[Skill], results: list[SourceRead]) -> tuple[Catalog, set[str]]:
    """The catalog of what the sources gave, and the ids of skills whose entry changed
    since ``before``: what was read against the old entry (a file that matched the old
    manifest) says nothing of the new one."""
    catalog = build_catalog([st for st, _ in results], [sk for _, f in results for sk in f])
    return catalog, set(listing_changes(before, catalog.skills).changed)


def _merged(catalog: Catalog, label: str, status: SourceStatus, fresh: list[Skill]) -> Catalog:
    """``catalog`` with the skills and status of source ``label`` replaced, its skills
    where the source's were."""
    skills: list[Skill] = []
    placed = False
    for s in catalog.skills:
        if s.origin.label != label:
            skills.append(s)
        elif not placed:
            skills.extend(fresh)
            placed = True
    if not placed:
        skills.extend(fresh)
    statuses = [status if s.origin.label == label else s for s in catalog.sources]
    return build_catalog(statuses, skills)


def _shown_names(skill: Skill) -> tuple[str, tuple[str, ...]]:
    """What a change elsewhere can alter of a skill: its qualified name, its collisions."""
    return skill.qualified_name, tuple(
        p.message for p in skill.problems if p.code.startswith("collision-")
    )


def _said_changes(catalog: Catalog, changes: ListingChanges, old: list[Skill]) -> str:
    """The skills a change on disk touched, in words: "beta read again after a change"."""

    def names(ids: Iterable[str], where: Iterable[Skill]) -> str:
        by_id = {s.id: s for s in where}
        shown = [by_id[i].qualified_name for i in ids if i in by_id]
        more = len(shown) - 3
        return ", ".join(shown[:3]) + (f" and {more} more" if more > 0 else "")

    parts = []
    if changes.changed:
        parts.append(f"{names(changes.changed, catalog.skills)} read again after a change on disk")
    if changes.added:
        parts.append(f"{names(changes.added, catalog.skills)} found")
    if changes.removed:
        parts.append(f"{names(changes.removed, old)} no longer there")
    return "; ".join(parts)


def _opened_by_uri(skill: Skill, label: str) -> Skill:
    """``skill`` marked as known from ``skills/get`` alone (no listing will carry it): a
    new entry, the one given stays as it was."""
    note = Problem(OPENED_BY_URI, f"opened by URI from {label}", Severity.INFO)
    return replace(skill, problems=[*skill.problems, note])

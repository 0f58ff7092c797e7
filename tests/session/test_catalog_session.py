"""The catalog session without Qt: a real folder and a real ``skill-catalog serve`` over
stdio, read, verified and given approval states, every event recorded as it came."""

from __future__ import annotations

import asyncio
import copy
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from helpers.serve import serve_argv, write_skill

from desktop.core.catalog import Catalog
from desktop.core.model import SourceSpec, SourceStatus
from desktop.session.approval_service import ApprovalService
from desktop.session.catalog_session import CatalogChange, CatalogSession, SessionEvents
from desktop.session.content_reader import ContentReader
from desktop.store.approvals_store import ApprovalStore
from desktop.store.cache import SkillCache


class Recorded(SessionEvents):
    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.changes: list[CatalogChange] = []  # what each new catalog was told to be

    def catalog_changed(self, change: CatalogChange) -> None:
        self.seen.append(("catalog",))
        self.changes.append(change)

    def source_done(self, status: SourceStatus) -> None:
        self.seen.append(("source", status.origin.label, status.status))

    def busy_changed(self, busy: bool) -> None:
        self.seen.append(("busy", busy))

    def verification_changed(self, skill_id: str) -> None:
        self.seen.append(("verified", skill_id))

    def approvals_changed(self) -> None:
        self.seen.append(("approvals",))

    def skills_updated(self, skill_ids: list[str]) -> None:
        self.seen.append(("updated", skill_ids))


class Said:
    """The notices a person would read, as (level, text)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def error(self, text: str) -> None:
        self.lines.append(("error", text))

    def warning(self, text: str) -> None:
        self.lines.append(("warning", text))

    def info(self, text: str) -> None:
        self.lines.append(("info", text))


def _session(tmp_path: Path, specs: list[SourceSpec]) -> tuple[CatalogSession, Recorded, Said]:
    events, said = Recorded(), Said()
    store = ApprovalStore(f"skill-catalog-test-{uuid.uuid4().hex[:12]}", timeout=30)
    session = CatalogSession(
        said,
        events=events,
        reader=ContentReader(cache=SkillCache(tmp_path / "cache")),
        approvals=ApprovalService(store),
        specs=specs,
    )
    return session, events, said


def _folders(tmp_path: Path) -> tuple[SourceSpec, SourceSpec]:
    mine = tmp_path / "mine"
    write_skill(mine, "notes", files={"references/a.md": b"# A\n"})
    served = tmp_path / "served"
    write_skill(served, "deploy", "Deploys the service.")
    argv = tuple(serve_argv(served))
    return (
        SourceSpec("mine", "local", "folder", str(mine)),
        SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv),
    )


def test_a_session_reads_every_source_reads_verified_and_knows_approvals(
    tmp_path: Path, secret_service: Any
) -> None:
    local, server = _folders(tmp_path)
    session, events, said = _session(tmp_path, [local, server])

    async def scenario() -> tuple[str, str, str, str]:
        try:
            await session.refresh()
            await session.wait_idle()
            deploy = session.catalog.get("srv:skill://deploy/SKILL.md")
            assert deploy is not None
            before = session.verification_of(deploy)
            result = await session.read(deploy, deploy.uri)
            after = session.verification_of(deploy)
            return before[1], result.verification.state, after[1], deploy.qualified_name
        finally:
            await session.reader.close()

    before, state, after, shown = asyncio.run(scenario())
    catalog = session.catalog
    assert sorted(s.id for s in catalog.skills) == [
        "mine:notes/SKILL.md",
        "srv:skill://deploy/SKILL.md",
    ]
    assert shown == "srv:deploy"
    assert {s.origin.label: s.skill_count for s in catalog.sources} == {"mine": 1, "srv": 1}
    assert before == "" and state == "verified" and after == "1 of 1 files verified"
    assert {session.approval_states[s.id].state for s in catalog.skills} == {"not-approved"}
    # What happened, in the order a window would have shown it.
    told = [e for e in events.seen if e[0] == "source"]
    # Each source is pending from the start (its row says it is read), then read.
    assert told[:2] == [("source", "mine", "pending"), ("source", "srv", "pending")]
    assert sorted(told[2:]) == [("source", "mine", "ok"), ("source", "srv", "ok")]
    assert {label: s.status for label, s in session.statuses.items()} == {
        "mine": "ok",
        "srv": "ok",
    }
    assert events.seen[0] == ("busy", True)
    assert ("catalog",) in events.seen and ("approvals",) in events.seen
    assert events.seen[-1] == ("verified", "srv:skill://deploy/SKILL.md")
    assert not [line for line in said.lines if line[0] == "error"], said.lines


def test_a_source_that_fails_is_said_once_and_the_others_still_arrive(
    tmp_path: Path, secret_service: Any
) -> None:
    local, _server = _folders(tmp_path)
    gone = SourceSpec("gone", "local", "folder", str(tmp_path / "no-such-folder"))
    session, events, said = _session(tmp_path, [local, gone])

    async def twice() -> None:
        for _ in range(2):
            await session.refresh()
            await session.wait_idle()
        await session.reader.close()

    asyncio.run(twice())
    assert [s.id for s in session.catalog.skills] == ["mine:notes/SKILL.md"]
    statuses = {s.origin.label: s.status for s in session.catalog.sources}
    assert statuses["gone"] != "ok"
    # Read twice, failing the same way: said once, not after every refresh.
    assert len([line for line in said.lines if line[0] == "error" and "gone" in line[1]]) == 1
    assert events.seen.count(("busy", False)) == 2


def test_the_session_imports_without_qt() -> None:
    """The window's catalog with Qt made unimportable: nothing in it needs Qt."""
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6', 'qasync'):\n"
        "            raise ImportError('Qt is blocked here: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import desktop.session.catalog_session\n"
        "print('imported')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocker],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_a_folder_read_again_renews_only_the_skills_a_change_touches(
    tmp_path: Path, secret_service: Any
) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "notes", "Takes notes.")
    write_skill(mine, "other", "Something else.")
    local = SourceSpec("mine", "local", "folder", str(mine))
    session, events, said = _session(tmp_path, [local])

    async def scenario() -> None:
        try:
            await session.refresh()
            await session.wait_idle()
            other = session.catalog.get("mine:other/SKILL.md")
            events.seen.clear()
            write_skill(mine, "notes", "Takes better notes.")
            await session.reread_folder("mine", {"notes/SKILL.md"})
            assert events.seen[0] == ("updated", ["mine:notes/SKILL.md"])
            notes = session.catalog.get("mine:notes/SKILL.md")
            assert notes is not None and notes.description == "Takes better notes."
            assert session.catalog.get("mine:other/SKILL.md") == other
            await session.reread_folder("mine", {"README.md"})  # in no skill: nothing
            await session.reread_folder("mine", trouble="the folder is no longer there")
        finally:
            await session.reader.close()

    asyncio.run(scenario())
    assert ("info", "mine: notes read again after a change on disk") in said.lines
    assert ("catalog",) in events.seen  # the skills went: a new catalog, not in place
    # Told with the catalog, not left on the session for a listener to look up.
    assert events.changes[-1] == CatalogChange(from_disk=True)
    assert not hasattr(session, "from_disk") and not hasattr(session, "interim")
    assert not session.catalog.skills
    status = session.catalog.source("mine")
    assert status is not None and status.status == "error"
    assert session.statuses["mine"] is status  # the one state views count from
    assert session.summary().failed == (("mine", "the folder is no longer there"),)
    # The folder gone is said by who saw it go (the watcher), not as skills that went.
    assert not [line for line in said.lines if "no longer there" in line[1]]


def test_the_session_approves_rejects_and_revokes_and_keeps_the_copies_read(
    tmp_path: Path, secret_service: Any
) -> None:
    """Decisions through the session, as the window makes them: bound to the files as
    listed, the read bytes kept for a later diff, each said once, states updated."""
    local, server = _folders(tmp_path)
    session, events, said = _session(tmp_path, [local, server])
    notes_id, deploy_id = "mine:notes/SKILL.md", "srv:skill://deploy/SKILL.md"

    async def scenario() -> tuple[list[str], bool, bool]:
        try:
            await session.refresh()
            await session.wait_idle()
            notes = session.catalog.get(notes_id)
            deploy = session.catalog.get(deploy_id)
            assert notes is not None and deploy is not None
            read = {}
            for f in notes.files:
                result = await session.read(notes, f.uri)
                assert result.data is not None
                read[f.uri] = result.data
            states = []
            record = await session.approve(notes, read=read)
            assert record is not None and record.files_read is True, said.lines
            states.append(session.approval_states[notes_id].state)
            name = record.key.storage_name
            kept = session.reader.cache.approved_dir(name).is_dir()
            rejected = await session.reject(deploy, reason="asks for too much")
            assert rejected is not None and rejected.files_read is False
            states.append(session.approval_states[deploy_id].state)
            assert await session.revoke(notes) == 1
            states.append(session.approval_states[notes_id].state)
            assert await session.revoke(deploy) == 1
            states.append(session.approval_states[deploy_id].state)
            return states, kept, session.reader.cache.approved_dir(name).exists()
        finally:
            await session.reader.close()

    states, kept, still_kept = asyncio.run(scenario())
    assert states == ["approved", "rejected", "not-approved", "not-approved"]
    assert kept and not still_kept  # kept while approved, let go of with the approval
    infos = [text for level, text in said.lines if level == "info"]
    assert any(t.startswith("approved notes") and "every file read" in t for t in infos), infos
    assert "rejected srv:deploy" in infos
    assert "revoked 1 decision of notes" in infos
    assert not [line for line in said.lines if line[0] == "error"], said.lines
    assert events.seen.count(("approvals",)) >= 4


def test_a_server_is_listed_again_when_its_ttl_is_up_and_the_change_is_taken(
    tmp_path: Path, secret_service: Any
) -> None:
    """Re-listing by ttlMs without Qt: the session lists the server again on its kept
    connection, takes the changed entry, and drops what was read against the old one."""
    served = tmp_path / "served"
    write_skill(served, "deploy", "Deploys the service.")
    argv = tuple(serve_argv(served, "--ttl-ms", "300"))
    server = SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv)
    session, events, said = _session(tmp_path, [server])
    session.relist_floor = 0.3
    deploy_id = "srv:skill://deploy/SKILL.md"

    async def scenario() -> tuple[str, str, str, list[str]]:
        try:
            await session.refresh()
            await session.wait_idle()
            deploy = session.catalog.get(deploy_id)
            assert deploy is not None
            await session.read(deploy, deploy.uri)
            read_before = session.verification_of(deploy)[1]
            assert 0 < session.relist_due()["srv"] <= 0.35
            write_skill(served, "deploy", "Deploys the service, and rolls it back.")
            for _ in range(100):  # up to 10 s
                await asyncio.sleep(0.1)
                now = session.catalog.get(deploy_id)
                if now is not None and now.description.endswith("rolls it back."):
                    break
            await session.wait_idle()
            now = session.catalog.get(deploy_id)
            assert now is not None
            status = next(s for s in session.catalog.sources if s.origin.label == "srv")
            return read_before, now.description, session.verification_of(now)[1], status.notes
        finally:
            session.stop_relisting()
            await session.reader.close()

    read_before, description, read_after, notes = asyncio.run(scenario())
    assert read_before == "1 of 1 files verified"
    assert description == "Deploys the service, and rolls it back."
    assert read_after == ""  # read against the old entry: it says nothing of the new one
    assert any(n.startswith("listing again at") for n in notes), notes
    assert not [line for line in said.lines if line[0] == "error"], said.lines


def test_what_the_session_published_stays_as_it_was_handed_out(
    tmp_path: Path, secret_service: Any
) -> None:
    """A view holds the catalog, skills and statuses it was given: listing again,
    reading again after a change on disk, opening by URI and deciding make new ones and
    leave those untouched."""
    local, server = _folders(tmp_path)
    session, _events, said = _session(tmp_path, [local, server])
    deploy_id = "srv:skill://deploy/SKILL.md"

    async def scenario() -> tuple[Catalog, Catalog]:
        try:
            await session.refresh()
            await session.wait_idle()
            published = session.catalog
            snapshot = copy.deepcopy(published)
            deploy = published.get(deploy_id)
            assert deploy is not None
            assert await session.approve(deploy) is not None
            await session.relist("srv")  # nothing changed on the server
            await session.open_uri("srv", deploy.uri, refresh=True)
            write_skill(Path(local.endpoint), "notes", "Takes better notes.")
            await session.reread_folder("mine", {"notes/SKILL.md"})
            await session.revoke(deploy)
            return published, snapshot
        finally:
            session.stop_relisting()
            await session.reader.close()

    published, snapshot = asyncio.run(scenario())
    assert session.catalog is not published
    assert published.sources == snapshot.sources
    assert published.skills == snapshot.skills
    assert published.collisions == snapshot.collisions
    notes = session.catalog.get("mine:notes/SKILL.md")
    assert notes is not None and notes.description == "Takes better notes."
    status = session.catalog.source("srv")
    assert status is not None and any(n.startswith("listing again at") for n in status.notes)
    assert not [line for line in said.lines if line[0] == "error"], said.lines

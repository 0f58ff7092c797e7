"""One source read again when a person asks (Retry), the session's one state of each
source, and a server file checked earlier shown from the copy kept here: a real folder
and a real ``skill-catalog serve`` over stdio, no Qt."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from helpers.serve import serve_argv, write_skill

from desktop.core.model import SourceSpec, SourceStatus
from desktop.core.states import SourceState

from .test_catalog_session import _session


def test_retry_marks_the_source_reading_at_once_and_says_how_it_ended(
    tmp_path: Path, secret_service: Any
) -> None:
    folder = tmp_path / "later"
    other = tmp_path / "other"
    write_skill(other, "notes")
    specs = [
        SourceSpec("later", "local", "folder", str(folder)),
        SourceSpec("other", "local", "folder", str(other)),
        SourceSpec("off", "local", "folder", str(other), enabled=False),
    ]
    session, events, said = _session(tmp_path, specs)

    async def scenario() -> tuple[tuple[bool, str], tuple[bool, str]]:
        try:
            await session.refresh()
            await session.wait_idle()
            assert session.statuses["later"].state is SourceState.FAILED
            assert session.retry("nothing-of-that-name") is None
            assert session.retry("off") is None  # turned off: not read
            events.seen.clear()
            said.lines.clear()
            task = session.retry("later")
            assert task is not None
            # At once, before the task ran: pending, and a line says so.
            assert session.statuses["later"].state is SourceState.PENDING
            assert events.seen[0] == ("source", "later", "pending")
            assert said.lines == [("info", "Reading later again…")]
            assert session.summary().waiting == ("later",)
            still = await task
            write_skill(folder, "arrived")
            write_skill(folder, "also-here")
            read = session.retry("later")
            assert read is not None
            return still, await read
        finally:
            await session.reader.close()

    still, read = asyncio.run(scenario())
    assert still[0] is False and still[1].startswith("later still fails: ")
    assert ("error", still[1]) in said.lines
    assert read == (True, "Read 2 skills from later")
    assert ("info", "Read 2 skills from later") in said.lines
    assert sorted(s.id for s in session.catalog.skills) == [
        "later:also-here/SKILL.md",
        "later:arrived/SKILL.md",
        "other:notes/SKILL.md",
    ]
    summary = session.summary()
    assert summary.failed == () and summary.read == ("later", "other")
    assert summary.off == ("off",) and summary.per_source == {"later": 2, "other": 1}
    assert session.catalog.source("later") is session.statuses["later"]
    assert ("catalog",) in events.seen and ("approvals",) in events.seen


def test_a_refresh_started_during_a_retry_wins(tmp_path: Path, secret_service: Any) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "notes")
    session, _events, _said = _session(tmp_path, [SourceSpec("mine", "local", "folder", str(mine))])

    async def scenario() -> tuple[bool, str]:
        try:
            task = session.retry("mine")
            assert task is not None
            session.refresh()
            result = await task
            await session.wait_idle()
            return result
        finally:
            await session.reader.close()

    assert asyncio.run(scenario()) == (False, "")
    assert [s.id for s in session.catalog.skills] == ["mine:notes/SKILL.md"]
    assert session.statuses["mine"].state is SourceState.OK


def test_a_retry_of_a_source_never_read_adds_it_and_a_removed_source_is_forgotten(
    tmp_path: Path, secret_service: Any
) -> None:
    mine = tmp_path / "mine"
    write_skill(mine, "notes")
    spec = SourceSpec("mine", "local", "folder", str(mine))
    session, _events, _said = _session(tmp_path, [spec])

    async def scenario() -> tuple[bool, str]:
        try:
            task = session.retry("mine")  # never read: not in the catalog yet
            assert task is not None
            return await task
        finally:
            await session.reader.close()

    assert asyncio.run(scenario()) == (True, "Read 1 skill from mine")
    assert session.catalog.source("mine") is not None
    session.set_specs([])
    assert session.statuses == {} and session.summary().sources == 0


def test_a_partial_catalog_keeps_sources_still_read_pending(tmp_path: Path) -> None:
    a, b = (SourceSpec(x, "local", "folder", str(tmp_path / x)) for x in ("a", "b"))
    session, events, _said = _session(tmp_path, [a, b])
    session.mark_reading(["a", "b", "not-a-source"])
    assert [e for e in events.seen if e[0] == "source"] == [
        ("source", "a", "pending"),
        ("source", "b", "pending"),
    ]
    session.show_partial([SourceStatus(a.origin, SourceState.FAILED, "old")], [])
    assert session.statuses["a"].state is SourceState.PENDING  # still being read
    session._told(SourceStatus(a.origin, SourceState.OK))
    session.show_partial([SourceStatus(b.origin, SourceState.FAILED, "first look")], [])
    assert session.statuses["b"].state is SourceState.PENDING
    session.statuses.pop("b")
    session.show_partial([SourceStatus(b.origin, SourceState.NO_SKILLS)], [])
    assert session.statuses["b"].state is SourceState.NO_SKILLS  # nothing pending: taken


def test_a_server_file_checked_earlier_is_shown_from_the_copy_kept_here(
    tmp_path: Path, secret_service: Any
) -> None:
    served = tmp_path / "served"
    write_skill(served, "deploy", "Deploys the service.")
    argv = tuple(serve_argv(served))
    spec = SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv)
    session, events, _said = _session(tmp_path, [spec])

    async def scenario() -> tuple[Any, Any, Any]:
        try:
            await session.refresh()
            await session.wait_idle()
            deploy = session.catalog.get("srv:skill://deploy/SKILL.md")
            assert deploy is not None
            before = await session.read_kept(deploy, deploy.uri)  # nothing kept yet
            await session.read(deploy, deploy.uri)
            await session.reader.close()  # the server is gone: nothing can be asked
            events.seen.clear()
            kept = await session.read_kept(deploy, deploy.uri)
            shutil.rmtree(tmp_path / "cache")
            lost = await session.read_kept(deploy, deploy.uri)
            return before, kept, lost
        finally:
            await session.reader.close()

    before, kept, lost = asyncio.run(scenario())
    assert before is None and lost is None
    assert kept is not None and kept.from_cache and kept.verified
    assert b"Deploys the service." in kept.data
    assert events.seen == []  # the state was already known: nothing new told
    assert session.verification_of(session.catalog.skills[0])[0] == "verified"


def test_a_server_is_read_again_on_its_kept_connection(tmp_path: Path, secret_service: Any) -> None:
    served = tmp_path / "served"
    write_skill(served, "deploy", "Deploys the service.")
    argv = tuple(serve_argv(served))
    spec = SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv)
    session, _events, said = _session(tmp_path, [spec])

    async def scenario() -> tuple[bool, str]:
        try:
            await session.refresh()
            await session.wait_idle()
            write_skill(served, "release", "Cuts a release.")
            task = session.retry("srv")
            assert task is not None
            return await task
        finally:
            await session.reader.close()

    assert asyncio.run(scenario()) == (True, "Read 2 skills from srv")
    assert sorted(s.name for s in session.catalog.skills) == ["deploy", "release"]
    assert session.statuses["srv"].state is SourceState.OK
    assert ("info", "Reading srv again…") in said.lines


def test_a_discovery_cut_short_by_a_newer_one_leaves_its_sources_reading(
    tmp_path: Path, secret_service: Any
) -> None:
    argv = (sys.executable, "-c", "import time; time.sleep(120)")
    slow = SourceSpec("slow", "mcp", "stdio", shlex.join(argv), command=argv)
    session, events, _said = _session(tmp_path, [slow])

    async def scenario() -> None:
        try:
            session.refresh()
            while ("source", "slow", "pending") not in events.seen:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)  # the server is being started
            session.refresh()  # F5 again: the first discovery is cut short
            await asyncio.sleep(0.2)
            assert session.statuses["slow"].state is SourceState.PENDING
            session.cancel()  # Esc: this one says it was stopped
            await session.wait_idle()
        finally:
            await session.reader.close()

    asyncio.run(scenario())
    told = [e for e in events.seen if e[:2] == ("source", "slow")]
    assert told.count(("source", "slow", "cancelled")) == 1
    assert told[-1] == ("source", "slow", "cancelled")
    assert session.summary().unread == ("slow",)

"""A kept connection lost between two operations: a clear state, then a new connection.

The server exits (stdio) or stops listening (HTTP) after a verified read; the next
read must not hang, must not return the old bytes unchecked, and must work again as
soon as the server does.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, HttpServer, free_port, hostile_spec, run
from helpers.serve import serve_argv, serving_pids

from desktop.core.model import SourceSpec
from desktop.sources.mcp.source import ServerHandle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SKILL_MD = "---\nname: alpha\ndescription: The alpha skill.\n---\n# Alpha\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "served-skills"
    (root / "alpha").mkdir(parents=True)
    (root / "alpha" / "SKILL.md").write_text(SKILL_MD)
    return root


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server in /proc")
def test_a_stdio_server_that_exited_is_started_again(folder: Path) -> None:
    argv = serve_argv(folder)
    spec = SourceSpec("loc", "mcp", "stdio", " ".join(argv), command=tuple(argv))

    async def scenario():
        async with ServerHandle(spec, TEST_BUDGETS, None) as handle:
            status, (skill,) = await handle.discover()
            assert status.status == "ok", status.message
            first = await handle.read_skill_md(skill)
            (pid,) = serving_pids(folder)
            os.kill(pid, signal.SIGKILL)
            second = await handle.read_skill_md(skill)
            return first, pid, second, serving_pids(folder), list(handle.status.notes)

    first, pid, second, pids_after, notes = run(scenario())
    assert first.verification.state == "verified"
    assert second.verification.state == "verified", second.verification.message
    assert second.data == SKILL_MD.encode()
    assert pids_after and pid not in pids_after  # a new server process answered
    assert any("after the connection was lost" in n for n in notes)


def test_an_http_server_that_went_away_is_a_clear_read_error_then_works_again(
    folder: Path,
) -> None:
    port = free_port()
    argv = serve_argv(folder, "--http", f"127.0.0.1:{port}")
    spec = SourceSpec("web", "mcp", "http", f"http://127.0.0.1:{port}/mcp")

    async def scenario():
        async with ServerHandle(spec, TEST_BUDGETS, None) as handle:
            with HttpServer(argv, port):
                status, (skill,) = await handle.discover()
                assert status.status == "ok", status.message
                first = await handle.read_skill_md(skill)
            down = await handle.read_skill_md(skill)
            with HttpServer(argv, port):
                back = await handle.read_skill_md(skill)
            return first, down, back

    first, down, back = run(scenario())
    assert first.verification.state == "verified"
    assert down.verification.state == "read-error"
    assert down.data is None and down.parsed is None  # nothing shown unchecked
    assert "cannot reach the server" in down.verification.message
    assert back.verification.state == "verified", back.verification.message
    assert back.data == SKILL_MD.encode()


def test_a_server_that_failed_its_listing_is_started_afresh(tmp_path: Path) -> None:
    """A kept connection whose listing timed out is not reused: the next discovery (a
    Refresh in the window) starts the server again instead of asking the wedged one."""
    from desktop.sources.budgets import Budgets

    record = tmp_path / "methods"
    budgets = Budgets(request_timeout=2, connect_timeout=40, server_timeout=60)

    async def scenario():
        async with ServerHandle(hostile_spec("hang-list", record=record), budgets) as handle:
            first, _ = await handle.discover(timeout=30)
            second, _ = await handle.discover(timeout=30)
            return first, second

    first, second = run(scenario())
    assert first.status == "error" and "no answer to skills/list within 2 s" in first.message
    assert second.status == "error", second.message
    methods = record.read_text().split()
    assert methods.count("skills/list") == 2
    handshakes = methods.count("server/discover") + methods.count("initialize")
    assert handshakes == 2, methods  # one server process per discovery


def _flooders() -> list[int]:
    """Pids of the notify-flood fixture servers still running."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    argv = fh.read().split(b"\0")
            except OSError:
                continue
            if b"notify-flood" in argv:
                pids.append(int(entry))
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server in /proc")
def test_a_kept_connection_flooded_with_notifications_is_closed_with_the_reason() -> None:
    """Once listed, the server sends valid notifications without end. Kept open, that
    connection held a core of the client (the window's own loop) at 100 %; past the
    budget they are dropped unread, and a flood without pause (over the budget in three
    windows in a row: here of 1 s) is given up and closed, the source says why, and the
    next read connects again."""
    import asyncio
    from dataclasses import replace

    budgets = replace(TEST_BUDGETS, notification_window=1.0)

    async def scenario():
        async with ServerHandle(hostile_spec("notify-flood"), budgets, None) as handle:
            status, (skill,) = await handle.discover()
            assert status.status == "ok", status.message
            for _ in range(300):
                if handle.status.status == "error" and not _flooders():
                    break
                await asyncio.sleep(0.1)
            given_up = (handle.status.status, handle.status.message, _flooders())
            again = await handle.read_skill_md(skill)
            return given_up, again, list(handle.status.notes)

    (state, message, flooders), again, notes = run(scenario())
    assert state == "error"
    assert "sent over 5,000 notifications or requests unasked within 1 s" in message
    assert "3 times in a row, without pause" in message
    assert "the connection was given up" in message
    assert flooders == []  # the flooding server was ended, not left running
    assert again.verification.state == "verified", again.verification.message
    assert any("after the connection was lost" in n for n in notes)


def test_a_stdio_server_that_dies_on_its_own_is_reported_at_once() -> None:
    """Found only by the next operation before; now the source says at once that the
    server exited, with its code and its last words, and the next read starts it again."""
    import asyncio

    async def scenario():
        async with ServerHandle(hostile_spec("exit-after-listing"), TEST_BUDGETS, None) as h:
            status, (skill,) = await h.discover()
            assert status.status == "ok", status.message
            for _ in range(100):
                if h.status.status == "error":
                    break
                await asyncio.sleep(0.1)
            lost = (h.status.status, h.status.message)
            again = await h.read_skill_md(skill)
            return lost, again, (h.status.status, h.status.message), status.message

    (state, message), again, reopened, listed = run(scenario())
    assert state == "error"
    assert "connection lost: the server exited with code 5" in message
    assert "server stderr: hostile: out of memory" in message
    assert again.verification.state == "verified", again.verification.message
    # Open again, the source says what its listing found, not a bare "connected".
    assert listed == "1 skill"
    assert reopened == ("ok", listed)


def test_a_kept_connection_whose_server_exits_mid_listing_keeps_what_arrived() -> None:
    """The window lists on a kept connection: a server exiting at page 2 must end as the
    command line says it (the first page kept, the page that failed named), not as "the
    connection was closed" with nothing, after the listing was sent again."""

    async def scenario():
        async with ServerHandle(hostile_spec("exit-mid-listing"), TEST_BUDGETS) as handle:
            return await handle.discover(timeout=60)

    status, skills = run(scenario())
    assert status.status == "error"
    assert status.message.startswith(
        "1 skill listed before the error kept; skills/list page 2 failed"
    ), status.message
    assert [s.id for s in skills] == ["h:skill://demo/SKILL.md"]

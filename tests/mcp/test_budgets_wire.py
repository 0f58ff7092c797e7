"""Answers built to cost: each stops with a plain message, within time and memory.

The servers are ``servers/raw_mcp.py`` (JSON-RPC written by hand, over stdio or plain
HTTP on 127.0.0.1); the command line runs under an address-space and CPU ceiling
(``helpers.bounded``) so that a regression fails instead of taking the machine.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from conftest import TEST_BUDGETS, HttpServer, free_port, run
from helpers.bounded import GIB, run_bounded

from desktop.core.model import SourceSpec
from desktop.sources.mcp.source import ServerHandle

RAW = Path(__file__).resolve().parent / "servers" / "raw_mcp.py"


def raw_argv(*scenario: str) -> list[str]:
    return [sys.executable, str(RAW), *scenario]


def raw_server(*scenario: str) -> str:
    """A ``--server LABEL=COMMAND`` value for the CLI."""
    return "r=" + shlex.join(raw_argv(*scenario))


def raw_spec(*scenario: str) -> SourceSpec:
    argv = tuple(raw_argv(*scenario))
    return SourceSpec("r", "mcp", "stdio", shlex.join(argv), command=argv)


def test_a_45_mb_tools_page_is_refused_before_it_is_parsed(tmp_home: Path) -> None:
    """Parsing it took 3.4 GB; its skills are still listed, the note says why no tools."""
    result = run_bounded("list", "--server", raw_server("big-tools", "45"), seconds=60)
    assert not result.timed_out, result.summary()
    assert result.peak_rss < 1 * GIB, result.summary()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "r:demo  listed" in result.stdout
    assert (
        "tools/list failed: the server's answer to tools/list is 45,0" in result.stdout
        and "more than the 8 MiB one tools/list answer may take; it was not read" in result.stdout
    ), result.stdout
    assert "Traceback" not in result.stderr


def test_a_45_mb_tools_page_over_http_is_refused_unread(tmp_home: Path) -> None:
    port = free_port()
    with HttpServer(raw_argv("big-tools", "45", "--http", str(port)), port) as server:
        result = run_bounded("list", "--server", f"r={server.url}", seconds=60)
    assert not result.timed_out, result.summary()
    assert result.peak_rss < 1 * GIB, result.summary()
    assert "r:demo  listed" in result.stdout, result.stdout + result.stderr
    assert "tools/list failed: the server's answer to tools/list is over 8 MiB" in result.stdout, (
        result.stdout
    )


def test_a_folder_of_300000_entries_stops_at_the_budget_for_all_pages(tmp_home: Path) -> None:
    """Only each page was bounded: 60 pages of 5,000 were all read."""
    for scenario, said in (
        ("dir-flood", "is over 10,000 entries (the limit for one folder) by page 3"),
        ("dir-one-page", "the server's answer to resources/directory/read is 18,"),
    ):
        result = run_bounded(
            "dir", "r:skill://demo/SKILL.md", "--server", raw_server(scenario, "300000"), seconds=60
        )
        assert not result.timed_out, result.summary()
        assert result.peak_rss < 1 * GIB, result.summary()
        assert result.returncode == 1
        assert said in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_a_malformed_notification_is_dropped_without_a_traceback(tmp_home: Path) -> None:
    result = run_bounded("list", "--server", raw_server("bad-notes", "1"), seconds=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "r:demo  listed" in result.stdout
    assert result.stderr == ""


def test_20000_malformed_notifications_are_dropped_and_the_answer_read(tmp_home: Path) -> None:
    """They printed 9,276 tracebacks (11 MB) and made the listing time out although the
    server had answered; then they failed the source as a flood. A sloppy server is not
    a failed source: past the budget they are dropped unread, said once, and the answer
    is read."""
    result = run_bounded("list", "--server", raw_server("bad-notes", "20000"), seconds=60)
    assert not result.timed_out, result.summary()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr) < 2000, result.stderr[:2000]
    assert "r:demo  listed" in result.stdout
    assert "15,000 past that were dropped unread" in result.stdout
    assert "5,000 notification(s) from the server could not be read" in result.stdout
    assert "no answer to skills/list" not in result.stdout


def test_malformed_notifications_on_a_kept_connection_leave_it_answering() -> None:
    """Once listed, the server sends 20,000 notifications that cannot be read, then one
    each 10 ms. Past the budget they are dropped before they are parsed: the kept
    connection (the window's) stays, and what is asked of it is answered."""

    async def scenario() -> tuple[str, str, float]:
        async with ServerHandle(raw_spec("bad-notes-after", "20000"), TEST_BUDGETS, None) as h:
            status, (skill,) = await h.discover()
            assert status.status == "ok", status.message
            cpu = time.process_time()
            for _ in range(10):  # while the burst and the trickle arrive
                read = await h.read_skill_md(skill)
                assert read.verification.state == "verified", read.verification.message
            again, _skills = await h.discover()
            return h.status.status, " ".join(again.notes), time.process_time() - cpu

    state, notes, _cpu = run(scenario())
    assert state == "ok"
    assert "past that were dropped unread" in notes, notes


def test_ten_files_that_never_answer_end_well_within_two_minutes(tmp_home: Path) -> None:
    """Read one after another, each waited its whole request timeout: 153 s for ten."""
    result = run_bounded(
        "verify", "r:skill://demo/SKILL.md", "--server", raw_server("hang-reads"), seconds=110
    )
    assert not result.timed_out, result.summary()
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("r:skill://demo/SKILL.md: read-error:"), result.stdout
    unread = [ln for ln in lines[1:] if "no answer to resources/read" in ln]
    assert len(unread) == 12, result.stdout


def test_a_skills_verification_ends_at_its_deadline_saying_which_files_were_not_read() -> None:
    from dataclasses import replace

    budgets = replace(TEST_BUDGETS, verify_timeout=4, request_timeout=60)

    async def scenario():
        async with ServerHandle(raw_spec("hang-reads"), budgets, None) as handle:
            _status, (skill,) = await handle.discover()
            started = time.monotonic()
            verification = await handle.verify(skill)
            return verification, time.monotonic() - started

    verification, seconds = run(scenario())
    assert seconds < 30
    assert verification.state == "read-error"
    assert {f.message for f in verification.files} == {
        "not read within the 4 s one skill's verification may take"
    }


def test_a_kept_http_connection_to_a_restarted_server_opens_a_new_session(
    tmp_path: Path,
) -> None:
    """Every read failed with "Session terminated ... is it the MCP endpoint?"."""
    port = free_port()
    record, marker = tmp_path / "record", tmp_path / "restarted"
    argv = raw_argv("restart", "--http", str(port), "--record", str(record), "--state", str(marker))
    with HttpServer(argv, port) as server:
        spec = SourceSpec("r", "mcp", "http", server.url)

        async def scenario():
            async with ServerHandle(spec, TEST_BUDGETS, None) as handle:
                _status, (skill,) = await handle.discover()
                first = await handle.read_skill_md(skill, refresh=True)
                marker.touch()  # the server restarts: it knows no session opened before
                again = await handle.read_skill_md(skill, refresh=True)
                later = await handle.read_skill_md(skill, refresh=True)
                return first, again, later

        first, again, later = run(scenario())
    assert first.verification.state == "verified", first.verification.message
    assert again.verification.state == "verified", again.verification.message
    assert later.verification.state == "verified", later.verification.message
    assert record.read_text().split().count("initialize") == 2


def test_an_event_stream_asking_to_reconnect_at_once_is_resumed_a_bounded_number_of_times(
    tmp_path: Path, tmp_home: Path
) -> None:
    """With ``retry: 0`` on every stream, one listing made about 950 requests."""
    port = free_port()
    record = tmp_path / "record"
    argv = raw_argv("sse-retry0", "--http", str(port), "--record", str(record))
    with HttpServer(argv, port) as server:
        result = run_bounded("list", "--server", f"r={server.url}", seconds=60)
    assert not result.timed_out, result.summary()
    assert "was resumed 10 times within 10 s; no more were asked" in result.stdout, result.stdout
    gets = record.read_text().split().count("GET")
    assert gets <= 2 * 10 + 2, gets

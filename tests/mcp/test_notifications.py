"""Notifications never fail a listing: what cannot be read is dropped and counted, what
is past the budget is dropped and said once, and the answer is still read. Real servers
(``servers/raw_mcp.py``) over Streamable HTTP on 127.0.0.1 and over stdio."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import HttpServer, free_port
from helpers.bounded import run_bounded
from test_budgets_wire import raw_argv, raw_server


def _listed(*args: str) -> tuple[int, dict]:
    result = run_bounded("list", "--json", *args, seconds=60)
    assert not result.timed_out, result.summary()
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    return result.returncode, json.loads(result.stdout)


def test_malformed_notifications_before_the_answer_over_http_are_dropped(tmp_home: Path) -> None:
    """Eight events that are not JSON-RPC (invalid JSON, JSON that is not JSON-RPC) before
    the answer to skills/list failed the whole listing ("Failed to parse SSE message")."""
    port = free_port()
    with HttpServer(raw_argv("sse-bad-notes", "8", "--http", str(port)), port) as server:
        rc, data = _listed("--server", f"r={server.url}")
    (source,) = data["sources"]
    assert rc == 0, source
    assert source["status"] == "ok", source["message"]
    assert [s["name"] for s in data["skills"]] == ["demo"]
    said = [n for n in source["notes"] if "could not be read" in n]
    assert said == [
        "8 notification(s) from the server could not be read and were dropped "
        "(the first: '{not json 0')"
    ], source["notes"]


def test_20000_log_notifications_over_http_are_not_a_flood(tmp_home: Path) -> None:
    port = free_port()
    with HttpServer(raw_argv("log-flood", "20000", "--http", str(port)), port) as server:
        rc, data = _listed("--server", f"r={server.url}")
    (source,) = data["sources"]
    assert rc == 0, source
    assert source["status"] == "ok", source["message"]
    assert [s["name"] for s in data["skills"]] == ["demo"]
    dropped = [n for n in source["notes"] if "dropped unread" in n]
    assert len(dropped) == 1, source["notes"]  # said once
    assert "over 5,000 notifications or requests unasked within 10 s" in dropped[0]
    assert "15,000 past that were dropped unread" in dropped[0]


def test_20000_log_notifications_over_stdio_are_not_a_flood(tmp_home: Path) -> None:
    rc, data = _listed("--server", raw_server("log-flood", "20000"))
    (source,) = data["sources"]
    assert rc == 0, source
    assert source["status"] == "ok", source["message"]
    assert [s["name"] for s in data["skills"]] == ["demo"]
    dropped = [n for n in source["notes"] if "dropped unread" in n]
    assert len(dropped) == 1 and "15,000 past that" in dropped[0], source["notes"]


def test_the_event_filter_passes_answers_and_judges_the_rest() -> None:
    from desktop.sources.mcp.notifications import (
        SMALL_EVENT,
        EventFilter,
        NotificationBudget,
        judge_event,
    )

    budget = NotificationBudget(limit=2, window=60)
    events = EventFilter(lambda event: judge_event(event, budget, repr))
    note = (
        b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message",'
        b'"params":{"level":"info","data":"x"}}\n\n'
    )
    answer = b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"skills":[]}}\n\n'
    big = b'data: {"jsonrpc":"2.0","id":2,"result":{"x":"' + b"y" * SMALL_EVENT + b'"}}\n\n'
    stream = b"data: {broken\n\n" + note * 3 + b": ping\n\n" + answer + big
    out = b""
    for at in range(0, len(stream), 1000):  # in pieces, an event split across them
        out += events.feed(stream[at : at + 1000])
    out += events.rest()
    assert out == note * 2 + answer + big
    assert budget.unreadable == 1 and budget.dropped == 2  # the third note and the ping

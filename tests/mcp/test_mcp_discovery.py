"""Discovery against hostile servers (real stdio subprocesses, the SDK's low-level Server).

Each case ends in a clear status and message; invalid entries are listed with their
problems and never loadable; nothing of a skill's files is fetched (V1).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, hostile_spec, run

from desktop.core.model import SourceStatus
from desktop.sources.budgets import Budgets
from desktop.sources.mcp.source import discover_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def discover(scenario: str, record: Path | None = None, **kw: object) -> tuple[SourceStatus, list]:
    budgets = kw.pop("budgets", TEST_BUDGETS)
    return run(discover_server(hostile_spec(scenario, record=record), budgets, **kw))  # type: ignore[arg-type]


def methods(record: Path) -> list[str]:
    return record.read_text().split() if record.exists() else []


def test_a_correct_server_lists_its_skill_and_tools(tmp_path: Path) -> None:
    record = tmp_path / "methods"
    status, skills = discover("ok", record)
    assert status.status == "ok", status.message
    assert status.protocol_version == "2026-07-28"
    assert status.declares_extension is True
    assert status.tools == ["search", "fetch"]
    assert status.ttl_ms == 30000
    assert status.instructions and len(status.instructions) > 2048
    assert [s.id for s in skills] == ["h:skill://demo/SKILL.md"]
    assert skills[0].state == "listed"
    assert skills[0].loading.tool_affinity == ("h__search",)
    # V1: listing fetches nothing.
    assert "resources/read" not in methods(record)
    assert "skills/list" in methods(record)


@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        ("resources-missing", "resources-missing"),
        ("resources-wrong-type", "resources-type"),
        ("outside", "resource-outside"),
        ("dotdot", "resource-outside"),
        ("skill-md-unlisted", "skill-md-unlisted"),
        ("dup-uri", "resource-duplicate"),
        ("name-mismatch", "name-uri-mismatch"),
    ],
)
def test_invalid_entries_are_listed_with_their_problem_never_loadable(
    scenario: str, code: str
) -> None:
    status, skills = discover(scenario)
    assert status.status == "ok"
    assert "1 invalid" in status.message
    (skill,) = skills
    assert skill.state == "invalid"
    assert not skill.loadable
    problem = next(p for p in skill.problems if p.code == code)
    assert problem.severity == "invalid" and problem.message


@pytest.mark.parametrize(
    ("scenario", "code"), [("files-513", "limit-files"), ("bytes-17mib", "limit-bytes")]
)
def test_over_limit_skills_are_declined_with_the_reason(scenario: str, code: str) -> None:
    status, skills = discover(scenario)
    (skill,) = skills
    assert skill.state == "over-limit"
    assert "over a limit" in status.message
    limit = next(p for p in skill.problems if p.code == code)
    assert "512" in limit.message or "16 MiB" in limit.message


def test_dynamic_skill_is_marked_dynamic() -> None:
    _, (skill,) = discover("dynamic")
    assert skill.state == "dynamic"
    assert skill.is_dynamic


def test_repeated_cursor_stops_the_walk_with_a_reason() -> None:
    status, skills = discover("repeat-cursor")
    assert len(skills) == 1
    assert any("repeated cursor" in n for n in status.notes)
    assert "listing incomplete" in status.message


def test_endless_listing_stops_at_the_page_budget() -> None:
    status, skills = discover(
        "endless", budgets=Budgets(max_pages=7, request_timeout=8, connect_timeout=40)
    )
    assert skills == []
    assert any("after 7 pages" in n and "page budget" in n for n in status.notes)


def test_entry_budget_is_visible() -> None:
    status, skills = discover(
        "alias-bomb", budgets=Budgets(max_entries=2, request_timeout=8, connect_timeout=40)
    )
    assert len(skills) == 2
    assert any("entry budget" in n for n in status.notes)


def test_byte_budget_is_visible() -> None:
    status, skills = discover(
        "files-513", budgets=Budgets(max_bytes=1000, request_timeout=8, connect_timeout=40)
    )
    assert skills == []
    assert any("byte budget" in n for n in status.notes)


def test_a_server_that_never_answers_is_reported_in_bounded_time() -> None:
    budgets = Budgets(connect_timeout=6, request_timeout=4, server_timeout=30)
    status, skills = discover("silent", budgets=budgets)
    assert skills == []
    assert status.status == "error"
    assert "could not connect" in status.message and "6 s" in status.message


def test_a_listing_that_never_answers_is_reported() -> None:
    budgets = Budgets(connect_timeout=40, request_timeout=3, server_timeout=60)
    status, _skills = discover("hang-list", budgets=budgets)
    assert status.status == "error"
    assert "no answer to skills/list within 3 s" in status.message


def test_a_server_that_exits_mid_listing_keeps_what_arrived() -> None:
    status, skills = discover("exit-mid-listing")
    assert status.status == "error"
    assert "page 2" in status.message
    # What was kept is said first: the server's stderr, which ends the message, is its own.
    assert status.message.startswith("1 skill listed before the error kept; skills/list page 2")
    assert [s.id for s in skills] == ["h:skill://demo/SKILL.md"]


def test_an_http_server_that_dies_mid_listing_is_its_own_error() -> None:
    """Over HTTP the SDK cancels its own scope when the connection breaks: that ended
    the whole CLI run with a traceback, the other servers' results lost."""
    import sys

    from conftest import HOSTILE, HttpServer, free_port

    from desktop.core.model import SourceSpec
    from desktop.sources.gather import discover as discover_all

    dying, good = free_port(), free_port()
    with (
        HttpServer([sys.executable, str(HOSTILE), "exit-mid-listing", "--http", str(dying)], dying),
        HttpServer([sys.executable, str(HOSTILE), "ok", "--http", str(good)], good) as ok,
    ):
        specs = [
            SourceSpec("h", "mcp", "http", f"http://127.0.0.1:{dying}/mcp"),
            SourceSpec("good", "mcp", "http", ok.url),
        ]
        catalog = run(discover_all(specs, budgets=TEST_BUDGETS))
    by_label = {s.origin.label: s for s in catalog.sources}
    assert by_label["h"].status == "error"
    assert "the connection to the server was lost" in by_label["h"].message
    assert by_label["good"].status == "ok"
    assert [s.id for s in catalog.skills] == ["good:skill://demo/SKILL.md"]


def test_a_server_error_coded_32001_is_the_servers_error_not_a_timeout() -> None:
    status, _skills = discover("refused-32001")
    assert status.status == "error"
    assert "rejected credentials" in status.message and "(error -32001)" in status.message
    assert "no answer within" not in status.message


def test_a_url_that_is_not_the_mcp_endpoint_says_what_to_check() -> None:
    import sys

    from conftest import HOSTILE, HttpServer, free_port

    from desktop.core.model import SourceSpec

    port = free_port()
    with HttpServer([sys.executable, str(HOSTILE), "ok", "--http", str(port)], port):
        spec = SourceSpec("x", "mcp", "http", f"http://127.0.0.1:{port}/nope")
        status, _ = run(discover_server(spec, TEST_BUDGETS))
    assert status.status == "error"
    assert "HTTP 404" in status.message and "is it the MCP endpoint" in status.message


def test_a_banner_on_stdout_is_ignored_and_noted() -> None:
    status, skills = discover("banner")
    assert status.status == "ok", status.message
    assert [s.name for s in skills] == ["demo"]
    assert any(
        "1 message(s) that are not JSON-RPC on its standard output" in n
        and "'hostile: starting up'" in n
        for n in status.notes
    ), status.notes


def test_a_server_flooding_stdout_is_given_up_with_the_reason() -> None:
    # The connect timeout is long: the connection must end on the flood, not on it.
    budgets = Budgets(connect_timeout=120, request_timeout=120, server_timeout=180)
    status, skills = discover("flood", budgets=budgets)
    assert skills == []
    assert status.status == "error"
    assert "not JSON-RPC on its standard output" in status.message
    assert "'hostile: not a message'" in status.message
    assert "no answer" not in status.message and "did not finish" not in status.message


def test_a_server_that_cannot_start_says_why() -> None:
    status, _ = discover("crash")
    assert status.status == "error"
    assert "refusing to start" in status.message  # its stderr is shown
    from desktop.core.model import SourceSpec

    missing = SourceSpec("m", "mcp", "stdio", "no-such-cmd", command=("/nonexistent/server",))
    status2, _ = run(discover_server(missing, TEST_BUDGETS))
    assert status2.status == "error"
    assert "/nonexistent/server" in status2.message


def test_legacy_server_answering_method_not_found_has_no_skills(tmp_path: Path) -> None:
    record = tmp_path / "methods"
    status, skills = discover("no-skills", record, mode="legacy")
    assert status.protocol_version and not status.protocol_version.startswith("2026")
    assert status.declares_extension is None
    assert status.status == "no-skills"
    assert "-32601" in status.message
    assert skills == []
    assert "skills/list" in methods(record)  # D3: a 2025-era server is always asked once


def test_legacy_connection_to_a_skills_server_asks_once() -> None:
    status, skills = discover("ok", mode="legacy")
    assert status.status == "ok"
    assert status.protocol_version == "2025-11-25"
    assert any("asked once" in n for n in status.notes)
    assert len(skills) == 1


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
def test_modern_server_not_declaring_is_never_asked(tmp_path: Path, mode: str) -> None:
    record = tmp_path / "methods"
    status, skills = discover("modern-undeclared", record, mode=mode)
    assert status.protocol_version == "2026-07-28"
    assert status.declares_extension is False
    assert status.status == "no-skills"
    assert skills == []
    assert "tools/list" in methods(record)
    assert "skills/list" not in methods(record)


def test_a_skill_is_not_asked_by_uri_of_a_modern_server_not_declaring(tmp_path: Path) -> None:
    """Clients issue skills/get, like skills/list, only after seeing the declaration."""
    from desktop.sources.errors import SourceError
    from desktop.sources.mcp.source import get_skill_once

    record = tmp_path / "methods"
    spec = hostile_spec("modern-undeclared", record=record)
    with pytest.raises(SourceError) as refused:
        run(get_skill_once(spec, "skill://demo/SKILL.md", TEST_BUDGETS))
    assert "does not declare io.modelcontextprotocol/skills" in str(refused.value)
    assert "skills/get" not in methods(record)


def test_a_listing_without_ttl_or_cache_scope_is_read_with_a_note() -> None:
    status, skills = discover("no-ttl")
    assert status.status == "ok" and len(skills) == 1
    assert status.ttl_ms is None
    (note,) = [n for n in status.notes if "requires" in n]
    assert 'ttlMs is missing and cacheScope is "everyone"' in note
    # Read whole all the same: the source does not say its listing is incomplete.
    assert status.message == "1 skill", status.message
    status, _ = discover("ok")
    assert not [n for n in status.notes if "requires" in n]


def test_pinned_modern_client_sees_the_declaration() -> None:
    status, skills = discover("ok", mode="2026-07-28")
    assert status.declares_extension is True
    assert len(skills) == 1


def test_affinity_pattern_matching_no_tool_is_a_problem() -> None:
    status, (skill,) = discover("affinity-miss")
    assert status.tools == ["web_search", "fetch"]
    miss = next(p for p in skill.problems if p.code == "affinity-no-match")
    assert "'h__search'" in miss.message


def test_a_server_without_tools_is_visible() -> None:
    status, (skill,) = discover("no-tools")
    assert status.tools == []
    assert any("lists no tools" in n for n in status.notes)
    assert any(p.code == "affinity-no-tools" for p in skill.problems)


def test_tools_past_the_tool_budget_are_not_kept_and_that_is_said() -> None:
    status, skills = discover("many-tools", budgets=Budgets(max_tools=1000, max_pages=25))
    assert status.status == "ok"
    assert status.tools is not None and len(status.tools) == 1000
    assert any("tools/list stopped at 1,000 tools (tool budget)" in n for n in status.notes)
    assert skills and not [p for p in skills[0].problems if p.code.startswith("affinity")]


def test_frontmatter_bombs_do_not_blow_up() -> None:
    _status, skills = discover("alias-bomb")
    by_name = {s.name: s for s in skills}
    assert by_name["deep"].state == "invalid"
    assert any(p.code == "frontmatter-too-deep" for p in by_name["deep"].problems)
    assert by_name["deep"].frontmatter is None
    assert by_name["bomb"].state == "listed"  # the entry is fine; its SKILL.md is not (reads)


def test_env_placeholders_are_resolved_at_connect_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    spec = dataclasses.replace(
        hostile_spec("env"), env=(("HOSTILE_ECHO", "${env:SECRET_FOR_TEST}"),)
    )
    monkeypatch.setenv("SECRET_FOR_TEST", "resolved-now")
    status, _ = run(discover_server(spec, TEST_BUDGETS))
    assert status.instructions == "echo: resolved-now"
    monkeypatch.delenv("SECRET_FOR_TEST")
    status, _ = run(discover_server(spec, TEST_BUDGETS))
    assert status.status == "error"
    assert "SECRET_FOR_TEST" in status.message


def test_http_headers_with_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from conftest import HOSTILE, HttpServer, free_port

    from desktop.core.model import SourceSpec

    port = free_port()
    argv = [sys.executable, str(HOSTILE), "ok", "--http", str(port)]
    with HttpServer([*argv, "--require-header", "Authorization=Bearer s3cret"], port) as server:
        spec = SourceSpec(
            "web",
            "mcp",
            "http",
            server.url,
            headers=(("Authorization", "Bearer ${env:WEB_TOKEN}"),),
        )
        monkeypatch.setenv("WEB_TOKEN", "s3cret")
        status, skills = run(discover_server(spec, TEST_BUDGETS))
        assert status.status == "ok", status.message
        assert len(skills) == 1
        monkeypatch.setenv("WEB_TOKEN", "wrong")
        refused, _ = run(discover_server(spec, TEST_BUDGETS))
        assert refused.status == "error"
        assert "s3cret" not in refused.message
        assert "HTTP 401" in refused.message
        monkeypatch.delenv("WEB_TOKEN")
        unset, _ = run(discover_server(spec, TEST_BUDGETS))
        assert unset.status == "error" and "WEB_TOKEN" in unset.message


def test_keyring_secret_in_a_header_is_resolved_at_connect_time(secret_service) -> None:
    """A saved source keeps ``${keyring:...}``; the secret is looked up only to connect."""
    import sys

    import keyring
    from conftest import HOSTILE, HttpServer, free_port

    from desktop.core.model import SourceSpec
    from desktop.sources.config.secrets import KEYRING_SERVICE

    port = free_port()
    argv = [sys.executable, str(HOSTILE), "ok", "--http", str(port)]
    entry = "source/web/header/Authorization"
    keyring.set_password(KEYRING_SERVICE, entry, "Bearer k3yring")
    try:
        with HttpServer([*argv, "--require-header", "Authorization=Bearer k3yring"], port) as srv:
            spec = SourceSpec(
                "web", "mcp", "http", srv.url, headers=(("Authorization", f"${{keyring:{entry}}}"),)
            )
            status, skills = run(discover_server(spec, TEST_BUDGETS))
            assert status.status == "ok", status.message
            assert len(skills) == 1
            assert "k3yring" not in repr(spec)
            keyring.delete_password(KEYRING_SERVICE, entry)
            gone, _ = run(discover_server(spec, TEST_BUDGETS))
            assert gone.status == "error" and entry in gone.message
    finally:
        with contextlib.suppress(Exception):
            keyring.delete_password(KEYRING_SERVICE, entry)


def test_a_405_to_the_optional_event_stream_is_not_blamed_for_a_timeout() -> None:
    """A server may answer 405 to the GET that opens its own event stream; a request
    that then times out said "HTTP 405 ... is it the MCP endpoint?", on the right URL."""
    import sys
    from dataclasses import replace

    from conftest import HOSTILE, HttpServer, free_port

    from desktop.core.model import SourceSpec
    from desktop.sources.mcp.connection import McpConnection
    from desktop.sources.mcp.skills import list_skills

    port = free_port()
    argv = [sys.executable, str(HOSTILE), "hang-list", "--http", str(port), "--refuse-get"]
    budgets = replace(TEST_BUDGETS, request_timeout=2.0)

    async def list_once() -> str:
        spec = SourceSpec("x", "mcp", "http", f"http://127.0.0.1:{port}/mcp")
        async with McpConnection(spec, budgets, mode="legacy") as conn:
            listing = await list_skills(conn)
        return str(listing.error)

    with HttpServer(argv, port):
        message = run(list_once())
    assert "no answer to skills/list within" in message
    assert "405" not in message and "MCP endpoint" not in message


def test_a_long_stderr_is_cut_at_a_word_and_says_so() -> None:
    import sys

    from desktop.core.model import SourceSpec

    script = (
        "import sys; sys.stderr.write(' '.join(f'word{i:04d}' for i in range(900))); sys.exit(3)"
    )
    argv = (sys.executable, "-c", script)
    spec = SourceSpec("loud", "mcp", "stdio", " ".join(argv), command=argv)
    status, _ = run(discover_server(spec, TEST_BUDGETS))
    assert status.status == "error"
    tail = status.message.split("server stderr: ", 1)[1]
    assert tail.startswith("…word") and "word0899" in tail

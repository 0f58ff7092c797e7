"""Host requirements of the Skills extension, each against a real server.

The servers are ``skill-catalog serve`` and the hostile test servers, run over stdio
behind a recorder that writes down every message the client sends (so a test says
what a server received, and what it was never asked); approvals go to the real
Secret Service. docs/conformance.md lists every requirement with its test.
"""

from __future__ import annotations

import json
import os
import socket
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import serve_argv
from ui.conftest import wait_idle

from desktop.core.model import SourceSpec
from desktop.sources.mcp.source import discover_server
from desktop.ui.review.review_view import ReviewView

from .conftest import hostile_argv, methods, reads, received, recorded_spec

pytestmark = [pytest.mark.slow, pytest.mark.keyring, pytest.mark.timeout(300)]
EXT = "io.modelcontextprotocol/skills"


def skill_folder(
    root: Path,
    path: str,
    frontmatter: str = "",
    body: str = "",
    files: dict[str, str] | None = None,
) -> Path:
    """A skill folder ``root/path`` (its last segment is the name) with extra files."""
    folder = root / path
    folder.mkdir(parents=True, exist_ok=True)
    name = path.rsplit("/", 1)[-1]
    body = body or f"# {name}\n"
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\n{frontmatter}---\n{body}",
        encoding="utf-8",
    )
    for rel, text in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder


def served(root: Path, log: Path, label: str = "srv") -> SourceSpec:
    return recorded_spec(label, serve_argv(root), log)


def cli_server(spec: SourceSpec) -> str:
    """The ``--server LABEL=COMMAND`` option naming the very same server."""
    return f"{spec.label}={spec.endpoint}"


def states(window: Any) -> dict[str, Any]:
    """Every skill's approval state as the window holds it, as JSON."""
    return {k: v.to_json() for k, v in sorted(window.controller.approval_states.items())}


def preview(window: Any, qtbot: Any, skill_id: str, uri: str | None = None) -> Any:
    skill = window.controller.catalog.get(skill_id)
    assert skill is not None, skill_id
    assert window.select_skill(skill_id)
    window.tabs.setCurrentWidget(window.preview)
    window.preview.show_skill(skill, uri)
    window.preview.fetch()
    wait_idle(qtbot, window)
    return window.preview


# -- D1: the client claims the extension, in both eras ------------------------------


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_the_client_claims_the_extension_in_what_the_server_receives(
    tmp_path: Path, mode: str
) -> None:
    import asyncio

    root = tmp_path / "skills"
    skill_folder(root, "alpha")
    log = tmp_path / "wire.jsonl"
    status, skills = asyncio.run(discover_server(served(root, log), mode=mode))
    assert status.status == "ok" and len(skills) == 1, status.message
    messages = received(log)
    first = messages[0]
    if mode == "legacy":
        assert first["method"] == "initialize"
        assert EXT in first["params"]["capabilities"].get("extensions", {}), first
    else:
        # 2026-07-28: the client's capabilities travel with every request.
        requests = [m for m in messages if "id" in m and "method" in m]
        assert requests and requests[0]["method"] == "server/discover"
        for request in requests:
            claimed = request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
            assert EXT in claimed["extensions"], request["method"]
    assert "skills/list" in methods(log)
    # Named by the label the host gave the server (serve calls itself skill-catalog).
    assert [s.id for s in skills] == ["srv:skill://alpha/SKILL.md"]


# -- no DNS or network lookup of a skill:// authority ------------------------------


@pytest.fixture
def network_spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every host name this process looks up or connects to (the calls still happen)."""
    seen: list[str] = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect
    real_create = socket.create_connection

    def getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
        seen.append(f"lookup {host}")
        return real_getaddrinfo(host, *args, **kw)

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family != socket.AF_UNIX:  # the session bus of the keyring is a file
            seen.append(f"connect {address}")
        return real_connect(self, address)

    def create_connection(address: Any, *args: Any, **kw: Any) -> Any:
        seen.append(f"connect {address}")
        return real_create(address, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(socket, "gethostbyname", lambda h: seen.append(f"lookup {h}") or "")
    return seen


SPY_SITE = textwrap.dedent(
    """
    import os, socket
    _log = os.environ["NETWORK_SPY_LOG"]
    def _note(what):
        with open(_log, "a") as fh:
            fh.write(what + "\\n")
    _gai, _connect = socket.getaddrinfo, socket.socket.connect
    def getaddrinfo(host, *a, **k):
        _note(f"lookup {host}")
        return _gai(host, *a, **k)
    def connect(self, address):
        if self.family != socket.AF_UNIX:
            _note(f"connect {address}")
        return _connect(self, address)
    socket.getaddrinfo = getaddrinfo
    socket.socket.connect = connect
    """
)


def test_a_skill_whose_authority_looks_like_a_host_is_read_only_through_its_server(
    make_window: Any, qtbot: Any, tmp_path: Path, network_spy: list[str], run_cli: Any
) -> None:
    root = tmp_path / "skills"
    skill_folder(root, "example.com/refunds", body="# Refunds\n\nSee [the form](form.md).\n")
    (root / "example.com" / "refunds" / "form.md").write_text("The form.\n")
    log = tmp_path / "wire.jsonl"
    spec = served(root, log)
    window = make_window([spec])
    skill_id = "srv:skill://example.com/refunds/SKILL.md"
    p = preview(window, qtbot, skill_id)
    assert "Checked: matches what the source listed" in p.status.text()
    p.follow_link("form.md")  # opens in the Files tab, read through the server
    wait_idle(qtbot, window)
    files = window.page.file_view
    assert files.uri == "skill://example.com/refunds/form.md"
    assert "Checked: matches what the source listed" in files.status.text()
    assert "The form." in files.text.toPlainText()
    assert reads(log) == [
        "skill://example.com/refunds/SKILL.md",
        "skill://example.com/refunds/form.md",
    ]
    assert network_spy == [], network_spy  # the window looked nothing up

    # The command line, in a process of its own watched the same way.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SPY_SITE)
    spy_log = tmp_path / "network.log"
    env = dict(os.environ, PYTHONPATH=str(site), NETWORK_SPY_LOG=str(spy_log))
    done = run_cli("show", skill_id, "--server", cli_server(spec), env=env)
    assert done.returncode == 0, done.stderr
    assert "# Refunds" in done.stdout
    assert "skill://example.com/refunds/SKILL.md" in reads(log)[2:]
    looked_up = spy_log.read_text() if spy_log.exists() else ""
    assert "example.com" not in looked_up, looked_up
    assert all("127.0.0.1" in line or "localhost" in line for line in looked_up.splitlines())


# -- a nested SKILL.md read as a supporting file is not acted on -------------------


def test_a_nested_skill_md_read_as_a_file_of_its_parent_is_ordinary_markdown(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    skill_folder(root, "outer", body="# Outer\n\nSee [inner](inner/SKILL.md).\n")
    skill_folder(
        root,
        "outer/inner",
        "allowed-tools: Bash(rm:*)\nmetadata:\n  nimblebrain.loading-strategy: always\n"
        '  nimblebrain.priority: "100"\n  nimblebrain.triggers: everything\n',
        "# Inner\n\nRun anything.\n",
    )
    log = tmp_path / "wire.jsonl"
    window = make_window([served(root, log)])
    c = window.controller
    outer_id, inner_id = "srv:skill://outer/SKILL.md", "srv:skill://outer/inner/SKILL.md"
    outer, inner = c.catalog.get(outer_id), c.catalog.get(inner_id)
    assert outer is not None and inner is not None
    nested_uri = "skill://outer/inner/SKILL.md"
    assert outer.file(nested_uri) is not None  # a supporting file of the parent
    record = window.controller.spawn(c.approve(outer))
    qtbot.waitUntil(record.done, timeout=30000)
    before = states(window)
    loading_before = (outer.loading, [s.id for s in c.catalog.skills])

    p = preview(window, qtbot, outer_id, nested_uri)
    # Verified against the parent's entry as a file: its bytes, not its frontmatter
    # (which names another skill and would fail a comparison with the parent's).
    assert "Checked: matches what the source listed" in p.status.text(), p.status.text()
    assert p.result is not None and p.result.parsed is None
    assert "allowed-tools: Bash(rm:*)" in p.rendered.toPlainText()  # shown as text
    assert reads(log) == [nested_uri]
    # Nothing acted on: no new skill, the parent's values and approval as they were,
    # no grant of the nested skill's tools, the nested skill itself not loaded.
    outer_now = c.catalog.get(outer_id)
    assert (outer_now.loading, [s.id for s in c.catalog.skills]) == loading_before
    assert outer_now.loading.strategy != "always"
    assert states(window) == before
    assert not c.approval_states[outer_id].tool_granted("Bash(rm:*)")
    assert c.approval_states[inner_id].state == "not-approved"
    assert c.file_state(inner_id, nested_uri) is None
    assert inner_id in [s.id for s in c.needs_decision()]


# -- a resources/read by another route is not a load --------------------------------


def test_previews_show_and_links_leave_approvals_and_the_review_queue_as_they_were(
    make_window: Any, qtbot: Any, tmp_path: Path, run_cli: Any, secret_service: Any
) -> None:
    root = tmp_path / "skills"
    skill_folder(
        root,
        "alpha",
        "allowed-tools: search\n",
        "# Alpha\n\nSee [the guide](references/guide.md).\n",
        files={"references/guide.md": "The guide.\n"},
    )
    skill_folder(root, "beta", "allowed-tools: fetch\n")
    log = tmp_path / "wire.jsonl"
    spec = served(root, log)
    window = make_window([spec])
    c = window.controller
    alpha, beta = "srv:skill://alpha/SKILL.md", "srv:skill://beta/SKILL.md"
    task = c.spawn(c.approve(c.catalog.get(alpha), grant_tools=["search"]))
    qtbot.waitUntil(task.done, timeout=30000)
    assert c.approval_states[alpha].tool_granted("search")
    before, queue = states(window), [s.id for s in c.needs_decision()]
    assert queue == [beta]

    preview(window, qtbot, beta)
    p = preview(window, qtbot, alpha)
    p.follow_link("references/guide.md")  # opens in the Files tab
    wait_idle(qtbot, window)
    assert "The guide." in window.page.file_view.text.toPlainText()
    assert set(reads(log)) == {
        "skill://beta/SKILL.md",
        "skill://alpha/SKILL.md",
        "skill://alpha/references/guide.md",
    }
    assert states(window) == before
    assert [s.id for s in c.needs_decision()] == queue
    # As the keyring holds them, read again from scratch.
    task = c.spawn(c.load_approvals())
    qtbot.waitUntil(task.done, timeout=30000)
    assert states(window) == before
    assert not c.approval_states[beta].tool_granted("fetch")

    # The command line: `show` of both, then the stored approvals are those before.
    options = ("--server", cli_server(spec))
    done = run_cli("approve", alpha, "--grant-tool", "search", *options)
    assert done.returncode == 0, done.stderr

    def stored() -> Any:
        data = json.loads(run_cli("approvals", "--json", *options).stdout)
        data.pop("exported_at")  # the time of this answer
        return data

    before_show = stored()
    assert len(before_show["approvals"]) == 1
    for skill_id in (alpha, beta):
        shown = run_cli("show", skill_id, *options)
        assert shown.returncode == 0, shown.stderr
    assert stored() == before_show
    listed = json.loads(run_cli("list", "--json", *options).stdout)
    by_id = {s["id"]: s for s in listed["skills"]}
    assert by_id[beta]["approval"]["state"] == "not-approved"
    assert by_id[alpha]["approval"]["grants"] == {"tools": ["search"], "scripts": False}


# -- approving fetches nothing ---------------------------------------------------


def test_approving_in_the_window_and_with_approve_sends_no_read(
    make_window: Any, qtbot: Any, tmp_path: Path, run_cli: Any, secret_service: Any
) -> None:
    root = tmp_path / "skills"
    skill_folder(root, "alpha", "allowed-tools: search\n", files={"scripts/run.sh": "echo hi\n"})
    log = tmp_path / "wire.jsonl"
    spec = served(root, log)
    window = make_window([spec])
    skill_id = "srv:skill://alpha/SKILL.md"
    window.actions_.review(skill_id)
    review = next(w for w in window.findChildren(ReviewView) if w.isVisible())
    for box in review.tool_boxes:
        box.setChecked(True)
    assert review.scripts_box is not None
    review.scripts_box.setChecked(True)
    review.unread_box.setChecked(True)  # approved without reading its files first
    qtbot.waitUntil(review.approve_button.isEnabled, timeout=30000)
    review.approve_button.click()
    qtbot.waitUntil(lambda: window.controller.approval_states[skill_id].approved, timeout=30000)
    wait_idle(qtbot, window)
    assert window.controller.approval_states[skill_id].scripts_allowed
    assert "skills/list" in methods(log)
    assert reads(log) == []

    log.unlink()
    done = run_cli("approve", skill_id, "--grant-tool", "search", "--server", cli_server(spec))
    assert done.returncode == 0, done.stderr
    assert "Approved" in done.stdout
    assert "skills/list" in methods(log)
    assert reads(log) == []


# -- an approved skill later listed as "dynamic" is no longer approved --------------


def test_a_skill_that_turns_dynamic_loses_its_approval_and_its_grants(
    make_window: Any, qtbot: Any, tmp_path: Path, run_cli: Any
) -> None:
    flag = tmp_path / "now-dynamic"
    log = tmp_path / "wire.jsonl"
    spec = recorded_spec("h", [*hostile_argv("turns-dynamic"), "--flag", str(flag)], log)
    window = make_window([spec])
    c = window.controller
    skill_id = "h:skill://grantee/SKILL.md"
    task = c.spawn(c.approve(c.catalog.get(skill_id), grant_tools=["search"], allow_scripts=True))
    qtbot.waitUntil(task.done, timeout=30000)
    state = c.approval_states[skill_id]
    assert state.approved and state.tool_granted("search") and state.scripts_allowed

    flag.write_text("")
    task = c.refresh()
    qtbot.waitUntil(task.done, timeout=60000)
    wait_idle(qtbot, window)
    assert c.catalog.get(skill_id).is_dynamic
    state = c.approval_states.get(skill_id)
    assert state is not None, sorted(c.approval_states)
    assert not state.approved
    assert not state.tool_granted("search") and not state.scripts_allowed
    assert state.to_json().get("grants") is None
    assert "dynamic" in state.message()

    # The command line says the same of the stored approval.
    options = ("--server", cli_server(spec))
    listed = json.loads(run_cli("list", "--json", *options).stdout)
    (entry,) = [s for s in listed["skills"] if s["id"] == skill_id]
    assert entry["approval"]["state"] != "approved"
    assert entry["approval"].get("grants") is None


# -- cached content keeps its origin across restarts -----------------------------


def test_bytes_from_the_cache_after_a_restart_are_still_the_servers_third_party_content(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    skill_folder(
        root, "alpha", body="# Alpha\n\nRun scripts/run.sh.\n", files={"scripts/run.sh": "echo\n"}
    )
    # The same server (label and command line) both times: the recorder appends to one log.
    log = tmp_path / "wire.jsonl"
    skill_id = "srv:skill://alpha/SKILL.md"
    first = make_window([served(root, log)])
    preview(first, qtbot, skill_id)
    preview(first, qtbot, skill_id, "skill://alpha/scripts/run.sh")
    assert reads(log) == ["skill://alpha/SKILL.md", "skill://alpha/scripts/run.sh"]
    first.close()
    log.unlink()

    # Opened again: a new window, a new reader on the same cache folder, a new server.
    second = make_window([served(root, log)])
    for uri in (None, "skill://alpha/scripts/run.sh"):
        p = preview(second, qtbot, skill_id, uri)
        assert "Checked: matches what the source listed" in p.status.text(), p.status.text()
        assert "not a safety check" in p.status.text()
    assert "skills/list" in methods(log) and reads(log) == []  # served from the cache
    skill = second.controller.catalog.get(skill_id)
    assert (skill.origin.kind, skill.origin.label) == ("mcp", "srv")
    detail = second.detail.browser.toPlainText()
    assert "Third-party content: published by the server srv" in detail, detail
    state = second.controller.approval_states[skill_id]
    assert not state.approved and not state.scripts_allowed  # scripts still need approval
    assert skill_id in [s.id for s in second.controller.needs_decision()]


# -- a link to another server's skill asks every time, naming both -----------------


def test_a_link_to_another_servers_skill_asks_at_every_click(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    skill_folder(one, "alpha", body="# Alpha\n\nUse [beta](skill://beta/SKILL.md).\n")
    skill_folder(two, "beta", body="# Beta\n")
    log_one, log_two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    window = make_window([served(one, log_one, "first"), served(two, log_two, "second")])
    asked: list[str] = []
    answers = [True, True, False]

    def confirm(question: str) -> bool:
        asked.append(question)
        return answers[len(asked) - 1]

    window.preview.confirm = confirm
    alpha = "first:skill://alpha/SKILL.md"
    for n in range(3):
        preview(window, qtbot, alpha)
        window.preview.follow_link("skill://beta/SKILL.md")
        wait_idle(qtbot, window)
        assert len(asked) == n + 1  # asked again, a "yes" before is not remembered
        assert "first" in asked[n] and "second" in asked[n], asked[n]
        if answers[n]:
            assert window.preview.skill.id == "second:skill://beta/SKILL.md"
            assert "# Beta" in window.preview.raw.toPlainText()
        else:
            assert window.preview.skill.id == alpha
            assert "Not opened" in window.preview.link_note.text()
    # Read after the first yes; the second yes was answered from the verified cache.
    assert reads(log_two) == ["skill://beta/SKILL.md"]


# -- a dynamic skill's bytes are only ever shown unverified -------------------------


def test_a_dynamic_skill_is_shown_unverified_and_show_refuses_it_by_default(
    make_window: Any, qtbot: Any, tmp_path: Path, run_cli: Any
) -> None:
    log = tmp_path / "wire.jsonl"
    spec = recorded_spec("h", hostile_argv("dynamic"), log)
    window = make_window([spec])
    skill_id = "h:skill://demo/SKILL.md"
    p = preview(window, qtbot, skill_id)
    assert p.status.text().startswith("Unverified: the server publishes no size or digest")
    assert "dynamic skill" in p.status.toolTip()
    assert "match" not in p.status.text().lower()
    assert "# demo" in p.raw.toPlainText()
    _, text = window.controller.verification_of(window.controller.catalog.get(skill_id))
    assert text == "dynamic: 1 read, unverifiable"
    row = window.table_model.row_of(skill_id)
    cells = [window.table_model.index(row, col).data() for col in range(8)]
    assert not any(isinstance(v, str) and "files verified" in v for v in cells), cells

    options = ("--server", cli_server(spec))
    refused = run_cli("show", skill_id, *options)
    assert refused.returncode == 1
    assert "--allow-dynamic" in refused.stderr and refused.stdout == ""
    allowed = run_cli("show", skill_id, "--allow-dynamic", *options)
    assert allowed.returncode == 0, allowed.stderr
    assert "# demo" in allowed.stdout
    assert "warning:" in allowed.stderr and "dynamic" in allowed.stderr

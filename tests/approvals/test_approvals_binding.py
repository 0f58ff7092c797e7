"""The binding rules (A2-A5), without a keyring: records, set hashes, states, diffs, grants."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from approval_helpers import HTTP_A, STDIO_A, STDIO_B, digest, scan, server_entry, server_skill

from desktop.core.approvals import (
    APPROVED,
    CHANGED,
    NOT_APPROVED,
    UNAPPROVABLE,
    ApprovalError,
    ApprovalKey,
    ApprovalRecord,
    bind,
    file_set_hash,
    make_record,
)
from desktop.core.model import Origin, Skill, SkillFile

WHEN = "2026-01-02T03:04:05+00:00"


def approve(skill: Skill, **kw: Any) -> ApprovalRecord:
    return make_record(skill, approved_at=WHEN, approved_by="reviewer", **kw)


def test_set_hash_is_order_free_and_binds_uri_and_digest() -> None:
    a = SkillFile("skill://x/SKILL.md", digest(b"a"), 1)
    b = SkillFile("skill://x/b.txt", digest(b"b"), 1)
    assert file_set_hash([a, b]) == file_set_hash([b, a])
    assert file_set_hash([a, b]) != file_set_hash([a])
    moved = SkillFile("skill://x/c.txt", b.digest, b.size)
    assert file_set_hash([a, b]) != file_set_hash([a, moved])


def test_fresh_approval_binds_to_the_listed_set() -> None:
    skill = server_skill("docs", STDIO_A, server_entry("refunds", {"ref.md": b"r"}))
    record = approve(skill)
    state = bind(skill, record)
    assert state.state == APPROVED
    assert record.file_count == 2
    key = ApprovalKey("mcp", "docs", STDIO_A, "skill://refunds/SKILL.md", "stdio")
    assert record.key == key
    assert record.approved_by == "reviewer" and record.approved_at == WHEN


def test_rotated_digest_is_changed_with_old_and_new_digest_and_size() -> None:
    old = server_skill("docs", STDIO_A, server_entry("refunds", {"ref.md": b"one"}))
    record = approve(old)
    new = server_skill("docs", STDIO_A, server_entry("refunds", {"ref.md": b"three"}))
    state = bind(new, record)
    assert state.state == CHANGED
    assert state.diff is not None and not state.diff.added and not state.diff.removed
    (change,) = state.diff.changed
    assert change.uri == "skill://refunds/ref.md"
    assert (change.old_digest, change.old_size) == (digest(b"one"), 3)
    assert (change.new_digest, change.new_size) == (digest(b"three"), 5)
    assert "1 changed" in state.message()


def test_added_and_removed_files_are_changes() -> None:
    old = server_skill("docs", STDIO_A, server_entry("refunds", {"a.md": b"a", "b.md": b"b"}))
    record = approve(old)
    new = server_skill("docs", STDIO_A, server_entry("refunds", {"a.md": b"a", "c.md": b"c"}))
    state = bind(new, record)
    assert state.state == CHANGED and state.diff is not None
    assert [c.uri for c in state.diff.added] == ["skill://refunds/c.md"]
    assert state.diff.added[0].new_digest == digest(b"c")
    assert [c.uri for c in state.diff.removed] == ["skill://refunds/b.md"]
    assert state.diff.removed[0].old_digest == digest(b"b")
    assert state.diff.changed == ()
    assert state.to_json()["diff"]["removed"][0]["old_size"] == 1


def test_same_uri_on_two_servers_or_endpoints_never_shares_an_approval() -> None:
    entry = server_entry("refunds")
    a = server_skill("docs", STDIO_A, entry)
    b = server_skill("other", STDIO_B, entry)
    moved = server_skill("docs", HTTP_A, entry, transport="http")
    record = approve(a)
    assert ApprovalKey.for_skill(a) != ApprovalKey.for_skill(b)
    assert ApprovalKey.for_skill(a) != ApprovalKey.for_skill(moved)
    assert bind(b, record).state == NOT_APPROVED
    assert bind(moved, record).state == NOT_APPROVED
    assert bind(b, record).problem is not None  # a record under the wrong key is refused


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (server_entry("live", dynamic=True), "dynamic"),
        (
            {"uri": "skill://bad/SKILL.md", "frontmatter": {"name": "other"}, "resources": []},
            "invalid",
        ),
        (
            server_entry("big", {f"f{i}.txt": b"x" for i in range(512)}),
            "over a limit",
        ),
    ],
)
def test_dynamic_invalid_and_over_limit_are_unapprovable(entry: dict, reason: str) -> None:
    skill = server_skill("docs", STDIO_A, entry)
    assert bind(skill, None).state == UNAPPROVABLE
    assert reason in bind(skill, None).reason
    with pytest.raises(ApprovalError) as exc:
        approve(skill)
    assert exc.value.code == "unapprovable" and reason in exc.value.message


def test_grants_are_explicit_and_only_for_requested_tools() -> None:
    entry = server_entry("deploy", {"scripts/go.sh": b"echo go\n"}, allowed_tools="Bash Read")
    skill = server_skill("docs", STDIO_A, entry)
    plain = bind(skill, approve(skill))
    assert plain.approved
    assert not plain.tool_granted("Bash") and not plain.scripts_allowed
    granted = bind(skill, approve(skill, grant_tools=["Bash"], allow_scripts=True))
    assert granted.tool_granted("Bash") and not granted.tool_granted("Read")
    assert granted.scripts_allowed
    with pytest.raises(ApprovalError) as exc:
        approve(skill, grant_tools=["Write"])
    assert exc.value.code == "tool-not-requested"
    assert "Write" in exc.value.message and "Bash, Read" in exc.value.message


def test_grants_fall_away_when_the_files_change() -> None:
    skill = server_skill(
        "docs", STDIO_A, server_entry("deploy", {"x.sh": b"1"}, allowed_tools="Bash")
    )
    record = approve(skill, grant_tools=["Bash"], allow_scripts=True)
    changed = server_skill(
        "docs", STDIO_A, server_entry("deploy", {"x.sh": b"2"}, allowed_tools="Bash")
    )
    state = bind(changed, record)
    assert state.state == CHANGED
    assert not state.tool_granted("Bash") and not state.scripts_allowed
    assert state.to_json()["grants"] is None


def test_record_round_trips_and_detects_tampering() -> None:
    skill = server_skill("docs", STDIO_A, server_entry("refunds", {"a.py": b"a"}))
    record = approve(skill, allow_scripts=True)
    data = json.loads(json.dumps(record.to_json()))
    assert ApprovalRecord.from_json(data) == record
    data["files"][0]["digest"] = digest(b"evil")
    with pytest.raises(ApprovalError) as exc:
        ApprovalRecord.from_json(data)
    assert exc.value.code == "tampered"
    for broken in (
        {},
        {"kind": "skill-approval", "format": 99},
        [1, 2],
        {**record.to_json(), "files": 3},
    ):
        with pytest.raises(ApprovalError) as exc:
            ApprovalRecord.from_json(broken)
        assert exc.value.code == "unparseable"


def test_local_key_is_the_folder_path_whatever_the_label() -> None:
    skill = server_skill("docs", STDIO_A, server_entry("refunds"))
    local = replace(
        skill,
        origin=Origin("mine", "local", "folder", "/data/skills"),
        uri="refunds/SKILL.md",
        path="/data/skills/refunds",
    )
    relabelled = replace(local, origin=Origin("theirs", "local", "folder", "/data/skills"))
    assert ApprovalKey.for_skill(local) == ApprovalKey("local", "", "", "/data/skills/refunds")
    assert ApprovalKey.for_skill(local) == ApprovalKey.for_skill(relabelled)


def test_a_local_skill_whose_folder_could_not_be_read_whole_is_unapprovable(
    tmp_path: Path,
) -> None:
    """A file list the scan knows to be incomplete cannot carry an approval (A2): a file
    the scan missed would lie outside the approved set. Here a folder lies beyond the
    longest path the system opens (a file unreadable to the scanning user is the same)."""
    root = tmp_path / "skills"
    (root / "alpha").mkdir(parents=True)
    (root / "alpha" / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\nBody\n")
    fd = os.open(root / "alpha", os.O_RDONLY)
    try:
        for _ in range(22):
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        payload = os.open("payload.sh", os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=fd)
        os.write(payload, b"echo hidden\n")
        os.close(payload)
    finally:
        os.close(fd)
    skill = scan(root)["alpha/SKILL.md"]
    assert any(p.code == "folder-unreadable" for p in skill.problems)
    state = bind(skill, None)
    assert state.state == UNAPPROVABLE and "could not be read" in state.reason
    with pytest.raises(ApprovalError) as exc:
        approve(skill)
    assert exc.value.code == "unapprovable"


def test_a_listed_frontmatter_changed_under_the_same_files_voids_the_approval() -> None:
    """The reviewer approved a skill as listed: its description, its requests. A server
    listing other frontmatter for the same files no longer describes the SKILL.md that
    was approved, and the approval says so instead of standing."""
    skill = server_skill("docs", STDIO_A, server_entry("deploy", allowed_tools="Read"))
    record = approve(skill)
    assert bind(skill, record).state == APPROVED
    reworded = replace(
        skill,
        description="Something the file does not say",
        frontmatter={**skill.frontmatter, "description": "Something the file does not say"},
    )
    state = bind(reworded, record)
    assert state.state == CHANGED and not state.approved
    assert "frontmatter is not the one approved" in state.message()
    assert not state.tool_granted("Read")
    # A record made before the frontmatter was kept binds the files alone, as it did.
    older = replace(record, frontmatter_hash="")
    assert ApprovalRecord.from_json(json.loads(json.dumps(older.to_json()))) == older
    assert bind(reworded, older).state == APPROVED
    # Keys YAML reads as numbers or dates hash as text, in any order.
    odd = replace(skill, frontmatter={**skill.frontmatter, 1: "one", "z": {2: "two"}})
    assert bind(odd, approve(odd)).state == APPROVED

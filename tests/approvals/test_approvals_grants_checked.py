"""A stored approval is checked against its skill when read: one rewritten in the
keyring (every checksum recomputed) to grant a tool the skill never requested, or
scripts to a skill without any, is damaged, shown as such and never honoured.

The record is approved through the program, then edited past it with the Secret
Service API (secretstorage) in this test's real keyring session."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from approval_helpers import skill_md, write_skill

from tests.helpers.keyring_records import rewrite_record

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(180)]


@pytest.fixture
def cli(run_cli: Callable[..., Any], service_name: str, secret_service: Any) -> Any:
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}
    return lambda *args: run_cli(*args, env=env)


def test_grants_rewritten_in_the_keyring_make_the_record_damaged(
    cli: Any, service_name: str, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "notes", {"SKILL.md": skill_md("notes", "Read Grep")})
    src = ("--folder", f"team={root}")
    skill = "team:notes/SKILL.md"
    done = cli("approve", skill, "--grant-tool", "Read", *src)
    assert done.returncode == 0, done.stderr
    listed = json.loads(cli("list", "--json", *src).stdout)["skills"]
    assert listed[0]["approval"]["state"] == "approved"

    # The whole forgery: the grants and the tools "requested" agree with each other,
    # the files and their set hash are untouched, the entry's checksum is recomputed.
    def forge(record: dict[str, Any]) -> None:
        record["grants"] = {"tools": ["Read", "WebFetch", "mcp__evil"], "scripts": False}
        record["requested_tools"] = ["Read", "Grep", "WebFetch", "mcp__evil"]

    rewrite_record(service_name, forge)

    proc = cli("list", "--json", *src)
    assert proc.returncode == 0, proc.stderr
    (item,) = json.loads(proc.stdout)["skills"]
    approval = item["approval"]
    assert approval["state"] == "not-approved"
    assert approval["damaged"] is True and approval["error"]["code"] == "tampered"
    assert "WebFetch, mcp__evil" in approval["message"]
    assert "does not request" in approval["message"]
    assert approval.get("grants") is None

    shown = cli("approvals", *src)
    assert shown.returncode == 0, shown.stderr
    assert "damaged, counts as not approved" in shown.stdout
    assert "now:       not-approved" in shown.stdout
    assert "granted" not in shown.stdout  # no grant of the forged record is shown
    assert "scripts:   allowed" not in shown.stdout

    audit = cli("approvals", "--json", *src)
    (row,) = json.loads(audit.stdout)["approvals"]
    assert row["error"]["code"] == "tampered" and "grants" not in row
    assert row["current"]["damaged"] is True and row["current"]["state"] == "not-approved"


def test_a_record_whose_grants_exceed_its_own_requests_is_damaged_without_sources(
    cli: Any, service_name: str, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "notes", {"SKILL.md": skill_md("notes", "Read")})
    src = ("--folder", f"team={root}")
    assert cli("approve", "team:notes/SKILL.md", "--grant-tool", "Read", *src).returncode == 0

    def forge(record: dict[str, Any]) -> None:
        record["grants"] = {"tools": ["Read", "Bash"], "scripts": True}

    rewrite_record(service_name, forge)
    audit = cli("approvals", "--json")
    assert audit.returncode == 0, audit.stderr
    (row,) = json.loads(audit.stdout)["approvals"]
    assert row["error"]["code"] == "tampered" and "Bash" in row["error"]["message"]
    assert "running scripts, which the skill does not have" in row["error"]["message"]
    assert "grants" not in row
    listed = json.loads(cli("list", "--json", *src).stdout)["skills"]
    assert listed[0]["approval"]["state"] == "not-approved"
    assert listed[0]["approval"]["damaged"] is True


def test_a_tool_dropped_by_a_new_version_is_a_change_not_damage(cli: Any, tmp_path: Path) -> None:
    """An honest approval whose skill later stops requesting a tool is ``changed``."""
    root = tmp_path / "skills"
    folder = write_skill(root, "notes", {"SKILL.md": skill_md("notes", "Read WebFetch")})
    src = ("--folder", f"team={root}")
    assert cli("approve", "team:notes/SKILL.md", "--grant-tool", "WebFetch", *src).returncode == 0
    (folder / "SKILL.md").write_bytes(skill_md("notes", "Read"))
    listed = json.loads(cli("list", "--json", *src).stdout)["skills"]
    assert listed[0]["approval"]["state"] == "changed"
    assert "damaged" not in listed[0]["approval"]

"""``approve --read``, ``reject``, ``revoke`` of a rejection and ``approvals --format``,
run as the program against the real Secret Service, a folder and a real MCP server
whose requests are recorded (approving from the listing must fetch nothing)."""

from __future__ import annotations

import csv
import io
import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from approval_helpers import skill_md, write_skill

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(300)]

HOSTILE = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "hostile.py"
DEMO = "h:skill://demo/SKILL.md"


@pytest.fixture
def cli(run_cli: Any, service_name: str, secret_service: Any, tmp_home: Path) -> Callable[..., Any]:
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}

    def run(*args: str | Path) -> Any:
        return run_cli(*args, env=env)

    return run


def methods(record: Path) -> list[str]:
    return record.read_text().split() if record.exists() else []


def server(record: Path, scenario: str = "ok") -> tuple[str, str]:
    argv = [sys.executable, str(HOSTILE), scenario, "--record", str(record)]
    return "--server", f"h={shlex.join(argv)}"


def test_approve_from_the_listing_fetches_nothing_and_says_so(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    record = tmp_path / "methods"
    done = cli("approve", DEMO, *server(record))
    assert done.returncode == 0, done.stderr
    assert "skills/list" in methods(record)
    assert "resources/read" not in methods(record)  # V1: nothing fetched at approval
    assert "from the listing alone (the files were not read)" in done.stdout
    assert "pass --read" in done.stdout
    (stored,) = json.loads(cli("approvals", "--json").stdout)["approvals"]
    assert stored["files_read"] is False


def test_approve_read_reads_verifies_records_and_keeps_the_copies(
    cli: Callable[..., Any], tmp_path: Path, tmp_home: Path
) -> None:
    record = tmp_path / "methods"
    done = cli("approve", DEMO, "--read", *server(record))
    assert done.returncode == 0, done.stderr
    assert methods(record).count("resources/read") == 2  # SKILL.md and the guide
    assert "every file was read and verified" in done.stdout
    (stored,) = json.loads(cli("approvals", "--json").stdout)["approvals"]
    assert stored["files_read"] is True
    kept = list((tmp_home / ".cache" / "skill-catalog" / "verified" / "approved").rglob("*"))
    assert len([p for p in kept if p.is_file()]) == 2
    revoked = cli("revoke", DEMO)
    assert revoked.returncode == 0, revoked.stderr
    assert not list((tmp_home / ".cache" / "skill-catalog" / "verified" / "approved").glob("*/*"))


def test_approve_read_refuses_when_a_file_does_not_verify(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    record = tmp_path / "methods"
    refused = cli("approve", DEMO, "--read", *server(record, "wrong-digest"))
    assert refused.returncode == 1
    assert "do not all verify" in refused.stderr and "digest-mismatch" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert json.loads(cli("approvals", "--json").stdout)["approvals"] == []


def test_grants_are_explained_by_risk(cli: Callable[..., Any], tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "ops", {"SKILL.md": skill_md("ops", "Bash Read Frobnicate")})
    done = cli("approve", "team:ops/SKILL.md", "--grant-tool", "Read", "--folder", f"team={root}")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "- Bash: run any command on this machine" in out and "(high risk)" in out
    assert "+ Read: read any file you can read (reads files)" in out
    assert "- Frobnicate: not a tool this program knows; treated as powerful" in out


def test_errors_block_approve_unless_despite_problems(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "Bad_Name", {"SKILL.md": skill_md("Bad_Name")})
    src = ("--folder", f"team={root}")
    refused = cli("approve", "team:Bad_Name/SKILL.md", *src)
    assert refused.returncode == 1 and "despite its problems" in refused.stderr
    done = cli("approve", "team:Bad_Name/SKILL.md", "--despite-problems", *src)
    assert done.returncode == 0, done.stderr
    assert "despite:" in done.stdout
    (stored,) = json.loads(cli("approvals", "--json").stdout)["approvals"]
    assert stored["despite_problems"]


def test_reject_then_change_then_revoke_and_export(cli: Callable[..., Any], tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "shady", {"SKILL.md": skill_md("shady", "Bash")})
    write_skill(root, "fine", {"SKILL.md": skill_md("fine")})
    src = ("--folder", f"team={root}")
    shady, fine = "team:shady/SKILL.md", "team:fine/SKILL.md"
    done = cli("reject", shady, "--reason", "runs what it downloads", *src)
    assert done.returncode == 0, done.stderr
    assert "reason:    runs what it downloads" in done.stdout
    assert cli("approve", fine, "--read", *src).returncode == 0

    def states() -> dict[str, dict[str, Any]]:
        proc = cli("list", "--json", *src)
        return {s["id"]: s["approval"] for s in json.loads(proc.stdout)["skills"]}

    assert states()[shady]["state"] == "rejected"
    assert states()[shady]["rejection_reason"] == "runs what it downloads"

    md = cli("approvals", "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert "| Decision | Skill | Origin |" in md.stdout
    assert "| rejected | team:shady/SKILL.md |" in md.stdout
    assert "| approved | team:fine/SKILL.md |" in md.stdout
    rows = list(csv.DictReader(io.StringIO(cli("approvals", "--format", "csv").stdout)))
    by = {r["skill"]: r for r in rows}
    assert by[fine]["files read"] == "yes" and by[shady]["files read"] == "no (from the listing)"
    assert by[shady]["reason"] == "runs what it downloads" and by[fine]["set hash"].startswith(
        "sha256:"
    )

    (root / "shady" / "notes.md").write_text("added\n")
    assert states()[shady]["state"] == "not-approved"  # back to be decided on
    gone = cli("revoke", shady)
    assert gone.returncode == 0, gone.stderr
    assert "decision" not in states()[shady]

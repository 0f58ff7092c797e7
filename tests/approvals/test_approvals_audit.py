"""Approvals met as an attacker would: run as the program against the real Secret
Service and real folders, asserting what a user sees (state, message, exit code, output)
and what stays in the keyring."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from approval_helpers import skill_md, write_skill

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(300)]

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(run_cli: Run, service_name: str, secret_service: Any) -> Callable[..., Any]:
    """Run the program with this test's keyring service; returns the finished process."""
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}

    def run(*args: str | Path, cwd: Path | None = None) -> Any:
        return run_cli(*args, env=env, cwd=cwd)

    return run


def approvals_of(proc: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    assert proc.returncode == 0, proc.stderr
    return {s["id"]: s["approval"] for s in json.loads(proc.stdout)["skills"]}


def stored(cli: Callable[..., Any]) -> list[dict[str, Any]]:
    proc = cli("approvals", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["approvals"]


@pytest.mark.parametrize("link_to", ["file", "folder"])
def test_a_link_added_to_an_approved_skill_voids_its_approval(
    cli: Callable[..., Any], tmp_path: Path, link_to: str
) -> None:
    """A link the scan does not follow is in no file list, yet an agent reading the folder
    follows it: a script behind one could be swapped while the skill stayed approved."""
    root = tmp_path / "skills"
    write_skill(root, "deploy", {"SKILL.md": skill_md("deploy"), "notes.md": "# notes\n"})
    outside = tmp_path / "outside"
    write_skill(outside, "", {"run.sh": "echo benign\n"})
    src = ("--folder", f"team={root}")
    skill_id = "team:deploy/SKILL.md"
    done = cli("approve", skill_id, *src)
    assert done.returncode == 0, done.stderr

    (root / "deploy" / "scripts").mkdir()
    target = outside / "run.sh" if link_to == "file" else outside
    (root / "deploy" / "scripts" / "run.sh").symlink_to(target)
    state = approvals_of(cli("list", "--json", *src))[skill_id]
    assert state["state"] == "unapprovable", state
    assert "links that are not followed" in state["reason"]
    assert "scripts/run.sh is a link" in state["reason"]
    assert "grants" not in state or state["grants"] is None

    refused = cli("approve", skill_id, *src)
    assert refused.returncode == 1
    assert "cannot be approved: it holds links that are not followed" in refused.stderr
    # The approval made before stays in the keyring as it was, for `approvals` to show.
    (record,) = stored(cli)
    assert record["skill_id"] == skill_id and "error" not in record

    (root / "deploy" / "scripts" / "run.sh").unlink()
    assert approvals_of(cli("list", "--json", *src))[skill_id]["state"] == "approved"

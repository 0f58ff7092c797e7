"""What the sources in use say (a config file not understood, a project's servers not
started) is said once per run at most, and only by a command it concerns."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(120)

SSE_NOTE = "uses the SSE transport"
TRUST_NOTE = "Not started: 1 server asked for by"


@pytest.fixture
def home_with_notes(tmp_home: Path, tmp_path: Path) -> Path:
    skill = tmp_home / ".claude" / "skills" / "own"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: own\ndescription: Mine.\n---\nBody.\n")
    vscode = tmp_home / ".config" / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text(json.dumps({"servers": {"a": {"type": "sse", "url": "http://x/sse"}}}))
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"p": {"command": "true"}}}))
    return project


def test_a_command_reading_every_source_says_each_note_once(
    home_with_notes: Path, run_cli: Callable[..., Any]
) -> None:
    for args in (["list"], ["verify", "--all"], ["triggers", "hello"]):
        done = run_cli(*args, cwd=home_with_notes)
        assert done.stderr.count(SSE_NOTE) == 1, (args, done.stderr)
        assert done.stderr.count(TRUST_NOTE) == 1, (args, done.stderr)


def test_a_command_that_found_its_skill_says_nothing_of_other_sources(
    home_with_notes: Path, run_cli: Callable[..., Any]
) -> None:
    done = run_cli("show", "own", cwd=home_with_notes)
    assert done.returncode == 0, done.stderr
    assert SSE_NOTE not in done.stderr and TRUST_NOTE not in done.stderr
    missing = run_cli("show", "nothing-of-that-name", cwd=home_with_notes)
    assert missing.returncode == 1
    # Not found: a source not read may be why, so it is said (once).
    assert missing.stderr.count(TRUST_NOTE) == 1 and missing.stderr.count(SSE_NOTE) == 1

"""`list` fails when a source named on the command line could not be read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.sources.config import saved as config

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "resources" / "skills"


def test_a_named_folder_that_cannot_be_read_fails(
    run_cli: Any, tmp_home: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nonexistent" / "x"
    proc = run_cli("list", "--folder", str(missing), cwd=tmp_path)
    assert proc.returncode == 1
    assert "error, 0 skills" in proc.stdout
    proc = run_cli(
        "list", "--json", "--folder", str(SAMPLES), "--folder", str(missing), cwd=tmp_path
    )
    assert proc.returncode == 1
    data = json.loads(proc.stdout)  # the listing is still printed whole
    assert [s["status"] for s in data["sources"]] == ["ok", "error"]


def test_named_folders_that_can_be_read_succeed(
    run_cli: Any, tmp_home: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("list", "--folder", str(SAMPLES), "--folder", str(empty), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_without_source_options_a_failing_saved_source_does_not_fail(
    run_cli: Any, tmp_home: Path, tmp_path: Path
) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    gone = {"label": "gone", "kind": "local", "transport": "folder", "endpoint": "/nonexistent/x"}
    path.write_text(json.dumps({"version": 1, "sources": [gone]}))
    proc = run_cli("list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "gone" in proc.stdout and "error" in proc.stdout

"""A detected skill folder inside a saved folder is not listed a second time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import write_skill

from desktop.sources.config import saved as config

pytestmark = pytest.mark.timeout(120)


def save_sources(*sources: dict[str, object]) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "sources": list(sources)}))


def test_a_detected_folder_inside_a_saved_folder_is_listed_once(
    run_cli: Any, tmp_home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / ".claude" / "skills", "deploy")
    save_sources({"label": "repo", "kind": "local", "transport": "folder", "endpoint": str(repo)})
    found = config.collect_sources(cwd=repo)
    assert [e.spec.label for e in found.entries] == ["repo"]
    why = (
        f"inside the source 'repo' ({repo.resolve()}), which lists its skills already; "
        "claude-project not added again"
    )
    assert (str((repo / ".claude" / "skills").resolve()), why) in found.problems
    proc = run_cli("list", "--json", cwd=repo)
    data = json.loads(proc.stdout)
    assert [s["name"] for s in data["skills"]] == ["deploy"]
    assert data["collisions"] == []


def test_a_switched_off_saved_folder_does_not_hide_a_detected_one(
    tmp_home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude" / "skills").mkdir(parents=True)
    save_sources(
        {
            "label": "repo",
            "kind": "local",
            "transport": "folder",
            "endpoint": str(repo),
            "enabled": False,
        }
    )
    found = config.collect_sources(cwd=repo)
    assert [e.spec.label for e in found.entries] == ["repo", "claude-project"]

"""Detected agent skill folders in a temporary home and project tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.sources.config.known_folders import (
    CLAUDE_CODE,
    CODEX,
    COPILOT,
    CURSOR,
    GEMINI,
    GOOSE,
    agent_views,
    detect_known_folders,
    folders_for_specs,
)

pytestmark = pytest.mark.timeout(60)

USER_DIRS = [
    ".agents/skills",
    ".claude/skills",
    ".codex/skills",
    ".copilot/skills",
    ".cursor/skills",
    ".gemini/skills",
    ".config/opencode/skills",
    ".config/goose/skills",
]


def mkdirs(base: Path, *rels: str) -> None:
    for rel in rels:
        (base / rel).mkdir(parents=True, exist_ok=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """repo/.git with skill folders at the root and in repo/sub; returns repo/sub/deeper."""
    repo = tmp_path / "repo"
    mkdirs(repo, ".git", ".agents/skills", ".claude/skills", ".github/skills")
    mkdirs(repo / "sub", ".agents/skills", "deeper")
    # Above the repository root: never looked at.
    mkdirs(tmp_path, ".claude/skills")
    return repo / "sub" / "deeper"


def test_user_level_folders(tmp_home: Path) -> None:
    mkdirs(tmp_home, *USER_DIRS)
    (tmp_home / ".gemini" / "not-skills").mkdir()
    found = {f.label: f for f in detect_known_folders(cwd=tmp_home / ".config")}
    assert set(found) == {
        "agents-user",
        "claude-user",
        "codex-user",
        "copilot-user",
        "cursor-user",
        "gemini-user",
        "opencode-user",
        "goose-user",
    }
    assert found["claude-user"].path == (tmp_home / ".claude/skills").resolve()
    assert CLAUDE_CODE in found["claude-user"].agents
    assert found["gemini-user"].agents == (GEMINI,)
    spec = found["codex-user"].spec()
    assert (spec.kind, spec.transport, spec.label) == ("local", "folder", "codex-user")
    assert spec.agent == f"{CODEX}, {CURSOR}"


def test_nothing_detected_in_an_empty_home(tmp_home: Path) -> None:
    assert detect_known_folders(cwd=tmp_home) == []


def test_project_folders_up_to_the_repository_root(tmp_home: Path, project: Path) -> None:
    found = detect_known_folders(cwd=project)
    labels = [(f.label, f.depth) for f in found]
    # Nearest first; numbered further up; nothing above the .git folder.
    assert labels == [
        ("agents-project", 1),
        ("agents-project-2", 2),
        ("claude-project", 2),
        ("github-project", 2),
    ]
    github = next(f for f in found if f.label == "github-project")
    assert github.agents == (COPILOT,)


def test_outside_a_repository_only_the_working_directory(tmp_home: Path, tmp_path: Path) -> None:
    mkdirs(tmp_path, "a/.claude/skills", "a/b")
    assert detect_known_folders(cwd=tmp_path / "a" / "b") == []
    assert [f.label for f in detect_known_folders(cwd=tmp_path / "a")] == ["claude-project"]


def test_working_in_the_home_folder_lists_a_folder_once(tmp_home: Path) -> None:
    mkdirs(tmp_home, ".claude/skills")
    found = detect_known_folders(cwd=tmp_home)
    assert [f.label for f in found] == ["claude-user"]


def test_claude_config_dir(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    custom = tmp_path / "claude-config"
    mkdirs(custom, "skills")
    mkdirs(tmp_home, ".claude/skills")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    found = {f.label: f for f in detect_known_folders(cwd=tmp_home / "..")}
    assert found["claude-user"].path == (custom / "skills").resolve()
    assert found["claude-user"].agents == (CLAUDE_CODE,)
    # The others still read ~/.claude/skills; Claude Code no longer does.
    assert CLAUDE_CODE not in found["claude-home-user"].agents
    assert COPILOT in found["claude-home-user"].agents


def test_which_copy_each_agent_sees(tmp_home: Path, project: Path) -> None:
    mkdirs(tmp_home, ".claude/skills", ".agents/skills", ".codex/skills")
    folders = detect_known_folders(cwd=project)
    views = {v.agent: v for v in agent_views(["claude-project", "claude-user"], folders)}
    # Claude Code documents personal skills above project ones.
    assert views[CLAUDE_CODE].sees == "claude-user"
    assert views[CLAUDE_CODE].hidden == ("claude-project",)
    assert "documented" in views[CLAUDE_CODE].basis
    # Cursor documents no order: the assumption (project first) is said to be one.
    assert views[CURSOR].sees == "claude-project"
    assert "assumed" in views[CURSOR].basis
    assert views[GOOSE].sees == "claude-project"
    assert CODEX not in views  # Codex reads neither .claude folder
    only = {v.agent: v for v in agent_views(["claude-user", "agents-user"], folders)}
    assert only[CLAUDE_CODE].sees == "claude-user" and only[CLAUDE_CODE].hidden == ()
    assert only[CLAUDE_CODE].describe() == "Claude Code uses claude-user; the only copy it reads"
    # Codex lists both copies of a skill in .agents and ~/.codex.
    codex = {v.agent: v for v in agent_views(["agents-user", "codex-user"], folders)}[CODEX]
    assert codex.sees is None and set(codex.shown_all) == {"agents-user", "codex-user"}
    assert "lists every copy" in codex.describe()
    # Gemini: the workspace wins; the nearest project folder wins over the one above.
    gem = {
        v.agent: v
        for v in agent_views(["agents-user", "agents-project-2", "agents-project"], folders)
    }
    assert gem[GEMINI].sees == "agents-project"
    assert gem[GEMINI].hidden == ("agents-project-2", "agents-user")


def test_views_from_specs_with_changed_labels(tmp_home: Path, project: Path) -> None:
    from dataclasses import replace

    mkdirs(tmp_home, ".claude/skills")
    specs = [f.spec() for f in detect_known_folders(cwd=project)]
    specs = [replace(s, label=s.label + "-x") for s in specs]
    folders = folders_for_specs(specs, cwd=project)
    views = {v.agent: v for v in agent_views(["claude-user-x", "claude-project-x"], folders)}
    assert views[CLAUDE_CODE].sees == "claude-user-x"

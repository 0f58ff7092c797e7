"""Which detected skill folders are used: links leading out of the project or to the
whole machine, and one folder reached under two names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import write_skill

from desktop.sources.config.known_folders import CLAUDE_CODE, agent_views, detect_known_folders

pytestmark = pytest.mark.timeout(120)


def cloned_with_a_link_to_the_root(tmp_path: Path) -> Path:
    """A cloned repository whose ``.claude/skills`` is a link to ``/``."""
    project = tmp_path / "cloned"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "skills").symlink_to("/")
    return project


def labels(found: list) -> list[str]:
    return [f.label for f in found]


# --- links out of the project ----------------------------------------------------------


def test_a_project_skill_folder_linking_to_the_root_is_not_used(
    tmp_home: Path, tmp_path: Path
) -> None:
    project = cloned_with_a_link_to_the_root(tmp_path)
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=project, problems=problems)
    assert found == []
    assert problems == [
        (
            str(project / ".claude" / "skills"),
            "a link leading to / (the filesystem's root); the claude-project folder is not used",
        )
    ]


def test_a_project_folder_reached_through_a_link_out_of_the_project_is_not_used(
    tmp_home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_skill(elsewhere / "skills", "secret")
    project = tmp_path / "cloned"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / ".claude").symlink_to(elsewhere)  # .claude/skills is a plain folder in it
    (project / "sub" / ".agents").mkdir()
    (project / "sub" / ".agents" / "skills").symlink_to(elsewhere / "skills")
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=project / "sub", problems=problems)
    assert found == []
    assert [link for link, _ in problems] == [
        str(project / "sub" / ".agents" / "skills"),
        str(project / ".claude"),
    ]
    assert all(f"outside the project {project.resolve()}" in why for _, why in problems)
    assert str((elsewhere / "skills").resolve()) in problems[0][1]


def test_outside_a_repository_the_working_directory_is_the_project(
    tmp_home: Path, tmp_path: Path
) -> None:
    here = tmp_path / "here"
    (here / "shared").mkdir(parents=True)
    (here / ".claude").mkdir()
    (here / ".claude" / "skills").symlink_to(here / "shared")  # inside: used
    (here / ".agents").mkdir()
    (here / ".agents" / "skills").symlink_to(tmp_path)  # the folder above: not used
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=here, problems=problems)
    assert labels(found) == ["claude-project"]
    assert found[0].path == (here / "shared").resolve()
    assert [link for link, _ in problems] == [str(here / ".agents" / "skills")]


def test_a_link_inside_the_repository_is_followed(tmp_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tools" / "skills").mkdir(parents=True)
    (repo / "app" / ".claude").mkdir(parents=True)
    (repo / "app" / ".claude" / "skills").symlink_to(repo / "tools" / "skills")
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=repo / "app", problems=problems)
    assert labels(found) == ["claude-project"] and problems == []


def test_a_refused_folder_does_not_take_a_label(tmp_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude" / "skills").mkdir(parents=True)
    (repo / "sub" / ".claude").mkdir(parents=True)
    (repo / "sub" / ".claude" / "skills").symlink_to("/")
    found = detect_known_folders(cwd=repo / "sub", problems=[])
    assert labels(found) == ["claude-project"]
    assert found[0].path == (repo / ".claude" / "skills").resolve()


def test_home_folders_may_be_links_but_not_to_the_root_or_above_the_home(
    tmp_home: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-skills"
    dotfiles.mkdir(parents=True)
    for rel in (".claude", ".agents", ".codex", ".cursor"):
        (tmp_home / rel).mkdir()
    (tmp_home / ".claude" / "skills").symlink_to(dotfiles)
    (tmp_home / ".agents" / "skills").symlink_to("/")
    (tmp_home / ".codex" / "skills").symlink_to(tmp_home.parent)
    (tmp_home / ".cursor" / "skills").symlink_to(tmp_home)
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=tmp_path / "nowhere", problems=problems)
    assert labels(found) == ["claude-user"]
    assert found[0].path == dotfiles.resolve()
    assert [link for link, _ in problems] == [
        str(tmp_home / ".agents" / "skills"),
        str(tmp_home / ".codex" / "skills"),
        str(tmp_home / ".cursor" / "skills"),
    ]
    assert "(the filesystem's root)" in problems[0][1]
    assert "(a folder holding the home folder)" in problems[1][1]


def test_the_home_as_the_project_keeps_a_home_folder_linked_elsewhere(
    tmp_home: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (tmp_home / ".claude").mkdir()
    (tmp_home / ".claude" / "skills").symlink_to(dotfiles)
    problems: list[tuple[str, str]] = []
    found = detect_known_folders(cwd=tmp_home, problems=problems)
    assert labels(found) == ["claude-user"] and problems == []


def test_list_does_not_read_the_machine_through_a_cloned_link(
    run_cli: Any, tmp_home: Path, tmp_path: Path
) -> None:
    project = cloned_with_a_link_to_the_root(tmp_path)
    proc = run_cli("list", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert "claude-project" not in [s["label"] for s in data["sources"]]
    assert f"{project / '.claude' / 'skills'}: a link leading to / " in proc.stderr


# --- the same folder reached as two kinds ----------------------------------------------


def test_claude_config_dir_set_to_the_default_is_still_personal(
    run_cli: Any, tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / ".claude" / "skills", "dup")
    write_skill(tmp_home / ".claude" / "skills", "dup")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_home / ".claude"))
    found = detect_known_folders(cwd=repo)
    assert labels(found) == ["claude-project", "claude-user"]
    assert CLAUDE_CODE in found[1].agents
    views = {v.agent: v for v in agent_views(["claude-project", "claude-user"], found)}
    assert views[CLAUDE_CODE].sees == "claude-user"
    proc = run_cli("list", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "Claude Code uses claude-user, not claude-project" in proc.stdout


def test_a_personal_claude_folder_linked_to_another_home_folder_ranks_as_personal(
    tmp_home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude" / "skills").mkdir(parents=True)
    (tmp_home / ".agents" / "skills").mkdir(parents=True)
    (tmp_home / ".claude").mkdir()
    (tmp_home / ".claude" / "skills").symlink_to(tmp_home / ".agents" / "skills")
    found = detect_known_folders(cwd=repo)
    assert labels(found) == ["claude-project", "agents-user"]
    views = {v.agent: v for v in agent_views(["claude-project", "agents-user"], found)}
    assert views[CLAUDE_CODE].sees == "agents-user"

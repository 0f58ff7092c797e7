"""Each agent ``install`` knows is installed into a folder that agent reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.sources.config.install_targets import (
    TARGETS,
    UnknownAgent,
    every_folder,
    readers,
    target,
)


@pytest.mark.parametrize("t", TARGETS, ids=lambda t: t.slug)
def test_the_folder_chosen_for_an_agent_is_one_it_reads(t: object) -> None:
    assert t.agent in readers(t.user, "user")  # type: ignore[attr-defined]
    assert t.agent in readers(t.project, "project")  # type: ignore[attr-defined]


def test_folders_in_the_home_and_in_a_project(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert target("claude-code").folder(None, env) == tmp_path / ".claude/skills"
    assert target("claude-code").folder(tmp_path / "p", env) == tmp_path / "p/.claude/skills"
    custom = {**env, "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    assert target("claude-code").folder(None, custom) == tmp_path / "cc/skills"
    shared = dict(every_folder(tmp_path / "p", env))
    assert shared[tmp_path / "p/.agents/skills"] == (
        "codex",
        "cursor",
        "gemini",
        "opencode",
        "goose",
    )
    with pytest.raises(UnknownAgent, match="known are claude-code"):
        target("emacs")

"""The folder each agent reads its skills from, by the short name ``install`` takes.

One folder per agent and scope, chosen from the table of known folders
(:mod:`desktop.sources.config.known_folders`): the agent's own folder where it has one
(``~/.claude/skills`` for Claude Code, ``~/.copilot/skills`` for Copilot), else the shared
``.agents/skills`` it reads. ``tests/config/test_install_targets.py`` checks that the
table of known folders lists each agent as a reader of the folder chosen for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.sources.config.known_folders import (
    CLAUDE_CODE,
    CODEX,
    COPILOT,
    CURSOR,
    GEMINI,
    GOOSE,
    OPENCODE,
    PROJECT_KINDS,
    USER_KINDS,
    FolderKind,
    home_dir,
)


@dataclass(frozen=True, slots=True)
class AgentTarget:
    """Where one agent reads skills: in the home folder, and in a project."""

    slug: str
    agent: str
    user: str  # relative to the home folder
    project: str  # relative to the project folder

    def folder(self, project: Path | None, environ: Mapping[str, str] | None = None) -> Path:
        """The skills folder to install into: the project's, or the user's."""
        env = os.environ if environ is None else environ
        if project is not None:
            return project / self.project
        if self.agent == CLAUDE_CODE and env.get("CLAUDE_CONFIG_DIR"):
            return Path(env["CLAUDE_CONFIG_DIR"]) / "skills"
        return home_dir(env) / self.user


TARGETS: tuple[AgentTarget, ...] = (
    AgentTarget("claude-code", CLAUDE_CODE, ".claude/skills", ".claude/skills"),
    AgentTarget("codex", CODEX, ".agents/skills", ".agents/skills"),
    AgentTarget("copilot", COPILOT, ".copilot/skills", ".github/skills"),
    AgentTarget("cursor", CURSOR, ".cursor/skills", ".agents/skills"),
    AgentTarget("gemini", GEMINI, ".gemini/skills", ".agents/skills"),
    AgentTarget("opencode", OPENCODE, ".config/opencode/skills", ".agents/skills"),
    AgentTarget("goose", GOOSE, ".config/goose/skills", ".agents/skills"),
)


class UnknownAgent(ValueError):
    """An agent name ``install`` does not know."""


def target(slug: str) -> AgentTarget:
    """The agent named ``slug``; :class:`UnknownAgent` listing the known ones otherwise."""
    for t in TARGETS:
        if t.slug == slug:
            return t
    raise UnknownAgent(f"unknown agent {slug!r}: known are {', '.join(slugs())}")


def slugs() -> tuple[str, ...]:
    return tuple(t.slug for t in TARGETS)


def readers(relpath: str, scope: str) -> tuple[str, ...]:
    """The agents the table of known folders says read ``relpath`` in ``scope``."""
    kinds: tuple[FolderKind, ...] = PROJECT_KINDS if scope == "project" else USER_KINDS
    return tuple(a for k in kinds if k.relpath == relpath for a in k.agents)


def every_folder(
    project: Path | None, environ: Mapping[str, str] | None = None
) -> list[tuple[Path, tuple[str, ...]]]:
    """Each distinct skills folder the agents read (the user's, or a project's) and the
    slugs of the agents that read it, in the order of :data:`TARGETS`."""
    out: dict[Path, list[str]] = {}
    for t in TARGETS:
        out.setdefault(t.folder(project, environ), []).append(t.slug)
    return [(folder, tuple(who)) for folder, who in out.items()]

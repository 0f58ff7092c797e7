"""Skill folders that coding agents read, detected in the home folder and the project.

Project-level folders (``.agents/skills``, ``.claude/skills``, ``.github/skills``) are
looked for in the working directory and every folder above it up to the repository
root (the nearest folder holding ``.git``); outside a repository only the working
directory is looked at. User-level folders are looked for in the home folder.

A project folder that is a link, or is reached through one, leading out of the project
(the repository root, or the working directory outside a repository) is not used: a
cloned repository must not make the catalog read the rest of the machine. A home folder
may lead anywhere (dotfiles are often links) except to the filesystem's root or to a
folder holding the home folder. Each folder left out is reported with the link and
where it leads.

Which agent reads which folder comes from each agent's documentation (2026); the
table is deliberately small: an agent is listed for a folder only where its docs
say it reads it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from desktop.core.identity import Identity
from desktop.core.model import SourceSpec

CLAUDE_CODE = "Claude Code"
CODEX = "Codex"
COPILOT = "GitHub Copilot"
CURSOR = "Cursor"
GEMINI = "Gemini CLI"
OPENCODE = "opencode"
GOOSE = "goose"
AGENTS: tuple[str, ...] = (CLAUDE_CODE, CODEX, COPILOT, CURSOR, GEMINI, OPENCODE, GOOSE)


@dataclass(frozen=True, slots=True)
class FolderKind:
    """One kind of known folder: where it lives and which agents read it."""

    family: str  # label stem: agents, claude, github, codex, ...
    scope: str  # "project" or "user"
    relpath: str  # relative to the project folder or the home folder
    agents: tuple[str, ...]


PROJECT_KINDS: tuple[FolderKind, ...] = (
    FolderKind(
        "agents", "project", ".agents/skills", (CODEX, COPILOT, CURSOR, GEMINI, OPENCODE, GOOSE)
    ),
    FolderKind(
        "claude", "project", ".claude/skills", (CLAUDE_CODE, COPILOT, CURSOR, OPENCODE, GOOSE)
    ),
    FolderKind("github", "project", ".github/skills", (COPILOT,)),
)

USER_KINDS: tuple[FolderKind, ...] = (
    FolderKind("agents", "user", ".agents/skills", (CODEX, COPILOT, CURSOR, GEMINI, OPENCODE)),
    FolderKind("claude", "user", ".claude/skills", (CLAUDE_CODE, COPILOT, CURSOR, OPENCODE, GOOSE)),
    FolderKind("codex", "user", ".codex/skills", (CODEX, CURSOR)),
    FolderKind("copilot", "user", ".copilot/skills", (COPILOT,)),
    FolderKind("cursor", "user", ".cursor/skills", (CURSOR,)),
    FolderKind("gemini", "user", ".gemini/skills", (GEMINI,)),
    FolderKind("opencode", "user", ".config/opencode/skills", (OPENCODE,)),
    FolderKind("goose", "user", ".config/goose/skills", (GOOSE,)),
)


@dataclass(frozen=True, slots=True)
class KnownFolder:
    """A detected folder: its kind, its resolved path, and how far above the cwd it is."""

    kind: FolderKind
    path: Path
    label: str
    depth: int = 0  # 0 = in the working directory (project) or the home folder (user)
    agents: tuple[str, ...] = ()
    # The other kinds the same folder was reached as (a link, the home as the project).
    also: tuple[FolderKind, ...] = ()

    @property
    def kinds(self) -> tuple[FolderKind, ...]:
        return (self.kind, *self.also)

    @property
    def key(self) -> str:
        return f"folder:{self.path}"

    def spec(self) -> SourceSpec:
        return SourceSpec(
            label=self.label,
            kind="local",
            transport="folder",
            endpoint=str(self.path),
            agent=", ".join(self.agents or self.kind.agents),
        )


def home_dir(environ: Mapping[str, str]) -> Path:
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) if home else Path.home()


def repo_root(cwd: Path) -> Path | None:
    """The nearest folder at or above ``cwd`` that holds ``.git`` (a folder or a file)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_folders(cwd: Path) -> list[Path]:
    """The working directory and the folders above it up to the repository root."""
    root = repo_root(cwd)
    if root is None:
        return [cwd]
    out = [cwd]
    for folder in cwd.parents:
        out.append(folder)
        if folder == root:
            break
    return out


def _resolve(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def _user_kind_paths(environ: Mapping[str, str], home: Path) -> list[tuple[FolderKind, Path]]:
    out: list[tuple[FolderKind, Path]] = []
    for kind in USER_KINDS:
        if kind.family == "claude" and environ.get("CLAUDE_CONFIG_DIR"):
            # Claude Code reads $CLAUDE_CONFIG_DIR/skills; the others still read ~/.claude.
            custom = FolderKind("claude", "user", "skills", (CLAUDE_CODE,))
            out.append((custom, Path(environ["CLAUDE_CONFIG_DIR"]) / "skills"))
            others = tuple(a for a in kind.agents if a != CLAUDE_CODE)
            out.append(
                (FolderKind("claude-home", "user", kind.relpath, others), home / kind.relpath)
            )
            continue
        out.append((kind, home / kind.relpath))
    return out


def _first_link(base: Path, path: Path) -> Path:
    """The first link on the way from ``base`` down to ``path`` (``path`` when none is)."""
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        return path
    at = base
    for part in parts:
        at = at / part
        if at.is_symlink():
            return at
    return path


def _holds_home(real: Path, home: Path) -> bool:
    """Whether ``real`` is the filesystem's root, or the home folder or one above it."""
    return real.parent == real or any(h.is_relative_to(real) for h in (home, _resolve(home)))


def detect_known_folders(
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    problems: list[tuple[str, str]] | None = None,
) -> list[KnownFolder]:
    """Every known skill folder that exists, project-level first (nearest first).

    A folder reached twice (the working directory is the home folder, a symlink)
    is listed once, with the agents of both; a user-level folder keeps the first
    user-level name it was found under. Folders left out because a link leads
    somewhere they must not go are added to ``problems`` as ``(path, reason)``.
    """
    env = os.environ if environ is None else environ
    here = _resolve(Path(cwd) if cwd is not None else Path.cwd())
    home = home_dir(env)
    project = repo_root(here) or here
    found: list[KnownFolder] = []
    by_path: dict[Path, int] = {}
    refused: list[tuple[Path, str, str]] = []

    def add(kind: FolderKind, path: Path, depth: int, label: str, base: Path) -> bool:
        """Use ``path`` as ``label``; False when it is not a folder or is refused."""
        if not path.is_dir():
            return False
        real = _resolve(path)
        if real.parent == real:
            where = "the filesystem's root"
        elif _holds_home(real, home):
            where = "a folder holding the home folder"
        elif kind.scope == "project" and not real.is_relative_to(project):
            where = f"outside the project {project}"
        else:
            where = ""
        if where:
            link = _first_link(base, path)
            why = f"a link leading to {real} ({where}); the {label} folder is not used"
            refused.append((real, str(link), why))
            return False
        if real in by_path:
            i = by_path[real]
            prev = found[i]
            agents = tuple(dict.fromkeys(prev.agents + kind.agents))
            if kind.scope == "user" and prev.kind.scope != "user":
                # The working directory is the home folder: the user-level name is kept.
                found[i] = KnownFolder(kind, real, label, depth, agents, prev.kinds)
            else:
                found[i] = replace(prev, agents=agents, also=(*prev.also, kind))
            return True
        by_path[real] = len(found)
        found.append(KnownFolder(kind, real, label, depth, kind.agents))
        return True

    counts: dict[str, int] = {}
    for depth, folder in enumerate(project_folders(here)):
        for kind in PROJECT_KINDS:
            base = f"{kind.family}-project"
            n = counts.get(base, 0) + 1
            if add(kind, folder / kind.relpath, depth, base if n == 1 else f"{base}-{n}", folder):
                counts[base] = n
    for kind, path in _user_kind_paths(env, home):
        add(kind, path, 0, f"{kind.family}-user", home if kind.relpath != "skills" else path.parent)
    if problems is not None:
        # A folder refused as the project's but used as the home folder's is not reported.
        problems.extend((link, why) for real, link, why in refused if real not in by_path)
    return found


# --- which copy each agent sees -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentView:
    """For one agent and one clash of names: the copy it uses and the copies it does not.

    ``sees`` is ``None`` when the agent shows every copy (``shown_all``). ``basis``
    says whether the order is documented by the agent or assumed here.
    """

    agent: str
    sees: str | None
    hidden: tuple[str, ...]
    shown_all: tuple[str, ...]
    basis: str

    def describe(self) -> str:
        if self.shown_all:
            return f"{self.agent} lists every copy ({', '.join(self.shown_all)}); {self.basis}"
        hidden = f", not {', '.join(self.hidden)}" if self.hidden else ""
        return f"{self.agent} uses {self.sees}{hidden}; {self.basis}"

    def to_json(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "sees": self.sees,
            "hidden": list(self.hidden),
            "shown_all": list(self.shown_all),
            "basis": self.basis,
        }


# Per agent: a rank for (scope, family); the lowest rank wins a clash. Sources:
# Claude Code's docs put personal skills above project skills; Gemini CLI's put the
# workspace above the user tier; goose's list the project folders after the user
# ones, later winning, .agents last. Copilot, Cursor and opencode document no order:
# the project is assumed to win over the user folder, the agent's own folder over
# shared ones. Codex documents that same-named skills are not merged: it lists both.
_DOCUMENTED = "order documented by the agent"
_ASSUMED = "order assumed (project before user, the agent's own folder first)"
_ORDER: dict[str, tuple[str, list[tuple[str, str]]]] = {
    CLAUDE_CODE: (_DOCUMENTED, [("user", "claude"), ("project", "claude")]),
    GEMINI: (_DOCUMENTED, [("project", "agents"), ("user", "agents"), ("user", "gemini")]),
    GOOSE: (
        _DOCUMENTED,
        [
            ("project", "agents"),
            ("project", "claude"),
            ("user", "goose"),
            ("user", "claude"),
            ("user", "claude-home"),
        ],
    ),
    COPILOT: (
        _ASSUMED,
        [
            ("project", "github"),
            ("project", "claude"),
            ("project", "agents"),
            ("user", "copilot"),
            ("user", "claude"),
            ("user", "claude-home"),
            ("user", "agents"),
        ],
    ),
    CURSOR: (
        _ASSUMED,
        [
            ("project", "agents"),
            ("project", "claude"),
            ("user", "cursor"),
            ("user", "agents"),
            ("user", "claude"),
            ("user", "claude-home"),
            ("user", "codex"),
        ],
    ),
    OPENCODE: (
        _ASSUMED,
        [
            ("project", "claude"),
            ("project", "agents"),
            ("user", "opencode"),
            ("user", "claude"),
            ("user", "claude-home"),
            ("user", "agents"),
        ],
    ),
}
# Gemini CLI: within a tier the .agents alias wins over .gemini (its docs).


def agent_views(labels: Iterable[str], folders: Sequence[KnownFolder]) -> list[AgentView]:
    """For a skill name found in the folders ``labels``: which copy each agent uses.

    Only known folders count (other sources are not read by these agents). Nearer
    project folders win over farther ones. Agents that read none of the folders are
    left out; an agent that reads one of them sees that copy.
    """
    by_label = {f.label: f for f in folders}
    involved = [by_label[lb] for lb in dict.fromkeys(labels) if lb in by_label]
    views: list[AgentView] = []
    for agent in AGENTS:
        reading = [f for f in involved if agent in f.agents]
        if not reading:
            continue
        if len(reading) == 1:
            views.append(AgentView(agent, reading[0].label, (), (), "the only copy it reads"))
            continue
        if agent == CODEX:
            views.append(
                AgentView(
                    agent,
                    None,
                    (),
                    tuple(f.label for f in reading),
                    "documented: same-named skills are not merged",
                )
            )
            continue
        basis, order = _ORDER[agent]

        def rank(
            f: KnownFolder, order: list[tuple[str, str]] = order, agent: str = agent
        ) -> tuple[int, int]:
            # A folder reached as several kinds ranks as the best one this agent reads.
            kinds = [k for k in f.kinds if agent in k.agents] or list(f.kinds)
            keys = [(k.scope, k.family) for k in kinds]
            return (min(order.index(k) if k in order else len(order) for k in keys), f.depth)

        ranked = sorted(reading, key=rank)
        views.append(
            AgentView(agent, ranked[0].label, tuple(f.label for f in ranked[1:]), (), basis)
        )
    return views


class _Located(Protocol):
    """A source spec or an origin: a label, a kind and (for folders) a path."""

    @property
    def label(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def endpoint(self) -> str: ...


def folders_for_specs(
    specs: Iterable[_Located],
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
) -> list[KnownFolder]:
    """The known folders among ``specs`` (matched by path), under the specs' own labels.

    Takes source specs or origins, so a view that only holds the configured sources
    (whose labels may have been changed to keep them unique) can ask :func:`agent_views`.
    """
    detected = {f.path: f for f in detect_known_folders(environ, cwd)}
    out: list[KnownFolder] = []
    for spec in specs:
        if spec.kind != "local":
            continue
        f = detected.get(_resolve(Path(spec.endpoint)))
        if f is not None:
            out.append(replace(f, label=spec.label))
    return out


def collision_views(
    skill_ids: Iterable[str],
    sources: Iterable[_Located],
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
) -> list[AgentView]:
    """For one collision (its skills' ``label:uri`` ids): which copy each agent uses."""
    labels: list[str] = []
    for skill_id in skill_ids:
        try:
            labels.append(Identity.parse(skill_id).label)
        except ValueError:
            continue
    return agent_views(labels, folders_for_specs(sources, environ, cwd))


def annotate_collisions(collisions: list[dict[str, object]], sources: Iterable[_Located]) -> None:
    """Add ``agents`` (which copy each agent uses) to collisions given as JSON objects."""
    sources = list(sources)
    for c in collisions:
        ids = c.get("ids")
        if not isinstance(ids, list) or c.get("kind") != "same-name":
            # Names equal only after case folding or NFKC are two names to an agent,
            # which loads both: no copy hides another.
            continue
        views = collision_views([str(i) for i in ids], sources)
        if views:
            c["agents"] = [v.to_json() for v in views]


# How much of a folder is looked through to say whether it holds a skill at all.
HOLDS_SKILL_MAX_DIRS = 2000


def holds_a_skill(path: Path, max_dirs: int = HOLDS_SKILL_MAX_DIRS) -> bool:
    """Whether a ``SKILL.md`` is found in ``path`` or a folder below it.

    An agent's folder that holds none (created empty by its installer) is not the
    user's own catalog. The walk stops at the first ``SKILL.md`` and after ``max_dirs``
    folders, and counts a folder too large to look through as holding skills. Links
    are followed (skills are often linked into an agent's folder); the bound ends a
    loop of links.
    """
    for seen, (_here, dirs, files) in enumerate(os.walk(path, followlinks=True), start=1):
        if "SKILL.md" in files:
            return True
        if seen >= max_dirs:
            return True
        dirs[:] = [d for d in dirs if not d.startswith(".")]
    return False

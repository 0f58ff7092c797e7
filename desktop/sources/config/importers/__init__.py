"""Read-only importers of MCP server lists from other clients' config files.

One module per client format. :func:`load_file` reads one file whose format it
detects from the file name and content; :func:`import_detected` reads every client
config found in the usual places for this home folder and working directory.
Nothing here writes a file or resolves a placeholder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from desktop.sources.config.importers import (
    claude_code,
    claude_desktop,
    codex,
    cursor,
    gemini,
    vscode,
)
from desktop.sources.config.importers.base import ImportedServer, ImportResult
from desktop.sources.config.importers.common import (
    ConfigError,
    LabelAllocator,
    parse_json,
    read_text,
)
from desktop.sources.config.known_folders import home_dir, project_folders, repo_root

__all__ = [
    "FORMATS",
    "ImportResult",
    "ImportedServer",
    "LabelAllocator",
    "detect_format",
    "detected_config_files",
    "import_detected",
    "import_project",
    "project_root",
    "scoped_config_files",
    "load_file",
]

Importer = Callable[..., ImportResult]

# format name -> (client, importer)
FORMATS: dict[str, tuple[str, Importer]] = {
    "claude-desktop": (claude_desktop.CLIENT, claude_desktop.import_file),
    "claude-code": (claude_code.CLIENT, claude_code.import_file),
    "vscode": (vscode.CLIENT, vscode.import_file),
    "cursor": (cursor.CLIENT, cursor.import_file),
    "codex": (codex.CLIENT, codex.import_file),
    "gemini": (gemini.CLIENT, gemini.import_file),
}


def detect_format(path: Path) -> str:
    """The format of a config file, from its name and place first, then its content.

    Raises :class:`ConfigError` when neither tells.
    """
    name = path.name
    parent = path.parent.name
    if name == claude_desktop.FILE_NAME:
        return "claude-desktop"
    if name in (".claude.json", ".mcp.json"):
        return "claude-code"
    if name == "mcp.json" and (parent == ".vscode" or parent == "User"):
        return "vscode"
    if name == "mcp.json" and parent == ".cursor":
        return "cursor"
    if name == gemini.FILE_NAME and parent == gemini.FOLDER:
        return "gemini"
    if path.suffix == ".toml":
        return "codex"
    text = read_text(path)
    try:
        data = parse_json(text)
    except ConfigError:
        if "mcp_servers" in text:
            return "codex"
        raise
    if isinstance(data, dict):
        if "servers" in data and "mcpServers" not in data:
            return "vscode"
        named = name == gemini.FILE_NAME and parent != ".claude"
        if gemini.looks_like(data) or (named and "mcpServers" in data):
            # A settings.json holding servers is Gemini CLI's (Claude Code keeps its
            # servers elsewhere), and so are entries with keys only Gemini CLI writes.
            return "gemini"
        if "mcpServers" in data or "projects" in data:
            # Claude Code's shape is a superset of Claude Desktop's and Cursor's.
            return "claude-code"
    raise ConfigError(
        "not a known MCP client config (expected 'mcpServers', 'servers' or [mcp_servers])"
    )


def load_file(
    path: Path | str,
    labels: LabelAllocator | None = None,
    *,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    fmt: str | None = None,
) -> ImportResult:
    """Import one file; a file that cannot be read or understood becomes a problem."""
    p = Path(path).expanduser()
    labels = labels or LabelAllocator()
    try:
        fmt = fmt or detect_format(p)
    except ConfigError as exc:
        return ImportResult(problems=[(str(p), str(exc))])
    _client, importer = FORMATS[fmt]
    if fmt == "cursor":
        env = os.environ if environ is None else environ
        return cursor.import_file(p, labels, cwd, home_dir(env))
    return importer(p, labels, cwd)


def detected_config_files(
    environ: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> list[tuple[str, Path]]:
    """(format, path) of every client config that exists, project files first."""
    return [(fmt, path) for fmt, path, _project in scoped_config_files(environ, cwd)]


def project_root(cwd: Path | str) -> Path:
    """The folder a project's trust is given for: the repository root at or above
    ``cwd``, or ``cwd`` itself outside a repository (resolved)."""
    here = Path(cwd).absolute()
    return (repo_root(here) or here).resolve()


def scoped_config_files(
    environ: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> list[tuple[str, Path, Path | None]]:
    """(format, path, project) of every client config that exists, project files first.

    ``project`` is the project folder whose trust the file's servers need (see
    :func:`project_root`), or None for the user's own configs. A project file that is
    also one of the user's (the home folder as the working directory) is the user's.
    """
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    home = home_dir(env)
    user: list[tuple[str, Path]] = []
    user += [("claude-desktop", p) for p in claude_desktop.default_paths(env, home, here)]
    user += [("claude-code", p) for p in claude_code.user_paths(env, home)]
    user += [("vscode", p) for p in vscode.user_paths(env, home)]
    user += [("cursor", home / ".cursor" / "mcp.json")]
    user += [("codex", p) for p in codex.user_paths(env, home)]
    user += [("gemini", p) for p in gemini.user_paths(home)]
    user_real = {_real(p) for _, p in user if p.is_file()}
    candidates: list[tuple[str, Path, Path | None]] = []
    project: Path | None = None
    for folder in project_folders(here):
        if project is None:
            project = project_root(here)
        candidates += [
            ("claude-code", folder / ".mcp.json", project),
            ("vscode", folder / ".vscode" / "mcp.json", project),
            ("cursor", folder / ".cursor" / "mcp.json", project),
            ("gemini", folder / gemini.FOLDER / gemini.FILE_NAME, project),
        ]
    candidates += [(fmt, p, None) for fmt, p in user]
    out: list[tuple[str, Path, Path | None]] = []
    seen: set[Path] = set()
    for fmt, path, scope in candidates:
        if not path.is_file():
            continue
        real = _real(path)
        if real in seen:
            continue
        seen.add(real)
        out.append((fmt, path, None if real in user_real else scope))
    return out


def _real(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def import_project(
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    labels: LabelAllocator | None = None,
) -> ImportResult:
    """Import only the project folder's config files (what ``trust`` reviews)."""
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    labels = labels or LabelAllocator()
    result = ImportResult()
    for fmt, path, project in scoped_config_files(env, here):
        if project is not None:
            result.extend(_load_scoped(path, labels, here, env, fmt, project))
    return result


def _load_scoped(
    path: Path,
    labels: LabelAllocator,
    cwd: Path,
    environ: Mapping[str, str],
    fmt: str,
    project: Path | None,
) -> ImportResult:
    found = load_file(path, labels, cwd=cwd, environ=environ, fmt=fmt)
    if project is not None:
        found.servers = [replace(s, project=str(project)) for s in found.servers]
    return found


def import_detected(
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    labels: LabelAllocator | None = None,
) -> ImportResult:
    """Import every detected client config (for ``~/.claude.json``, only this project's).

    Servers from a project folder's files carry that folder in ``project``: they are
    not to be started before the user trusts them."""
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    labels = labels or LabelAllocator()
    result = ImportResult()
    for fmt, path, project in scoped_config_files(env, here):
        result.extend(_load_scoped(path, labels, here, env, fmt, project))
    return result

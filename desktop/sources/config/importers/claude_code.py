"""Claude Code: project ``.mcp.json`` and the user's ``~/.claude.json``.

``~/.claude.json`` holds user-scope servers in ``mcpServers`` and local-scope servers
per project in ``projects.<path>.mcpServers``. Entries have ``type`` stdio, http or
sse; ``${VAR}`` and ``${VAR:-default}`` are expanded by Claude Code at start-up and
kept as placeholders here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from desktop.sources.config.importers.base import ImportResult
from desktop.sources.config.importers.common import (
    LabelAllocator,
    import_server_map,
    load_json_object,
)

CLIENT = "Claude Code"


def user_paths(environ: Mapping[str, str], home: Path) -> list[Path]:
    paths = [home / ".claude.json"]
    if environ.get("CLAUDE_CONFIG_DIR"):
        paths.insert(0, Path(environ["CLAUDE_CONFIG_DIR"]) / ".claude.json")
    return paths


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    """Import ``.mcp.json`` or ``.claude.json``.

    With ``cwd`` given, only the ``projects`` entries for ``cwd`` or a folder above it
    are read (the servers Claude Code would start there); with ``cwd=None`` (a file
    named on the command line) every project's servers are read.
    """
    result = ImportResult()
    data = load_json_object(path, result)
    if data is None:
        return result
    hint = "claude-code"
    import_server_map(
        data.get("mcpServers"),
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint=hint,
    )
    projects = data.get("projects")
    if projects is None:
        return result
    if not isinstance(projects, dict):
        result.problems.append((str(path), "'projects' is not an object"))
        return result
    wanted = _folders_at_and_above(cwd) if cwd is not None else None
    for project, settings in projects.items():
        if wanted is not None and os.path.normpath(os.path.expanduser(str(project))) not in wanted:
            continue
        if not isinstance(settings, dict) or not settings.get("mcpServers"):
            continue
        import_server_map(
            settings["mcpServers"],
            client=CLIENT,
            file=path,
            result=result,
            labels=labels,
            label_hint=hint,
            where=f"projects.{project}.mcpServers",
        )
    return result


def _folders_at_and_above(cwd: Path) -> set[str]:
    """``cwd`` and the folders above it, as written and resolved (Claude Code keys its
    ``projects`` by absolute path)."""
    out: set[str] = set()
    for base in (cwd.absolute(), cwd.resolve()):
        out.update(os.path.normpath(str(p)) for p in (base, *base.parents))
    return out

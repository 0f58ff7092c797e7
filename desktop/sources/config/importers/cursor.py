"""Cursor: ``~/.cursor/mcp.json`` and a project's ``.cursor/mcp.json``.

``mcpServers`` entries have ``command``/``args``/``env`` or ``url`` + ``headers``;
Cursor's ``${env:NAME}`` stays a placeholder, ``${workspaceFolder}`` of a project
file becomes the project folder and ``${userHome}`` the home folder.
"""

from __future__ import annotations

from pathlib import Path

from desktop.sources.config.importers.base import ImportResult
from desktop.sources.config.importers.common import (
    LabelAllocator,
    import_server_map,
    load_json_object,
)

CLIENT = "Cursor"


def import_file(
    path: Path, labels: LabelAllocator, cwd: Path | None = None, home: Path | None = None
) -> ImportResult:
    result = ImportResult()
    data = load_json_object(path, result)
    if data is None:
        return result
    path_vars: dict[str, str] = {}
    if home is not None:
        path_vars["userHome"] = str(home)
    if path.parent.name == ".cursor" and (home is None or path.parent.parent != home):
        path_vars["workspaceFolder"] = str(path.parent.parent)
    import_server_map(
        data.get("mcpServers"),
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint="cursor",
        path_vars=path_vars,
    )
    return result

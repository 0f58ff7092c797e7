"""VS Code: ``.vscode/mcp.json`` and the user's ``mcp.json`` (JSON with comments).

``servers`` maps ids to entries with ``type`` stdio/http/sse; ``inputs`` declares
values VS Code prompts for, referenced as ``${input:ID}``: those stay placeholders,
filled in at connect time with the value the user gave (kept in the OS keyring,
:mod:`desktop.sources.config.inputs`); :func:`input_declarations` reads what the file
says of each (its description, whether it is a password).
``${userHome}``, ``${workspaceFolder}`` and ``${workspaceFolderBasename}`` are VS Code's
own variables and are filled in on import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from desktop.core.placeholders import find_placeholders
from desktop.sources.config.importers.base import ImportedServer, ImportResult
from desktop.sources.config.importers.common import (
    ConfigError,
    LabelAllocator,
    app_config_paths,
    import_server_map,
    load_json_file,
    load_json_object,
)

CLIENT = "VS Code"


@dataclass(frozen=True, slots=True)
class InputDeclaration:
    """One entry of a VS Code file's ``inputs``: what to ask the user for."""

    id: str
    description: str = ""
    password: bool = False


def input_declarations(path: Path) -> dict[str, InputDeclaration]:
    """The ``inputs`` a VS Code ``mcp.json`` declares, by id; none when it cannot be read."""
    try:
        data = load_json_file(path)
    except ConfigError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        key: InputDeclaration(
            key,
            desc if isinstance(desc := raw.get("description"), str) else "",
            raw.get("password") is True,
        )
        for key, raw in _inputs(data.get("inputs")).items()
    }


def user_paths(environ: Mapping[str, str], home: Path) -> list[Path]:
    return app_config_paths(environ, home, "Code", "User", "mcp.json")


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    result = ImportResult()
    data = load_json_object(path, result)
    if data is None:
        return result
    # VS Code's own variables, filled in as VS Code does (they are not environment
    # variables): the workspace is the project holding .vscode/, or, for the user's
    # mcp.json, the folder the catalog runs in.
    workspace = path.parent.parent if path.parent.name == ".vscode" else (cwd or Path.cwd())
    path_vars = {
        "userHome": str(Path.home()),
        "workspaceFolder": str(workspace),
        "workspaceFolderBasename": workspace.name,
    }
    import_server_map(
        data.get("servers"),
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint="vscode",
        where="servers",
        path_vars=path_vars,
    )
    inputs = _inputs(data.get("inputs"))
    result.servers = [_note_inputs(s, inputs) for s in result.servers]
    return result


def _inputs(raw: object) -> dict[str, dict[str, object]]:
    if not isinstance(raw, list):
        return {}
    return {str(i["id"]): i for i in raw if isinstance(i, dict) and "id" in i}


def _note_inputs(server: ImportedServer, inputs: dict[str, dict[str, object]]) -> ImportedServer:
    values = [v for _, v in server.spec.env + server.spec.headers] + list(server.spec.command)
    used = sorted({p.name for v in values for p in find_placeholders(v) if p.kind == "input"})
    if not used:
        return server
    notes = list(server.notes)
    for name in used:
        desc = inputs.get(name, {}).get("description")
        secret = " (secret)" if inputs.get(name, {}).get("password") else ""
        what = f": {desc}" if isinstance(desc, str) and desc else ""
        notes.append(f"asks for input {name}{secret}{what}; it is asked for at connect time")
    return replace(server, notes=tuple(notes))

"""Claude Desktop: ``claude_desktop_config.json``, ``mcpServers`` with command/args/env."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from desktop.sources.config.importers.base import ImportResult
from desktop.sources.config.importers.common import (
    LabelAllocator,
    app_config_paths,
    import_server_map,
    load_json_object,
)

CLIENT = "Claude Desktop"
FILE_NAME = "claude_desktop_config.json"


def default_paths(environ: Mapping[str, str], home: Path, cwd: Path) -> list[Path]:
    """Where Claude Desktop keeps its config on Linux, macOS and Windows."""
    return app_config_paths(environ, home, "Claude", FILE_NAME)


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    result = ImportResult()
    data = load_json_object(path, result)
    if data is None:
        return result
    if "mcpServers" not in data:
        return result
    import_server_map(
        data["mcpServers"],
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint="claude-desktop",
    )
    return result

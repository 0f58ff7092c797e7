"""Claude Desktop: ``claude_desktop_config.json``, ``mcpServers`` with command/args/env."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from desktop.sources.importers.base import ImportResult
from desktop.sources.importers.common import (
    ConfigError,
    LabelAllocator,
    import_server_map,
    load_json_file,
)

CLIENT = "Claude Desktop"
FILE_NAME = "claude_desktop_config.json"


def default_paths(environ: Mapping[str, str], home: Path, cwd: Path) -> list[Path]:
    """Where Claude Desktop keeps its config on Linux, macOS and Windows.

    All three places are looked at on every system (only existing files are read),
    so that a config copied from another machine, or a test's fake APPDATA, is found.
    """
    xdg = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    paths = [
        Path(xdg) / "Claude" / FILE_NAME,
        home / "Library" / "Application Support" / "Claude" / FILE_NAME,
    ]
    if environ.get("APPDATA"):
        paths.append(Path(environ["APPDATA"]) / "Claude" / FILE_NAME)
    return paths


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    result = ImportResult()
    try:
        data = load_json_file(path)
    except ConfigError as exc:
        result.problems.append((str(path), str(exc)))
        return result
    if not isinstance(data, dict):
        result.problems.append((str(path), "the file does not hold a JSON object"))
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

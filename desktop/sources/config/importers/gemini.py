"""Gemini CLI: ``~/.gemini/settings.json`` and a project's ``.gemini/settings.json``.

``mcpServers`` entries have ``command``/``args``/``env``/``cwd`` (stdio), ``httpUrl``
(Streamable HTTP) or ``url`` (SSE, which the catalog does not speak; a ``type`` of
``http`` makes it Streamable HTTP), ``headers``, ``timeout`` (milliseconds per
request) and ``trust`` (Gemini CLI's own tool confirmations). A server Gemini CLI
leaves out (``mcp.excluded``, or not in ``mcp.allowed`` when that is given;
``excludeMCPServers`` and ``allowMCPServers`` in older files) is imported switched off.
Gemini CLI resolves ``$VAR`` and ``${VAR}`` from the environment: both stay placeholders
here (``$VAR`` is written ``${VAR}``), filled in at connect time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop.sources.config.importers.base import ImportResult
from desktop.sources.config.importers.common import (
    LabelAllocator,
    import_server_map,
    load_json_object,
)

CLIENT = "Gemini CLI"
FOLDER = ".gemini"
FILE_NAME = "settings.json"
# Keys only Gemini CLI's server entries have.
OWN_KEYS = frozenset({"httpUrl", "trust", "includeTools", "excludeTools", "oauth"})

_BARE_VAR = re.compile(r"\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)")


def user_paths(home: Path) -> list[Path]:
    return [home / FOLDER / FILE_NAME]


def looks_like(data: Mapping[str, Any]) -> bool:
    """Whether a settings file's servers are written the way only Gemini CLI writes them."""
    servers = data.get("mcpServers")
    if not isinstance(servers, Mapping):
        return False
    return any(isinstance(e, Mapping) and OWN_KEYS & e.keys() for e in servers.values())


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    result = ImportResult()
    data = load_json_object(path, result)
    if data is None:
        return result
    import_server_map(
        data.get("mcpServers"),
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint="gemini",
        adapt=_adapt,
    )
    allowed, excluded = _allowed_and_excluded(data)
    result.servers = [
        s
        if (allowed is None or s.server_id in allowed) and s.server_id not in excluded
        else replace(
            s,
            spec=replace(s.spec, enabled=False),
            notes=(*s.notes, "switched off: Gemini CLI's settings leave it out"),
        )
        for s in result.servers
    ]
    return result


def _allowed_and_excluded(data: Mapping[str, Any]) -> tuple[set[str] | None, set[str]]:
    raw = data.get("mcp")
    mcp: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    allowed_raw = mcp.get("allowed", data.get("allowMCPServers"))
    excluded_raw = mcp.get("excluded", data.get("excludeMCPServers"))
    allowed = {str(n) for n in allowed_raw} if isinstance(allowed_raw, list) else None
    excluded = {str(n) for n in excluded_raw} if isinstance(excluded_raw, list) else set()
    return allowed, excluded


def _adapt(entry: Any) -> tuple[Any, list[str]]:
    """A Gemini CLI entry in the shape the shared reader takes, and notes on the way."""
    if not isinstance(entry, Mapping):
        return entry, []
    out = {k: _env_syntax(v) for k, v in entry.items()}
    notes: list[str] = []
    raw_type = entry.get("type")
    if "httpUrl" in entry:
        out["url"] = out.pop("httpUrl")
        out["type"] = "http"
    elif "url" in entry and raw_type is None:
        out["type"] = "sse"
    if "timeout" in entry:
        notes.append("timeout (per request, in Gemini CLI) is not applied")
    return out, notes


def _env_syntax(value: Any) -> Any:
    """``$VAR`` as ``${VAR}`` in strings, lists and maps of strings."""
    if isinstance(value, str):
        return _BARE_VAR.sub(r"${\1}", value)
    if isinstance(value, list):
        return [_env_syntax(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _env_syntax(v) for k, v in value.items()}
    return value

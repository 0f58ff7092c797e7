"""Codex: ``~/.codex/config.toml`` (or ``$CODEX_HOME/config.toml``), ``[mcp_servers.<id>]``.

Keys read: ``command``, ``args``, ``env``, ``env_vars`` (names passed through from the
environment), ``url``, ``http_headers``, ``env_http_headers`` (header from a variable),
``bearer_token_env_var``, ``enabled`` and ``startup_timeout_sec`` (or the older
``startup_timeout_ms``), which becomes the source's connect timeout. Values taken from
the environment become ``${env:VAR}`` placeholders, resolved at connect time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop.sources.config.importers.base import ImportedServer, ImportResult
from desktop.sources.config.importers.common import (
    TOO_DEEP,
    ConfigError,
    LabelAllocator,
    import_server_map,
    read_text,
)
from desktop.sources.launchers import parse_timeout

CLIENT = "Codex"


def user_paths(environ: Mapping[str, str], home: Path) -> list[Path]:
    if environ.get("CODEX_HOME"):
        return [Path(environ["CODEX_HOME"]) / "config.toml"]
    return [home / ".codex" / "config.toml"]


def parse_toml(text: str) -> dict[str, Any]:
    import tomllib  # here: only a Codex config is TOML, and most homes have none

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(TOO_DEEP) from None


def import_file(path: Path, labels: LabelAllocator, cwd: Path | None = None) -> ImportResult:
    result = ImportResult()
    try:
        data = parse_toml(read_text(path))
    except ConfigError as exc:
        result.problems.append((str(path), str(exc)))
        return result
    servers = data.get("mcp_servers")
    if servers is None:
        return result
    if not isinstance(servers, dict):
        result.problems.append((str(path), "'mcp_servers' is not a table"))
        return result
    converted: dict[str, Any] = {}
    for sid, entry in servers.items():
        converted[sid] = _to_entry(entry) if isinstance(entry, dict) else entry
    import_server_map(
        converted,
        client=CLIENT,
        file=path,
        result=result,
        labels=labels,
        label_hint="codex",
        where="mcp_servers",
    )
    result.servers = [_with_timeout(s, servers.get(s.server_id)) for s in result.servers]
    return result


def _with_timeout(server: ImportedServer, entry: Any) -> ImportedServer:
    """The server with Codex's startup timeout as its connect timeout."""
    if not isinstance(entry, dict):
        return server
    for key, scale in (("startup_timeout_sec", 1.0), ("startup_timeout_ms", 0.001)):
        if key not in entry:
            continue
        value = entry[key]
        try:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{value!r} is not a number")
            seconds = parse_timeout(value * scale)
        except ValueError as exc:
            note = f"{key} is not used: {exc}"
            return replace(server, notes=(*server.notes, note))
        return replace(server, spec=replace(server.spec, connect_timeout=seconds))
    return server


def _to_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A Codex server table in the common ``command``/``url`` entry shape."""
    out: dict[str, Any] = {}
    for key in ("command", "args", "url", "cwd"):
        if key in entry:
            out[key] = entry[key]
    if entry.get("enabled") is False:
        out["enabled"] = False
    env = dict(entry.get("env") or {}) if isinstance(entry.get("env"), dict) else entry.get("env")
    names = entry.get("env_vars")
    if isinstance(names, list) and isinstance(env, dict):
        for name in names:
            if isinstance(name, str) and name not in env:
                env[name] = "${env:" + name + "}"
    if env is not None:
        out["env"] = env
    headers: Any = entry.get("http_headers")
    headers = dict(headers) if isinstance(headers, dict) else headers
    from_env = entry.get("env_http_headers")
    if isinstance(from_env, dict):
        headers = headers if isinstance(headers, dict) else {}
        for header, var in from_env.items():
            if isinstance(var, str):
                headers[header] = "${env:" + var + "}"
    token_var = entry.get("bearer_token_env_var")
    if isinstance(token_var, str) and token_var:
        headers = headers if isinstance(headers, dict) else {}
        headers["Authorization"] = "Bearer ${env:" + token_var + "}"
    if headers is not None:
        out["headers"] = headers
    if "url" in out:
        out["type"] = "http"
    return out

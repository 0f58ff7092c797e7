"""Gemini CLI's MCP servers (``~/.gemini/settings.json``, a project's
``.gemini/settings.json``) are found, and every ``--config`` file is labelled by its
own format, told from its name and shape."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.sources.config.importers import detect_format, import_detected, import_project
from desktop.sources.config.importers.common import SSE_UNSUPPORTED

pytestmark = pytest.mark.timeout(120)

RAW = Path(__file__).resolve().parent.parent / "mcp" / "servers" / "raw_mcp.py"


def gemini_settings() -> dict[str, Any]:
    return {
        "theme": "Dracula",
        "mcpServers": {
            "local": {
                "command": sys.executable,
                "args": [str(RAW), "ok"],
                "env": {"TOKEN": "$GEMINI_TEST_TOKEN", "BOTH": "${OTHER}"},
                "cwd": "./server",
                "timeout": 30000,
                "trust": True,
            },
            "remote": {
                "httpUrl": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer $API_TOKEN"},
                "timeout": 5000,
            },
            "old": {"url": "https://sse.example.com/sse"},
        },
    }


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_the_users_gemini_settings_are_read(tmp_home: Path) -> None:
    settings = write(tmp_home / ".gemini" / "settings.json", gemini_settings())
    result = import_detected(cwd=tmp_home)
    by_id = {s.server_id: s for s in result.servers}
    assert set(by_id) == {"local", "remote"}
    assert {s.client for s in by_id.values()} == {"Gemini CLI"}
    local, remote = by_id["local"], by_id["remote"]
    assert local.spec.transport == "stdio" and local.project is None
    assert local.spec.command == (sys.executable, str(RAW), "ok")
    # Gemini CLI's $VAR and ${VAR} both stay environment placeholders.
    assert dict(local.spec.env) == {"TOKEN": "${GEMINI_TEST_TOKEN}", "BOTH": "${OTHER}"}
    assert any("cwd is not applied" in n for n in local.notes)
    assert remote.spec.transport == "http"
    assert remote.spec.endpoint == "https://mcp.example.com/mcp"
    assert dict(remote.spec.headers) == {"Authorization": "Bearer ${API_TOKEN}"}
    # url alone is Gemini CLI's SSE transport: said, not guessed.
    ((file, why),) = result.problems
    assert file == str(settings) and "'old'" in why and SSE_UNSUPPORTED in why


def test_servers_gemini_cli_leaves_out_are_imported_switched_off(tmp_home: Path) -> None:
    data = gemini_settings()
    data["mcp"] = {"excluded": ["remote"]}
    write(tmp_home / ".gemini" / "settings.json", data)
    by_id = {s.server_id: s for s in import_detected(cwd=tmp_home).servers}
    assert by_id["local"].spec.enabled and not by_id["remote"].spec.enabled
    assert any("leave it out" in n for n in by_id["remote"].notes)


def test_a_projects_gemini_settings_need_trust(tmp_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write(project / ".gemini" / "settings.json", {"mcpServers": {"p": {"command": "x"}}})
    (server,) = import_project(cwd=project).servers
    assert server.client == "Gemini CLI" and server.project == str(project.resolve())


@pytest.mark.parametrize(
    ("where", "data", "fmt"),
    [
        (".gemini/settings.json", {"mcpServers": {"a": {"command": "x"}}}, "gemini"),
        ("copy/settings.json", {"mcpServers": {"a": {"command": "x"}}}, "gemini"),
        ("team.json", {"mcpServers": {"a": {"httpUrl": "https://h.example/mcp"}}}, "gemini"),
        ("team.json", {"mcpServers": {"a": {"command": "x", "trust": True}}}, "gemini"),
        ("team.json", {"mcpServers": {"a": {"command": "x"}}}, "claude-code"),
        (".claude/settings.json", {"mcpServers": {"a": {"command": "x"}}}, "claude-code"),
        ("team.json", {"servers": {"a": {"command": "x"}}}, "vscode"),
    ],
)
def test_format_is_told_by_name_and_shape(
    tmp_path: Path, where: str, data: dict[str, Any], fmt: str
) -> None:
    assert detect_format(write(tmp_path / where, data)) == fmt


def test_config_option_labels_a_gemini_file_gemini_and_lists_its_server(
    tmp_home: Path, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    settings = write(tmp_path / "gemini-settings.json", gemini_settings())
    env = dict(os.environ, GEMINI_TEST_TOKEN="t-1", OTHER="o-2")
    done = run_cli("list", "--json", "--config", settings, env=env)
    data = json.loads(done.stdout)
    (local,) = [s for s in data["sources"] if s["label"] == "local"]
    assert local["imported_from"] == {"client": "Gemini CLI", "file": str(settings)}
    assert local["status"] == "ok", local
    assert "Claude Code" not in done.stdout + done.stderr

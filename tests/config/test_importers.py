"""Importing MCP server lists from other clients' config files, in a temporary home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.sources.config import saved as config
from desktop.sources.config.importers import detect_format, detected_config_files, import_detected
from desktop.sources.config.importers import load_file as import_file

pytestmark = pytest.mark.timeout(60)

SECRET = "sk-live-9f8e7d6c5b4a3f2e1d0c9b8a"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def by_label(result: object) -> dict[str, object]:
    return {s.label: s for s in result.servers}  # type: ignore[attr-defined]


# --- Claude Desktop ---------------------------------------------------------------------


def test_claude_desktop_linux_macos_windows_places(tmp_home: Path) -> None:
    body = {"mcpServers": {"docs": {"command": "uvx", "args": ["docs-mcp", "--port", 3]}}}
    linux = write(tmp_home / ".config/Claude/claude_desktop_config.json", json.dumps(body))
    mac = write(
        tmp_home / "Library/Application Support/Claude/claude_desktop_config.json",
        json.dumps({"mcpServers": {"mac": {"command": "mac-server"}}}),
    )
    win = write(
        tmp_home / "AppData/Roaming/Claude/claude_desktop_config.json",
        json.dumps({"mcpServers": {"win": {"command": "win-server.exe"}}}),
    )
    found = detected_config_files(cwd=tmp_home)
    assert [("claude-desktop", linux), ("claude-desktop", mac), ("claude-desktop", win)] == [
        f for f in found if f[0] == "claude-desktop"
    ]
    result = import_detected(cwd=tmp_home)
    servers = by_label(result)
    docs = servers["docs"]
    assert docs.client == "Claude Desktop"
    assert docs.spec.transport == "stdio"
    assert docs.spec.command == ("uvx", "docs-mcp", "--port", "3")
    assert docs.source_file == str(linux)
    assert set(servers) == {"docs", "mac", "win"}
    assert result.problems == []


def test_claude_desktop_env_placeholders_are_kept(tmp_home: Path) -> None:
    path = write(
        tmp_home / ".config/Claude/claude_desktop_config.json",
        json.dumps(
            {"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${GH_TOKEN}"}}}}
        ),
    )
    server = import_file(path).servers[0]
    assert server.spec.env == (("GITHUB_TOKEN", "${GH_TOKEN}"),)


# --- Claude Code ------------------------------------------------------------------------


def test_claude_code_project_and_user_files(tmp_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    write(
        project / ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "api": {
                        "type": "http",
                        "url": "https://api.example.com/mcp",
                        "headers": {"Authorization": "Bearer ${API_TOKEN:-none}"},
                    },
                    "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
                }
            }
        ),
    )
    write(
        tmp_home / ".claude.json",
        json.dumps(
            {
                "mcpServers": {"api": {"type": "stdio", "command": "api-local"}},
                "projects": {
                    str(project): {"mcpServers": {"here": {"command": "here-server"}}},
                    str(tmp_path / "elsewhere"): {"mcpServers": {"there": {"command": "x"}}},
                },
            }
        ),
    )
    result = import_detected(cwd=project)
    servers = by_label(result)
    # The project's "api" came first; the user-scope "api" got a distinct label (I1).
    assert servers["api"].spec.transport == "http"
    assert servers["api"].spec.headers == (("Authorization", "Bearer ${API_TOKEN:-none}"),)
    assert servers["api-claude-code"].spec.command == ("api-local",)
    assert "here" in servers and "there" not in servers
    sse = [p for p in result.problems if "legacy" in p[1]]
    assert sse and "SSE transport" in sse[0][1] and sse[0][0] == str(project / ".mcp.json")

    # A file named on the command line: every project's servers.
    explicit = config.load_config_file(tmp_home / ".claude.json")
    assert {"api", "here", "there"} <= set(by_label(explicit))


# --- VS Code ----------------------------------------------------------------------------

VSCODE_JSONC = """
// VS Code writes comments and trailing commas
{
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "Docs API key", "password": true},
  ],
  "servers": {
    /* a stdio server */
    "docs": {
      "type": "stdio",
      "command": "node",
      "args": ["${workspaceFolder}/server.js", "--url=http://x//y"],
      "env": {"DOCS_KEY": "${input:api-key}", "HOME_DIR": "${env:HOME}"},
    },
    "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
               "headers": {"X-Api-Key": "${input:api-key}"}},
  },
}
"""


def test_vscode_jsonc_inputs_and_workspace(tmp_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "ws"
    (project / ".git").mkdir(parents=True)
    path = write(project / ".vscode/mcp.json", VSCODE_JSONC)
    user = write(
        tmp_home / ".config/Code/User/mcp.json",
        '{"servers": {"user-one": {"command": "one"}}}',
    )
    assert detect_format(path) == "vscode" and detect_format(user) == "vscode"
    result = import_detected(cwd=project)
    assert result.problems == []
    servers = by_label(result)
    docs = servers["docs"]
    assert docs.client == "VS Code"
    assert docs.spec.command == ("node", f"{project}/server.js", "--url=http://x//y")
    assert dict(docs.spec.env) == {"DOCS_KEY": "${input:api-key}", "HOME_DIR": "${env:HOME}"}
    assert any("input api-key (secret): Docs API key" in n for n in docs.notes)
    assert servers["remote"].spec.headers == (("X-Api-Key", "${input:api-key}"),)
    assert "user-one" in servers


# --- Cursor -----------------------------------------------------------------------------


def test_cursor_user_and_project(tmp_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "cur"
    (project / ".git").mkdir(parents=True)
    write(
        tmp_home / ".cursor/mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "remote": {
                        "url": "https://mcp.example.com/mcp",
                        "headers": {"Authorization": f"Bearer {SECRET}"},
                    },
                    "tool": {"command": "${userHome}/bin/tool", "env": {"K": "${env:K}"}},
                }
            }
        ),
    )
    write(project / ".cursor/mcp.json", '{"mcpServers": {"proj": {"command": "p"}}}')
    result = import_detected(cwd=project)
    servers = by_label(result)
    assert servers["remote"].spec.transport == "http"
    assert servers["tool"].spec.command == (f"{tmp_home}/bin/tool",)
    assert servers["tool"].spec.env == (("K", "${env:K}"),)
    assert "proj" in servers
    # The secret is kept for this session's connection but never shown.
    assert SECRET not in repr(servers["remote"])
    assert SECRET not in json.dumps(servers["remote"].preview())
    assert servers["remote"].preview()["headers"]["Authorization"].startswith("Bearer ****")


# --- Codex ------------------------------------------------------------------------------

CODEX_TOML = """
model = "gpt-5"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { "DOCS_MODE" = "fast" }
env_vars = ["DOCS_TOKEN"]

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Region" = "eu" }
env_http_headers = { "X-Org" = "FIGMA_ORG" }

[mcp_servers.off]
command = "off-server"
enabled = false
"""


def test_codex_config_toml(tmp_home: Path) -> None:
    write(tmp_home / ".codex/config.toml", CODEX_TOML)
    result = import_detected(cwd=tmp_home)
    assert result.problems == []
    servers = by_label(result)
    docs = servers["docs"].spec
    assert docs.command == ("npx", "-y", "docs-mcp")
    assert dict(docs.env) == {"DOCS_MODE": "fast", "DOCS_TOKEN": "${env:DOCS_TOKEN}"}
    figma = servers["figma"].spec
    assert figma.transport == "http" and figma.endpoint == "https://mcp.figma.com/mcp"
    assert dict(figma.headers) == {
        "X-Region": "eu",
        "X-Org": "${env:FIGMA_ORG}",
        "Authorization": "Bearer ${env:FIGMA_TOKEN}",
    }
    assert servers["off"].spec.enabled is False


def test_codex_home_variable(
    tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex-home"
    write(codex_home / "config.toml", '[mcp_servers.x]\ncommand = "x"\n')
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert [s.label for s in import_detected(cwd=tmp_home).servers] == ["x"]


# --- broken files and entries -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        (".config/Claude/claude_desktop_config.json", '{"mcpServers": {', "not valid JSON"),
        (".config/Claude/claude_desktop_config.json", "[1, 2]", "not hold a JSON object"),
        (".config/Claude/claude_desktop_config.json", '{"mcpServers": []}', "not an object"),
        (".codex/config.toml", "[mcp_servers.x\ncommand=1", "not valid TOML"),
        (".cursor/mcp.json", '{"mcpServers": {} /* open', "never closed"),
        (".cursor/mcp.json", b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_a_broken_file_is_a_problem_and_the_rest_still_import(
    tmp_home: Path, name: str, text: str | bytes, reason: str
) -> None:
    bad = tmp_home / name
    bad.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        bad.write_bytes(text)
    else:
        bad.write_text(text, encoding="utf-8")
    write(tmp_home / ".claude.json", '{"mcpServers": {"good": {"command": "good"}}}')
    result = import_detected(cwd=tmp_home)
    assert [s.label for s in result.servers] == ["good"]
    assert len(result.problems) == 1
    file, why = result.problems[0]
    assert file == str(bad) and reason in why


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("[1]", "not an object"),
        ('{"args": ["x"]}', "neither 'command' nor 'url'"),
        ('{"command": ""}', "needs a 'command'"),
        ('{"command": "x", "args": "y"}', "'args' must be a list"),
        ('{"command": "x", "env": {"A": ["b"]}}', "env 'A' must be a string"),
        ('{"type": "http", "url": "ftp://x"}', "must start with http"),
        ('{"type": "websocket", "url": "ws://x"}', "unknown transport type 'websocket'"),
        ('{"type": "sse", "url": "http://x/sse"}', "SSE transport"),
    ],
)
def test_a_bad_entry_is_a_problem_naming_the_server(
    tmp_path: Path, entry: str, reason: str
) -> None:
    path = write(
        tmp_path / ".mcp.json",
        '{"mcpServers": {"bad": ' + entry + ', "ok": {"command": "ok"}}}',
    )
    result = config.load_config_file(path)
    assert [s.label for s in result.servers] == ["ok"]
    assert len(result.problems) == 1
    assert result.problems[0][0] == str(path)
    assert "'bad'" in result.problems[0][1] and reason in result.problems[0][1]


def test_unknown_or_missing_file_for_config_option(tmp_path: Path) -> None:
    other = write(tmp_path / "notes.json", '{"hello": 1}')
    result = config.load_config_file(other)
    assert result.servers == [] and "not a known MCP client config" in result.problems[0][1]
    missing = config.load_config_file(tmp_path / "nope.json")
    assert missing.problems == [(str(tmp_path / "nope.json"), "file not found")]


def test_format_detected_from_content(tmp_path: Path) -> None:
    assert detect_format(write(tmp_path / "a.json", '{"servers": {}}')) == "vscode"
    assert detect_format(write(tmp_path / "b.json", '{"mcpServers": {}}')) == "claude-code"
    assert detect_format(write(tmp_path / "c.conf", '[mcp_servers.x]\ncommand="x"')) == "codex"
    assert detect_format(write(tmp_path / "d.toml", "")) == "codex"


def test_labels_are_host_assigned_and_unique(tmp_path: Path) -> None:
    path = write(
        tmp_path / "claude_desktop_config.json",
        json.dumps(
            {
                "mcpServers": {
                    "My Server!": {"command": "a"},
                    "my-server": {"command": "b"},
                    "docs:evil": {"command": "c"},
                    "???": {"command": "d"},
                }
            }
        ),
    )
    labels = [s.label for s in config.load_config_file(path, taken=["docs-evil"]).servers]
    assert labels == [
        "My-Server",
        "my-server-claude-desktop",
        "docs-evil-claude-desktop",
        "claude-desktop",
    ]
    assert all(":" not in label for label in labels)

"""VS Code's own variables in its mcp.json are VS Code's, filled in on import; they are
not environment variables (which would be missing at connect time)."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.sources.config.saved import load_config_file


def test_user_home_and_workspace_folder_are_filled_in(tmp_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    config = project / ".vscode" / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "docs": {
                        "command": "${userHome}/bin/docs-server",
                        "args": [
                            "--root",
                            "${workspaceFolder}/skills",
                            "${workspaceFolderBasename}",
                        ],
                        "env": {"DOCS_HOME": "${userHome}/.docs", "TOKEN": "${env:TOKEN}"},
                    }
                }
            }
        )
    )
    (server,) = load_config_file(config).servers
    assert server.spec.command == (
        f"{tmp_home}/bin/docs-server",
        "--root",
        f"{project}/skills",
        "project",
    )
    env = dict(server.spec.env)
    assert env["DOCS_HOME"] == f"{tmp_home}/.docs"
    assert env["TOKEN"] == "${env:TOKEN}"  # an environment variable stays a placeholder

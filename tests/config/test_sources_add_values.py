"""``sources add --env/--header``: a saved source's environment values and headers, the
secret ones in the keyring and never in sources.json, used when the server is started."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.sources.config import saved as config
from desktop.sources.config.secrets import KEYRING_SERVICE
from tests.config.test_vscode_inputs import SECRET, keyed_server

pytestmark = pytest.mark.timeout(120)


def test_env_of_a_command_server_is_saved_with_its_secret_in_the_keyring(
    tmp_home: Path, tmp_path: Path, secret_service: Any, run_cli: Callable[..., Any]
) -> None:
    import keyring

    command = shlex.join([sys.executable, str(keyed_server(tmp_path))])
    added = run_cli(
        "sources", "add", f"keyed={command}", "--env", f"API_KEY={SECRET}", "--env", "MODE=demo"
    )
    assert added.returncode == 0, added.stderr
    assert "kept in the keyring: environment value API_KEY" in added.stdout
    text = config.config_path().read_text()
    assert SECRET not in text
    (saved,) = [s for s in json.loads(text)["sources"] if s["label"] == "keyed"]
    env = dict(saved["env"])
    assert env["MODE"] == "demo"
    ref = env["API_KEY"]
    assert ref.startswith("${keyring:") and ref.endswith("}")
    assert keyring.get_password(KEYRING_SERVICE, ref[len("${keyring:") : -1]) == SECRET
    # The server needs the value in its environment: it starts and lists its skill.
    listing = json.loads(run_cli("list", "--json").stdout)
    (status,) = [s for s in listing["sources"] if s["label"] == "keyed"]
    assert status["status"] == "ok", status


def test_headers_of_a_url_server_are_saved_with_their_secrets_in_the_keyring(
    tmp_home: Path, secret_service: Any, run_cli: Callable[..., Any]
) -> None:
    import keyring

    token = "Bearer tok-93kd83js02kd83"
    added = run_cli(
        "sources",
        "add",
        "web=https://mcp.example.com/mcp",
        "--header",
        f"Authorization={token}",
        "--header",
        "X-Team: blue",
    )
    assert added.returncode == 0, added.stderr
    assert "kept in the keyring: header Authorization" in added.stdout
    assert "X-Team" not in added.stdout.split("keyring:")[-1]
    text = config.config_path().read_text()
    assert "tok-93kd83js02kd83" not in text
    (saved,) = [s for s in json.loads(text)["sources"] if s["label"] == "web"]
    headers = dict(saved["headers"])
    assert headers["X-Team"] == "blue"
    ref = headers["Authorization"]
    assert keyring.get_password(KEYRING_SERVICE, ref[len("${keyring:") : -1]) == token
    # sources list --json names them, with the secret as its keyring reference.
    rows = json.loads(run_cli("sources", "list", "--json").stdout)["sources"]
    (row,) = [r for r in rows if r["label"] == "web"]
    assert row["headers"] == {"Authorization": ref, "X-Team": "blue"}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["web=https://h.example/mcp", "--env", "A=b"], "environment values are for a server"),
        (["srv=python -m x", "--header", "X-A=b"], "headers are for a server at a URL"),
        (["srv=python -m x", "--env", "1BAD=b"], "'1BAD' is not a variable name"),
        (["srv=python -m x", "--env", "NOVALUE"], "written NAME=VALUE"),
        (["web=https://h.example/mcp", "--header", "X-A=1", "--header", "x-a=2"], "twice"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_saved(
    tmp_home: Path, run_cli: Callable[..., Any], args: list[str], says: str
) -> None:
    done = run_cli("sources", "add", *args)
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr
    assert not config.config_path().exists()

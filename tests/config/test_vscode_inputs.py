"""VS Code's ``${input:ID}``: asked for, given with ``--input``, kept in the keyring for
that server, and a server without its value is not started and says which it needs."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.sources.config.inputs import input_entry
from desktop.sources.config.secrets import KEYRING_SERVICE

pytestmark = pytest.mark.timeout(120)

RAW = Path(__file__).resolve().parent.parent / "mcp" / "servers" / "raw_mcp.py"
SECRET = "s3cret-value-4711"


def keyed_server(folder: Path) -> Path:
    """A real stdio server that starts only with the right API_KEY in its environment."""
    script = folder / "keyed_server.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            if os.environ.get("API_KEY") != {SECRET!r}:
                sys.exit("Error: API_KEY is missing or wrong")
            os.execv(sys.executable, [sys.executable, {str(RAW)!r}, "ok"])
            """
        )
    )
    return script


def write_vscode_config(home: Path, server: Path, *, password: bool = True) -> Path:
    config = home / ".config" / "Code" / "User" / "mcp.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "inputs": [
                    {
                        "id": "api-key",
                        "type": "promptString",
                        "description": "Demo API key",
                        "password": password,
                    }
                ],
                "servers": {
                    "keyed": {
                        "type": "stdio",
                        "command": sys.executable,
                        "args": [str(server)],
                        "env": {"API_KEY": "${input:api-key}"},
                    }
                },
            }
        )
    )
    return config


def keyed_status(out: str) -> dict[str, Any]:
    data = json.loads(out)
    return next(s for s in data["sources"] if s["label"] == "keyed")


def test_input_given_once_is_kept_in_the_keyring(
    tmp_home: Path, tmp_path: Path, secret_service: Any, run_cli: Callable[..., Any]
) -> None:
    import keyring

    write_vscode_config(tmp_home, keyed_server(tmp_path))
    if keyring.get_password(KEYRING_SERVICE, input_entry("keyed", "api-key")) is not None:
        keyring.delete_password(KEYRING_SERVICE, input_entry("keyed", "api-key"))

    # No terminal and no value: not started, and it says which input it needs and how.
    first = run_cli("list", "--json")
    status = keyed_status(first.stdout)
    assert status["status"] == "error"
    assert "input api-key" in status["message"]
    assert "--input api-key=VALUE" in status["message"]
    assert "Error: API_KEY" not in status["message"]  # it was never started

    given = run_cli("list", "--json", "--input", f"api-key={SECRET}")
    assert keyed_status(given.stdout)["status"] == "ok", given.stdout
    assert SECRET not in given.stdout + given.stderr
    assert keyring.get_password(KEYRING_SERVICE, input_entry("keyed", "api-key")) == SECRET

    # Remembered: the next run needs no value.
    again = run_cli("list", "--json")
    assert keyed_status(again.stdout)["status"] == "ok", again.stdout
    skills = json.loads(again.stdout)["skills"]
    assert [s["name"] for s in skills if s["id"].startswith("keyed:")] == ["demo"]
    # Nothing of the value reached the saved sources.
    saved = tmp_home / ".config" / "skill-catalog" / "sources.json"
    assert not saved.exists() or SECRET not in saved.read_text()


def test_input_option_is_a_source_option_next_to_config(
    tmp_home: Path, tmp_path: Path, secret_service: Any, run_cli: Callable[..., Any]
) -> None:
    config = write_vscode_config(tmp_path / "elsewhere", keyed_server(tmp_path))
    # The file named with --config is a VS Code file by its shape (no .vscode folder).
    moved = tmp_path / "team-mcp.json"
    moved.write_text(config.read_text())
    done = run_cli("list", "--json", "--config", moved, "--input", f"api-key={SECRET}")
    assert keyed_status(done.stdout)["status"] == "ok", done.stdout + done.stderr
    bad = run_cli("list", "--config", moved, "--input", "api-key")
    assert bad.returncode == 2
    assert "expected ID=VALUE" in bad.stderr


def _read_until(fd: int, wanted: bytes, seconds: float = 60) -> bytes:
    seen = b""
    end = time.monotonic() + seconds
    while wanted not in seen:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never saw {wanted!r}; saw {seen!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.parametrize("password", [True, False])
def test_a_terminal_is_asked_and_a_password_is_not_echoed(
    tmp_home: Path, tmp_path: Path, secret_service: Any, password: bool
) -> None:
    import keyring

    write_vscode_config(tmp_home, keyed_server(tmp_path), password=password)
    keyring_entry = input_entry("keyed", "api-key")
    if keyring.get_password(KEYRING_SERVICE, keyring_entry) is not None:
        keyring.delete_password(KEYRING_SERVICE, keyring_entry)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "list", "--json"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=dict(os.environ),
        start_new_session=True,
    )
    os.close(slave)
    try:
        asked = _read_until(master, b"keyed needs input api-key (Demo API key): ")
        os.write(master, SECRET.encode() + b"\n")
        out, _ = proc.communicate(timeout=100)
        rest = b""
        try:
            while select.select([master], [], [], 0)[0]:
                chunk = os.read(master, 4096)
                if not chunk:
                    break
                rest += chunk
        except OSError:
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert asked
    echoed = SECRET.encode() in rest
    assert echoed is not password  # hidden only for a password
    assert keyed_status(out.decode())["status"] == "ok"
    assert keyring.get_password(KEYRING_SERVICE, keyring_entry) == SECRET

"""Servers that publish no skills are healthy: the answer decides, not one error code.

Servers on the Python SDK 1.x (FastMCP 1.x) and FastMCP 3.x answer a method they do not
know with -32602, over Streamable HTTP at status 400. On a 2025-era connection to a
server that did not declare the extension, any JSON-RPC error it answers ``skills/list``
with means it publishes no skills (D3); a server that declared the extension and fails
has failed. The servers are real: ``servers/raw_mcp.py`` over stdio and HTTP on
127.0.0.1, and a stock server on the Python SDK 1.x in a virtual environment of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, HttpServer, free_port, run
from helpers.bounded import run_bounded
from test_budgets_wire import raw_argv, raw_server, raw_spec

from desktop.sources.mcp.source import ServerHandle

STOCK = Path(__file__).resolve().parent / "servers" / "stock_sdk1.py"


def _listed(*args: str) -> tuple[int, dict, str]:
    result = run_bounded("list", "--json", *args, seconds=60)
    assert not result.timed_out, result.summary()
    return result.returncode, json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("code", ["-32602", "-32601", "-32600"])
def test_a_stdio_server_answering_any_error_publishes_no_skills(tmp_home: Path, code: str) -> None:
    rc, data, stderr = _listed("--server", raw_server("answers", code))
    (source,) = data["sources"]
    assert rc == 0, (source, stderr)
    assert source["status"] == "no-skills"
    assert f"the server answered skills/list with {code}" in source["message"]
    assert "it publishes no skills" in source["message"]
    assert source["tools"] == []
    assert any(f"tools/list with {code}" in note for note in source["notes"]), source["notes"]


@pytest.mark.parametrize(("code", "status"), [("-32602", 400), ("-32601", 404)])
def test_an_http_server_answering_an_error_at_a_4xx_status_publishes_no_skills(
    tmp_home: Path, code: str, status: int
) -> None:
    port = free_port()
    with HttpServer(raw_argv("answers", code, "--http", str(port)), port) as server:
        rc, data, stderr = _listed("--server", f"r={server.url}")
        human = run_bounded("list", "--server", f"r={server.url}", seconds=60)
    (source,) = data["sources"]
    assert rc == 0, (source, stderr)
    assert source["status"] == "no-skills"
    assert f"the server answered skills/list with {code}" in source["message"]
    assert f"HTTP {status}" not in source["message"]  # the answer, not a failed request
    assert human.returncode == 0 and "no-skills" in human.stdout, human.stdout


def test_a_server_that_declared_the_extension_and_fails_has_failed(tmp_home: Path) -> None:
    rc, data, _stderr = _listed("--server", raw_server("declared", "-32602"))
    (source,) = data["sources"]
    assert rc == 1
    assert source["status"] == "error"
    assert "skills/list page 1 failed" in source["message"]
    assert "(error -32602)" in source["message"]


def test_skills_get_of_a_server_that_answered_no_skills_is_no_skills() -> None:
    """A probe by URI after the listing said no skills: -32602 is not "no such skill"."""
    from desktop.sources.mcp.errors import NoSkillsMethod

    async def scenario() -> tuple[str, str]:
        async with ServerHandle(raw_spec("answers", "-32602"), TEST_BUDGETS, None) as handle:
            status, skills = await handle.discover()
            assert skills == []
            try:
                await handle.get_skill("skill://demo/SKILL.md")
            except NoSkillsMethod as exc:
                return status.status, str(exc)
            return status.status, "answered"

    state, said = run(scenario())
    assert state == "no-skills"
    assert said.startswith("the server answered skills/get with -32602"), said


# -- a stock server on the Python SDK 1.x ---------------------------------------------


@pytest.fixture(scope="session")
def sdk1_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a virtual environment with ``mcp==1.30.0`` installed."""
    venv = tmp_path_factory.mktemp("sdk1") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    try:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "mcp==1.30.0"],
            check=True,
            timeout=600,
            capture_output=True,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        out = getattr(exc, "stderr", b"") or b""
        pytest.skip(
            "pip could not install mcp==1.30.0 into a virtual environment: "
            + out.decode("utf-8", "replace")[-300:]
        )
    return python


def test_a_stock_python_sdk1_server_over_stdio_is_healthy_with_no_skills(
    tmp_home: Path, sdk1_python: Path
) -> None:
    rc, data, stderr = _listed("--server", f"stock={sdk1_python} {STOCK}")
    (source,) = data["sources"]
    assert rc == 0, (source, stderr)
    assert source["status"] == "no-skills"
    assert "the server answered skills/list with -32602" in source["message"]
    assert source["tools"] == ["add"]


def test_a_stock_python_sdk1_server_over_http_is_healthy_with_no_skills(
    tmp_home: Path, sdk1_python: Path
) -> None:
    port = free_port()
    with HttpServer([str(sdk1_python), str(STOCK), "--http", str(port)], port) as server:
        rc, data, stderr = _listed("--server", f"stock={server.url}")
        human = run_bounded("list", "--server", f"stock={server.url}", seconds=60)
    (source,) = data["sources"]
    assert rc == 0, (source, stderr)
    assert source["status"] == "no-skills"
    assert "the server answered skills/list with -32602" in source["message"]
    assert source["tools"] == ["add"]
    assert human.returncode == 0
    assert "could not be read" not in human.stdout + human.stderr

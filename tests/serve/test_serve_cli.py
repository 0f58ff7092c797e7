"""The `skill-catalog serve` command line: bad input gives a clear message and exit code,
instructions from a file reach both eras, and the text/blob rule keeps bytes exact."""

from __future__ import annotations

import base64
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import mcp_types as types
import pytest
from helpers.serve import serve_http, write_skill
from mcp import Client

from desktop.cli.main import main
from desktop.serve.content import as_text, resource_contents
from desktop.serve.server import decode_cursor, encode_cursor

RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["does-not-exist"], "not a folder: does-not-exist"),
        (["{folder}", "--http", "localhost"], "--http: expected HOST:PORT"),
        (["{folder}", "--http", "127.0.0.1:99999"], "--http: not a port number"),
        (["{folder}", "--page-size", "0"], "--page-size must be at least 1"),
        (["{folder}", "--ttl-ms", "-1"], "--ttl-ms must not be negative"),
        (["{folder}", "--instructions-file", "missing.txt"], "cannot read --instructions-file"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    write_skill(tmp_path / "skills", "one")
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{folder}", str(tmp_path / "skills")) for a in args]
    assert main(["serve", *argv]) == 2
    out, err = capsys.readouterr()
    assert message in err
    assert "Traceback" not in err
    assert out == ""


def test_port_in_use_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_skill(tmp_path, "one")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", str(tmp_path), "--http", f"127.0.0.1:{port}"]) == 1
    _, err = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1:{port}" in err
    assert "Traceback" not in err


def test_usage_in_a_subprocess(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli("serve", tmp_path / "missing", timeout=60)
    assert result.returncode == 2
    assert "not a folder" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.anyio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_instructions_file_reaches_both_eras(mode: str, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills", "one")
    text = "Start with skill://one/SKILL.md.\n" + "x" * 3000
    (tmp_path / "instructions.md").write_text(text, encoding="utf-8")
    with serve_http(
        tmp_path / "skills", "--instructions-file", str(tmp_path / "instructions.md")
    ) as server:
        server.wait_for_stderr("serving 1 skill from")
        async with Client(server.url, mode=mode) as client:
            if mode == "legacy":
                instructions = client.instructions
            else:
                raw = await client.session.send_discover(mode)
                instructions = raw["instructions"]
    assert instructions == text


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"plain\n", "text"),
        (b"crlf\r\nkept\r\n", "text"),
        (b"\xef\xbb\xbfbom kept\n", "text"),
        (b"", "text"),
        (b"nul\x00byte", "blob"),
        (b"\xff\xfe not utf-8", "blob"),
        ("line\u2028separator".encode(), "blob"),
        (b"x" * (256 * 1024 + 1), "blob"),
    ],
)
def test_contents_carry_the_exact_bytes(data: bytes, kind: str) -> None:
    block = resource_contents("skill://a/f", data, "text/plain")
    if kind == "text":
        assert isinstance(block, types.TextResourceContents)
        assert block.text.encode("utf-8") == data
        assert as_text(data) is not None
    else:
        assert isinstance(block, types.BlobResourceContents)
        assert base64.b64decode(block.blob) == data


def test_cursor_round_trip() -> None:
    assert decode_cursor(encode_cursor(3, 200)) == (3, 200)


def test_an_error_the_server_answers_is_not_padded_with_its_logging(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """`serve` logs "serving 1 skill from ..." on stderr: beside an error it answered
    (no such folder), that line explained nothing."""
    import shlex
    import sys

    write_skill(tmp_path / "skills", "one")
    server = shlex.join([sys.executable, "-m", "desktop", "serve", str(tmp_path / "skills")])
    result = run_cli("dir", "m:skill://one/SKILL.md", "nope", "--server", f"m={server}", timeout=60)
    assert result.returncode == 1
    assert "skill://one/nope" in result.stderr
    assert "server stderr" not in result.stderr, result.stderr


def test_a_client_leaving_mid_answer_or_ctrl_c_ends_stdio_serve_quietly(tmp_path: Path) -> None:
    """The client closes both pipes while 10 MiB answers are on their way: serve ended
    with a 26-line traceback and exit 1. Ctrl+C did nothing until a line was typed."""
    import json
    import os
    import signal
    import sys
    import time

    from helpers.serve import serve_argv

    write_skill(tmp_path, "bytes", files={"big.bin": os.urandom(10 * 1024 * 1024)})

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            serve_argv(tmp_path),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(p: subprocess.Popen[bytes], message: dict[str, object]) -> None:
        assert p.stdin is not None
        p.stdin.write((json.dumps(message) + "\n").encode())
        p.stdin.flush()

    server = start()
    assert server.stdout is not None and server.stderr is not None
    send(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    assert b'"result"' in server.stdout.readline()
    send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    for n in range(5):
        uri = "skill://bytes/big.bin"
        send(
            server,
            {"jsonrpc": "2.0", "id": 10 + n, "method": "resources/read", "params": {"uri": uri}},
        )
    time.sleep(0.5)
    server.stdout.close()
    server.stdin.close()  # type: ignore[union-attr]
    assert server.wait(30) == 0
    assert "Traceback" not in server.stderr.read().decode("utf-8", "replace")

    if sys.platform != "win32":
        server = start()
        assert server.stderr is not None
        line = server.stderr.readline()  # "serving 1 skill ... over stdio": it is up
        assert b"serving" in line
        server.send_signal(signal.SIGINT)
        assert server.wait(10) == 0
        server.stdin.close()  # type: ignore[union-attr]
        server.stdout.close()  # type: ignore[union-attr]
        assert "stopped" in server.stderr.read().decode()

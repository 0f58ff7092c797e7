"""Helpers of the sign-in tests: a protected Skills-extension server and its
authorization server on 127.0.0.1 (``oauth_server.py``), started and stopped, and
``login`` run as a person would, the browser step (``signin_browser.py``) played here."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.signin.signin_browser import Visit, address_in, consent

HERE = Path(__file__).resolve().parent

REPO = HERE.parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Protected:
    """The running pair: ``url`` is the MCP endpoint, ``issuer`` the authorization server."""

    url: str
    issuer: str
    process: subprocess.Popen[bytes]
    label: str = "vault"

    @property
    def option(self) -> str:
        return f"{self.label}={self.url}"

    def control(self, path: str) -> Any:
        request = urllib.request.Request(self.issuer + path, method="POST", data=b"")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.issuer + "/test/stats", timeout=10) as answer:
            return dict(json.load(answer))


def write_skills(folder: Path) -> Path:
    for name in ("alpha", "beta"):
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_bytes(
            f"---\nname: {name}\ndescription: The {name} skill, behind a sign-in.\n---\n\n"
            f"# {name}\n\nBody of {name}.\n".encode()
        )
    (folder / "alpha" / "notes.md").write_bytes(b"alpha notes\n")
    return folder


def start(folder: Path, scenario: str = "") -> Protected:
    as_port, mcp_port = free_port(), free_port()
    argv = [
        sys.executable,
        str(HERE / "oauth_server.py"),
        str(folder),
        "--as-port",
        str(as_port),
        "--mcp-port",
        str(mcp_port),
        "--scenario",
        scenario,
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    for port in (as_port, mcp_port):
        while True:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode() if process.stderr else "exited")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    process.kill()
                    raise RuntimeError("the test servers did not listen") from None
                time.sleep(0.1)
    return Protected(f"http://127.0.0.1:{mcp_port}/mcp", f"http://127.0.0.1:{as_port}", process)


def stop(server: Protected) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(10)
    if server.process.stderr is not None:
        server.process.stderr.close()


@dataclass
class Login:
    """One ``skill-catalog login`` run and what its browser saw."""

    returncode: int
    stdout: str
    stderr: str
    visits: list[Visit] = field(default_factory=list)
    address: str | None = None


def login(
    *args: str,
    browse: Callable[[str], list[Visit]] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 90,
) -> Login:
    """``skill-catalog login ARGS --no-browser``: the address it prints is opened by
    ``browse`` (default: consent), as a person's browser would."""
    argv = [sys.executable, "-m", "desktop", "login", *args, "--no-browser"]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=dict(os.environ if env is None else env),
    )
    seen: list[str] = []
    found = threading.Event()

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            seen.append(line)
            if address_in("".join(seen)):
                found.set()
        found.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    visits: list[Visit] = []
    found.wait(timeout)
    address = address_in("".join(seen))
    if address is not None:
        visits = (browse or (lambda url: [consent(url)]))(address)
    try:
        stdout = process.stdout.read() if process.stdout is not None else ""
        process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    reader.join(10)
    return Login(process.returncode, stdout, "".join(seen), visits, address)

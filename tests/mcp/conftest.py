"""Fixtures for the MCP client tests: hostile servers, budgets, a private cache."""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Self, TypeVar

import pytest

from desktop.core.model import SourceSpec
from desktop.sources.budgets import Budgets
from desktop.store.cache import SkillCache

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile.py"
T = TypeVar("T")

# Generous against a loaded machine, short enough that a hung server fails fast.
TEST_BUDGETS = Budgets(max_pages=25, request_timeout=8, connect_timeout=40, server_timeout=90)


def hostile_argv(scenario: str, record: Path | None = None) -> list[str]:
    argv = [sys.executable, str(HOSTILE), scenario]
    if record is not None:
        argv += ["--record", str(record)]
    return argv


def hostile_spec(scenario: str, label: str = "h", record: Path | None = None) -> SourceSpec:
    argv = tuple(hostile_argv(scenario, record))
    return SourceSpec(label, "mcp", "stdio", shlex.join(argv), command=argv)


def server_option(scenario: str, label: str = "h", record: Path | None = None) -> str:
    """A ``--server LABEL=COMMAND`` value for the CLI."""
    return f"{label}={shlex.join(hostile_argv(scenario, record))}"


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def cache(tmp_path: Path) -> SkillCache:
    return SkillCache(tmp_path / "cache")


@pytest.fixture
def spec_for() -> Callable[..., SourceSpec]:
    return hostile_spec


FASTMCP_SERVER = Path(__file__).resolve().parent / "servers" / "fastmcp_skills.py"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServer:
    """A server subprocess listening on 127.0.0.1:PORT; stopped on exit."""

    def __init__(self, argv: list[str], port: int) -> None:
        self.argv = argv
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.process: Any = None

    def __enter__(self) -> Self:
        import socket
        import subprocess
        import time

        self.process = subprocess.Popen(
            self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.process.stderr.read().decode("utf-8", "replace"))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"server did not listen on {self.port}")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except Exception:  # noqa: BLE001
                self.process.kill()
                self.process.wait(10)
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()

"""Fixtures for the conformance tests: the window's fixtures (a qasync loop, windows on
real sources with their own settings and keyring service), a recorder of what a server
receives, a heartbeat proving the window kept answering, and a memory bound."""

from __future__ import annotations

import json
import resource
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ui.conftest import (  # noqa: F401 - fixtures, shared with the window's tests
    _collect_on_main_thread,
    approval_service,
    make_window,
    qloop,
    run_async,
)

from desktop.core.model import SourceSpec

SERVERS = Path(__file__).resolve().parent / "servers"
WIRE_RECORD = SERVERS / "wire_record.py"
HOSTILE = Path(__file__).resolve().parent.parent / "mcp" / "servers" / "hostile.py"
CONFORMANCE_DIR = Path(__file__).parent
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if CONFORMANCE_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


def recorded_spec(label: str, argv: list[str], log: Path) -> SourceSpec:
    """A stdio source running ``argv`` behind the recorder, which writes every message
    the client sends to ``log`` (one JSON-RPC message a line)."""
    full = (sys.executable, str(WIRE_RECORD), str(log), *argv)
    return SourceSpec(label, "mcp", "stdio", shlex.join(full), command=full)


def hostile_argv(scenario: str) -> list[str]:
    return [sys.executable, str(HOSTILE), scenario]


def received(log: Path) -> list[dict[str, Any]]:
    """The messages a recorded server received, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def methods(log: Path) -> list[str]:
    return [m["method"] for m in received(log) if "method" in m]


def reads(log: Path) -> list[str]:
    """The URIs a recorded server was asked to read."""
    return [m["params"]["uri"] for m in received(log) if m.get("method") == "resources/read"]


class Heartbeat:
    """A 10 ms ``QTimer`` noting the longest time between two of its ticks: how long
    the window's thread was held at once."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._beat)
        self.longest = 0
        self._last = 0

    def _beat(self) -> None:
        now = self.clock.elapsed()
        self.longest = max(self.longest, now - self._last)
        self._last = now

    def __enter__(self) -> Heartbeat:
        self.clock.start()
        self._last = self.clock.elapsed()
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._beat()
        self.timer.stop()


@pytest.fixture
def heartbeat() -> Callable[[], Heartbeat]:
    return Heartbeat


def _address_space() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.fixture
def memory_bound() -> Iterator[int]:
    """The test process may grow by 2 GiB of address space at most: a regression that
    needs more fails with MemoryError rather than takes the machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _address_space() + 2 * 1024**3
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield limit
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

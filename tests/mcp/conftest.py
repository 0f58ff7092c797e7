"""Fixtures for the MCP client tests: hostile servers, budgets, a private cache."""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from desktop.core.model import SourceSpec
from desktop.sources.budgets import Budgets
from desktop.store.cache import SkillCache

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile.py"
T = TypeVar("T")

# Generous against a loaded machine, short enough that a hung server fails fast.
TEST_BUDGETS = Budgets(
    max_pages=25, request_timeout=8, connect_timeout=40, server_timeout=90
)


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

"""Fixtures of the sign-in tests (see signin_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.signin.signin_helpers import Protected, start, stop, write_skills


@pytest.fixture
def skills_folder(tmp_path: Path) -> Path:
    return write_skills(tmp_path / "published")


@pytest.fixture
def protected(skills_folder: Path) -> Iterator[Protected]:
    server = start(skills_folder)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def scenario_server(skills_folder: Path) -> Iterator[Callable[[str], Protected]]:
    started: list[Protected] = []

    def make(scenario: str) -> Protected:
        server = start(skills_folder, scenario)
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            stop(server)

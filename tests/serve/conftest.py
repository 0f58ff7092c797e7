"""Fixtures for the `skill-catalog serve` tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.serve import HttpServe, serve_http

from .sample_folder import build_skills_folder


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def skills_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared, read-only test folder (copy it before changing anything)."""
    return build_skills_folder(tmp_path_factory.mktemp("skills"))


@pytest.fixture(scope="module")
def http_server(skills_folder: Path) -> Iterator[HttpServe]:
    """`serve --http 127.0.0.1:0 --page-size 2` over the shared folder."""
    with serve_http(skills_folder, "--page-size", "2") as server:
        yield server

"""Fixtures of the review record tests: three people with real ed25519 keys (alice and
bob may review, carol may not) and a git repository holding two skills."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_helpers import Person, add_skill, allow, git, make_person


@pytest.fixture(scope="session")
def people(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Person]:
    folder = tmp_path_factory.mktemp("keys")
    return {name: make_person(folder, name) for name in ("alice", "bob", "carol")}


@pytest.fixture
def repo(tmp_path: Path, people: dict[str, Person]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "alice@example.com")
    git(root, "config", "user.name", "Alice")
    git(root, "config", "commit.gpgsign", "false")
    add_skill(root, "deploy", {"scripts/run.sh": "echo deploy\n"})
    allow(root, people["alice"], people["bob"])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "skills")
    return root

"""Local folders built to cost: bounded in time, memory and output (run under limits).

Each test runs the command line as a user would, under an address-space and CPU-time
ceiling (``helpers.bounded``), and asserts what the user sees and what it cost.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest
from helpers.bounded import GIB, MIB, run_bounded


def _skill(folder: Path, name: str = "s", description: str = "A skill") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody\n")
    return folder


def test_a_sparse_64_gib_file_is_never_read_and_its_skill_is_over_the_limit(
    tmp_path: Path, tmp_home: Path
) -> None:
    """Sizes come from the folder's listing: a 64 GiB file (a few bytes on disk) makes
    its skill over-limit at once; reading it to hash it took 135 s."""
    skill = _skill(tmp_path / "skills" / "big", "big")
    os.truncate(_touch(skill / "data.bin"), 64 * GIB)
    for command in (("list", "--folder", tmp_path / "skills"), ("lint", tmp_path / "skills")):
        result = run_bounded(*command, seconds=30, memory=2 * GIB)
        assert not result.timed_out, result.summary()
        assert result.peak_rss < 1 * GIB, result.summary()
        assert "over-limit" in result.stdout, result.stdout
        assert "68,719,476," in result.stdout and "its files were not read" in result.stdout
        assert "Traceback" not in result.stderr, result.stderr


def test_a_chain_of_1000_nested_skills_is_bounded_and_the_limit_is_said(
    tmp_path: Path, tmp_home: Path
) -> None:
    """Each file belongs to every skill enclosing it: 1,000 skills in a chain were
    half a million manifest entries (18 s, 1.4 GB, 424 MB of JSON)."""
    folder = tmp_path / "chain"
    chain = [folder]
    for i in range(1000):
        chain.append(chain[-1] / "a")
        _skill(chain[-1], "a", f"skill {i}")
    try:
        result = run_bounded("list", "--json", "--folder", folder, seconds=30, memory=2 * GIB)
    finally:
        # Removed here, deepest first: pytest's own clean-up recurses once per level.
        for here in reversed(chain[1:]):
            (here / "SKILL.md").unlink()
            here.rmdir()
    assert not result.timed_out, result.summary()
    assert result.returncode == 0, result.stderr
    assert result.peak_rss < 1 * GIB and result.stdout_bytes < 50 * MIB, result.summary()
    data = json.loads(result.stdout)
    (source,) = data["sources"]
    assert source["skill_count"] == 16
    (note,) = [n for n in source.get("notes", []) if "nested" in n]
    assert note.startswith("984 skill folders nested more than 16 deep inside other skills")
    outer = next(s for s in data["skills"] if s["uri"] == "a/SKILL.md")
    assert outer["state"] == "over-limit"
    assert any("has 1,000 files" in p["message"] for p in outer["problems"])


def test_fifos_and_sockets_in_a_skill_are_problems_and_never_opened(
    tmp_path: Path, tmp_home: Path
) -> None:
    """They were left out of the manifest silently while lint said ok."""
    skill = _skill(tmp_path / "k" / "s")
    os.mkfifo(skill / "pipe")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(skill / "sock"))
    opened = threading.Event()

    def wait_for_a_reader() -> None:
        # Opening a FIFO to write returns only once something opens it to read.
        with open(skill / "pipe", "wb"):
            opened.set()

    writer = threading.Thread(target=wait_for_a_reader, daemon=True)
    writer.start()
    try:
        result = run_bounded("lint", tmp_path / "k", seconds=30, memory=2 * GIB)
    finally:
        listener.close()
    was_opened = opened.is_set()
    with open(skill / "pipe", "rb"):  # lets the writer thread end
        pass
    writer.join(5)
    assert not was_opened, "the scan opened the FIFO"
    assert result.returncode == 1, result.stdout
    assert "pipe is a FIFO, not a regular file: it was not opened" in result.stdout
    assert "sock is a socket, not a regular file" in result.stdout


@pytest.mark.parametrize("kind", ["folder", "FIFO"])
def test_a_skill_md_that_is_no_file_is_said_plainly(
    tmp_path: Path, tmp_home: Path, kind: str
) -> None:
    """It made no skill at all: "no skill folders" under a folder plainly holding one."""
    skill = tmp_path / "k" / "s"
    skill.mkdir(parents=True)
    if kind == "folder":
        (skill / "SKILL.md").mkdir()
    else:
        os.mkfifo(skill / "SKILL.md")
    result = run_bounded("lint", tmp_path / "k", seconds=30, memory=2 * GIB)
    assert result.returncode == 1, result.stdout
    article = "a folder" if kind == "folder" else "a FIFO"
    assert f"cannot read SKILL.md: it is {article}, not a file; not opened" in result.stdout


def _touch(path: Path) -> Path:
    path.touch()
    return path

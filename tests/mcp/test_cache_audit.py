"""The verified-bytes cache under damage: what a user sees when its files or folders are
changed, and the modes of what it creates (V6)."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest
from helpers.serve import serve_argv, write_skill

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SKILL_MD = "skill://notes/SKILL.md"


@pytest.fixture
def served(tmp_home: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """A folder with one skill, and the source options that serve it over stdio."""
    folder = tmp_path / "skills"
    write_skill(folder, "notes", "Take notes.", files={"ref/guide.md": b"# Guide\n"})
    return folder, ["--server", f"s={shlex.join(serve_argv(folder))}"]


def cache_root(tmp_home: Path) -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "skill-catalog" / "verified"


def cached_copy(tmp_home: Path, uri: str) -> Path:
    """The cached file of ``uri`` (the folder whose ``uri`` file names it)."""
    (folder,) = [p.parent for p in cache_root(tmp_home).glob("*/*/uri") if p.read_text() == uri]
    (copy,) = [p for p in folder.iterdir() if p.name != "uri"]
    return copy


def test_a_folder_in_place_of_a_cached_file_is_a_miss_not_an_error(
    run_cli, tmp_home: Path, served
) -> None:
    """`show` and `verify` failed with "Is a directory" every time, until the folder was
    removed by hand."""
    folder, options = served
    assert run_cli("verify", "--all", *options).returncode == 0
    copy = cached_copy(tmp_home, SKILL_MD)
    copy.chmod(0o600)
    copy.unlink()
    (copy / "inner").mkdir(parents=True)
    shown = run_cli("show", f"s:{SKILL_MD}", *options)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (folder / "notes" / "SKILL.md").read_text()
    assert shown.stderr == ""
    checked = run_cli("verify", f"s:{SKILL_MD}", *options)
    assert checked.returncode == 0, checked.stderr
    assert "verified: all 2 files agree" in checked.stdout
    # The folder gave way to the verified copy, read-only.
    assert copy.is_file() and copy.read_bytes() == (folder / "notes" / "SKILL.md").read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o400


def test_every_folder_and_file_the_cache_makes_is_private_under_umask_000(
    run_cli, tmp_home: Path, served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folders made on the way to the cache (the cache home, the program's folder)
    were 0777 under umask 000: anyone could swap the cache folder for one of theirs."""
    _, options = served
    fresh = tmp_home / "new" / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(fresh))
    previous = os.umask(0)
    try:
        checked = run_cli("verify", "--all", *options)
    finally:
        os.umask(previous)
    assert checked.returncode == 0, checked.stderr
    made = [tmp_home / "new", fresh, *sorted(fresh.rglob("*"))]
    modes = {str(p.relative_to(tmp_home)): stat.S_IMODE(p.lstat().st_mode) for p in made}
    assert len([p for p in made if p.is_file()]) == 2 * 2 + 1  # 2 files + 2 uri + source.json
    for p in made:
        assert not p.is_symlink()
        wanted = 0o700 if p.is_dir() else 0o400
        assert modes[str(p.relative_to(tmp_home))] == wanted, modes

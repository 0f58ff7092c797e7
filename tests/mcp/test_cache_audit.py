"""The verified-bytes cache under damage: what a user sees when its files or folders are
changed, and the modes of what it creates (V6)."""

from __future__ import annotations

import os
import shlex
import stat
import threading
from pathlib import Path

import pytest
from helpers.serve import serve_argv, write_skill

from desktop.core.manifest import sha256_digest
from desktop.core.model import Origin, SkillFile
from desktop.store.cache import SkillCache

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


def put_one(cache: SkillCache, origin: Origin, uri: str, data: bytes) -> Path:
    return cache.put(origin, uri, SkillFile(uri, sha256_digest(data), len(data)), data)


def test_removing_a_server_is_not_held_by_a_fifo_in_place_of_its_record(tmp_path: Path) -> None:
    """The window removes a server's cached files when the server is removed: a FIFO in
    place of a server folder's source.json held that removal, and the window, for ever."""
    cache = SkillCache(tmp_path / "cache")
    docs, other = Origin("docs", "mcp", "stdio", "a"), Origin("other", "mcp", "stdio", "a")
    put_one(cache, docs, SKILL_MD, b"docs\n")
    kept = put_one(cache, other, SKILL_MD, b"other\n")
    put_one(cache, Origin("docs", "mcp", "http", "http://127.0.0.1:9/mcp"), SKILL_MD, b"x\n")
    record = cache.source_dir(docs) / "source.json"
    record.chmod(0o600)
    record.unlink()
    os.mkfifo(record)
    outcome: list[int] = []
    worker = threading.Thread(target=lambda: outcome.append(cache.remove_source("docs")))
    worker.daemon = True
    worker.start()
    worker.join(10)
    held = worker.is_alive()
    if held:  # let it go: open the FIFO's other end
        os.close(os.open(record, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert not held, "the removal waited on the FIFO"
    assert outcome == [1]  # the folder whose record is readable
    assert kept.read_bytes() == b"other\n"  # and only the server's own


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens a folder of mode 0000 all the same")
def test_removing_a_server_removes_folders_made_unreadable(tmp_path: Path) -> None:
    """A folder of mode 0000 inside a server's cache folder made the removal raise a
    TypeError (from the error handler) and leave the server's files behind."""
    cache = SkillCache(tmp_path / "cache")
    docs = Origin("docs", "mcp", "stdio", "a")
    put_one(cache, docs, SKILL_MD, b"docs\n")
    put_one(cache, docs, "skill://notes/ref/guide.md", b"guide\n")
    cache.file_dir(docs, SKILL_MD).chmod(0)
    cache.file_dir(docs, "skill://notes/ref/guide.md").chmod(0o500)
    assert cache.remove_source("docs") == 1
    assert list(cache.root.iterdir()) == []


@pytest.mark.parametrize(
    "label",
    ["..", "a/../../b", "\U0001d51e" * 64, "\u0130" * 64, "\u202egnp.exe", "x" * 300, " "],
)
def test_odd_and_long_labels_and_uris_stay_inside_the_cache(tmp_path: Path, label: str) -> None:
    """A label of 64 letters outside ASCII made a folder name over 255 bytes: nothing of
    that server could be cached ("File name too long")."""
    cache = SkillCache(tmp_path / "cache")
    origin = Origin(label, "mcp", "stdio", "cmd")
    for uri in (SKILL_MD, "skill://" + "../" * 40 + "etc/passwd", "skill://" + "\xe9" * 400):
        path = put_one(cache, origin, uri, b"bytes\n")
        assert path.resolve().is_relative_to(cache.root.resolve())
        expected = SkillFile(uri, sha256_digest(b"bytes\n"), 6)
        assert cache.get(origin, uri, expected) == b"bytes\n"
        assert cache.get(Origin(label + "2", "mcp", "stdio", "cmd"), uri, expected) is None
    assert cache.remove_source(label) == 1
    assert list(cache.root.iterdir()) == []


@pytest.mark.parametrize("which", ["server folder", "file folder"])
def test_a_file_in_place_of_a_cache_folder_gives_way(tmp_path: Path, which: str) -> None:
    """A file where a server's (or a skill file's) folder belongs was left there: every
    read of that server went to the server again, and its removal left the file."""
    cache = SkillCache(tmp_path / "cache")
    origin = Origin("docs", "mcp", "stdio", "a")
    folder = (
        cache.source_dir(origin) if which == "server folder" else cache.file_dir(origin, SKILL_MD)
    )
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_bytes(b"not a folder\n")
    expected = SkillFile(SKILL_MD, sha256_digest(b"docs\n"), 5)
    assert cache.get(origin, SKILL_MD, expected) is None
    path = put_one(cache, origin, SKILL_MD, b"docs\n")
    assert folder.is_dir() and cache.get(origin, SKILL_MD, expected) == b"docs\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    assert cache.remove_source("docs") == 1
    assert list(cache.root.iterdir()) == []

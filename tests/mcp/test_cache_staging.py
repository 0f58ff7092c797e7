"""Large files are written while they are hashed; only bytes that matched stay cached."""

from __future__ import annotations

import asyncio
import json
import os
import stat

from desktop.core.manifest import sha256_digest
from desktop.core.model import Origin, Skill, SkillFile
from desktop.sources.reader import THREAD_HASH_BYTES, accept_bytes, flush_cache_writes
from desktop.store.cache import SkillCache

URI = "skill://demo/data/blob.bin"


def server_skill(expected: SkillFile) -> Skill:
    origin = Origin("srv", "mcp", "stdio", "demo-server")
    md = SkillFile("skill://demo/SKILL.md", "sha256:" + "0" * 64, 10)
    return Skill(
        origin=origin,
        uri="skill://demo/SKILL.md",
        name="demo",
        description="d",
        frontmatter={"name": "demo", "description": "d"},
        resources=(md, expected),
    )


def everything_in(cache: SkillCache) -> list[str]:
    if not cache.root.exists():
        return []
    return sorted(p.name for p in cache.root.rglob("*") if p.is_file())


async def accept(skill: Skill, data: bytes, cache: SkillCache):
    verification, _ = await accept_bytes(skill, URI, data, cache=cache)
    await flush_cache_writes()
    return verification


def test_a_large_file_that_matches_is_cached_read_only(tmp_path) -> None:
    data = os.urandom(THREAD_HASH_BYTES * 4)
    expected = SkillFile(URI, sha256_digest(data), len(data))
    skill = server_skill(expected)
    cache = SkillCache(tmp_path / "cache")
    verification = asyncio.run(accept(skill, data, cache))
    assert verification.state == "verified", verification.message
    path = cache.path_for(skill.origin, URI, expected.digest)
    assert path.read_bytes() == data
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    assert not [n for n in everything_in(cache) if n.startswith(".tmp-")]
    # A second copy of the same bytes does not write again.
    before = path.stat().st_mtime_ns
    assert asyncio.run(accept(skill, data, cache)).state == "verified"
    assert path.stat().st_mtime_ns == before


def test_a_large_file_that_does_not_match_leaves_nothing_behind(tmp_path) -> None:
    good = os.urandom(THREAD_HASH_BYTES * 4)
    expected = SkillFile(URI, sha256_digest(good), len(good))
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF  # same size, one byte changed: only the digest tells
    cache = SkillCache(tmp_path / "cache")
    verification = asyncio.run(accept(server_skill(expected), bytes(bad), cache))
    assert verification.state == "digest-mismatch"
    # The staged copy was removed: no bytes of the file anywhere in the cache.
    assert [n for n in everything_in(cache) if n not in ("uri", "source.json")] == []


def test_a_large_file_of_the_wrong_size_is_never_written(tmp_path) -> None:
    good = os.urandom(THREAD_HASH_BYTES * 2)
    expected = SkillFile(URI, sha256_digest(good), len(good))
    cache = SkillCache(tmp_path / "cache")
    verification = asyncio.run(accept(server_skill(expected), good + b"x", cache))
    assert verification.state == "size-mismatch"
    assert [n for n in everything_in(cache) if n not in ("uri", "source.json")] == []


def test_a_cache_folder_replaced_by_a_link_is_not_followed(tmp_path) -> None:
    """Verified bytes were written wherever the link pointed: into a local skill folder,
    whose manifest (and approval) they changed (V6)."""
    data = b"verified bytes\n"
    expected = SkillFile(URI, sha256_digest(data), len(data))
    skill = server_skill(expected)
    cache = SkillCache(tmp_path / "cache")
    cache.put(skill.origin, URI, expected, data)
    elsewhere = tmp_path / "a-skill-folder"
    elsewhere.mkdir()
    for folder in (cache.source_dir(skill.origin), cache.file_dir(skill.origin, URI)):
        for p in sorted(folder.rglob("*"), reverse=True):
            p.chmod(0o700)
            p.unlink() if p.is_file() else p.rmdir()
        if folder.exists():
            folder.rmdir()
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.symlink_to(elsewhere)
        cache.put(skill.origin, URI, expected, data)
        assert not folder.is_symlink() and cache.get(skill.origin, URI, expected) == data
        assert list(elsewhere.iterdir()) == []


def test_a_fifo_in_place_of_a_cached_file_is_dropped_not_waited_on(tmp_path) -> None:
    """Opening it waited for a writer for ever: `show` hung, the preview never ended."""
    data = b"verified bytes\n"
    expected = SkillFile(URI, sha256_digest(data), len(data))
    skill = server_skill(expected)
    cache = SkillCache(tmp_path / "cache")
    path = cache.put(skill.origin, URI, expected, data)
    path.chmod(0o600)
    path.unlink()
    os.mkfifo(path)
    assert cache.get(skill.origin, URI, expected) is None
    assert not path.exists()


def test_no_secret_of_a_servers_address_is_written_to_the_cache(tmp_path) -> None:
    """The cache names its server's folder (label and address, for removal and for a
    person looking); a token in the address is masked there as wherever it is shown."""
    data = b"small and verified\n"
    expected = SkillFile(URI, sha256_digest(data), len(data))
    secrets = {
        "http": "http://127.0.0.1:9/mcp?api_key=supersecret123",
        "stdio": "demo-server --password hunter2secret",
    }
    for transport, endpoint in secrets.items():
        skill = server_skill(expected)
        skill.origin = Origin("srv", "mcp", transport, endpoint)
        cache = SkillCache(tmp_path / transport)
        assert asyncio.run(accept(skill, data, cache)).state == "verified"
        written = b"".join(p.read_bytes() for p in cache.root.rglob("*") if p.is_file())
        assert b"supersecret123" not in written and b"hunter2secret" not in written
        assert cache.get(skill.origin, URI, expected) == data
        assert cache.source_dirs("srv")
        # A record an earlier version wrote in clear is written again, masked.
        (marker,) = cache.root.glob("*/source.json")
        marker.write_text(json.dumps({"label": "srv", "endpoint": endpoint}))
        other = SkillFile(URI + ".2", sha256_digest(b"2"), 1)
        cache.put(skill.origin, other.uri, other, b"2")
        assert b"supersecret123" not in marker.read_bytes()
        assert b"hunter2secret" not in marker.read_bytes()


def test_a_new_version_of_a_file_replaces_the_copies_of_earlier_ones(tmp_path) -> None:
    """A server whose file keeps changing leaves one copy of it in the cache, not one per
    version; temporary files of a run that ended mid-write go too, once they are old."""
    import time

    cache = SkillCache(tmp_path / "cache")
    versions = [os.urandom(THREAD_HASH_BYTES * 2) for _ in range(3)] + [b"small, last"]
    other_uri = "skill://demo/other.md"
    other = SkillFile(other_uri, sha256_digest(b"other"), 5)
    for n, data in enumerate(versions):
        expected = SkillFile(URI, sha256_digest(data), len(data))
        skill = server_skill(expected)
        if n == 0:
            cache.put(skill.origin, other_uri, other, b"other")
            folder = cache.file_dir(skill.origin, URI)
            folder.mkdir(parents=True)
            old_left = folder / ".tmp-crashed"
            old_left.write_bytes(b"half a write")
            hours_ago = time.time() - 7200
            os.utime(old_left, (hours_ago, hours_ago))
            (folder / ".tmp-being-written").write_bytes(b"another run, now")
        assert asyncio.run(accept(skill, data, cache)).state == "verified"
        kept = sorted(p.name for p in folder.iterdir())
        assert kept == sorted([".tmp-being-written", "uri", expected.digest.split(":", 1)[1]]), kept
        assert cache.get(skill.origin, URI, expected) == data
    # Another file's copy of the same server is left alone.
    assert cache.get(skill.origin, other_uri, other) == b"other"

"""Verified reads over a kept-open connection: nothing unverified is shown or cached."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, hostile_spec, run

from desktop.core.manifest import sha256_digest
from desktop.sources.mcp.source import ServerHandle
from desktop.store.cache import SkillCache

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def cached_files(cache: SkillCache) -> list[Path]:
    if not cache.root.exists():
        return []
    return [
        p for p in cache.root.rglob("*") if p.is_file() and p.name not in ("uri", "source.json")
    ]


async def open_and_verify(scenario: str, cache: SkillCache, record: Path | None = None):
    async with ServerHandle(hostile_spec(scenario, record=record), TEST_BUDGETS, cache) as handle:
        status, skills = await handle.discover()
        assert status.status == "ok", status.message
        results = [await handle.verify(s) for s in skills]
        previews = [await handle.read_skill_md(s) for s in skills]
        return handle, skills, results, previews


def test_a_correct_skill_verifies_and_is_cached_privately(
    cache: SkillCache, tmp_path: Path
) -> None:
    record = tmp_path / "methods"
    _, _skills, (result,), (preview,) = run(open_and_verify("ok", cache, record))
    assert result.state == "verified", result.message
    assert "not that they are safe" in result.message  # V7
    assert [f.state for f in result.files] == ["verified", "verified"]
    # The preview came from the cache (re-hashed), and is byte-exact: CRLF kept.
    assert preview.verified and preview.from_cache
    assert preview.data is not None and b"\r\n" in preview.data
    assert preview.parsed is not None and "Read references/guide.md" in preview.parsed.body
    files = cached_files(cache)
    assert len(files) == 2
    for f in files:
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o400
    assert stat.S_IMODE(os.stat(cache.root).st_mode) == 0o700
    guide = next(f for f in files if f.read_bytes().startswith(b"\xef\xbb\xbf"))
    assert sha256_digest(guide.read_bytes()).endswith(guide.name)  # BOM kept, content-addressed
    # Two reads of SKILL.md by verify, preview from cache: one resources/read per file.
    assert record.read_text().split().count("resources/read") == 2


@pytest.mark.parametrize(
    ("scenario", "state", "words"),
    [
        ("wrong-digest", "digest-mismatch", ["expected digest sha256:0000", "hash to sha256:"]),
        ("wrong-size", "size-mismatch", ["expected 41 bytes", "received 38 bytes"]),
        (
            "fm-differs",
            "frontmatter-mismatch",
            ["'description'", "Something the file does not say"],
        ),
    ],
)
def test_mismatches_are_refused_and_never_cached(
    cache: SkillCache, scenario: str, state: str, words: list[str]
) -> None:
    _, _, (result,), (preview,) = run(open_and_verify(scenario, cache))
    assert result.state == state
    for w in words:
        assert w in result.message
    bad = next(f for f in result.files if f.state == state)
    assert bad.expected is not None and bad.actual is not None
    assert bad.expected != bad.actual or state == "frontmatter-mismatch"
    for f in cached_files(cache):
        # only files that verified were cached
        assert any(
            sha256_digest(f.read_bytes()) == v.expected.digest
            for v in result.files
            if v.state == "verified" and v.expected
        )
    if state == "frontmatter-mismatch":
        assert preview.data is None and preview.text is None
        assert preview.refresh_offered


def test_alias_bomb_in_skill_md_is_a_frontmatter_failure(cache: SkillCache) -> None:
    _, skills, results, previews = run(open_and_verify("alias-bomb", cache))
    by_name = dict(zip([s.name for s in skills], zip(results, previews, strict=True), strict=True))
    result, preview = by_name["bomb"]
    assert result.state == "frontmatter-mismatch"
    assert "anchors or aliases" in result.message
    assert preview.data is None
    deep, _ = by_name["deep"]
    assert deep.state == "invalid"


def test_dynamic_skill_is_shown_as_unverified(cache: SkillCache) -> None:
    _, _, (result,), (preview,) = run(open_and_verify("dynamic", cache))
    assert result.state == "dynamic"
    assert preview.state == "dynamic" and not preview.verified
    assert preview.data is not None  # usable, but marked as unverified
    assert cached_files(cache) == []  # never cached


def test_after_a_mismatch_the_sdk_cache_is_bypassed(cache: SkillCache) -> None:
    async def go():
        async with ServerHandle(hostile_spec("flip"), TEST_BUDGETS, cache) as handle:
            _, (skill,) = await handle.discover()
            first = await handle.read_skill_md(skill)
            second = await handle.read_skill_md(skill)
            return first, second

    first, second = run(go())
    # The server sends tampered bytes once with a 10-minute ttlMs; the SDK would
    # serve them again from its response cache if the read were not refreshed.
    assert first.state == "size-mismatch" and first.data is None
    assert second.state == "verified"


def test_stale_entry_is_refreshed_with_skills_get(cache: SkillCache) -> None:
    async def go():
        async with ServerHandle(hostile_spec("stale"), TEST_BUDGETS, cache) as handle:
            _, (skill,) = await handle.discover()
            before = await handle.verify(skill)
            fresh = await handle.get_skill(skill.uri)
            after = await handle.verify(fresh)
            return skill, before, fresh, after

    skill, before, fresh, after = run(go())
    assert before.state == "size-mismatch"
    assert {(f.uri, f.digest) for f in fresh.files} != {(f.uri, f.digest) for f in skill.files}
    assert after.state == "verified"


def test_unlisted_file_is_refused_without_a_request(cache: SkillCache, tmp_path: Path) -> None:
    record = tmp_path / "methods"

    async def go():
        async with ServerHandle(
            hostile_spec("directory", record=record), TEST_BUDGETS, cache
        ) as handle:
            _, (skill,) = await handle.discover()
            children = await handle.read_directory(skill, "skill://demo/references")
            read = await handle.read_file(skill, "skill://demo/references/added-later.md")
            return handle.status, children, read

    status, children, read = run(go())
    assert status.directory_read is True
    notes = {c.uri: c.note for c in children}
    assert notes["skill://demo/references/added-later.md"] == "not part of the skill you hold"
    assert notes["skill://demo/references/guide.md"] == ""
    assert read.state == "unlisted-file" and read.data is None
    assert "resources/read" not in record.read_text().split()


def test_directory_read_only_where_declared(cache: SkillCache, tmp_path: Path) -> None:
    record = tmp_path / "methods"

    async def go():
        async with ServerHandle(hostile_spec("ok", record=record), TEST_BUDGETS, cache) as handle:
            _, (skill,) = await handle.discover()
            try:
                await handle.read_directory(skill, "skill://demo/references")
            except Exception as exc:  # noqa: BLE001
                return str(exc)
            return ""

    message = run(go())
    assert "does not declare directoryRead" in message
    assert "resources/directory/read" not in record.read_text().split()


def test_skill_opened_by_uri_is_confirmed_with_skills_get(cache: SkillCache) -> None:
    async def go():
        async with ServerHandle(hostile_spec("ok"), TEST_BUDGETS, cache) as handle:
            hidden = await handle.get_skill("skill://hidden/SKILL.md")
            preview = await handle.read_skill_md(hidden)
            try:
                await handle.get_skill("skill://nowhere/SKILL.md")
            except Exception as exc:  # noqa: BLE001
                return hidden, preview, str(exc)
            return hidden, preview, ""

    hidden, preview, missing = run(go())
    assert hidden.state == "listed"
    assert preview.verified
    assert "serves no skill at skill://nowhere/SKILL.md" in missing


def test_removing_a_server_removes_its_cache(cache: SkillCache) -> None:
    run(open_and_verify("ok", cache))
    assert cached_files(cache)
    assert cache.remove_source("h") == 1
    assert cached_files(cache) == []


@pytest.mark.timeout(300)
def test_a_16_mib_skill_verifies_end_to_end(cache: SkillCache) -> None:
    _, skills, results, _ = run(open_and_verify("big", cache))
    big = dict(zip([s.name for s in skills], results, strict=True))["big"]
    assert big.state == "verified", big.message
    assert "16.0 MiB" in big.message
    # Large verified files are written to the cache behind the display; closing the
    # connection waits for the write.
    sizes = sorted(f.stat().st_size for f in cached_files(cache))
    assert sizes[-1] > 15 * 1024 * 1024

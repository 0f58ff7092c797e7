"""The pure rules: entry checks (D8, D9), verification (V2-V5), the private cache (V6)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from desktop.core.entry import parse_entry
from desktop.core.manifest import sha256_digest
from desktop.core.model import Origin
from desktop.core.verify import first_difference, summarize, verify_file
from desktop.store.cache import SkillCache

ORIGIN = Origin("docs", "mcp", "stdio", "python server.py")
MD = b"---\nname: demo\ndescription: A demo\nmetadata:\n  v: 1\n---\n\nBody\r\n"
GUIDE = b"\xef\xbb\xbfguide\r\n"


def entry(**changes: object) -> dict[str, object]:
    e: dict[str, object] = {
        "uri": "skill://acme/demo/SKILL.md",
        "frontmatter": {"name": "demo", "description": "A demo", "metadata": {"v": 1}},
        "resources": [
            {"uri": "skill://acme/demo/SKILL.md", "digest": sha256_digest(MD), "size": len(MD)},
            {
                "uri": "skill://acme/demo/ref/guide.md",
                "digest": sha256_digest(GUIDE),
                "size": len(GUIDE),
            },
        ],
    }
    e.update(changes)
    return e


def codes(raw: object) -> list[str]:
    skill = parse_entry(raw, ORIGIN)
    return [p.code for p in skill.problems if p.severity in ("invalid", "error")]


def test_a_good_entry_is_listed_under_its_server() -> None:
    skill = parse_entry(entry(), ORIGIN)
    assert skill.state == "listed"
    assert skill.id == "docs:skill://acme/demo/SKILL.md"
    assert skill.qualified_name == "docs:demo"
    assert [f.uri for f in skill.files] == [
        "skill://acme/demo/SKILL.md",
        "skill://acme/demo/ref/guide.md",
    ]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"uri": "skill://acme/demo/README.md"}, "entry-uri-not-skill-md"),
        ({"frontmatter": {"name": "other", "description": "x"}}, "name-uri-mismatch"),
        ({"frontmatter": {"name": "demo"}}, "description-missing"),
        ({"frontmatter": {"description": "x"}}, "name-missing"),
        ({"frontmatter": "name: demo"}, "frontmatter-missing"),
        ({"resources": None}, "resources-missing"),
        ({"resources": {"uri": "x"}}, "resources-type"),
        ({"resources": "static"}, "resources-type"),
        ({"resources": 7}, "resources-type"),
    ],
)
def test_broken_entries_are_invalid(changes: dict[str, object], code: str) -> None:
    raw = entry(**changes)
    if changes.get("resources", 0) is None:
        del raw["resources"]
    skill = parse_entry(raw, ORIGIN)
    assert skill.state == "invalid"
    assert code in codes(raw)
    assert not skill.loadable


def _with_resource(extra: dict[str, object]) -> dict[str, object]:
    e = entry()
    e["resources"] = [*e["resources"], extra]  # type: ignore[misc]
    return e


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        (
            {"uri": "skill://other/x.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-outside",
        ),
        (
            {"uri": "skill://acme/demo/../x.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-outside",
        ),
        (
            {"uri": "skill://acme/demo/%2e%2e/x", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-outside",
        ),
        (
            {"uri": "skill://acme/demox/x.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-outside",
        ),
        (
            {"uri": "skill://acme/demo/x.md", "digest": "sha256:" + "A" * 64, "size": 1},
            "resource-digest",
        ),
        ({"uri": "skill://acme/demo/x.md", "digest": "md5:abc", "size": 1}, "resource-digest"),
        (
            {"uri": "skill://acme/demo/x.md", "digest": "sha256:" + "a" * 64, "size": -1},
            "resource-size",
        ),
        (
            {"uri": "skill://acme/demo/x.md", "digest": "sha256:" + "a" * 64, "size": 1.5},
            "resource-size",
        ),
        (
            {"uri": "skill://acme/demo/x.md", "digest": "sha256:" + "a" * 64, "size": True},
            "resource-size",
        ),
        (
            {"uri": "skill://acme/demo/ref/guide.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-duplicate",
        ),
        (
            {"uri": "skill://acme/demo/SKILL.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-duplicate",
        ),
        (
            {"uri": "skill://acme/demo/%53KILL.md", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-duplicate",
        ),
        (
            {"uri": "skill://acme/demo/ref/guide%2Emd", "digest": "sha256:" + "a" * 64, "size": 1},
            "resource-duplicate",
        ),
        ("not an object", "resource-type"),
    ],
)
def test_bad_resources_make_the_entry_invalid(extra: object, code: str) -> None:
    raw = _with_resource(extra)  # type: ignore[arg-type]
    assert code in codes(raw)
    assert parse_entry(raw, ORIGIN).state == "invalid"


def test_skill_md_must_be_listed() -> None:
    raw = entry()
    raw["resources"] = raw["resources"][1:]  # type: ignore[index]
    assert "skill-md-unlisted" in codes(raw)


def test_limits_come_from_the_entry_alone() -> None:
    many = [
        {"uri": f"skill://acme/demo/f{i}", "digest": "sha256:" + "b" * 64, "size": 1}
        for i in range(512)
    ]
    raw = entry()
    raw["resources"] = [*raw["resources"], *many]  # type: ignore[misc]
    skill = parse_entry(raw, ORIGIN)
    assert skill.state == "over-limit"
    assert any(p.code == "limit-files" and "514" in p.message for p in skill.problems)
    big = _with_resource(
        {"uri": "skill://acme/demo/big", "digest": "sha256:" + "c" * 64, "size": 17 * 1024 * 1024}
    )
    assert parse_entry(big, ORIGIN).state == "over-limit"


def test_hostile_frontmatter_is_bounded() -> None:
    deep: object = "x"
    for _ in range(100):
        deep = [deep]
    assert "frontmatter-too-deep" in codes(
        entry(frontmatter={"name": "demo", "description": "d", "m": deep})
    )
    wide = {f"k{i}": "v" * 100 for i in range(2000)}
    skill = parse_entry(entry(frontmatter={"name": "demo", "description": "d", **wide}), ORIGIN)
    assert skill.state == "invalid"
    assert skill.frontmatter is None  # never kept, so never echoed or compared


def test_entry_that_is_not_an_object() -> None:
    for raw in (None, 3, "skill://x/SKILL.md", ["a"]):
        skill = parse_entry(raw, ORIGIN)
        assert skill.state == "invalid"


def test_verify_checks_size_then_digest_then_frontmatter() -> None:
    skill = parse_entry(entry(), ORIGIN)
    ok, parsed = verify_file(skill, "skill://acme/demo/SKILL.md", MD)
    assert ok.state == "verified"
    assert parsed is not None and "Body" in parsed.body
    size, _ = verify_file(skill, "skill://acme/demo/ref/guide.md", GUIDE + b"x")
    assert size.state == "size-mismatch"
    assert (
        f"expected {len(GUIDE)} bytes" in size.message and f"{len(GUIDE) + 1} bytes" in size.message
    )
    flipped = bytes([GUIDE[0] ^ 1]) + GUIDE[1:]
    digest, _ = verify_file(skill, "skill://acme/demo/ref/guide.md", flipped)
    assert digest.state == "digest-mismatch"
    assert sha256_digest(GUIDE) in digest.message and sha256_digest(flipped) in digest.message
    # The BOM and CRLF are part of the bytes: normalising them is a mismatch.
    normalised, _ = verify_file(skill, "skill://acme/demo/ref/guide.md", b"guide\n")
    assert normalised.state == "size-mismatch"


def test_frontmatter_is_compared_field_by_field() -> None:
    raw = entry(frontmatter={"name": "demo", "description": "A demo", "metadata": {"v": 2}})
    skill = parse_entry(raw, ORIGIN)
    result, parsed = verify_file(skill, "skill://acme/demo/SKILL.md", MD)
    assert result.state == "frontmatter-mismatch"
    assert result.field == "metadata.v"
    assert "metadata.v" in result.message and "2" in result.message and "1" in result.message
    assert parsed is None


def test_unlisted_file_is_refused() -> None:
    skill = parse_entry(entry(), ORIGIN)
    result, _ = verify_file(skill, "skill://acme/demo/ref/new.md", b"new")
    assert result.state == "unlisted-file"
    assert "not part of the skill you hold" in result.message


def test_dynamic_is_never_verified() -> None:
    skill = parse_entry(entry(resources="dynamic"), ORIGIN)
    assert skill.state == "dynamic"
    result, parsed = verify_file(skill, "skill://acme/demo/SKILL.md", MD)
    assert result.state == "dynamic"
    assert parsed is not None
    summary = summarize(skill, [result])
    assert summary.state == "dynamic"
    assert summary.to_json()["files"][0]["expected"] is None


def test_first_difference_is_strict_on_types() -> None:
    assert first_difference({"a": True}, {"a": 1}) == ("a", True, 1)
    assert first_difference({"a": "1"}, {"a": 1}) is not None
    assert first_difference({"a": 1}, {"a": 1.0}) is None
    assert first_difference({"a": [1, 2]}, {"a": [1]}) is not None
    assert first_difference({"a": {"b": None}}, {"a": {}}) is not None
    assert first_difference({"a": {"b": [1, {"c": "x"}]}}, {"a": {"b": [1, {"c": "x"}]}}) is None


def test_cache_is_private_atomic_and_rehashed(tmp_path: Path) -> None:
    cache = SkillCache(tmp_path / "c")
    skill = parse_entry(entry(), ORIGIN)
    expected = skill.file("skill://acme/demo/SKILL.md")
    assert expected is not None
    path = cache.put(ORIGIN, expected.uri, expected, MD)
    assert stat.S_IMODE(os.stat(cache.root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o400
    assert path.name == expected.digest.split(":")[1]
    assert cache.source_dir(ORIGIN) in path.parents
    assert cache.get(ORIGIN, expected.uri, expected) == MD
    # Same URI on another server: another directory.
    other = Origin("docs2", "mcp", "stdio", "python server.py")
    assert cache.get(other, expected.uri, expected) is None
    assert cache.path_for(other, expected.uri, expected.digest) != path
    # Tampered bytes are re-hashed on read, discarded, and reported as a miss.
    os.chmod(path, 0o600)
    path.write_bytes(MD.replace(b"Body", b"Evil"))
    assert cache.get(ORIGIN, expected.uri, expected) is None
    assert not path.exists()
    # Refuses bytes that do not match.
    with pytest.raises(ValueError):
        cache.put(ORIGIN, expected.uri, expected, MD + b"x")
    cache.put(ORIGIN, expected.uri, expected, MD)
    assert cache.remove_source("docs") == 1
    assert cache.get(ORIGIN, expected.uri, expected) is None


def test_cache_paths_cannot_escape_or_collide(tmp_path: Path) -> None:
    cache = SkillCache(tmp_path / "c")
    digest = "sha256:" + "d" * 64
    for uri in ("skill://../../etc/passwd", "skill://a/SKILL.md", "skill://A/SKILL.md", "/abs"):
        p = cache.path_for(ORIGIN, uri, digest)
        assert cache.root in p.parents
    assert cache.file_dir(ORIGIN, "skill://a/SKILL.md") != cache.file_dir(
        ORIGIN, "skill://A/SKILL.md"
    )
    loud = Origin("Docs", "mcp", "stdio", "python server.py")
    assert cache.source_dir(loud) != cache.source_dir(ORIGIN)
    with pytest.raises(ValueError):
        cache.path_for(ORIGIN, "x", "sha256:../../x")


def test_default_cache_root_respects_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.store.cache import default_cache_root

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_root() == tmp_path / "xdg" / "skill-catalog" / "verified"


def test_skill_uris_mentioned_in_instructions() -> None:
    from desktop.core.entry import mentioned_skill_uris

    text = (
        "Start with skill://docs/refunds/SKILL.md. Also (github://o/r/x/SKILL.md) and "
        "skill://docs/refunds/SKILL.md again; skill://docs/notes.md is not a skill."
    )
    assert mentioned_skill_uris(text) == [
        "skill://docs/refunds/SKILL.md",
        "github://o/r/x/SKILL.md",
    ]


def test_a_size_written_as_a_whole_float_is_that_integer() -> None:
    """JSON has one number type: ``5.0`` is the integer 5 (a schema's int accepts it)."""
    raw = _with_resource(
        {"uri": "skill://acme/demo/x.md", "digest": "sha256:" + "a" * 64, "size": 5.0}
    )
    skill = parse_entry(raw, ORIGIN)
    assert skill.state == "listed", codes(raw)
    assert skill.file("skill://acme/demo/x.md").size == 5
    assert type(skill.file("skill://acme/demo/x.md").size) is int

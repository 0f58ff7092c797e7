"""Local folders as a source (F1, F2, D9) on real files in a temporary folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from desktop.core.catalog import build_catalog
from desktop.core.model import SourceSpec
from desktop.sources.folder import read_local_file, relative_inside, scan_folder


def write_skill(
    root: Path, rel: str, name: str | None = None, extra: str = "", body: str = ""
) -> Path:
    d = root / rel
    d.mkdir(parents=True, exist_ok=True)
    name = name or Path(rel).name
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: about {name}\n{extra}---\n{body or '# ' + name}\n",
        encoding="utf-8",
    )
    return d


def scan(root: Path, label: str = "here"):
    return scan_folder(SourceSpec(label, "local", "folder", str(root)))


def test_manifest_matches_sha256_and_stat(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "alpha")
    (d / "scripts").mkdir()
    (d / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\r\necho hi\r\n")
    (d / "blob.bin").write_bytes(bytes(range(256)) * 10)
    status, skills = scan(tmp_path)
    assert status.status == "ok" and status.skill_count == 1
    (skill,) = skills
    assert [f.uri for f in skill.files] == ["SKILL.md", "blob.bin", "scripts/run.sh"]
    for f in skill.files:
        raw = (d / f.uri).read_bytes()
        assert f.digest == "sha256:" + hashlib.sha256(raw).hexdigest()
        assert f.size == os.stat(d / f.uri).st_size
    assert skill.uri == "alpha/SKILL.md"
    assert skill.path == str(d.resolve())
    assert skill.id == "here:alpha/SKILL.md"
    assert skill.state == "listed"


def test_nested_skills_are_found_and_marked(tmp_path: Path) -> None:
    write_skill(tmp_path, "outer")
    write_skill(tmp_path, "outer/parts/inner")
    _, skills = scan(tmp_path)
    by_name = {s.name: s for s in skills}
    assert by_name["inner"].nested_in == by_name["outer"].id
    assert by_name["outer"].nested_in is None
    # The enclosing skill's manifest lists the nested skill's files too (completeness).
    assert "parts/inner/SKILL.md" in [f.uri for f in by_name["outer"].files]


def test_folder_that_is_itself_a_skill(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "solo")
    _, skills = scan(d)
    assert [s.uri for s in skills] == ["SKILL.md"]
    assert skills[0].problems == []


def test_symlinks_out_of_the_folder_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_skill(outside, "secret-skill")
    (outside / "secret.txt").write_text("do not read")
    root = tmp_path / "root"
    d = write_skill(root, "alpha")
    os.symlink(outside, root / "linked-dir")
    os.symlink(outside / "secret.txt", d / "leak.txt")
    (d / "inside.txt").write_text("ok")
    os.symlink(d / "inside.txt", d / "alias.txt")
    _, skills = scan(root)
    assert [s.name for s in skills] == ["alpha"]
    uris = [f.uri for f in skills[0].files]
    assert "leak.txt" not in uris
    assert "alias.txt" in uris  # a link that stays inside the folder counts
    assert "symlink-outside" in {p.code for p in skills[0].problems}


def test_limits_are_problems(tmp_path: Path) -> None:
    many = write_skill(tmp_path, "many")
    for i in range(512):
        (many / f"f{i:03}.txt").write_text("x")
    big = write_skill(tmp_path, "big")
    with open(big / "huge.bin", "wb") as fh:
        fh.truncate(16 * 1024 * 1024)
    ok = write_skill(tmp_path, "edge")
    with open(ok / "edge.bin", "wb") as fh:  # exactly 16 MiB with SKILL.md: over by SKILL.md
        fh.truncate(16 * 1024 * 1024 - (ok / "SKILL.md").stat().st_size)
    _, skills = scan(tmp_path)
    by = {s.name: s for s in skills}
    # Known from the walk: the manifest of a skill over a limit is not built.
    assert by["many"].files == () and by["many"].state == "over-limit"
    assert [p.message for p in by["many"].problems if p.code == "limit-files"] == [
        "the skill has 513 files; hosts only need to accept 512; its files were not read "
        "and its manifest not built"
    ]
    assert by["big"].state == "over-limit"
    assert "limit-bytes" in {p.code for p in by["big"].problems}
    assert by["edge"].total_size == 16 * 1024 * 1024 and by["edge"].state == "listed"


def test_invalid_skill_is_listed_as_invalid(tmp_path: Path) -> None:
    d = tmp_path / "broken"
    d.mkdir()
    (d / "SKILL.md").write_bytes(b"\x00\x01garbage\xff")
    e = tmp_path / "nodesc"
    e.mkdir()
    (e / "SKILL.md").write_text("---\nname: nodesc\n---\n")
    status, skills = scan(tmp_path)
    assert {s.name: s.state for s in skills} == {"broken": "invalid", "nodesc": "invalid"}
    assert status.status == "ok"


def test_missing_and_empty_folders(tmp_path: Path) -> None:
    status, skills = scan(tmp_path / "nope")
    assert status.status == "error" and "does not exist" in status.message and skills == []
    status, skills = scan(tmp_path)
    assert status.status == "no-skills"


def test_collisions_same_name_case_and_nfkc(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_skill(a, "deploy")
    write_skill(b, "deploy")
    write_skill(b, "other/Deploy", name="Deploy")
    write_skill(b, "fullwidth/ｄｅｐｌｏｙ", name="ｄｅｐｌｏｙ")
    sa, ka = scan(a, "a")
    sb, kb = scan(b, "b")
    catalog = build_catalog([sa, sb], ka + kb)
    kinds = {c.kind for c in catalog.collisions}
    assert kinds == {"same-name", "case", "unicode"}
    same = next(c for c in catalog.collisions if c.kind == "same-name")
    assert set(same.ids) == {"a:deploy/SKILL.md", "b:deploy/SKILL.md"}
    # Never silently resolved: every copy stays, each carries a visible warning.
    assert len(catalog.skills) == 4
    for s in catalog.skills:
        assert any(p.code.startswith("collision-") for p in s.problems)


def test_read_local_file_refuses_escapes(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "alpha")
    (tmp_path / "secret.txt").write_text("no")
    _, (skill,) = scan(tmp_path)
    assert read_local_file(skill, "SKILL.md").startswith(b"---")
    with pytest.raises(PermissionError):
        read_local_file(skill, "../secret.txt")
    with pytest.raises(PermissionError):
        read_local_file(skill, "/etc/passwd")
    assert d.exists()


def test_the_private_cache_is_never_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from desktop.store.cache import default_cache_root

    cache = default_cache_root()
    write_skill(cache / "docs-0123" / "abc", "cached-skill")
    write_skill(tmp_path, "real")
    _, skills = scan(tmp_path)
    assert [s.name for s in skills] == ["real"]
    status, skills = scan(cache)
    assert status.status == "error" and "private cache" in status.message and skills == []


def test_the_cache_is_found_inside_any_root_even_the_top_one() -> None:
    """A scan of ``/`` skips the cache too: the test of what lies inside a folder must
    not build ``//`` as the prefix of the top folder."""
    assert relative_inside("/home/u/.cache/skill-catalog", "/") == "home/u/.cache/skill-catalog"
    assert relative_inside("/home/u/.cache/skill-catalog", "/home/u") == ".cache/skill-catalog"
    assert relative_inside("/home/user2/x", "/home/u") is None
    assert relative_inside("/home/u", "/home/u") is None
    assert relative_inside("/", "/") is None


def test_an_unreadable_skill_md_is_said_once_and_not_called_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A permission the scanner lacks (root, as the tests run, has them all: the
    refusal is the one thing stood in for here)."""
    from desktop.sources import folder

    write_skill(tmp_path, "locked")
    real = folder._hash_file

    def refuse(path: str, keep: bool) -> tuple[int, str, bytes | None]:
        if path.endswith(os.sep + os.path.join("locked", "SKILL.md")):
            raise PermissionError(13, "Permission denied")
        return real(path, keep)

    monkeypatch.setattr(folder, "_hash_file", refuse)
    _status, (skill,) = scan(tmp_path)
    messages = [p.message for p in skill.problems]
    assert messages.count("cannot read SKILL.md: Permission denied") == 1, messages
    assert not any("empty" in m for m in messages)
    assert skill.state == "invalid"


def test_a_folder_that_cannot_be_listed_is_an_error_of_its_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its files are missing from the manifest: the author is told, not shown an OK."""
    from helpers.scan import refuse_to_list

    d = write_skill(tmp_path, "guarded")
    (d / "private").mkdir()
    (d / "private" / "notes.md").write_text("x")
    refuse_to_list(monkeypatch, "private")
    _status, (skill,) = scan(tmp_path)
    problem = next(p for p in skill.problems if p.code == "folder-unreadable")
    assert problem.severity == "error"
    assert problem.message.startswith("could not read private: Permission denied")
    assert skill.has_errors()


def test_a_skill_that_is_a_link_leaving_the_folder_is_noted(tmp_path: Path) -> None:
    """Not followed (F1), and not silently gone either."""
    outside = tmp_path / "outside"
    write_skill(outside, "elsewhere")
    (outside / "a.md").write_text("---\nname: a\ndescription: d\n---\n")
    root = tmp_path / "root"
    write_skill(root, "kept")
    (root / "elsewhere").symlink_to(outside / "elsewhere")
    (root / "a").mkdir()
    (root / "a" / "SKILL.md").symlink_to(outside / "a.md")
    status, skills = scan(root)
    assert [s.name for s in skills] == ["kept"]
    assert "elsewhere is a link leaving the folder; it was not followed" in status.notes
    assert "a/SKILL.md is a link leaving the folder; it was not followed" in status.notes


def test_a_link_to_a_folder_inside_is_noted_not_followed(tmp_path: Path) -> None:
    """Not entered (a loop, or the same files twice), and not silently missing either."""
    d = write_skill(tmp_path, "s5")
    (d / "sub").mkdir()
    (d / "sub" / "real.txt").write_text("hi")
    (d / "alias").symlink_to("sub")
    _status, (skill,) = scan(tmp_path)
    assert [f.uri for f in skill.files] == ["SKILL.md", "sub/real.txt"]
    (note,) = [p for p in skill.problems if p.code == "symlink-directory"]
    assert note.message.startswith("alias is a link to a folder; it was not followed")


def test_a_link_to_a_sibling_skill_is_not_followed_whichever_folder_is_scanned(
    tmp_path: Path,
) -> None:
    """The rule is the skill's own folder, as a read of the file checks it: a link from
    one skill into another is not part of its manifest, scanned from the parent or not."""
    a = write_skill(tmp_path, "a")
    b = write_skill(tmp_path, "b")
    (b / "secret.txt").write_text("b's own")
    (a / "link.txt").symlink_to(Path("..", "b", "secret.txt"))
    (a / "mine.txt").write_text("a's own")
    (a / "alias.txt").symlink_to("mine.txt")
    for root in (tmp_path, a):
        _status, skills = scan(root)
        skill = next(s for s in skills if s.name == "a")
        assert [f.uri for f in skill.files] == ["SKILL.md", "alias.txt", "mine.txt"], root
        (warning,) = [p for p in skill.problems if p.code == "symlink-outside"]
        assert warning.severity == "warning"
        assert warning.message == (
            "link.txt is a link leaving the skill's folder; it was not followed"
        )
        for f in skill.files:
            read_local_file(skill, f.uri)  # every listed file reads back


def test_a_link_leaving_a_nested_skill_is_in_neither_manifest(tmp_path: Path) -> None:
    """A file is listed by the skill it is in and by those enclosing it: the same bytes,
    so the rule is the innermost skill's folder for all of them."""
    outer = write_skill(tmp_path, "outer")
    inner = write_skill(outer, "inner")
    (outer / "shared.txt").write_text("outer's")
    (inner / "up.txt").symlink_to(Path("..", "shared.txt"))
    (outer / "down.txt").symlink_to(Path("inner", "SKILL.md"))
    _status, skills = scan(tmp_path)
    by_name = {s.name: s for s in skills}
    assert [f.uri for f in by_name["inner"].files] == ["SKILL.md"]
    assert [f.uri for f in by_name["outer"].files] == [
        "SKILL.md",
        "down.txt",
        "inner/SKILL.md",
        "shared.txt",
    ]
    assert [p.message for p in by_name["inner"].problems] == [
        "up.txt is a link leaving the skill's folder; it was not followed"
    ]
    assert [p.message for p in by_name["outer"].problems] == [
        "inner/up.txt is a link leaving inner; it was not followed"
    ]


def test_a_skill_md_linking_out_of_its_own_folder_makes_no_skill(tmp_path: Path) -> None:
    write_skill(tmp_path, "real")
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "SKILL.md").symlink_to(Path("..", "real", "SKILL.md"))
    status, skills = scan(tmp_path)
    assert [s.uri for s in skills] == ["real/SKILL.md"]
    assert "copy/SKILL.md is a link leaving copy; it was not followed" in status.notes


def _read_in_thread(skill, uri: str) -> bytes | BaseException:
    """``read_local_file`` in a thread that the test does not wait on for ever."""
    import threading

    out: list[bytes | BaseException] = []

    def run() -> None:
        try:
            out.append(read_local_file(skill, uri))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5)
    assert out, "read_local_file did not return"
    return out[0]


def test_a_listed_file_swapped_for_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    """An open of a FIFO waits for a writer for ever: the read must not."""
    d = write_skill(tmp_path, "piped")
    (d / "notes.md").write_text("notes")
    _, (skill,) = scan(tmp_path)
    (d / "notes.md").unlink()
    os.mkfifo(d / "notes.md")
    result = _read_in_thread(skill, "notes.md")
    assert isinstance(result, OSError), result
    assert "notes.md is a FIFO, not a regular file" in str(result)


def test_a_folder_where_a_file_was_is_refused(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "moved")
    (d / "notes.md").write_text("notes")
    _, (skill,) = scan(tmp_path)
    (d / "notes.md").unlink()
    (d / "notes.md").mkdir()
    result = _read_in_thread(skill, "notes.md")
    assert isinstance(result, OSError) and "not a regular file" in str(result), result


def test_a_file_grown_since_the_listing_is_read_only_past_its_listed_size(
    tmp_path: Path,
) -> None:
    """One byte more than listed tells a size mismatch; the rest is not read at all."""
    from desktop.core.manifest import MAX_BYTES

    d = write_skill(tmp_path, "grown")
    (d / "notes.md").write_bytes(b"0123456789")
    _, (skill,) = scan(tmp_path)
    with open(d / "notes.md", "ab") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: no disk, but 64 MiB to read
    assert read_local_file(skill, "notes.md") == b"0123456789\0"
    (d / "unlisted.bin").touch()
    os.truncate(d / "unlisted.bin", MAX_BYTES + 4096)
    assert len(read_local_file(skill, "unlisted.bin")) == MAX_BYTES + 1


def test_a_file_name_that_is_not_utf8_is_an_error_of_its_skill(tmp_path: Path) -> None:
    """No URI can carry it, so no server can publish the skill (serve leaves it out):
    lint must not say OK. The name is shown with its bytes escaped."""
    d = write_skill(tmp_path, "odd")
    with open(os.path.join(os.fsencode(d), b"n\xffx.md"), "wb") as fh:
        fh.write(b"y")
    os.mkdir(os.path.join(os.fsencode(d), b"sub\xfe"))
    with open(os.path.join(os.fsencode(d), b"sub\xfe", b"ok.md"), "wb") as fh:
        fh.write(b"z")
    _status, (skill,) = scan(tmp_path)
    bad = [p for p in skill.problems if p.code == "file-name-not-utf8"]
    why = " is not UTF-8, which no URI can carry: no server can publish this skill"
    assert [p.message for p in bad] == [
        "file name n\\xffx.md" + why,
        "file name sub\\xfe/ok.md" + why,
    ]
    assert all(p.severity == "error" for p in bad) and skill.has_errors()


def test_a_file_swapped_for_a_device_during_the_scan_is_never_read() -> None:
    """Between the walk and the hashing a file can become a link to /dev/zero: its
    hashing would never end. Only a regular file is read."""
    import threading

    from desktop.sources import folder

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    result: list[object] = []
    worker = threading.Thread(
        target=lambda: result.append(folder._hash_or_error("/dev/zero", False)), daemon=True
    )
    worker.start()
    worker.join(5)
    assert result == ["no longer a regular file"]


def test_a_huge_skill_md_costs_the_limit_in_memory_not_its_size(tmp_path: Path) -> None:
    """A SKILL.md of 60 MiB (a few KB in a git repository) was held whole, joined and
    decoded: three times its size. Past the 16 MiB limit only the limit is kept."""
    import tracemalloc

    d = tmp_path / "big"
    d.mkdir()
    with (d / "SKILL.md").open("wb") as fh:
        fh.write("---\nname: big\ndescription: A big one é\n---\n".encode())
        block = "é" * (512 * 1024)  # two bytes each: a character may straddle the cut
        for _ in range(60):
            fh.write(block.encode())
    tracemalloc.start()
    try:
        _status, (skill,) = scan(tmp_path)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert skill.name == "big" and skill.description == "A big one é"
    assert skill.state == "over-limit"
    (limit,) = [p.message for p in skill.problems if p.code == "limit-bytes"]
    assert f"{(d / 'SKILL.md').stat().st_size:,} bytes" in limit
    assert peak < 100 * 1024 * 1024, peak

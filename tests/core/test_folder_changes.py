"""A watched folder: what changed, which skills it touches, when a burst is over, and
reading only those skills again, on real files in a temporary folder."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from desktop.core.catalog import skill_json
from desktop.core.folder_changes import (
    DIRECTORY,
    WHOLE,
    Coalescer,
    changed_paths,
    regions,
    replace_in,
    skill_dir,
)
from desktop.core.model import SourceSpec
from desktop.sources.folder import scan_folder, scan_regions
from desktop.sources.folder_watch import GONE, OK, TOO_LARGE, UNREADABLE, list_folder


def write_skill(root: Path, rel: str, description: str = "about it", body: str = "") -> Path:
    d = root / rel
    d.mkdir(parents=True, exist_ok=True)
    name = Path(rel).name
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body or '# ' + name}\n",
        encoding="utf-8",
    )
    return d


def spec_of(root: Path) -> SourceSpec:
    return SourceSpec("here", "local", "folder", str(root))


# -- what changed ---------------------------------------------------------------------


def test_changed_paths_are_added_removed_and_rewritten_entries() -> None:
    old = {"a": DIRECTORY, "a/SKILL.md": (0o100000, 10, 1), "b.txt": (0o100000, 1, 1)}
    new = {"a": DIRECTORY, "a/SKILL.md": (0o100000, 10, 2), "c": DIRECTORY}
    assert changed_paths(old, new) == {"a/SKILL.md", "b.txt", "c"}
    assert changed_paths(new, new) == set()


def test_a_change_touches_the_outermost_skill_holding_it() -> None:
    skills = {"outer", "outer/parts/inner", "other"}
    assert regions({"outer/parts/inner/notes.md"}, skills) == {"outer"}
    assert regions({"other/scripts/run.sh", "other/SKILL.md"}, skills) == {"other"}
    # A file in no skill touches nothing; a SKILL.md there makes its folder a skill.
    assert regions({"README.md", "group/notes.txt"}, skills) == frozenset()
    assert regions({"group/new/SKILL.md"}, skills) == {"group/new"}
    # A folder appearing or going may hold skills; one inside another is read with it.
    assert regions({"group/new", "group/new/deep"}, skills, {"group/new", "group/new/deep"}) == {
        "group/new"
    }
    # A SKILL.md at the top makes the folder itself a skill: all of it is read.
    assert regions({"SKILL.md", "other/x"}, skills) == {WHOLE}
    assert regions({"x"}, {WHOLE, "a"}) == {WHOLE}
    assert regions({""}, skills) == frozenset()


def test_a_skill_folder_is_known_by_its_skill_md_uri() -> None:
    assert skill_dir("a/b/SKILL.md") == "a/b"
    assert skill_dir("SKILL.md") == WHOLE


def test_a_burst_of_saves_is_let_go_once_when_the_folder_is_quiet() -> None:
    c = Coalescer(quiet=0.1, longest=2.0)
    assert c.observe(set(), 0.0) is None and not c.waiting
    seen = [c.observe({f"a/f{i}"}, 0.01 * i) for i in range(20)]  # 20 writes in 200 ms
    assert seen == [None] * 20 and c.waiting
    assert c.observe(set(), 0.25) is None  # quiet for less than 0.1 s
    batch = c.observe(set(), 0.30)
    assert batch == {f"a/f{i}" for i in range(20)}
    assert not c.waiting and c.observe(set(), 0.5) is None


def test_a_file_written_without_pause_is_still_let_go_now_and_then() -> None:
    c = Coalescer(quiet=0.1, longest=1.0)
    due = [t for t in range(25) if c.observe({"log"}, t * 0.1) is not None]
    assert due == [10, 21]


# -- listings -----------------------------------------------------------------------


def test_a_listing_sees_entries_but_not_git_nor_inside_links(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "alpha")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x").write_text("x")
    os.symlink(tmp_path / "elsewhere", d / "linked")
    listing = list_folder(str(tmp_path))
    assert listing.state == OK
    assert set(listing.entries) == {
        "alpha",
        "alpha/SKILL.md",
        "alpha/linked",
        "elsewhere",
        "elsewhere/x",
    }
    assert listing.directories == {"alpha", "elsewhere"}
    before = listing.entries
    (d / "SKILL.md").write_text("---\nname: alpha\ndescription: longer now\n---\n")
    assert changed_paths(before, list_folder(str(tmp_path)).entries) == {"alpha/SKILL.md"}


def test_a_listing_says_a_folder_is_gone_unreadable_or_too_large(tmp_path: Path) -> None:
    gone = list_folder(str(tmp_path / "nothing"))
    assert gone.state == GONE and "is no longer there" in gone.message
    never = list_folder(str(tmp_path / "nothing"), seen=False)
    assert never.state == GONE and never.message.endswith("nothing does not exist")
    (tmp_path / "file").write_text("x")
    assert list_folder(str(tmp_path / "file")).state == GONE
    assert list_folder(str(tmp_path / "file"), seen=False).message.endswith("file is not a folder")
    big = tmp_path / "big"
    big.mkdir()
    for i in range(12):
        (big / f"f{i}").write_text("x")
    large = list_folder(str(big), max_entries=10)
    assert large.state == TOO_LARGE and "too many to watch" in large.message
    assert not large.entries


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_a_listing_says_a_folder_cannot_be_read(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    write_skill(locked, "alpha")
    write_skill(tmp_path, "open/beta")
    (tmp_path / "open" / "shut").mkdir()
    locked.chmod(0)
    (tmp_path / "open" / "shut").chmod(0)
    try:
        listing = list_folder(str(locked))
        assert listing.state == UNREADABLE and "cannot be read" in listing.message
        assert list_folder(str(tmp_path)).entries["open/shut"] == (-1, 0, 0)
    finally:
        locked.chmod(0o755)
        (tmp_path / "open" / "shut").chmod(0o755)


def test_one_listing_of_10000_files_lists_every_file_and_folder(tmp_path: Path) -> None:
    """Every entry of a large folder, once (its speed: benchmarks/bench_watch.py)."""
    for i in range(1000):
        d = tmp_path / f"skill-{i:04d}"
        d.mkdir()
        for j in range(10):
            (d / f"f{j}.md").write_text("x")
    listing = list_folder(str(tmp_path))
    assert len(listing.entries) == 11_000


# -- reading a few skills again -------------------------------------------------------


def _json(skills: list) -> list:
    return [skill_json(s) for s in skills]


def _again(root: Path, before: list, changed: set[str], directories: Iterable[str] = ()) -> list:
    known = {skill_dir(s.uri) for s in before}
    chosen = regions(changed, known, directories)
    result = scan_regions(spec_of(root), chosen)
    assert result is not None
    fresh, errors = result
    assert errors == []
    return replace_in(before, chosen, fresh)


def test_reading_one_skill_again_gives_what_a_whole_scan_gives(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    outer = write_skill(tmp_path, "outer")
    write_skill(tmp_path, "outer/parts/inner")
    write_skill(tmp_path, "zeta")
    _, before = scan_folder(spec_of(tmp_path))
    (outer / "parts" / "inner" / "SKILL.md").write_text(
        "---\nname: inner\ndescription: changed\n---\nbody\n"
    )
    (outer / "parts" / "inner" / "run.sh").write_text("echo\n")
    changed = {"outer/parts/inner/SKILL.md", "outer/parts/inner/run.sh"}
    merged = _again(tmp_path, before, changed)
    _, whole = scan_folder(spec_of(tmp_path))
    assert _json(merged) == _json(whole)
    by_name = {s.name: s for s in merged}
    assert by_name["inner"].description == "changed"
    assert by_name["inner"].nested_in == by_name["outer"].id
    assert "parts/inner/run.sh" in [f.uri for f in by_name["outer"].files]
    # The skills outside the region are the very entries held before.
    assert by_name["alpha"] is next(s for s in before if s.name == "alpha")


def test_skill_folders_added_removed_and_renamed_come_and_go(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    write_skill(tmp_path, "group/beta")
    _, before = scan_folder(spec_of(tmp_path))
    write_skill(tmp_path, "group/gamma")
    (tmp_path / "alpha").rename(tmp_path / "alpha-two")
    changed = {"group/gamma", "group/gamma/SKILL.md", "alpha", "alpha/SKILL.md"}
    changed |= {"alpha-two", "alpha-two/SKILL.md"}
    merged = _again(tmp_path, before, changed, {"group/gamma", "alpha", "alpha-two"})
    assert [s.uri for s in merged] == [
        "alpha-two/SKILL.md",
        "group/beta/SKILL.md",
        "group/gamma/SKILL.md",
    ]
    _, whole = scan_folder(spec_of(tmp_path))
    assert _json(merged) == _json(whole)


def test_a_new_skill_md_above_skills_makes_them_nested(tmp_path: Path) -> None:
    write_skill(tmp_path, "group/beta")
    _, before = scan_folder(spec_of(tmp_path))
    write_skill(tmp_path, "group")
    merged = _again(tmp_path, before, {"group/SKILL.md"})
    assert [(s.name, s.nested_in) for s in merged] == [
        ("group", None),
        ("beta", "here:group/SKILL.md"),
    ]


def test_a_region_that_became_a_link_holds_no_skills(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    write_skill(outside, "alpha")
    _, before = scan_folder(spec_of(tmp_path))
    (tmp_path / "alpha" / "SKILL.md").unlink()
    (tmp_path / "alpha").rmdir()
    os.symlink(outside / "alpha", tmp_path / "alpha")
    assert _again(tmp_path, before, {"alpha"}, set()) == []


def test_the_whole_folder_or_a_missing_one_is_read_whole(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    assert scan_regions(spec_of(tmp_path), {WHOLE}) is None
    assert scan_regions(spec_of(tmp_path), set()) is None
    assert scan_regions(spec_of(tmp_path / "gone"), {"alpha"}) is None

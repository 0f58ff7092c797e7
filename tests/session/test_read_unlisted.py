"""The session reads a local skill's SKILL.md as text only when its entry could not be
made, never a server's, a repository's or an archive's bytes; bounded, links not followed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop.core.entry import parse_entry
from desktop.core.model import Origin, SourceSpec
from desktop.session.content_reader import (
    UNLISTED_FILES,
    UNLISTED_TEXT,
    ContentReader,
    read_unlisted_folder,
)
from desktop.sources.folder import scan_folder


def skills(root: Path) -> dict[str, object]:
    _, found = scan_folder(SourceSpec("mine", "local", "folder", str(root)))
    return {s.name: s for s in found}


def test_only_a_broken_local_entry_is_read_as_text(tmp_path: Path) -> None:
    (tmp_path / "typo").mkdir()
    (tmp_path / "typo/SKILL.md").write_text("---\nname: typo\ndescription: [x\n---\n")
    (tmp_path / "fine").mkdir()
    (tmp_path / "fine/SKILL.md").write_text("---\nname: fine\ndescription: d\n---\n")
    found = skills(tmp_path)
    reader = ContentReader()
    broken = asyncio.run(reader.read_unlisted(found["typo"]))  # type: ignore[arg-type]
    assert broken is not None and broken.text.startswith("---\nname: typo")
    size = (tmp_path / "typo/SKILL.md").stat().st_size
    assert broken.files == (("SKILL.md", size),) and not broken.cut
    assert asyncio.run(reader.read_unlisted(found["fine"])) is None  # type: ignore[arg-type]
    server = parse_entry(
        {"uri": "skill://typo/SKILL.md", "frontmatter": "not a mapping", "resources": []},
        Origin("srv", "mcp", "stdio", "python -m srv"),
    )
    assert not server.loadable
    assert asyncio.run(reader.read_unlisted(server)) is None  # never a server's bytes


def test_the_text_and_the_files_are_bounded_and_links_named_not_followed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "big"
    root.mkdir()
    (root / "SKILL.md").write_bytes(b"x" * (UNLISTED_TEXT + 10))
    for i in range(UNLISTED_FILES + 5):
        (root / f"f{i:04}.txt").write_text("")
    (root / "out").symlink_to(tmp_path)
    found = read_unlisted_folder(str(root))
    assert found is not None
    assert found.cut and len(found.text) == UNLISTED_TEXT
    assert len(found.files) == UNLISTED_FILES and found.more_files
    assert read_unlisted_folder(str(tmp_path / "missing")) is None
    small = tmp_path / "small"
    small.mkdir()
    (small / "SKILL.md").write_text("x")
    (small / "elsewhere").symlink_to(tmp_path / "big")
    listed = read_unlisted_folder(str(small))
    assert listed is not None and dict(listed.files).keys() == {"SKILL.md", "elsewhere"}

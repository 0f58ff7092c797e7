"""A zip archive named with the window's own ``--zip`` option: it shows in the sidebar
with its kind's icon and its count, its skills read and verified as a folder's are."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QStyle

from desktop.ui.app import parse_args
from desktop.ui.library.sidebar_widget import standard_icon

from .conftest import wait_idle

NOTES = b"---\nname: notes\ndescription: Keep notes of a meeting.\n---\n\n# Notes\n"


def _image(widget: Any, name: str) -> QImage:
    return standard_icon(widget, name).pixmap(16, 16).toImage()


def test_a_zip_archive_shows_in_the_sidebar_with_its_icon(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    archive = tmp_path / "team.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("notes/SKILL.md", NOTES)
        z.writestr("pdf/SKILL.md", b"---\nname: pdf\ndescription: Read PDF files.\n---\nbody\n")
    folder = tmp_path / "mine"
    (folder / "local-one").mkdir(parents=True)
    (folder / "local-one" / "SKILL.md").write_bytes(NOTES.replace(b"notes", b"local-one"))
    specs = parse_args(["--zip", f"team={archive}", "--folder", f"mine={folder}"]).specs
    assert [(s.label, s.kind) for s in specs] == [("mine", "local"), ("team", "zip")]
    window = make_window(specs)
    sidebar = window.sidebar
    item = sidebar.source_items["team"]
    assert item.text(0) == "team" and item.text(1) == "2"
    zipped = item.icon(0).pixmap(16, 16).toImage()
    assert zipped == _image(sidebar, "zip archive")
    assert zipped != sidebar.source_items["mine"].icon(0).pixmap(16, 16).toImage()
    if standard_icon(sidebar, "zip archive").name() == "":  # no theme here: Qt's own
        drive = sidebar.style().standardIcon(QStyle.StandardPixmap.SP_DriveCDIcon)
        assert zipped == drive.pixmap(16, 16).toImage()
    assert "zip archive" in item.toolTip(0) and str(archive) in item.toolTip(0)

    assert window.select_skill("team:notes/SKILL.md")
    qtbot.waitUntil(lambda: window.preview.result is not None, timeout=10000)
    wait_idle(qtbot, window)
    result = window.preview.result
    assert result.verified and result.data == NOTES
    assert "From the zip archive team" in window.page.origin.text()

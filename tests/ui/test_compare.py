"""Compare: fields that differ marked in words, the SKILL.md diff monospace with line
numbers and its lines coloured and marked + or -, a Close button."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.fonts import shows_monospace
from PySide6.QtCore import Qt

from desktop.ui.dialogs.compare_dialog import READING, CompareDialog

from .conftest import folder_spec, wait_idle, write_skill


def test_compare_shows_a_coloured_marked_diff_and_closes(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_skill(one, "notes", "# Notes\n\nKeep it short.\nSay who.\n")
    write_skill(two, "notes", "# Notes\n\nKeep it brief.\nSay who.\n", license="MIT")
    window = make_window([folder_spec(one, "one"), folder_spec(two, "two")])
    first = next(s for s in window.controller.catalog.skills if s.origin.label == "one")
    window.select_skill(first.id)
    window.actions_.compare()
    dialog = window.actions_.dialog
    assert isinstance(dialog, CompareDialog)
    assert dialog.pair()[1].origin.label == "two"  # its namesake
    fields = dialog.fields.toPlainText()
    assert "≠ license" in fields and "≠ name" not in fields
    # Opened, it reads both files and diffs them, nothing to press.
    assert dialog.diff.toPlainText() == READING
    wait_idle(qtbot, window)
    assert "+Keep it brief." in dialog.diff.toPlainText().split("\n")
    qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)  # read again
    wait_idle(qtbot, window)
    lines = dialog.diff.toPlainText().split("\n")
    assert shows_monospace(dialog.diff.font())
    assert dialog.diff.gutter.width() > 0
    added = lines.index("+Keep it brief.") + 1
    removed = lines.index("-Keep it short.") + 1
    assert dialog.diff.tints[added] == "added" and dialog.diff.tints[removed] == "removed"
    assert lines[0].startswith("--- ") and 1 not in dialog.diff.tints  # a heading
    assert dialog.diff.tints[lines.index("+license: MIT") + 1] == "added"
    assert sum(1 for kind in dialog.diff.tints.values() if kind == "hunk") >= 1
    assert len(dialog.diff.extraSelections()) == len(dialog.diff.tints)
    assert dialog.close_button.text().replace("&", "") == "Close"
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


def test_compare_never_pairs_a_skill_with_itself(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    write_skill(root, "beta")
    window = make_window([folder_spec(root, "mine")])
    beta = next(s for s in window.controller.catalog.skills if s.name == "beta")
    window.select_skill(beta.id)
    window.actions_.compare()
    dialog = window.actions_.dialog
    assert isinstance(dialog, CompareDialog)
    first, second = dialog.pair()
    assert first is not None and second is not None
    assert (first.name, second.name) == ("beta", "alpha")  # no namesake: another skill
    assert dialog.fetch_button.isEnabled()
    dialog.right.setCurrentIndex(dialog.right.findData(beta.id))
    assert not dialog.fetch_button.isEnabled()
    assert "Choose two different skills" in dialog.fields.toPlainText()
    assert dialog.diff.toPlainText() == ""
    dialog.close()

"""The keyboard shortcuts' help opens from the keys people press for it: a keyboard types
"?" with Shift, so Ctrl+? reaches the window as Ctrl+Shift+?; F1 is help's usual key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from .conftest import folder_spec, write_skill

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


@pytest.mark.parametrize(
    ("key", "modifiers"),
    [
        (Qt.Key.Key_Question, CTRL | SHIFT),  # what a keyboard sends for Ctrl+?
        (Qt.Key.Key_Question, CTRL),
        (Qt.Key.Key_Slash, CTRL | SHIFT),
        (Qt.Key.Key_F1, Qt.KeyboardModifier.NoModifier),
    ],
)
def test_the_shortcuts_help_opens_from_the_keys_people_press(
    make_window: Any, qtbot: Any, tmp_path: Path, key: Qt.Key, modifiers: Any
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    window = make_window([folder_spec(root)])
    window.show()
    qtbot.waitExposed(window)
    window.list.setFocus()
    qtbot.keyClick(window.list, key, modifiers)
    dialog = window.actions_.dialog
    assert dialog is not None and "Next pane" in dialog.text()
    dialog.close()

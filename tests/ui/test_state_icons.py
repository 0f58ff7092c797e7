"""Every state is drawn with its own icon, and said with its one word in every pane: a
skill's problems list says "Warning" beside the warning triangle and "Note" beside the
information icon, as the Details tab and the source's marked lines do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QIcon, QImage
from PySide6.QtWidgets import QStyle

from desktop.core.states import STATE_TYPES
from desktop.ui.widgets.state_icons import PIXMAPS

from .conftest import folder_spec, write_skill


def image(icon: QIcon) -> QImage:
    return icon.pixmap(16, 16).toImage()


def test_every_state_icon_is_drawn() -> None:
    names = {state.icon for kind in STATE_TYPES for state in kind if state.value}
    assert names <= set(PIXMAPS), names - set(PIXMAPS)


def test_a_warning_and_a_note_read_their_words_beside_their_icons(
    make_window: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "odd", description="Helps with P\u200bDFs.", homepage="x")
    window = make_window([folder_spec(root, "mine")])
    assert window.select_skill("mine:odd/SKILL.md")
    listed = window.page.problems
    style = listed.style()
    rows = {listed.item(i).text().split(":", 1)[0]: listed.item(i) for i in range(listed.count())}
    assert set(rows) == {"Warning", "Note"}, [listed.item(i).text() for i in range(listed.count())]
    warning = image(style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
    note = image(style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation))
    assert image(rows["Warning"].icon()) == warning
    assert image(rows["Note"].icon()) == note
    assert listed.item(0).text().startswith("Warning")  # the graver first

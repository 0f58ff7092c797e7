"""Every control a screen reader can reach says what it is: the main window's widgets
(each tab of the skill page, the sidebar, the list and the table) and the dialogs its
menus open. A button is named by what it shows (a name that differs from its words is
a different button to whoever hears it); a pill is a label, never a button."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QTabBar,
    QTextEdit,
    QWidget,
)

from desktop.core.library import PAGE_TABS
from desktop.ui.widgets.pill import PillWidget

from .conftest import folder_spec, wait_idle, write_skill
from .test_servers_ui import serve_spec

INTERACTIVE = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractItemView,
    QTabBar,
    QAbstractSpinBox,
    QAbstractSlider,
    QTextEdit,
    QPlainTextEdit,
)


def _said(widget: QWidget) -> str:
    """The name a screen reader announces: the widget's own, or the text Qt exposes."""
    face = QAccessible.queryAccessibleInterface(widget)
    name = face.text(QAccessible.Text.Name) if face is not None else ""
    return (name or widget.accessibleName()).strip()


def _head(text: str) -> str:
    """A long label's head: what it names before it explains ("Grant Read: read any
    file…" names "Grant Read")."""
    return re.split(r": | \(", text, maxsplit=1)[0]


def _words(text: str) -> str:
    """What a label says, without mnemonics, arrows and ellipses, in lower case."""
    return " ".join(re.findall(r"[\w'()/.:+-]+", text.replace("&", "").replace("…", " "))).lower()


def _internal(widget: QWidget) -> bool:
    """Parts Qt makes inside its own widgets (a tab bar's scroll arrows, a scroll area's
    bars, a combo box's list, a spin box's line), which Qt names itself."""
    if widget.objectName().startswith("qt_") or isinstance(widget, QScrollBar):
        return True
    return isinstance(widget.parentWidget(), QTabBar | QComboBox | QAbstractSpinBox)


def unnamed(top: QWidget) -> list[str]:
    """The visible interactive widgets under ``top`` that say no name, and the buttons
    (shown or not) whose name is not what they show."""
    out = []
    for widget in [top, *top.findChildren(QWidget)]:
        if not isinstance(widget, INTERACTIVE) or _internal(widget):
            continue
        # A hidden button that shows words is still checked: it is announced as them
        # when it shows.
        words = isinstance(widget, QAbstractButton) and bool(widget.text().strip())
        if not widget.isVisible() and not words:
            continue
        name = _said(widget)
        parent = widget.parentWidget()
        owner = parent.objectName() or type(parent).__name__ if parent is not None else ""
        kind = type(widget).__name__
        where = f"{kind} {widget.objectName()} (in {owner}) of {type(top).__name__}"
        if not name:
            out.append(f"{where}: no name")
        elif isinstance(widget, QAbstractButton) and widget.text().strip():
            shown = _words(_head(widget.text()))
            if shown and shown not in _words(name):
                out.append(f"{where}: shows {widget.text()!r}, announced as {name!r}")
    return out


def test_every_control_of_the_window_and_its_dialogs_has_a_name(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "deploy-notes", **{"allowed-tools": "Read Bash"})
    (root / "deploy-notes" / "scripts").mkdir()
    (root / "deploy-notes" / "scripts" / "run.sh").write_text("echo hi\n")
    write_skill(root, "broken", description="")
    window = make_window([folder_spec(root), serve_spec(root, "srv")])
    window.resize(1280, 800)
    found: set[str] = set()
    for skill in window.controller.catalog.skills:
        window.select_skill(skill.id)
        wait_idle(qtbot, window)
        for tab in range(len(PAGE_TABS)):
            window.page.tabs.setCurrentIndex(tab)
            if window.page.tabs.currentWidget() is window.page.files_tab:
                files = window.page.files  # a file chosen: its Read button shows
                files.setCurrentItem(files.topLevelItem(files.topLevelItemCount() - 1))
            QApplication.processEvents()
            wait_idle(qtbot, window)
            found.update(unnamed(window))
    window.skill_list.set_table(True)
    window.messages_dock.show()  # View ▸ Activity
    QApplication.processEvents()
    found.update(unnamed(window))
    window.skill_list.set_table(False)
    window.messages_dock.hide()

    actions = window.actions_
    opened = [
        actions.add_source,
        actions.open_uri,
        actions.compare,
        actions.trigger_tester,
        actions.model_view,
        lambda: actions.show_instructions("srv"),
        lambda: actions.show_server_output("srv"),
        actions.show_shortcuts,
        actions.install,
        actions.installed,
    ]
    for open_dialog in opened:
        open_dialog()
        dialog = actions.dialog
        assert dialog is not None
        qtbot.waitExposed(dialog)
        wait_idle(qtbot, window)  # what the dialog reads, read
        found.update(unnamed(dialog))
        dialog.close()
    assert not found, "\n".join(sorted(found))


def test_pills_are_labels_that_say_their_state(make_window: Any, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "solo")
    window = make_window([folder_spec(root)])
    window.select_skill("local:solo/SKILL.md")
    pills = window.page.findChildren(PillWidget)
    assert len(pills) == 3
    for pill in pills:
        assert not isinstance(pill, QAbstractButton)
        assert pill.focusPolicy().name == "NoFocus"
        face = QAccessible.queryAccessibleInterface(pill)
        assert face is not None and face.role() != QAccessible.Role.Button
    approval = window.page.approval_pill
    assert approval.text() == "To review"
    assert approval.accessibleName().startswith("To review: ")

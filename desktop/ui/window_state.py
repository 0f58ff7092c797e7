"""What the window keeps between runs in QSettings: geometry, dock and splitter
positions, table columns, and the filter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray

if TYPE_CHECKING:
    from desktop.ui.main_window import MainWindow


def restore(window: MainWindow) -> None:
    s = window.settings
    for key, fn in (
        ("geometry", window.restoreGeometry),
        ("windowState", window.restoreState),
        ("mainSplitter", window.main_splitter.restoreState),
        ("rightSplitter", window.right_splitter.restoreState),
        ("previewSplitter", window.preview.splitter.restoreState),
        ("tableHeader", window.table.horizontalHeader().restoreState),
    ):
        value = s.value(key)
        if isinstance(value, QByteArray | bytes):
            fn(QByteArray(value))
    window.actions_.table_action.setChecked(str(s.value("view/table", "")) == "true")
    window.filter_bar.restore(
        str(s.value("filter/text", "") or ""),
        str(s.value("filter/source", "") or ""),
        str(s.value("filter/state", "") or ""),
        str(s.value("filter/strategy", "") or ""),
    )


def save(window: MainWindow) -> None:
    s = window.settings
    s.setValue("geometry", window.saveGeometry())
    s.setValue("windowState", window.saveState())
    s.setValue("view/table", "true" if window.skill_list.as_table else "")
    s.setValue("mainSplitter", window.main_splitter.saveState())
    s.setValue("rightSplitter", window.right_splitter.saveState())
    s.setValue("previewSplitter", window.preview.splitter.saveState())
    s.setValue("tableHeader", window.table.horizontalHeader().saveState())
    fb = window.filter_bar
    s.setValue("filter/text", fb.text.text())
    s.setValue("filter/source", fb.source.currentData() or "")
    s.setValue("filter/state", fb.state.currentData() or "")
    s.setValue("filter/strategy", fb.strategy.currentData() or "")
    s.sync()

"""What the window's tables share beyond their models."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView


def on_open(view: QAbstractItemView, act: Callable[[QModelIndex], None]) -> None:
    """Call ``act`` with the row a person opens: by a double click, or by Enter on the
    current row. Not through ``activated``, which some styles emit on a single click:
    a click that only selects must not open a review or fetch a file."""
    view.doubleClicked.connect(act)
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        shortcut = QShortcut(QKeySequence(key), view, context=Qt.ShortcutContext.WidgetShortcut)
        shortcut.activated.connect(
            lambda: act(view.currentIndex()) if view.currentIndex().isValid() else None
        )

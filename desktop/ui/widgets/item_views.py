"""What the window's tables share beyond their models."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTableView


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


def set_column_widths(view: QTableView, widths: Sequence[int]) -> None:
    """Give each column its width, but never less than its title needs: a header cut to
    "ransport" tells nobody what the column holds."""
    header = view.horizontalHeader()
    model = view.model()
    metrics = header.fontMetrics()
    style = header.style()
    margin = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    if view.isSortingEnabled():
        margin += style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header) + 6
    for col, width in enumerate(widths):
        title = model.headerData(col, Qt.Orientation.Horizontal) if model is not None else None
        needed = metrics.horizontalAdvance(str(title)) + margin + 4 if title else 0
        view.setColumnWidth(col, max(width, needed))

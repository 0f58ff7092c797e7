"""The part every read-only table model here shares: counts, headers, flags, and how
third-party text reaches a cell (shown as written, never interpreted)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from desktop.core.visible import visible

Index = QModelIndex | QPersistentModelIndex
_SELECTABLE = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
# Roles as plain ints, for data(): comparing with an enum member costs an attribute
# lookup each time, and painting one cell asks for about seven roles.
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
ACCESSIBLE_TEXT = int(Qt.ItemDataRole.AccessibleTextRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
TEXT_ROLES = frozenset({DISPLAY, ACCESSIBLE_TEXT})
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


def plain_tooltip(text: str | None) -> str | None:
    """A tooltip showing ``text`` as written.

    Qt takes a tooltip that looks like HTML for rich text: a description holding markup
    would be rendered (fake emphasis, images from local paths). Escaped inside a
    paragraph that keeps line breaks, it is only ever text; control and bidirectional
    formatting characters show as their codes.
    """
    if not text:
        return None
    return "<p style='white-space:pre-wrap'>" + escape(visible(text), quote=False) + "</p>"


class ReadOnlyTableModel(QAbstractTableModel):
    """A table of selectable, read-only rows.

    Subclasses name ``columns`` and ``row_items`` and say what a cell holds: ``text``
    and ``tooltip`` return plain strings, which ``data()`` alone turns into what Qt
    shows (control and bidirectional characters as codes, tooltips never rich text),
    so no column can forget to; ``role_data`` answers every other role.
    """

    columns: tuple[str, ...] = ()
    answered: frozenset[int] = TEXT_ROLES  # the roles data() answers; others get None

    def row_items(self) -> Sequence[Any]:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.row_items())

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.columns)
        if horizontal and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.columns[section]
        return None

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Qt's own index() asks rowCount() and columnCount() each time: two calls into
        # Python per cell painted instead of this one.
        if parent.isValid() or not (
            0 <= row < len(self.row_items()) and 0 <= column < len(self.columns)
        ):
            return QModelIndex()
        return self.createIndex(row, column)

    def cell(self, index: Index, role: int) -> tuple[int, int] | None:
        """(row, column) of a cell ``data()`` should answer for ``role``, or ``None``.

        Painting one cell asks for about seven roles: those not answered leave at one
        set lookup, before any call into Qt.
        """
        if role not in self.answered or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if 0 <= row < len(self.row_items()) and 0 <= col < len(self.columns):
            return row, col
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        cell = self.cell(index, role)
        if cell is None:
            return None
        row, col = cell
        item = self.row_items()[row]
        if role in TEXT_ROLES:
            return visible(self.text(item, col))
        if role == TOOLTIP:
            return plain_tooltip(self.tooltip(item, col))
        return self.role_data(item, col, role)

    def text(self, item: Any, col: int) -> str:
        """The cell's text as written (third-party text included)."""
        raise NotImplementedError

    def tooltip(self, item: Any, col: int) -> str | None:
        return None

    def role_data(self, item: Any, col: int, role: int) -> Any:
        """Any role but text and tooltip that the model ``answered``."""
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _SELECTABLE if index.isValid() else _NO_FLAGS

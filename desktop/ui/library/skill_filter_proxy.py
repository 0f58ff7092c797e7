"""Sorting and filtering of the catalog table.

Which rows pass a query is decided by :class:`desktop.core.query.SearchIndex` in one
pass per change; the proxy holds the passing source rows as a list (in source order)
and maps through it. Sorting is the source model's. A change of the passing rows is
one layout change for the views, not a signal per row, and selected rows that still
pass stay selected. The *To review* view asks the source for the skills changed since
approval first.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from PySide6.QtCore import (
    QAbstractProxyModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from desktop.core.library import TO_REVIEW
from desktop.core.query import SearchIndex, SkillQuery
from desktop.ui.library.skill_table_model import SORT_ROLE, SkillTableModel

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


class SkillFilterProxyModel(QAbstractProxyModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.query = SkillQuery()
        self._index: SearchIndex | None = None
        self.rows: list[int] = []  # the source rows that pass, ascending
        self._columns = 0
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self._saved: list[tuple[QModelIndex, QPersistentModelIndex]] = []

    # -- the source ------------------------------------------------------------

    def setSourceModel(self, model: Any) -> None:
        old = self.sourceModel()
        self.beginResetModel()
        if old is not None:
            old.modelAboutToBeReset.disconnect(self._source_about_to_reset)
            old.modelReset.disconnect(self._source_reset)
            old.layoutAboutToBeChanged.disconnect(self._source_layout_about)
            old.layoutChanged.disconnect(self._source_layout)
            old.dataChanged.disconnect(self._source_data)
            old.headerDataChanged.disconnect(self.headerDataChanged)
        super().setSourceModel(model)
        if model is not None:
            model.modelAboutToBeReset.connect(self._source_about_to_reset)
            model.modelReset.connect(self._source_reset)
            model.layoutAboutToBeChanged.connect(self._source_layout_about)
            model.layoutChanged.connect(self._source_layout)
            model.dataChanged.connect(self._source_data)
            model.headerDataChanged.connect(self.headerDataChanged)
        self._rebuild()
        self.endResetModel()

    def skill_model(self) -> SkillTableModel:
        model = self.sourceModel()
        assert isinstance(model, SkillTableModel)
        return model

    def _rebuild(self) -> None:
        model = self.sourceModel()
        skills = model.skills if isinstance(model, SkillTableModel) else []
        self._index = SearchIndex(skills)
        self._columns = model.columnCount() if model is not None else 0
        self.rows = self._select(self.query)

    def _select(self, query: SkillQuery) -> list[int]:
        if self._index is None:
            return []
        model = self.skill_model()
        if not query.needs_states:  # the states are not asked for: not gathered
            return self._index.select_rows(query)
        return self._index.select_rows(query, model.verifications(), model.approvals())

    def _source_about_to_reset(self) -> None:
        self.beginResetModel()

    def _source_reset(self) -> None:
        self._rebuild()
        self.endResetModel()

    def _source_layout_about(self, *_args: Any) -> None:
        self.layoutAboutToBeChanged.emit()
        self._saved = [
            (i, QPersistentModelIndex(self.mapToSource(i))) for i in self.persistentIndexList()
        ]

    def _source_layout(self, *_args: Any) -> None:
        self._rebuild()  # the source's order changed: so did the rows the index names
        saved, self._saved = self._saved, []
        self._finish_layout([(p, self.mapFromSource(s)) for p, s in saved])

    def _source_data(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any) -> None:
        rows = self.rows
        first = bisect_left(rows, top_left.row())
        last = bisect_right(rows, bottom_right.row()) - 1
        if first <= last:
            self.dataChanged.emit(
                self.index(first, top_left.column()),
                self.index(last, bottom_right.column()),
                roles,
            )

    # -- filtering -------------------------------------------------------------

    def _set_rows(self, rows: list[int]) -> None:
        if rows == self.rows:
            return  # the same rows pass: nothing for the views to redo
        self._remove_held_runs(rows)
        if rows == self.rows:
            return
        self.layoutAboutToBeChanged.emit()
        old = self.rows
        saved = [(i, old[i.row()], i.column()) for i in self.persistentIndexList()]
        self.rows = rows
        moved = []
        for persistent, source_row, column in saved:
            at = bisect_left(rows, source_row)
            found = at < len(rows) and rows[at] == source_row
            moved.append((persistent, self.index(at, column) if found else QModelIndex()))
        self._finish_layout(moved)

    def _remove_held_runs(self, rows: list[int]) -> None:
        """Remove, as rows, each run of leaving rows that holds a persistent index.

        A selected or current row that no longer passes leaves the way a removed row
        does: the selection drops it and the current row moves to a neighbour that
        stays (or to none). The other leaving rows go in one layout change.
        """
        old = self.rows
        runs: set[tuple[int, int]] = set()
        for index in self.persistentIndexList():
            row = index.row()
            if not (0 <= row < len(old)):
                continue
            at = bisect_left(rows, old[row])
            if at < len(rows) and rows[at] == old[row]:
                continue
            start = bisect_right(old, rows[at - 1]) if at > 0 else 0
            end = bisect_left(old, rows[at]) - 1 if at < len(rows) else len(old) - 1
            runs.add((start, end))
        for start, end in sorted(runs, reverse=True):
            self.beginRemoveRows(QModelIndex(), start, end)
            del old[start : end + 1]
            self.endRemoveRows()

    def _finish_layout(self, moved: list[tuple[QModelIndex, QModelIndex]]) -> None:
        if moved:
            self.changePersistentIndexList([old for old, _ in moved], [new for _, new in moved])
        self.layoutChanged.emit()

    def set_query(self, query: SkillQuery) -> None:
        if query == self.query:
            return
        self.query = query
        if self._index is not None:
            self._set_rows(self._select(query))
        # To review puts the skills changed since approval first: the source sorts again
        # once the rows are chosen (a selected row that stays keeps its selection).
        model = self.sourceModel()
        if isinstance(model, SkillTableModel):
            model.set_changed_first(query.view == TO_REVIEW)

    def rows_changed(self, rows: list[int]) -> None:
        """The skills in these rows of the source model have new entries (no row added,
        removed or moved): their search texts are taken again and the query asked again."""
        if self._index is None or not rows:
            return
        model = self.skill_model()
        for row in rows:
            self._index.replace(row, model.skills[row])
        self._set_rows(self._select(self.query))

    def states_changed(self) -> None:
        """Verification or approval states changed: state filters must be asked again."""
        if self._index is not None:
            self._index.forget()
        if self.query.needs_states:
            self._set_rows(self._select(self.query))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorting is the source model's (once, in Python); the proxy keeps its order."""
        self.sort_column, self.sort_order = column, order
        model = self.sourceModel()
        if isinstance(model, SkillTableModel):
            model.sort(column, order)

    def sortRole(self) -> int:
        return SORT_ROLE

    # -- the model -------------------------------------------------------------

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else self._columns

    def index(self, row: int, column: int, parent: Index = _ROOT) -> QModelIndex:
        # Called for every row when a list lays itself out: kept to the few tests needed.
        if 0 <= row < len(self.rows) and 0 <= column < self._columns and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def parent(self, child: Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        return QModelIndex()

    def sibling(self, row: int, column: int, index: Index) -> QModelIndex:
        return self.index(row, column)

    def hasChildren(self, parent: Index = _ROOT) -> bool:
        return not parent.isValid() and bool(self.rows)

    def mapToSource(self, proxy_index: Index) -> QModelIndex:
        model = self.sourceModel()
        if model is None or not proxy_index.isValid():
            return QModelIndex()
        row = proxy_index.row()
        if not (0 <= row < len(self.rows)):
            return QModelIndex()
        return model.index(self.rows[row], proxy_index.column())

    def mapFromSource(self, source_index: Index) -> QModelIndex:
        if not source_index.isValid():
            return QModelIndex()
        rows, row = self.rows, source_index.row()
        at = bisect_left(rows, row)
        if at < len(rows) and rows[at] == row:
            return self.index(at, source_index.column())
        return QModelIndex()

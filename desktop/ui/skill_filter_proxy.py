"""Sorting and filtering of the catalog table.

The proxy only sorts and asks the core: which rows pass a query is decided by
:class:`desktop.core.query.SearchIndex` in one pass per change, and
``filterAcceptsRow`` reads the answer.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from desktop.core.query import SearchIndex, SkillQuery
from desktop.ui.skill_table_model import SORT_ROLE, SkillTableModel


class SkillFilterProxyModel(QSortFilterProxyModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.query = SkillQuery()
        self._index: SearchIndex | None = None
        self._accepted: bytearray = bytearray()
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(False)
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder

    def setSourceModel(self, model: Any) -> None:
        old = self.sourceModel()
        if old is not None:
            old.modelReset.disconnect(self._source_reset)
            old.layoutChanged.disconnect(self._source_reset)
        super().setSourceModel(model)
        if model is not None:
            model.modelReset.connect(self._source_reset)
            model.layoutChanged.connect(self._source_reset)
        self._source_reset()

    def skill_model(self) -> SkillTableModel:
        model = self.sourceModel()
        assert isinstance(model, SkillTableModel)
        return model

    def _source_reset(self) -> None:
        model = self.sourceModel()
        skills = model.skills if isinstance(model, SkillTableModel) else []
        self.beginFilterChange()
        self._index = SearchIndex(skills)
        self._recompute()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _recompute(self) -> None:
        if self._index is None:
            self._accepted = bytearray()
            return
        model = self.skill_model()
        self._accepted = self._index.select(self.query, model.verification, model.approval)

    def set_query(self, query: SkillQuery) -> None:
        if query == self.query:
            return
        self.query = query
        before = self._accepted
        if self._index is None:
            return
        model = self.skill_model()
        after = self._index.select(query, model.verification, model.approval)
        if after == before:
            return  # the same rows pass: nothing for Qt to redo
        self.beginFilterChange()
        self._accepted = after
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def rows_changed(self, rows: list[int]) -> None:
        """The skills in these rows of the source model have new entries (no row added,
        removed or moved): their search texts are taken again and the query asked again."""
        if self._index is None or not rows:
            return
        model = self.skill_model()
        for row in rows:
            self._index.replace(row, model.skills[row])
        after = self._index.select(self.query, model.verification, model.approval)
        if after == self._accepted:
            return
        self.beginFilterChange()
        self._accepted = after
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def states_changed(self) -> None:
        """Verification or approval states changed: state filters must be asked again."""
        if self._index is not None:
            self._index.forget()
        if self.query.needs_states:
            self.beginFilterChange()
            self._recompute()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorting is the source model's (once, in Python); the proxy keeps its order."""
        self.sort_column, self.sort_order = column, order
        model = self.sourceModel()
        if isinstance(model, SkillTableModel):
            model.sort(column, order)

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        accepted = self._accepted
        return source_row < len(accepted) and accepted[source_row] == 1

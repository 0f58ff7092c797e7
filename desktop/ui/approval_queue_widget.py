"""The review queue: skills that need a decision, with a button to review each."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.approval_queue_model import ApprovalQueueModel
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.item_views import on_open, set_column_widths


class ApprovalQueueWidget(QWidget):
    reviewRequested = Signal(str)  # skill id
    skillSelected = Signal(str)

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model = ApprovalQueueModel(self)
        self.title = QLabel("<b>Needs a decision</b>", self)
        self.view = QTableView(self)
        self.view.setObjectName("approvalQueueView")
        self.view.setAccessibleName("Skills that need an approval decision")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.setWordWrap(False)
        set_column_widths(self.view, (175, 95, 95))
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setTabKeyNavigation(False)
        # Enter (or a double click) reviews; moving to a row, by keys or mouse, shows it.
        on_open(self.view, lambda idx: self._emit(idx.row(), self.reviewRequested))
        self.view.clicked.connect(lambda idx: self._emit(idx.row(), self.skillSelected))
        self.view.selectionModel().currentRowChanged.connect(
            lambda idx, _prev: self._emit(idx.row(), self.skillSelected)
        )
        self.review_button = QPushButton("De&cide…", self)
        self.review_button.setAccessibleName("Review the selected skill's approval")
        self.review_button.clicked.connect(self._review_current)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.review_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        controller.approvalsChanged.connect(self.reload)
        controller.catalogChanged.connect(self.reload)

    def reload(self) -> None:
        rows = [
            (skill, self.controller.approval_states[skill.id])
            for skill in self.controller.needs_decision()
        ]
        self.model.set_rows(rows)
        self.title.setText(f"<b>Needs a decision</b> ({len(rows)})")
        self.review_button.setEnabled(bool(rows))

    def _emit(self, row: int, signal: Signal) -> None:  # type: ignore[type-arg]
        skill = self.model.skill_at(row)
        if skill is not None:
            signal.emit(skill.id)  # type: ignore[attr-defined]

    def _review_current(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        self._emit(rows[0].row() if rows else 0, self.reviewRequested)

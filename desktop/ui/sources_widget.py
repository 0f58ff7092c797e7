"""The sources panel: every MCP server and local folder, with buttons to change them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import SourceSpec
from desktop.ui.item_views import on_open, set_column_widths
from desktop.ui.plain_label import PlainLabel
from desktop.ui.read_only_table_model import plain_tooltip
from desktop.ui.sources_model import SourcesModel


class SourcesWidget(QWidget):
    addRequested = Signal()
    editRequested = Signal(str)
    removeRequested = Signal(str)
    toggleRequested = Signal(str)
    instructionsRequested = Signal(str)
    sourceChosen = Signal(str)  # a double click: filter the table by this source

    def __init__(self, model: SourcesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        title = QLabel("<b>Sources</b>", self)
        self.view = QTableView(self)
        self.view.setObjectName("sourcesView")
        self.view.setAccessibleName("Sources")
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setWordWrap(False)
        set_column_widths(self.view, (100, 50, 110, 80, 110, 40))
        self.view.setTabKeyNavigation(False)
        on_open(self.view, lambda idx: self._emit_label(self.sourceChosen, idx.row()))
        self.add_button = QPushButton("&Add…", self)
        self.add_button.setAccessibleName("Add a server or folder")
        self.edit_button = QPushButton("&Edit…", self)
        self.edit_button.setAccessibleName("Edit the selected source")
        self.remove_button = QPushButton("&Remove", self)
        self.remove_button.setAccessibleName("Remove the selected source")
        self.toggle_button = QPushButton("On/&off", self)
        self.toggle_button.setAccessibleName("Switch the selected source on or off")
        self.instructions_button = QPushButton("&Instructions", self)
        self.instructions_button.setAccessibleName("Show the selected server's instructions")
        # Two rows: one row of five buttons held the whole window over 1,100 px wide.
        buttons = QGridLayout()
        buttons.setSpacing(2)
        for i, b in enumerate(
            (
                self.add_button,
                self.edit_button,
                self.remove_button,
                self.toggle_button,
                self.instructions_button,
            )
        ):
            buttons.addWidget(b, i // 3, i % 3)
        buttons.setColumnStretch(3, 1)
        # The selected source's status in full: the table's Status column is narrow.
        self.status_line = PlainLabel("", self)
        self.status_line.setWordWrap(True)
        self.status_line.setAccessibleName("Status of the selected source")
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # At most three lines under the table, cut at a word with an ellipsis: a long
        # error took four lines cut mid-line and left the table one row. The tooltip
        # holds the whole status.
        self.status_line.setMaximumHeight(3 * self.status_line.fontMetrics().lineSpacing() + 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status_line)
        layout.addLayout(buttons)
        self.add_button.clicked.connect(self.addRequested)
        self.edit_button.clicked.connect(lambda: self._emit_current(self.editRequested))
        self.remove_button.clicked.connect(lambda: self._emit_current(self.removeRequested))
        self.toggle_button.clicked.connect(lambda: self._emit_current(self.toggleRequested))
        self.instructions_button.clicked.connect(
            lambda: self._emit_current(self.instructionsRequested)
        )
        self.view.selectionModel().selectionChanged.connect(self._update_buttons)
        # The sources are set anew after each change (on/off, add, edit, F5): the
        # selected one stays selected, so the next key or button acts on it again.
        self._kept_label: str | None = None
        model.modelAboutToBeReset.connect(self._remember_selection)
        model.modelReset.connect(self._restore_selection)
        model.modelReset.connect(self._update_buttons)
        model.dataChanged.connect(self._update_buttons)
        self._update_buttons()

    def _remember_selection(self) -> None:
        spec = self.current_spec()
        self._kept_label = spec.label if spec is not None else None

    def _restore_selection(self) -> None:
        if self._kept_label is not None:
            self.select_label(self._kept_label)
        self._kept_label = None

    def _fit(self, text: str) -> str:
        """``text`` cut to what three lines of the status line hold."""
        metrics = self.status_line.fontMetrics()
        room = 3 * max(self.status_line.width(), 120) * 0.85  # wrapping wastes some
        if metrics.horizontalAdvance(text) <= room:
            return text
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(room))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._update_buttons()  # the status line is fitted to the new width

    def current_spec(self) -> SourceSpec | None:
        idx = self.view.currentIndex()
        if not idx.isValid() or not self.view.selectionModel().isSelected(idx):
            rows = self.view.selectionModel().selectedRows()
            if not rows:
                return None
            idx = rows[0]
        return self.model.spec_at(idx.row())

    def select_label(self, label: str) -> None:
        for row, spec in enumerate(self.model.specs):
            if spec.label == label:
                self.view.selectRow(row)
                return

    def _emit_current(self, signal: Signal) -> None:  # type: ignore[type-arg]
        spec = self.current_spec()
        if spec is not None:
            signal.emit(spec.label)  # type: ignore[attr-defined]

    def _emit_label(self, signal: Signal, row: int) -> None:  # type: ignore[type-arg]
        spec = self.model.spec_at(row)
        if spec is not None:
            signal.emit(spec.label)  # type: ignore[attr-defined]

    def _update_buttons(self, *_: object) -> None:
        spec = self.current_spec()
        saved = spec is not None and self.model.saved(spec)
        self.toggle_button.setEnabled(spec is not None)
        for b in (self.edit_button, self.remove_button):
            # A detected folder or an imported server is found again at each start:
            # it can be switched off, not edited or removed from a file that lacks it.
            b.setEnabled(saved)
            b.setToolTip("" if saved or spec is None else "found on its own: switch it off")
        self.instructions_button.setEnabled(spec is not None and spec.kind == "mcp")
        text = (
            "Select a source to read its status." if spec is None else self.model.status_line(spec)
        )
        self.status_line.setText(self._fit(text))
        tip = None if spec is None else plain_tooltip(self.model.tooltip(spec, 4))
        self.status_line.setToolTip(tip or "")

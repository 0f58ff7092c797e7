"""The skill list: two-line rows by default, a table with chosen columns on demand, and
an empty state that says why nothing is shown and offers the action that helps.

Both views show the same filter proxy and share one selection model, so the selected
skill stays selected when the view changes. The two-line list is a table of one column
with rows of one fixed height: laying it out after a filter change costs nothing per
row, whatever the number of skills.

A skill's context menu (:mod:`desktop.ui.widgets.skill_menu`) opens on a right click in
either view, and from the keyboard on the current row with the Menu key or Shift+F10.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QEvent, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.core.library import EmptyState
from desktop.ui.library.skill_filter_proxy import SkillFilterProxyModel
from desktop.ui.library.skill_row_delegate import PAD, SkillRowDelegate
from desktop.ui.widgets.item_views import set_column_widths
from desktop.ui.widgets.skill_menu import skill_menu


class SkillRowsView(QTableView):
    """The two-line rows: the first column of the proxy, painted by the row delegate."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        self.setTabKeyNavigation(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self._fit_rows()

    def setModel(self, model: QAbstractItemModel | None) -> None:
        super().setModel(model)
        if model is not None:
            model.modelReset.connect(self._one_column)
            model.layoutChanged.connect(self._one_column)
        self._one_column()

    def _one_column(self) -> None:
        model = self.model()
        if model is None:
            return
        for column in range(1, model.columnCount()):
            if not self.isColumnHidden(column):
                self.setColumnHidden(column, True)

    def _fit_rows(self) -> None:
        line = QFontMetrics(self.font()).lineSpacing()
        self.verticalHeader().setDefaultSectionSize(2 * line + 3 * PAD)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_rows()


class EmptyStateWidget(QWidget):
    actionRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        self.title = QLabel("", self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.detail = QLabel("", self)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton("", self)
        self.action = ""
        self.button.clicked.connect(lambda: self.actionRequested.emit(self.action))
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)

    def show_state(self, state: EmptyState) -> None:
        self.title.setText(state.title)
        self.detail.setText(state.detail)
        self.detail.setVisible(bool(state.detail))
        self.action = state.action
        self.button.setText(state.action_text)
        self.button.setVisible(bool(state.action))
        self.button.setAccessibleName(state.action_text)
        self.setAccessibleName(state.title)


class SkillListWidget(QStackedWidget):
    """Page 0: the two-line list; 1: the table; 2: the empty state.

    ``reviewRequested`` (a skill id) asks for a skill's review from its context menu;
    ``openFailed`` says what the desktop could not open."""

    reviewRequested = Signal(str)
    openFailed = Signal(str)

    def __init__(self, proxy: SkillFilterProxyModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.proxy = proxy
        self.table = self._make_table()
        self.list = SkillRowsView(self)
        self.list.setObjectName("skillList")
        self.list.setAccessibleName("Skills")
        self.list.setAccessibleDescription(
            "The skills the filters show, one a row: name, source, status and description"
        )
        self.list.setModel(proxy)
        self.list.setSelectionModel(self.table.selectionModel())
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setItemDelegate(SkillRowDelegate(self.list))
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setAlternatingRowColors(False)
        self.list.setMouseTracking(True)
        self.empty = EmptyStateWidget(self)
        self.addWidget(self.list)
        self.addWidget(self.table)
        self.addWidget(self.empty)
        self.as_table = False
        self.menu: QMenu | None = None  # the context menu shown last
        for view in (self.list, self.table):
            self._add_menu(view)

    # -- the context menu ----------------------------------------------------------

    def _add_menu(self, view: QAbstractItemView) -> None:
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(
            lambda pos, v=view: self._menu_at(v, v.indexAt(pos), pos)
        )
        keys = QAction("Actions for the skill", view)
        keys.setShortcuts([QKeySequence("Shift+F10"), QKeySequence(Qt.Key.Key_Menu)])
        keys.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        keys.triggered.connect(lambda _checked=False, v=view: self.menu_for_current(v))
        view.addAction(keys)

    def menu_for_current(self, view: QAbstractItemView | None = None) -> QMenu | None:
        """The current row's menu, shown below its row (the keyboard's way)."""
        view = view or self.view()
        index = view.currentIndex()
        if not index.isValid():
            return None
        rect = view.visualRect(index)
        return self._menu_at(view, index, QPoint(rect.left() + 24, rect.bottom()))

    def _menu_at(self, view: QAbstractItemView, index: QModelIndex, pos: QPoint) -> QMenu | None:
        if not index.isValid():
            return None
        skill = self.proxy.skill_model().skill_at(self.proxy.mapToSource(index).row())
        if skill is None:
            return None
        if not view.selectionModel().isSelected(index):
            view.setCurrentIndex(index)  # the menu acts on the skill shown
        if self.menu is not None:
            self.menu.deleteLater()
        self.menu = skill_menu(skill, self, self.reviewRequested.emit, self.openFailed.emit)
        self.menu.popup(view.viewport().mapToGlobal(pos))
        return self.menu

    def _make_table(self) -> QTableView:
        table = QTableView(self)
        table.setObjectName("skillTable")
        table.setAccessibleName("Skills (table)")
        table.setAccessibleDescription("The skills the filters show, one a row, in columns")
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(22)
        # Fixed row heights: the header never measures 10,000 rows after a filter change.
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        table.setWordWrap(False)
        table.setTabKeyNavigation(False)  # Tab leaves for the next pane; arrows move
        header = table.horizontalHeader()
        header.setAccessibleName("Columns (click one to sort by it)")
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        set_column_widths(table, (200, 200, 185, 115, 95, 120, 55, 140, 300))
        return table

    def view(self) -> QAbstractItemView:
        """The view a person sees (the list or the table)."""
        return self.table if self.as_table else self.list

    def set_table(self, on: bool) -> None:
        had_focus = self.view().hasFocus()
        self.as_table = on
        if self.currentWidget() is not self.empty:
            self.setCurrentWidget(self.view())
        if had_focus:
            self.view().setFocus()
        self.scroll_to(self.table.currentIndex())

    def scroll_to(self, index: QModelIndex) -> None:
        if index.isValid():
            self.view().scrollTo(index)

    def show_empty(self, state: EmptyState | None) -> None:
        if state is None:
            if self.currentWidget() is self.empty:
                had_focus = self.empty.button.hasFocus()
                self.setCurrentWidget(self.view())
                if had_focus:
                    self.view().setFocus()
            return
        self.empty.show_state(state)
        self.setCurrentWidget(self.empty)

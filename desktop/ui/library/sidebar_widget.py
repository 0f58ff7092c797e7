"""The sidebar: the Library's views with their counts, and one row per source.

A single click on a row filters the skill list; a right click on a source offers what
can be done with it. The sources' data is the :class:`SourcesModel`'s; what a view
holds and how a source's state reads are :mod:`desktop.core.library`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QFont, QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMenu,
    QPushButton,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.library import ALL, VIEWS, source_words
from desktop.core.model import SourceSpec
from desktop.core.source_kinds import icon_names
from desktop.core.states import SignIn, SourceState
from desktop.core.visible import visible
from desktop.ui.sources.sources_model import SourcesModel
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.state_icons import pixmap

KIND_ROLE = Qt.ItemDataRole.UserRole + 1  # "view" | "source" | "add" | "section"
KEY_ROLE = Qt.ItemDataRole.UserRole + 2  # the view key or the source label


def standard_icon(widget: QWidget, name: str) -> QIcon:
    """An icon of the platform's theme, or the style's own when the theme has none."""
    kinds = icon_names()  # every kind's icons, by the names its words give
    fallback = {
        **{word: getattr(QStyle.StandardPixmap, pixmap) for word, (_t, pixmap) in kinds.items()},
        "add": QStyle.StandardPixmap.SP_FileDialogNewFolder,
    }
    theme = {
        **{word: name for word, (name, _p) in kinds.items()},
        "dialog-error": "dialog-error",  # a failed source: the theme's own, not a warning
        "add": "list-add",
    }
    icon = QIcon.fromTheme(theme.get(name, ""))
    if icon.isNull():
        icon = widget.style().standardIcon(fallback.get(name) or pixmap(name))
    return icon


class SidebarWidget(QWidget):
    viewChosen = Signal(str)  # a Library view key
    sourceChosen = Signal(str)  # a source label
    addRequested = Signal()
    installedRequested = Signal()  # the Installed section's row: the installed skills
    editRequested = Signal(str)
    removeRequested = Signal(str)
    toggleRequested = Signal(str)
    retryRequested = Signal(str)
    instructionsRequested = Signal(str)
    serverOutputRequested = Signal(str)
    openFolderRequested = Signal(str)
    updatesRequested = Signal(str)  # a pinned source (a git repository): check for updates
    signInRequested = Signal(str)
    signOutRequested = Signal(str)

    def __init__(self, model: SourcesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.model = model
        self._icons: dict[str, QIcon] = {}
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("sidebarTree")
        self.tree.setAccessibleName("Library and sources")
        self.tree.setColumnCount(2)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(8)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.setFrameShape(QTreeWidget.Shape.NoFrame)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.library = self._section("Library")
        self.view_items: dict[str, QTreeWidgetItem] = {}
        for key, label, tip in VIEWS:
            item = QTreeWidgetItem(self.library, [label, ""])
            item.setData(0, KIND_ROLE, "view")
            item.setData(0, KEY_ROLE, key)
            item.setToolTip(0, tip)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.view_items[key] = item
        self.sources_section = self._section("Sources")
        self.source_items: dict[str, QTreeWidgetItem] = {}
        self.add_item = QTreeWidgetItem(self.sources_section, ["Add source…", ""])
        self.add_item.setData(0, KIND_ROLE, "add")
        self.add_item.setIcon(0, self._icon("add"))
        self.add_item.setToolTip(
            0, "Add a folder of skills, an MCP server or a git repository (Ctrl+N)"
        )
        self.installed_section = self._section("Installed")
        self.installed_item = QTreeWidgetItem(self.installed_section, ["In agents' folders…", ""])
        self.installed_item.setData(0, KIND_ROLE, "installed")
        self.installed_item.setToolTip(
            0,
            "The skills in the folders your agents read, and whether each is still what "
            "was approved",
        )
        self.installed_item.setTextAlignment(
            1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        )
        self.tree.expandAll()
        self._counts: Mapping[str, int] = {}

        # The chosen source's status in full (its row holds a word).
        self.status_line = PlainLabel("", self)
        self.status_line.setWordWrap(True)
        self.status_line.setAccessibleName("Status of the chosen source")
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_line.setMaximumHeight(4 * self.status_line.fontMetrics().lineSpacing() + 4)
        self.status_line.setContentsMargins(6, 2, 6, 4)

        self.edit_action = self._action("&Edit…", self.editRequested)
        self.toggle_action = self._action("Turn &off", self.toggleRequested)
        self.remove_action = self._action("&Remove…", self.removeRequested)
        self.retry_action = self._action("Re&try", self.retryRequested)
        self.instructions_action = self._action("Server &instructions…", self.instructionsRequested)
        self.server_output_action = self._action("Server &output…", self.serverOutputRequested)
        self.open_folder_action = self._action("Open &folder", self.openFolderRequested)
        self.updates_action = self._action("Check for &updates…", self.updatesRequested)
        self.sign_in_action = self._action("&Sign in…", self.signInRequested)
        self.sign_out_action = self._action("Sign o&ut", self.signOutRequested)
        # Under the status of a server that asks for a sign-in.
        self.sign_in_button = QPushButton("Sign in…", self)
        self.sign_in_button.setObjectName("signInButton")
        self.sign_in_button.clicked.connect(lambda: self._emit_current(self.signInRequested))
        self.sign_in_button.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.status_line)
        layout.addWidget(self.sign_in_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.tree.currentItemChanged.connect(self._on_current)
        self.tree.itemClicked.connect(self._on_clicked)
        self.tree.customContextMenuRequested.connect(self._menu)
        model.modelReset.connect(self._rebuild_sources)
        model.dataChanged.connect(self._on_sources_changed)
        self._rebuild_sources()
        self.select_view(ALL, emit=False)

    # -- building -------------------------------------------------------------

    def _section(self, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.tree, [title.upper(), ""])
        item.setData(0, KIND_ROLE, "section")
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = QFont(self.font())
        font.setBold(True)
        font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
        item.setFont(0, font)
        item.setFirstColumnSpanned(True)
        return item

    def _action(self, text: str, signal: Any) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(lambda _c=False: self._emit_current(signal))
        return action

    def _rebuild_sources(self) -> None:
        current = self.current_key()
        self.tree.blockSignals(True)
        try:
            for item in self.source_items.values():
                self.sources_section.removeChild(item)
            self.source_items = {}
            for spec in self.model.specs:
                # As the sources model names it: a bundled sample says so.
                item = QTreeWidgetItem([visible(self.model.text(spec, 0)), ""])
                item.setData(0, KIND_ROLE, "source")
                item.setData(0, KEY_ROLE, spec.label)
                item.setTextAlignment(
                    1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
                index = self.sources_section.indexOfChild(self.add_item)
                self.sources_section.insertChild(index, item)
                self.source_items[spec.label] = item
            self._update_sources()
            if current is not None:
                kind, key = current
                target = (self.view_items if kind == "view" else self.source_items).get(key)
                self.tree.setCurrentItem(target or self.view_items[ALL])
        finally:
            self.tree.blockSignals(False)
        self._update_actions()

    def _icon(self, name: str) -> QIcon:
        """:func:`standard_icon`, looked up once per name until the style or palette
        changes: rows change many times while sources are read."""
        icon = self._icons.get(name)
        if icon is None:
            icon = self._icons[name] = standard_icon(self, name)
        return icon

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        styled = event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange)
        if styled and hasattr(self, "add_item"):  # built: __init__ has run
            self._icons.clear()
            self.add_item.setIcon(0, self._icon("add"))
            self._update_sources()

    def _on_sources_changed(self, top: QModelIndex, bottom: QModelIndex, *_: object) -> None:
        """Rows of the sources model changed: only their items are updated."""
        self._update_sources(self.model.specs[top.row() : bottom.row() + 1])

    def _update_sources(self, specs: Sequence[SourceSpec] | None = None) -> None:
        for spec in self.model.specs if specs is None else specs:
            item = self.source_items.get(spec.label)
            if item is None:
                continue
            words = source_words(spec, self.model.statuses.get(spec.label))
            item.setIcon(0, self._icon(spec.kind_info.icon_for(spec.transport)))
            if words.ready:
                shown = str(self._counts.get(spec.label, 0))
                item.setIcon(1, QIcon())
            else:
                shown = words.status
                item.setIcon(1, self._icon(words.mark))
            item.setText(1, shown)
            disabled = not spec.enabled
            item.setForeground(
                0, self.palette().placeholderText() if disabled else self.palette().text()
            )
            tip = f"{spec.label}: {words.kind}, {spec.shown_endpoint}\n{words.status}: "
            tip += words.detail
            full = self.model.tooltip(spec, 4)
            item.setToolTip(0, plain_tooltip(tip + ("\n" + full if full else "")) or "")
            item.setToolTip(1, plain_tooltip(f"{words.status}: {words.detail}") or "")
            item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{spec.label}, {words.kind}")
            item.setData(1, Qt.ItemDataRole.AccessibleTextRole, f"{words.status}, {shown}")
        self._update_actions()

    def wanted_width(self) -> int:
        """The width at which no row's label or mark is cut."""
        tree = self.tree
        rows = tree.sizeHintForColumn(0) + tree.sizeHintForColumn(1)
        margins = self.contentsMargins().left() + self.contentsMargins().right()
        return rows + tree.indentation() + 2 * tree.frameWidth() + margins + 8

    def set_counts(self, views: Mapping[str, int], sources: Mapping[str, int]) -> None:
        for key, item in self.view_items.items():
            item.setText(1, str(views.get(key, 0)))
        self._counts = dict(sources)
        self._update_sources()

    # -- choosing -------------------------------------------------------------

    def current_key(self) -> tuple[str, str] | None:
        item = self.tree.currentItem()
        if item is None:
            return None
        kind = item.data(0, KIND_ROLE)
        if kind not in ("view", "source"):
            return None
        return str(kind), str(item.data(0, KEY_ROLE))

    def current_spec(self) -> SourceSpec | None:
        key = self.current_key()
        if key is None or key[0] != "source":
            return None
        return self.model.spec(key[1])

    def select_view(self, key: str, *, emit: bool = True) -> None:
        self._select(self.view_items.get(key), emit)

    def select_source(self, label: str, *, emit: bool = True) -> None:
        self._select(self.source_items.get(label), emit)

    def _select(self, item: QTreeWidgetItem | None, emit: bool) -> None:
        if item is None or item is self.tree.currentItem():
            self._update_actions()
            return
        if not emit:
            self.tree.blockSignals(True)
        self.tree.setCurrentItem(item)
        self.tree.blockSignals(False)
        self._update_actions()

    def _on_current(self, item: QTreeWidgetItem | None, _previous: Any) -> None:
        self._update_actions()
        if item is None:
            return
        kind = item.data(0, KIND_ROLE)
        if kind == "view":
            self.viewChosen.emit(str(item.data(0, KEY_ROLE)))
        elif kind == "source":
            self.sourceChosen.emit(str(item.data(0, KEY_ROLE)))

    def _on_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.data(0, KIND_ROLE) == "add":
            self.addRequested.emit()
        elif item.data(0, KIND_ROLE) == "installed":
            self.installedRequested.emit()

    def set_installed(self, found: int, attention: int) -> None:
        """What the installed skills' last check found: how many need attention (their
        count, with a warning icon), else how many are installed."""
        item = self.installed_item
        item.setText(1, str(attention or found))
        item.setIcon(0, self._icon("dialog-warning") if attention else QIcon())
        item.setToolTip(
            1,
            f"{attention} installed skills need attention"
            if attention
            else f"{found} installed skills, as approved",
        )

    def keyPressEvent(self, event: Any) -> None:
        item = self.tree.currentItem()
        if (
            item is not None
            and item.data(0, KIND_ROLE) in ("add", "installed")
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        ):
            if item.data(0, KIND_ROLE) == "add":
                self.addRequested.emit()
            else:
                self.installedRequested.emit()
            return
        super().keyPressEvent(event)

    # -- what can be done with a source ----------------------------------------

    def _emit_current(self, signal: Any) -> None:
        spec = self.current_spec()
        if spec is not None:
            signal.emit(spec.label)

    def _update_actions(self) -> None:
        spec = self.current_spec()
        saved = spec is not None and self.model.saved(spec)
        status = self.model.statuses.get(spec.label) if spec is not None else None
        for action in (self.edit_action, self.remove_action):
            # A detected folder or an imported server is found again at each start:
            # it can be turned off, not edited or removed from a file that lacks it.
            action.setEnabled(saved)
            action.setToolTip(
                "" if saved or spec is None else "Found on its own: it can be turned off"
            )
        self.toggle_action.setEnabled(spec is not None)
        self.toggle_action.setText(
            "Turn &on" if spec is not None and not spec.enabled else "Turn &off"
        )
        self.retry_action.setEnabled(spec is not None and spec.enabled)
        connected = status is not None and status.state not in (
            SourceState.FAILED,
            SourceState.PENDING,
        )
        self.instructions_action.setEnabled(
            spec is not None and spec.kind_info.runs_code and spec.enabled and connected
        )
        self.open_folder_action.setEnabled(spec is not None and spec.kind_info.folder_on_disk)
        self.updates_action.setEnabled(spec is not None and spec.kind_info.pinned)
        stdio = spec is not None and spec.kind_info.shows_output(spec.transport)
        self.server_output_action.setEnabled(stdio)
        self.server_output_action.setToolTip(
            "What the server wrote on its error output since it was started"
            if stdio
            else "A server over HTTP runs elsewhere: its output is not seen here"
        )
        sign_in = SignIn.NONE if status is None else status.sign_in_state
        self.sign_in_button.setVisible(bool(sign_in.asks and spec is not None and spec.enabled))
        again = sign_in is SignIn.AGAIN
        self.sign_in_button.setText("Sign in again…" if again else "Sign in…")
        http = (
            spec is not None
            and spec.kind_info.signs_in(spec.transport)
            and spec.enabled
            and not spec.untrusted
        )
        self.sign_in_action.setEnabled(http)
        self.sign_out_action.setEnabled(http and sign_in.held)
        if spec is None:
            self.status_line.setText("")
            self.status_line.setToolTip("")
            self.status_line.hide()
            return
        words = source_words(spec, status)
        self.status_line.setText(self.model.status_line(spec))
        self.status_line.setToolTip(
            plain_tooltip(self.model.tooltip(spec, 4) or words.detail) or ""
        )
        self.status_line.show()

    def menu_actions(self) -> list[QAction]:
        spec = self.current_spec()
        actions = [self.edit_action, self.toggle_action, self.remove_action, self.retry_action]
        if spec is not None and spec.kind_info.runs_code:
            actions += [self.instructions_action, self.server_output_action]
        if spec is not None and spec.kind_info.folder_on_disk:
            actions.append(self.open_folder_action)
        if spec is not None and spec.kind_info.pinned:
            actions.append(self.updates_action)
        if spec is not None and spec.kind_info.signs_in(spec.transport):
            actions += [self.sign_in_action, self.sign_out_action]
        return actions

    def _menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        if item is None or item.data(0, KIND_ROLE) != "source":
            return
        self.tree.setCurrentItem(item)
        menu = QMenu(self)
        for action in self.menu_actions():
            menu.addAction(action)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

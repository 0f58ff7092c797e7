"""A skill's page: a header (name, where it comes from, its states in plain words and
the one action that fits) above the tabs Overview, Files, Source, Details, Problems and
Review.

The header stays above every tab, so a server skill's third-party mark is always in
sight. The Overview is the preview pane (rendered body, nothing shown until verified);
its raw text is the Source tab, with line numbers and each problem marked on its line.
The Files tab lists the files (scripts marked) above a viewer that shows the chosen one
once its bytes are checked. The Review tab holds the review (:mod:`desktop.ui.review`),
which the window puts there on its first use. Words and choices come from
:mod:`desktop.core.library`.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStyle,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

from desktop.core.approvals import CHANGED, REJECTED, ApprovalState
from desktop.core.catalog_summary import gone_words
from desktop.core.compare import relative_files
from desktop.core.freshness import listing_changes
from desktop.core.library import (
    APPROVAL_WORDS,
    PAGE_TABS,
    PROBLEMS_TAB,
    is_script,
    origin_line,
    primary_action,
    problem_count,
    verification_words,
)
from desktop.core.manifest import format_size
from desktop.core.model import Skill
from desktop.core.visible import cut, visible
from desktop.ui.page.detail_widget import DetailWidget
from desktop.ui.page.file_view_widget import FileViewWidget
from desktop.ui.page.preview_widget import PreviewWidget
from desktop.ui.widgets.pill import PillWidget
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.skill_menu import skill_menu
from desktop.ui.widgets.state_icons import state_icon

URI_ROLE = Qt.ItemDataRole.UserRole + 1


class SkillPageWidget(QWidget):
    primaryRequested = Signal(str)  # skill id: the review/approval entry point

    def __init__(
        self, detail: DetailWidget, preview: PreviewWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("skillPage")
        self.detail = detail
        self.preview = preview
        self.skill: Skill | None = None
        self.title = PlainLabel("", self)
        self.title.setObjectName("skillTitle")
        self.title.setAccessibleName("Skill name")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # The skill's context menu, as on its row in the list.
        self.title.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.title.customContextMenuRequested.connect(self._title_menu)
        self.menu: QMenu | None = None
        self.origin = PlainLabel("", self)
        self.origin.setObjectName("skillOrigin")
        self.origin.setAccessibleName("Where the skill comes from")
        self.origin.setWordWrap(True)
        self.origin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.approval_pill = PillWidget(self)
        self.verification_pill = PillWidget(self)
        self.problems_pill = PillWidget(self)
        self.primary = QPushButton("", self)
        self.primary.setObjectName("primaryAction")
        self.primary.setDefault(False)
        self.primary.setAutoDefault(False)
        self.primary.clicked.connect(self._primary)
        pills = QHBoxLayout()
        pills.setSpacing(6)
        for pill in (self.approval_pill, self.verification_pill, self.problems_pill):
            pills.addWidget(pill)
        pills.addStretch(1)
        pills.addWidget(self.primary)
        header = QVBoxLayout()
        header.setContentsMargins(6, 4, 6, 2)
        header.setSpacing(2)
        header.addWidget(self.title)
        header.addWidget(self.origin)
        header.addLayout(pills)
        header.addWidget(detail.team)  # the team's signed decisions, above every tab

        self.files = QTreeWidget(self)
        self.files.setObjectName("skillFiles")
        self.files.setAccessibleName("Files of the skill")
        self.files.setHeaderLabels(["File", "Size", "Kind"])
        self.files.header().setAccessibleName("Columns of the files")
        self.files.setRootIsDecorated(True)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.files.setColumnWidth(0, 260)
        self.files.currentItemChanged.connect(self._choose_file)
        self.files.itemActivated.connect(self._open_file)
        self.files.itemClicked.connect(self._open_file)
        self.file_view = FileViewWidget(preview.controller, self)
        self.files_tab = QSplitter(Qt.Orientation.Vertical, self)
        self.files_tab.setObjectName("filesSplitter")
        self.files_tab.addWidget(self.files)
        self.files_tab.addWidget(self.file_view)
        self.files_tab.setChildrenCollapsible(False)
        self.files_tab.setStretchFactor(0, 1)
        self.files_tab.setStretchFactor(1, 3)
        self.files_tab.setSizes([130, 400])
        self.source = QWidget(self)
        source_layout = QVBoxLayout(self.source)
        source_layout.setContentsMargins(0, 0, 0, 0)
        source_layout.setSpacing(2)
        # The preview's raw text is the Source tab: the Overview keeps the rendered body.
        source_layout.addWidget(preview.raw_note)
        source_layout.addWidget(preview.raw, 1)
        self.problems = QListWidget(self)
        self.problems.setObjectName("skillProblems")
        self.problems.setAccessibleName("Problems of the skill")
        self.problems.setWordWrap(True)
        self.problems.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.problems.setSpacing(3)
        self.problems.setTextElideMode(Qt.TextElideMode.ElideNone)

        # The review's place: the window makes the review in it when first shown.
        self.review_holder = QWidget(self)
        self.review_holder.setObjectName("reviewHolder")
        review_layout = QVBoxLayout(self.review_holder)
        review_layout.setContentsMargins(0, 0, 0, 0)

        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Skill pages")
        self.tabs.setDocumentMode(True)
        pages = (preview, self.files_tab, self.source, detail, self.problems, self.review_holder)
        for i, (page, (title, tip)) in enumerate(zip(pages, PAGE_TABS, strict=True)):
            self.tabs.addTab(page, title)
            if tip:
                self.tabs.setTabToolTip(i, tip)
        head = QWidget(self)
        head.setLayout(header)
        head.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(head)
        layout.addWidget(self.tabs, 1)
        layout.addStretch(0)  # takes the room when no skill is shown (no tabs)
        self.show_skill(None)

    # -- showing ----------------------------------------------------------------

    def show_skill(self, skill: Skill | None, approval: ApprovalState | None = None) -> None:
        # Another skill, or a new entry of this one (read again after a change on disk).
        renewed = skill is not self.skill
        self.skill = skill
        if skill is None:
            self.title.setText("No skill selected")
            self.origin.setText("Choose a skill in the list to read it here.")
            for pill in (self.approval_pill, self.verification_pill, self.problems_pill):
                pill.setVisible(False)
            self.primary.setVisible(False)
            self.files.clear()
            self.file_view.show_file(None)
            self.problems.clear()
            self.tabs.setTabText(PROBLEMS_TAB, PAGE_TABS[PROBLEMS_TAB][0])
            self.tabs.setVisible(False)  # nothing to read: no empty panes
            return
        self.tabs.setVisible(True)
        self.title.setText(visible(skill.name))
        self.title.setToolTip(plain_tooltip(skill.qualified_name) or "")
        self.origin.setText(origin_line(skill))
        where = skill.path if skill.kind_info.folder_on_disk and skill.path else None
        whole = f"{skill.origin.label}: {where or cut(skill.origin.shown_endpoint, 2000)}"
        self.origin.setToolTip(plain_tooltip(whole) or "")
        self.set_states(approval, None)
        if renewed:
            self._fill_files(skill)
            self._fill_problems(skill)
            self.file_view.show_file(None)
        elif self.file_view.skill is not None and self.file_view.skill is not skill:
            self._follow_file(skill)

    def show_gone(self, skill: Skill) -> None:
        """The page showed ``skill`` and its source no longer holds it: the page says so,
        with its name, and shows nothing of it (no pills, no tabs, no action)."""
        self.show_skill(None)
        title, sentence = gone_words(skill)
        self.title.setText(visible(title))
        self.title.setToolTip(plain_tooltip(skill.qualified_name) or "")
        self.origin.setText(f"{sentence} Choose another skill in the list.")
        where = skill.path if skill.kind_info.folder_on_disk and skill.path else ""
        self.origin.setToolTip(plain_tooltip(where or skill.origin.label) or "")

    def _title_menu(self, pos: QPoint) -> QMenu | None:
        if self.skill is None:
            return None
        if self.menu is not None:
            self.menu.deleteLater()
        self.menu = skill_menu(self.skill, self, self.primaryRequested.emit)
        self.menu.popup(self.title.mapToGlobal(pos))
        return self.menu

    def set_states(self, approval: ApprovalState | None, verification: str | None) -> None:
        skill = self.skill
        if skill is None:
            return
        state = approval.state if approval is not None else None
        if state in APPROVAL_WORDS:
            word, tip = APPROVAL_WORDS[state]
            if approval is not None and approval.record is not None and state == REJECTED:
                tip += f"\n{approval.message()}"  # who, when and why
            self.approval_pill.set(word, tip, alarm=state == CHANGED)
        else:
            self.approval_pill.set("Approval unknown", "Approvals could not be read")
        word, tip = verification_words(skill, verification)
        self.verification_pill.set(word, tip)
        n = problem_count(skill)
        self.problems_pill.set(
            f"{n} problem{'s' if n != 1 else ''}" if n else "",
            "See the Problems tab",
            "problems",
        )
        text, tip = primary_action(state)
        self.primary.setText(text)
        self.primary.setToolTip(tip + " (Ctrl+Shift+A)")
        self.primary.setAccessibleName(text)
        self.primary.setVisible(True)

    def _fill_files(self, skill: Skill) -> None:
        self.files.clear()
        folders: dict[str, QTreeWidgetItem] = {}
        style = self.style()
        # A server's file URIs hold the skill's own folder (skill://acme/x/...): the
        # tree starts inside it, as a local skill's does.
        for f, shown in zip(skill.files, relative_files(skill), strict=True):
            parts = shown.uri.split("/")
            parent: QTreeWidgetItem | None = None
            for depth in range(len(parts) - 1):
                key = "/".join(parts[: depth + 1])
                if key not in folders:
                    item = QTreeWidgetItem([visible(parts[depth]), "", "folder"])
                    item.setIcon(0, style.standardIcon(QStyle.StandardPixmap.SP_DirIcon))
                    if parent is None:
                        self.files.addTopLevelItem(item)
                    else:
                        parent.addChild(item)
                    folders[key] = item
                parent = folders[key]
            script = is_script(f.uri)
            kind = "script" if script else "file"
            item = QTreeWidgetItem([visible(parts[-1]), format_size(f.size), kind])
            item.setData(0, URI_ROLE, f.uri)
            pixmap = (
                QStyle.StandardPixmap.SP_MessageBoxWarning
                if script
                else QStyle.StandardPixmap.SP_FileIcon
            )
            item.setIcon(0, style.standardIcon(pixmap))
            tip = f"{f.uri}\n{f.size:,} bytes, {f.digest}"
            if script:
                tip += "\nA script: it runs only if you allow scripts when approving"
            item.setToolTip(0, plain_tooltip(tip) or "")
            if parent is None:
                self.files.addTopLevelItem(item)
            else:
                parent.addChild(item)
        if not skill.files:
            note = "No files are listed (a dynamic or invalid entry)."
            self.files.addTopLevelItem(QTreeWidgetItem([note, "", ""]))
        self.files.expandAll()

    def _fill_problems(self, skill: Skill) -> None:
        self.problems.clear()
        style = self.style()
        shown = [p for p in skill.problems if p.code != "opened-by-uri"]
        shown.sort(key=lambda p: p.level.rank)
        for p in shown:
            item = QListWidgetItem(f"{p.level.label}: {visible(p.message)}")
            item.setIcon(state_icon(style, p.level.icon))
            item.setToolTip(plain_tooltip(f"{p.message}\n({p.code})") or "")
            self.problems.addItem(item)
        if not shown:
            self.problems.addItem(QListWidgetItem("No problems found."))
        count = problem_count(skill)  # errors; notes are listed, not counted
        title = PAGE_TABS[PROBLEMS_TAB][0]
        self.tabs.setTabText(PROBLEMS_TAB, f"{title} ({count})" if count else title)

    # -- acting -------------------------------------------------------------------

    def _primary(self) -> None:
        if self.skill is not None:
            self.primaryRequested.emit(self.skill.id)

    def _choose_file(self, item: QTreeWidgetItem | None, _previous: object = None) -> None:
        """A file chosen in the tree: said in the viewer; a local one is read at once
        (nothing is fetched from anyone), a server's waits for Read from server."""
        uri = item.data(0, URI_ROLE) if item is not None else None
        if self.skill is None or not uri:
            return
        if self.file_view.skill is self.skill and self.file_view.uri == uri:
            return
        self.file_view.show_file(self.skill, str(uri))
        if not self.skill.kind_info.runs_code and self.skill.loadable:
            self.file_view.read()

    def _open_file(self, item: QTreeWidgetItem, _column: int) -> None:
        """A file clicked or activated (Enter): read it, if not shown already."""
        uri = item.data(0, URI_ROLE)
        if self.skill is None or not uri:
            return
        view = self.file_view
        if view.skill is not self.skill or view.uri != uri:
            view.show_file(self.skill, str(uri))
        if view.result is None:
            view.read()  # not twice at once: the viewer reads a file once at a time

    def open_file(self, uri: str) -> None:
        """The Files tab on ``uri``, chosen in the tree, read and checked (a link to the
        file was followed: the person asked for it, from a server too)."""
        skill = self.skill
        if skill is None:
            return
        self.tabs.setCurrentWidget(self.files_tab)
        for item in self._file_items():
            if item.data(0, URI_ROLE) == uri:
                self.files.blockSignals(True)  # chosen here; not read twice
                self.files.setCurrentItem(item)
                self.files.blockSignals(False)
                self.files.scrollToItem(item)
                break
        view = self.file_view
        if view.skill is not skill or view.uri != uri:
            view.show_file(skill, uri)
        if view.result is None:
            view.read()

    def _file_items(self) -> list[QTreeWidgetItem]:
        items: list[QTreeWidgetItem] = []
        it = QTreeWidgetItemIterator(self.files)
        while (item := it.value()) is not None:
            items.append(item)
            it += 1
        return items

    def _follow_file(self, skill: Skill) -> None:
        """The catalog holds a new entry for the shown skill: the file is said again
        (bytes checked against the old entry say nothing of the new one)."""
        view = self.file_view
        if view.skill is None or view.skill.id != skill.id:
            return
        if not listing_changes([view.skill], [skill]):
            view.skill = skill  # the same entry: what is shown stands
            return
        uri = view.uri if skill.file(view.uri) is not None or skill.is_dynamic else ""
        view.show_file(skill, uri)
        if uri and not skill.kind_info.runs_code and skill.loadable:
            view.read()

"""The main window: sources, the catalog table, and the selected skill's detail.

Services come in through the constructor (controller, sources service, settings);
the window only wires widgets to them. Every long step runs as a task on the loop.

Kept as one module: the window's wiring: every widget connected to the controller and
the sources service in one place, so what follows a selection or a decision reads top to
bottom.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QBoxLayout,
    QDockWidget,
    QFrame,
    QPlainTextEdit,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.library import (
    ALL,
    SKILL_FOLDER_HELP,
    VIEWS,
    EmptyState,
    empty_state,
    keyring_steps,
    view_counts,
)
from desktop.core.model import Skill, SourceStatus
from desktop.core.query import SkillQuery
from desktop.core.states import Severity
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.library.filter_bar_widget import FilterBarWidget
from desktop.ui.library.sidebar_widget import SidebarWidget
from desktop.ui.library.skill_filter_proxy import SkillFilterProxyModel
from desktop.ui.library.skill_list_widget import SkillListWidget
from desktop.ui.library.skill_table_model import SKILL_ID_ROLE, SkillTableModel
from desktop.ui.notifier import Notice
from desktop.ui.sources.input_dialog import InputAsker
from desktop.ui.sources.sources_model import SourcesModel
from desktop.ui.sources.sources_service import SourcesService, SourcesSnapshot
from desktop.ui.sources.trust_review import TrustBar
from desktop.ui.widgets.item_views import on_open
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.window.folder_watcher import FolderWatcher
from desktop.ui.window.message_bar_widget import MessageBarWidget, NoticeWidget
from desktop.ui.window.status_widget import ProgressWidget
from desktop.ui.window.window_actions import WindowActions
from desktop.ui.window.window_surface import WindowSurface

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QResizeEvent
    from PySide6.QtWidgets import QTabWidget

    from desktop.core.approvals import ApprovalState
    from desktop.session.catalog_session import CatalogChange
    from desktop.ui.page.detail_widget import DetailWidget
    from desktop.ui.page.preview_widget import PreviewWidget
    from desktop.ui.page.skill_page_widget import SkillPageWidget
    from desktop.ui.review.review_view import ReviewView
    from desktop.ui.sources.signin_flow import SignInFlow
    from desktop.ui.window.first_look import FirstLook

Confirm = Callable[[str], bool]


def _page_modules() -> tuple[type[DetailWidget], type[PreviewWidget], type[SkillPageWidget]]:
    """The skill page's widget classes (their modules are loaded on first use)."""
    from desktop.ui.page.detail_widget import DetailWidget
    from desktop.ui.page.preview_widget import PreviewWidget
    from desktop.ui.page.skill_page_widget import SkillPageWidget

    return DetailWidget, PreviewWidget, SkillPageWidget


# The longest the skill page waits for the list to paint before it is made (ms).
PAGE_AFTER_PAINT_LATEST = 250

# The widest the sidebar grows on its own to show its rows whole (px).
SIDEBAR_MAX = 320

# Narrower than this (px), the window folds its sidebar away (a button brings it back).
SIDEBAR_FOLD = 1000


class MainWindow(WindowSurface):
    # The list painted for the first time with skills in it (once): the start-up's wait
    # ends there, and the skill page is made on the next turn.
    rowsPainted = Signal()

    def __init__(
        self,
        controller: CatalogController,
        sources: SourcesService,
        settings: QSettings,
        *,
        confirm: Confirm | None = None,
        watch: bool = True,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Skill Catalog")
        self.setObjectName("mainWindow")
        self.controller = controller
        controller.setParent(self)  # owned (and destroyed) with the window, on its thread
        if controller.notifier.parent() is None:
            controller.notifier.setParent(controller)
        self.sources = sources
        self.settings = settings
        self._said_first_run = False
        self._wanted_skill: str | None = None  # selected, and awaited in a partial catalog
        self._retrying: set[str] = set()  # sources read again by Retry, until it ends
        self.confirm = confirm or self._ask
        self.notifier = controller.notifier

        self.table_model = SkillTableModel(controller, self)
        self.proxy = SkillFilterProxyModel(self)
        self.proxy.setSourceModel(self.table_model)
        self.sources_model = SourcesModel(self, controller.session)

        self.sidebar = SidebarWidget(self.sources_model, self)
        self.filter_bar = FilterBarWidget(self)
        # Where the folded sidebar is brought back: beside the search box, never hidden
        # behind a menu.
        self.sidebar_button = QToolButton(self.filter_bar)
        self.sidebar_button.setText("☰ Sources")
        self.sidebar_button.setAccessibleName("Sources: show the sidebar")
        self.sidebar_button.setToolTip(
            "Show the sidebar: To review, Has problems, the sources and Add source (F9)"
        )
        self.sidebar_button.clicked.connect(self.toggle_sidebar)
        outer = self.filter_bar.layout()
        row = outer.itemAt(0) if outer is not None else None
        box = row.layout() if row is not None else None
        if isinstance(box, QBoxLayout):
            box.insertWidget(0, self.sidebar_button)
        self.skill_list = SkillListWidget(self.proxy, self)
        self.table = self.skill_list.table  # the table view (View ▸ Show as table)
        self.list = self.skill_list.list
        # The skill page is made on its first use, or on the turn after the first
        # catalog: the list shows its rows before the page's modules are even loaded.
        self._page: SkillPageWidget | None = None
        self._review: ReviewView | None = None  # the page's Review tab, made on first use
        self._sign_in_flow: SignInFlow | None = None
        self.page_holder = QWidget(self)
        self.page_holder.setObjectName("pageHolder")
        holder_layout = QVBoxLayout(self.page_holder)
        holder_layout.setContentsMargins(0, 0, 0, 0)
        self._page_soon = QTimer(self)
        self._page_soon.setSingleShot(True)
        self._page_soon.timeout.connect(self._page_step)
        # When the list first painted skills (``time.monotonic()``), and the viewport
        # watched until then.
        self.rows_painted_at: float | None = None
        self._rows_watched: QWidget | None = None
        # A local skill is read and checked once it stays selected a moment (arrowing
        # through the list reads nothing); a server's is read when asked (Read from server).
        self.auto_read = QTimer(self)
        self.auto_read.setSingleShot(True)
        self.auto_read.setInterval(150)
        self.auto_read.timeout.connect(self._read_local)

        middle = QWidget(self)
        mid_layout = QVBoxLayout(middle)
        mid_layout.setContentsMargins(0, 0, 0, 0)
        self.trust_bar = TrustBar(
            self,
            spawn=controller.spawn,
            trust=controller.trust_servers,
            reload=self.reload_sources,
            warn=self.notifier.warning,
        )
        mid_layout.addWidget(self.trust_bar)
        self.message_bar = MessageBarWidget(self)
        mid_layout.addWidget(self.message_bar)
        mid_layout.addWidget(self.filter_bar)
        mid_layout.addWidget(self.skill_list, 1)
        # The list beside the page; stacked above it in a narrow window.
        self.right_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.right_splitter.setObjectName("rightSplitter")
        self.right_splitter.addWidget(middle)
        self.right_splitter.addWidget(self.page_holder)
        self.right_splitter.setChildrenCollapsible(False)
        # Set, not measured: a narrow window (900 px) still fits list and page.
        self.sidebar.setMinimumWidth(150)
        middle.setMinimumWidth(260)
        self.page_holder.setMinimumWidth(300)
        self.right_splitter.setSizes([480, 620])
        self.right_splitter.setStretchFactor(0, 2)
        self.right_splitter.setStretchFactor(1, 3)
        self.sidebar_wanted: bool | None = None  # None: as the width suits
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.sidebar)
        self.main_splitter.addWidget(self.right_splitter)
        self.main_splitter.setCollapsible(1, False)
        self.main_splitter.setSizes([220, 1180])
        self.main_splitter.setStretchFactor(0, 0)
        self.main_splitter.setStretchFactor(1, 1)
        # The user dragged its width (splitterMoved comes from a drag, never from
        # setSizes): it is left as they set it.
        self.sidebar_dragged = False
        self.main_splitter.splitterMoved.connect(self._sidebar_moved)
        self.controller.busyChanged.connect(self._on_busy_for_sidebar)
        self.setCentralWidget(self.main_splitter)

        self.messages = QPlainTextEdit(self)
        self.messages.setReadOnly(True)
        self.messages.setAccessibleName("Activity")
        self.messages_dock = QDockWidget("Activity", self)
        self.messages_dock.setObjectName("activityDock")
        self.messages_dock.setWidget(self.messages)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.messages_dock)
        self.resizeDocks([self.messages_dock], [120], Qt.Orientation.Vertical)
        self.messages_dock.hide()  # the log, on demand (View ▸ Activity)

        self.notice = NoticeWidget(self, anchor=self.skill_list)
        self.progress = ProgressWidget(self)
        # The catalog's count (skills, and sources failed or reading): the session's
        # summary, as the sidebar and the message bar count.
        self.summary_label = PlainLabel("", self)
        self.summary_label.setObjectName("catalogSummary")
        self.summary_label.setAccessibleName("Skills and sources")
        self.statusBar().addPermanentWidget(self.summary_label)
        line = QFrame(self)  # between the count and the progress, while there is one
        line.setFrameShape(QFrame.Shape.VLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        line.setVisible(False)
        controller.busyChanged.connect(line.setVisible)
        self.statusBar().addPermanentWidget(line)
        self.statusBar().addPermanentWidget(self.progress)
        self.progress.cancel_button.clicked.connect(controller.cancel)

        # Local folders are watched while the window is open: an author's saved change
        # shows in the list and on the page.
        self.watcher = FolderWatcher(controller, self) if watch else None

        self.actions_ = WindowActions(self)
        self.actions_._keys()
        self._wire()
        self.restore_state()
        self._rows_watched = self.skill_list.view().viewport()  # the view restored
        self._rows_watched.installEventFilter(self)

    # -- construction ----------------------------------------------------------

    def _wire(self) -> None:
        c = self.controller
        c.catalogChanged.connect(self._on_catalog)
        c.sourceDone.connect(self._on_source_done)
        # A server that cannot start for want of a value it asks for: asked for here.
        self.input_asker = InputAsker(c, self)
        c.approvalsChanged.connect(self._on_approvals)
        c.verificationChanged.connect(self._on_verification)
        c.skillsUpdated.connect(self._on_skills_updated)
        c.busyChanged.connect(self.progress.set_busy)
        c.progress.connect(self.progress.set_progress)
        self.notifier.noticed.connect(self._on_notice)
        self.filter_bar.queryChanged.connect(self._on_query)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        # A sort keeps the selected skill selected; it stays in sight too.
        self.proxy.layoutChanged.connect(self._current_in_view)
        on_open(self.table, lambda _: self.actions_.preview_current())
        on_open(self.list, lambda _: self.actions_.preview_current())
        self.skill_list.empty.actionRequested.connect(self._empty_action)
        self.skill_list.reviewRequested.connect(self.actions_.review)
        self.skill_list.openFailed.connect(self.notifier.warning)
        sb = self.sidebar
        sb.addRequested.connect(self.actions_.add_source)
        sb.installedRequested.connect(self.actions_.installed)
        sb.editRequested.connect(self.actions_.edit_source)
        sb.removeRequested.connect(self.actions_.remove_source)
        sb.toggleRequested.connect(self.actions_.toggle_source)
        sb.retryRequested.connect(self.retry_source)
        sb.instructionsRequested.connect(self.actions_.show_instructions)
        sb.serverOutputRequested.connect(self.actions_.show_server_output)
        sb.openFolderRequested.connect(self.actions_.open_folder)
        sb.updatesRequested.connect(self.actions_.check_updates)
        sb.sourceChosen.connect(self._filter_source)
        sb.viewChosen.connect(self.filter_bar.set_view)
        self.filter_bar.view_names = {key: name for key, name, _tip in VIEWS}
        # Made on the first sign-in or sign-out (its dialogs and modules load then).
        sb.signInRequested.connect(self._sign_in)
        sb.signOutRequested.connect(self._sign_out)

    @property
    def sign_in_flow(self) -> SignInFlow:
        if self._sign_in_flow is None:
            from desktop.ui.sources.signin_flow import attach

            self._sign_in_flow = attach(self)
        return self._sign_in_flow

    def _sign_in(self, label: str) -> None:
        from desktop.ui.sources import signin_flow

        signin_flow.sign_in(self, label)

    def _sign_out(self, label: str) -> None:
        from desktop.ui.sources import signin_flow

        signin_flow.sign_out(self, label)

    # -- the skill page ------------------------------------------------------------

    @property
    def page(self) -> SkillPageWidget:
        return self._make_page()

    @property
    def detail(self) -> DetailWidget:
        return self._make_page().detail

    @property
    def preview(self) -> PreviewWidget:
        return self._make_page().preview

    @property
    def tabs(self) -> QTabWidget:
        return self._make_page().tabs

    def _page_step(self) -> None:
        """Making the page when nothing asked for it yet: its modules on one turn of the
        loop, the page on the next, so that neither holds the loop long."""
        if self._page is not None:
            return
        if "desktop.ui.page.skill_page_widget" not in sys.modules:
            _page_modules()
            self._page_soon.start(0)
            return
        self._make_page()

    def _page_later(self) -> None:
        """Make the page on the turn after the list first paints its skills (they come
        first), or soon when no such paint comes; at once (on the next turn) once they
        were painted, or in a window not shown."""
        if self._page is not None or self._page_soon.isActive():
            return
        if self.rows_painted_at is not None or not self.isVisible():
            self._page_soon.start(0)
        else:
            self._page_soon.start(PAGE_AFTER_PAINT_LATEST)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self._rows_watched
            and event.type() == QEvent.Type.Paint
            and self.table_model.rowCount()
        ):
            watched.removeEventFilter(self)
            self._rows_watched = None
            self.rows_painted_at = time.monotonic()
            if self._page is None and self._page_soon.isActive():
                self._page_soon.start(0)  # this paint is done by then
            self.rowsPainted.emit()
        return super().eventFilter(watched, event)

    def _make_page(self) -> SkillPageWidget:
        """The skill page, made (and shown with the selected skill) on first use."""
        if self._page is not None:
            return self._page
        self._page_soon.stop()
        detail_widget, preview_widget, page_widget = _page_modules()

        detail = detail_widget(self.controller, self)
        preview = preview_widget(self.controller, self.confirm, self)
        page = page_widget(detail, preview, self.page_holder)
        self._page = page
        layout = self.page_holder.layout()
        assert layout is not None
        layout.addWidget(page)
        # A read already asked for, or a refresh (which may replace the entry the timer
        # was started for), makes the pending automatic read needless.
        preview.fetchStarted.connect(self.auto_read.stop)
        detail.skillRequested.connect(self.select_skill)
        detail.fileRequested.connect(self._open_file)
        detail.previewRequested.connect(lambda _id: self.actions_.preview_current())
        detail.reviewRequested.connect(self.actions_.review)
        detail.compareRequested.connect(lambda _id: self.actions_.compare())
        preview.skillRequested.connect(self._open_other_skill)
        preview.fileRequested.connect(self._open_file)
        page.primaryRequested.connect(self.actions_.review)
        page.tabs.currentChanged.connect(lambda _i: self._review_follow())
        self._restore_saved("previewSplitter", preview.splitter.restoreState)
        self._on_current(self.table.currentIndex(), QModelIndex())
        return page

    # -- the review: the page's Review tab ------------------------------------------

    @property
    def review(self) -> ReviewView:
        """The review (made on first use, in the page's Review tab)."""
        if self._review is None:
            from desktop.ui.review.review_view import ReviewView

            page = self.page
            review = ReviewView(self.controller, self.list_order, page.review_holder)
            layout = page.review_holder.layout()
            assert layout is not None
            layout.addWidget(review)
            review.skillRequested.connect(self.select_skill)
            self._review = review
            self._review_follow()
        return self._review

    def reviewing(self) -> bool:
        """Whether the page shows its Review tab."""
        from desktop.core.library import REVIEW_TAB

        return self._page is not None and self._page.tabs.currentIndex() == REVIEW_TAB

    def show_review(self) -> None:
        """The page's Review tab, on the selected skill, the focus on its summary."""
        from desktop.core.library import REVIEW_TAB

        review = self.review
        self.page.tabs.setCurrentIndex(REVIEW_TAB)
        review.body.setFocus(Qt.FocusReason.OtherFocusReason)

    def _review_follow(self) -> None:
        """The review shows the page's skill while its tab is shown (a local skill's
        files are read as it is shown: not while arrowing through the list elsewhere)."""
        if self._page is None or not self.reviewing():
            return
        self.review.show_skill(self._page.skill)

    def list_order(self, ids: list[str]) -> list[str]:
        """``ids`` in the list's order (those the list does not show last, by name)."""
        rows: dict[str, tuple[int, str]] = {}
        for skill_id in ids:
            skill = self.controller.catalog.get(skill_id)
            name = skill.qualified_name if skill is not None else skill_id
            row = self.table_model.row_of(skill_id)
            shown = (
                self.proxy.mapFromSource(self.table_model.index(row, 0)).row()
                if row is not None
                else -1
            )
            rows[skill_id] = (shown if shown >= 0 else 1 << 30, name)
        return sorted(ids, key=lambda i: rows[i])

    # -- starting --------------------------------------------------------------

    def look_first(self) -> FirstLook:
        """Take the first look at the sources (:mod:`desktop.ui.window.first_look`), before the
        loop runs tasks: its folders' skills are shown as soon as it is over."""
        from desktop.ui.window.first_look import FirstLook

        look = FirstLook(self.sources, self)
        look.finished.connect(lambda: self._show_first_look(look))
        look.start()
        return look

    def _show_first_look(self, look: FirstLook) -> None:
        if look.taken or look.snapshot is None:
            return
        look.shown = True
        self._use_sources(look.snapshot)
        self.controller.show_partial(
            [status for status, _ in look.read.values()],
            [skill for _, found in look.read.values() for skill in found],
        )

    def start(self, look: FirstLook | None = None) -> None:
        """Load the sources and read them (as tasks; returns at once). After a first
        look (:meth:`look_first`), its sources and folders are used as they are."""
        self.controller.spawn(self.reload_sources(look), "loading the sources")

    def stop_auto_read(self) -> None:
        """Drop the pending automatic read of the selected local skill."""
        self.auto_read.stop()

    async def reload_sources(self, look: FirstLook | None = None) -> None:
        read = None
        if look is not None:
            if not look.over:
                import asyncio

                await asyncio.to_thread(look.wait)
            look.taken = True
            if look.snapshot is not None:
                read = look.read
        if look is None or not look.shown:
            self.auto_read.stop()
            snapshot = look.snapshot if look is not None else None
            self._use_sources(snapshot or await self.sources.load())
        self.controller.refresh(read)

    def _use_sources(self, snapshot: SourcesSnapshot) -> None:
        """Show the sources in use: in the sidebar and the filters, with what their
        configuration said, and hand them to the catalog."""
        for problem in snapshot.problems:
            self.notifier.warning(problem)
        self.sources_model.set_specs(snapshot.specs, snapshot.origins, snapshot.keys)
        self.filter_bar.set_sources([s.label for s in snapshot.specs])
        self.controller.set_specs(snapshot.specs)
        self.trust_bar.set_servers(snapshot.untrusted)
        if snapshot.first_run and not self._said_first_run:
            self._said_first_run = True
            self.notifier.info(
                "no skills of your own were found, so the bundled samples are shown; they "
                "go once you add a source, or when you remove them"
            )

    # -- reacting --------------------------------------------------------------

    def _on_catalog(self, change: CatalogChange) -> None:
        if self._page is None:
            self._page_later()
        # The id the table shows as current: the new catalog may not hold that skill yet.
        index = self.table.currentIndex()
        shown = self.proxy.data(index, SKILL_ID_ROLE) if index.isValid() else None
        wanted = self._wanted_skill or shown or None
        bar = self.skill_list.view().verticalScrollBar()
        kept = bar.value() if change.from_disk else None
        on_page = self._page.skill if self._page is not None else None
        self.table_model.set_skills(
            self.controller.catalog.skills, (self.proxy.sort_column, self.proxy.sort_order)
        )
        self.sources_model.rows_changed()
        self._update_count()
        self._update_counts()
        self._say_state()
        if wanted is not None and self.select_skill(wanted):
            self._wanted_skill = None
            if kept is not None:  # a skill came or went on disk: the list stays in place
                self.skill_list.view().doItemsLayout()
                bar.setValue(kept)
            return
        # A partial catalog, while the sources still reading may hold the selected skill:
        # it is selected again when it arrives, rather than the first row.
        self._wanted_skill = wanted if change.interim else None
        if self._wanted_skill is not None:
            return
        if on_page is not None and self._gone(on_page):
            self._show_gone(on_page)  # its page says so; no other skill takes its place
            return
        if self.proxy.rowCount() and not self.table.currentIndex().isValid():
            self.table.selectRow(0)
        elif not self.proxy.rowCount() and self._page is not None:
            self.detail.show_skill(None)  # says why nothing is there

    def _gone(self, skill: Skill) -> bool:
        """Whether ``skill`` is no longer in its source, which is still on (a source
        turned off or removed takes its skills away without them being gone)."""
        if self.controller.catalog.get(skill.id) is not None:
            return False
        spec = self.sources_model.spec(skill.origin.label)
        return spec is not None and spec.enabled

    def _show_gone(self, skill: Skill) -> None:
        """The skill the page showed is no longer in its source: the page says so, with
        its name, and shows nothing of it; the list selects nothing."""
        self.table.selectionModel().clearSelection()
        self.table.selectionModel().setCurrentIndex(
            QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate
        )
        self.auto_read.stop()
        self.detail.show_skill(None)
        self.preview.show_skill(None)
        self.page.show_gone(skill)
        self._review_follow()

    def _on_source_done(self, status: SourceStatus) -> None:
        """A source's status changed (read, failed, being read): its row, and every
        count and message that counts it, say so."""
        self.sources_model.set_status(status)
        self._update_counts()
        self._say_state()
        if not self.proxy.rowCount():
            self._update_count()  # the empty list says what the sources came to

    def retry_source(self, label: str) -> None:
        """Read one source again: its row says "Reading…" at once; a brief notice says
        how it ended."""
        self._retrying.add(label)
        task = self.controller.retry(label)
        if task is None:
            self._retrying.discard(label)
            return
        self.stop_auto_read()

        def ended(t: object) -> None:
            import asyncio

            assert isinstance(t, asyncio.Task)
            self._retrying.discard(label)
            self._say_state()
            if t.cancelled() or t.exception() is not None:
                return
            ok, text = t.result()
            if text and not ok:  # a read one was noticed already (an info line)
                self.notice.notify(text)

        task.add_done_callback(ended)

    def retry_failed(self) -> None:
        """Read again every source that failed (the message bar's Retry)."""
        for label in self.controller.summary().failed_labels:
            self.retry_source(label)

    def _on_skills_updated(self, ids: list[str]) -> None:
        """Skills read again after a change on disk: their rows change in place (the
        selection and the list's scroll stay), and the shown one's page follows."""
        catalog = self.controller.catalog
        rows = self.table_model.replace_skills(
            catalog.skills, ids, (self.proxy.sort_column, self.proxy.sort_order)
        )
        self.proxy.rows_changed(rows)
        self.sources_model.rows_changed()
        self._update_count()
        self._update_counts()
        self._say_state()
        current = self.current_skill()
        if current is not None and current.id in ids:
            self._show_again(current)

    def _show_again(self, skill: Skill) -> None:
        """The shown skill has a new entry: its page shows it where the reader was."""
        if self._page is None:
            return  # the page, once made, shows the skill's entry of then
        self.detail.show_skill(skill)  # the same skill keeps its place
        self.page.show_skill(skill, self._approval(skill))
        self._page_states()
        self._review_follow()
        bars = (
            self.preview.rendered.verticalScrollBar(),
            self.preview.raw.verticalScrollBar(),
        )
        kept = [bar.value() for bar in bars]
        self.preview.follow_entry(skill)
        if self.preview.result is not None or skill.kind_info.runs_code or not skill.loadable:
            return

        async def read_again() -> None:
            await self.preview.fetch_now()
            for bar, value in zip(bars, kept, strict=True):
                bar.setValue(value)

        self.controller.spawn(read_again(), f"reading {skill.qualified_name} again")

    def _current_in_view(self) -> None:
        self.skill_list.scroll_to(self.table.currentIndex())

    def _on_approvals(self) -> None:
        self.proxy.states_changed()
        self._update_count()
        self._update_counts()
        self._page_states()
        self._say_keyring()

    def _say_keyring(self) -> None:
        problems = [
            s.problem for s in self.controller.approval_states.values() if s.problem is not None
        ]
        missing = [p for p in problems if p.code == "no-backend"]
        if not missing:
            self.message_bar.clear_message("keyring")
            return
        detail = missing[0].message
        self.message_bar.set_message(
            "keyring",
            "Approvals cannot be kept: no keyring is available",
            "How to fix",
            lambda: self._explain(
                "Approvals need a keyring",
                f"{detail}\n\nHow to fix:\n{keyring_steps(sys.platform)}",
            ),
            tip=detail,
            rank=1,
        )

    def _say_state(self) -> None:
        """The message bar and the status bar's count, from the session's one summary of
        the catalog (the sidebar and the list's empty state read the same)."""
        summary = self.controller.summary()
        self.summary_label.setText(summary.status_text())
        why = "\n".join(f"{label} could not be read: {why}" for label, why in summary.failed)
        self.summary_label.setToolTip(plain_tooltip(why) or "")
        retrying = [label for label in summary.waiting if label in self._retrying]
        if not summary.failed and retrying:
            names = ", ".join(retrying[:3]) + ("…" if len(retrying) > 3 else "")
            self.message_bar.set_message(
                "sources", f"Reading {names} again…", "", lambda: None, rank=2, level=Severity.INFO
            )
            return
        if not summary.failed:
            self.message_bar.clear_message("sources")
            return
        self.message_bar.set_message(
            "sources",
            summary.failed_sentence(),
            "Retry",
            self.retry_failed,
            tip=self.summary_label.toolTip(),  # why each could not be read
            rank=2,
            level=Severity.ERROR,
        )

    def _explain(self, title: str, text: str) -> None:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(
            QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Close, self
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setModal(False)
        box.open()

    def _on_verification(self, skill_id: str) -> None:
        if self.controller.catalog.get(skill_id) is None:
            return
        self.proxy.states_changed()
        shown = self._page.skill if self._page is not None else None
        if shown is not None and shown.id == skill_id:
            self._page_states()
            self._show_kept()

    def _show_kept(self) -> None:
        """A server skill whose file was checked earlier (its pill says Verified) shows
        the copy kept here, not a blank pane asking to verify it."""
        if self._page is None:
            return
        preview = self._page.preview
        skill = preview.skill
        if skill is None or not skill.kind_info.runs_code or not preview.checked_earlier():
            return
        self.controller.spawn(preview.show_kept(), f"showing {skill.qualified_name}")

    def _on_notice(self, notice: Notice) -> None:
        self.messages.appendPlainText(notice.line())
        if notice.level == Severity.INFO:
            self.notice.notify(notice.text)  # a moment; the Activity view keeps it
        self.statusBar().showMessage(notice.brief(), 15000)

    def _on_query(self, query: object) -> None:
        self.proxy.set_query(query)  # type: ignore[arg-type]
        self._follow_query(query)  # type: ignore[arg-type]
        self._update_count()
        if self._wanted_skill is not None:
            return  # a skill awaited from a source still reading
        if self.proxy.rowCount() and not self.table.selectionModel().hasSelection():
            self.table.selectRow(0)

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.table_model.rowCount()
        self.filter_bar.count.setText(f"{shown} of {total}")
        self.skill_list.show_empty(None if shown else self._empty_state())
        self._fit_list_height()

    def _empty_state(self) -> EmptyState:
        summary = self.controller.summary()
        query = self.proxy.query
        source = None
        if len(query.sources) == 1:
            source = self.sources_model.spec(next(iter(query.sources)))
        others = bool(query.states or query.state_groups or query.strategies or query.problems)
        if len(query.sources) > 1:
            others = True
        return empty_state(
            text=query.text,
            view=query.view,
            others=others,
            total=self.table_model.rowCount(),
            source=source,
            status=self.sources_model.statuses.get(source.label) if source else None,
            sources=len(self.sources_model.specs),
            failed=summary.failed,
            waiting=len(summary.waiting),
            unread=len(summary.unread),
        )

    def _empty_action(self, action: str) -> None:
        if action == "clear":
            self.filter_bar.restore("", "", "", "")
        elif action == "add":
            self.actions_.add_source()
        elif action == "retry":
            query = self.proxy.query
            if len(query.sources) == 1:
                self.retry_source(next(iter(query.sources)))
            else:
                self.retry_failed()
        elif action == "refresh":
            self.actions_.refresh()
        elif action == "explain":
            self._explain("What a skill folder looks like", SKILL_FOLDER_HELP)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._page is None:
            self._page_later()  # made then, with the skill current then
            return
        skill = self.skill_at(current)
        self.detail.show_skill(skill)
        self.page.show_skill(skill, self._approval(skill))
        self._page_states()
        self._review_follow()
        if skill is None or self.preview.skill is None or self.preview.skill.id != skill.id:
            self.preview.show_skill(skill)
            if skill is not None:
                local = not skill.kind_info.runs_code  # read here, nothing asked of a server
                self.preview.fetch_button.setText(
                    "R&ead and check again" if local else "R&ead from server"
                )
                self.preview.fetch_button.setToolTip(
                    "Read the files and check them against what the source listed"
                    if local
                    else "Ask the server for the files, then check them (nothing is read "
                    "from a server before you ask)"
                )
                if local and skill.loadable:
                    self.auto_read.start()
                self._show_kept()
        else:
            self.preview.follow_entry(skill)
            if self.preview.result is None and not skill.kind_info.runs_code and skill.loadable:
                self.auto_read.start()  # a new entry of the shown skill is read again

    def _approval(self, skill: Skill | None) -> ApprovalState | None:
        return self.controller.approval_states.get(skill.id) if skill is not None else None

    def _page_states(self) -> None:
        if self._page is None:
            return
        skill = self._page.skill
        if skill is None:
            return
        state, _text = self.controller.verification_of(skill)
        self.page.set_states(self._approval(skill), state)

    def _read_local(self) -> None:
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # the window is closing: its loop has stopped
        if self.controller.closing:
            return
        skill = self.current_skill()
        shown = self._page.preview.skill if self._page is not None else None
        if skill is None or shown is None or shown.id != skill.id or skill.kind_info.runs_code:
            return
        if self.preview.result is None and skill.loadable:
            self.preview.fetch()

    def _update_counts(self) -> None:
        skills = self.controller.catalog.skills
        summary = self.controller.summary()
        self.sidebar.set_counts(
            view_counts(skills, self.table_model.approvals()), summary.per_source
        )
        self._fit_sidebar()

    def _on_busy_for_sidebar(self, busy: bool) -> None:
        if not busy:
            self._fit_sidebar()

    def _sidebar_moved(self, _pos: int, _index: int) -> None:
        self.sidebar_dragged = True

    def _fit_sidebar(self) -> None:
        """Widen the sidebar so no source's name or mark is cut, up to a third of a
        wide window (never narrower, never once the user has set its width). Only once
        the sources are read: a passing "starting…" would widen it for good."""
        if self.sidebar_dragged or not self.sidebar.isVisible() or self.controller.busy:
            return
        sizes = self.main_splitter.sizes()
        total = sum(sizes)
        want = min(self.sidebar.wanted_width(), SIDEBAR_MAX, total // 3)
        if len(sizes) != 2 or sizes[0] >= want:
            return
        self.main_splitter.setSizes([want, total - want])

    def _follow_query(self, query: SkillQuery) -> None:
        """The sidebar shows what the list is filtered by."""
        if len(query.sources) == 1:
            self.sidebar.select_source(next(iter(query.sources)), emit=False)
        elif not query.sources:
            self.sidebar.select_view(query.view or ALL, emit=False)

    def _filter_source(self, label: str) -> None:
        fb = self.filter_bar
        fb.restore(
            fb.text.text(),
            label,
            fb.state_values(),
            fb.strategy.currentData() or "",
        )

    # -- selection helpers -----------------------------------------------------

    def skill_at(self, index: QModelIndex) -> Skill | None:
        if not index.isValid():
            return None
        skill_id = self.proxy.data(index, SKILL_ID_ROLE)
        return self.controller.catalog.get(skill_id) if skill_id else None

    def current_skill(self) -> Skill | None:
        return self.skill_at(self.table.currentIndex())

    def selected_skills(self) -> list[Skill]:
        rows = self.table.selectionModel().selectedRows()
        skills = [self.skill_at(r) for r in rows]
        return [s for s in skills if s is not None]

    def select_skill(self, skill_id: str) -> bool:
        row = self.table_model.row_of(skill_id)
        if row is None:
            return False
        proxy_index = self.proxy.mapFromSource(self.table_model.index(row, 0))
        if not proxy_index.isValid():
            self.filter_bar.restore("", "", "", "")
            proxy_index = self.proxy.mapFromSource(self.table_model.index(row, 0))
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.selectionModel().setCurrentIndex(proxy_index, flags)
        self.skill_list.scroll_to(proxy_index)
        return True

    def move_selection(self, step: int) -> None:
        count = self.proxy.rowCount()
        if not count:
            return
        row = self.table.currentIndex().row()
        row = 0 if row < 0 else max(0, min(count - 1, row + step))
        self.table.selectRow(row)

    def _open_file(self, skill_id: str, uri: str) -> None:
        """A link to one of a skill's files (Details, the Overview): the Files tab on
        that file, read and checked there before anything of it shows."""
        skill = self.controller.catalog.get(skill_id)
        if skill is None:
            return
        if self.page.skill is None or self.page.skill.id != skill.id:
            self.select_skill(skill.id)
        self.page.open_file(uri)

    def _open_other_skill(self, skill_id: str) -> None:
        if self.select_skill(skill_id):
            skill = self.controller.catalog.get(skill_id)
            if skill is not None:
                self.preview.follow_entry(skill)
            self.tabs.setCurrentWidget(self.preview)
            self.preview.fetch()

    def _ask(self, question: str) -> bool:
        """A yes/no question as plain text: it names skills and servers third parties
        chose, which Qt would otherwise take for rich text when they look like it."""
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Skill Catalog",
            visible(question),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        return box.exec() == QMessageBox.StandardButton.Yes

    # -- state kept between runs -------------------------------------------------

    # -- what is kept between runs (QSettings): geometry, dock and splitter positions,
    # table columns, the view and the filter ------------------------------------

    def _restore_saved(self, key: str, restore: Callable[[QByteArray], object]) -> None:
        """Give a saved state (geometry, splitter, header) back to what saved it."""
        value = self.settings.value(key)
        if isinstance(value, QByteArray | bytes):
            restore(QByteArray(value))

    def restore_state(self) -> None:
        s = self.settings
        for key, fn in (
            ("geometry", self.restoreGeometry),
            ("windowState", self.restoreState),
            ("mainSplitter", self.main_splitter.restoreState),
            ("rightSplitter", self.right_splitter.restoreState),
            ("tableHeader", self.table.horizontalHeader().restoreState),
        ):
            self._restore_saved(key, fn)
        self.actions_.table_action.setChecked(str(s.value("view/table", "")) == "true")
        self.sidebar_dragged = str(s.value("sidebar/dragged", "")) == "true"
        self.filter_bar.restore(
            str(s.value("filter/text", "") or ""),
            str(s.value("filter/source", "") or ""),
            str(s.value("filter/state", "") or ""),
            str(s.value("filter/strategy", "") or ""),
        )

    def save_state(self) -> None:
        s = self.settings
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        s.setValue("view/table", "true" if self.skill_list.as_table else "")
        s.setValue("mainSplitter", self.main_splitter.saveState())
        s.setValue("sidebar/dragged", "true" if self.sidebar_dragged else "")
        s.setValue("rightSplitter", self.right_splitter.saveState())
        if self._page is not None:  # else what was saved stays
            s.setValue("previewSplitter", self._page.preview.splitter.saveState())
        s.setValue("tableHeader", self.table.horizontalHeader().saveState())
        fb = self.filter_bar
        s.setValue("filter/text", fb.text.text())
        s.setValue("filter/source", fb.source.currentData() or "")
        s.setValue("filter/state", fb.state_values())
        s.setValue("filter/strategy", fb.strategy.currentData() or "")
        s.sync()

    # -- a layout that follows the width ------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_layout()

    def fit_layout(self) -> None:
        """The sidebar folds away below SIDEBAR_FOLD (unless asked for), and a button
        beside the search box brings it back; the list and the page stack below 800 px."""
        width = self.width()
        shown = self.sidebar_wanted if self.sidebar_wanted is not None else width >= SIDEBAR_FOLD
        self.sidebar.setVisible(shown)
        self.sidebar_button.setVisible(not shown)
        want = Qt.Orientation.Vertical if width < 800 else Qt.Orientation.Horizontal
        if self.right_splitter.orientation() != want:
            self.right_splitter.setOrientation(want)
            total = max(self.right_splitter.width(), 1)
            if want == Qt.Orientation.Vertical:
                total = max(self.right_splitter.height(), 1)
            self.right_splitter.setSizes([total * 2 // 5, total * 3 // 5])
        self._fit_list_height()

    def _fit_list_height(self) -> None:
        """Stacked (a narrow window), the list is as tall as its rows, up to two fifths
        of the height: a filter that leaves one skill gives the page the rest."""
        split = self.right_splitter
        if split.orientation() != Qt.Orientation.Vertical:
            return
        total = sum(split.sizes())
        share = total * 2 // 5
        view = self.skill_list.list
        rows = self.proxy.rowCount()
        want = share
        middle = split.widget(0)
        if rows and view.isVisible() and middle is not None:
            chrome = middle.height() - view.viewport().height()
            want = min(share, chrome + rows * max(view.sizeHintForRow(0), 1) + 4)
        if total > 0 and split.sizes()[0] != want:
            split.setSizes([want, total - want])

    def toggle_sidebar(self) -> None:
        self.sidebar_wanted = not self.sidebar.isVisible()
        self.fit_layout()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.auto_read.stop()
        if self._review is not None:
            self._review.close_review()
        if self.watcher is not None:
            self.watcher.stop()
        self.controller.closing = True
        self.controller.stop_relisting()
        self.controller.cancel()
        super().closeEvent(event)

"""The main window's menus, shortcuts and the actions behind them.

Dialogs are opened non-modally (``open()``) and report back by signals; the work a
decision starts (approve, save a source, fetch) runs as a task on the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from desktop.core.library import PAGE_TABS
from desktop.core.model import SourceSpec
from desktop.sources.config.saved import NothingSaved
from desktop.ui.window.window_surface import WindowSurface

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDialog


class WindowActions:
    def __init__(self, window: WindowSurface) -> None:
        self.w = window
        self.dialog: QDialog | None = None  # the dialog opened last (tests drive it)
        mb = window.menuBar()
        file_menu = mb.addMenu("&File")
        self.add_source_action = self._act(
            file_menu, "&Add server or folder…", "Ctrl+N", self.add_source
        )
        self.open_uri_action = self._act(file_menu, "Open skill by &URI…", "Ctrl+L", self.open_uri)
        file_menu.addSeparator()
        self._act(file_menu, "&Quit", QKeySequence.StandardKey.Quit, window.close)
        view = mb.addMenu("&View")
        self.view_menu = view
        self.filter_action = self._act(view, "&Filter", "Ctrl+F", self.focus_filter)
        self.refresh_action = self._act(view, "&Refresh sources", "F5", self.refresh)
        self.cancel_action = self._act(
            view, "&Cancel running work", "Esc", window.controller.cancel
        )
        self.next_action = self._act(
            view, "&Next skill", "Alt+Down", lambda: window.move_selection(1)
        )
        self.prev_action = self._act(
            view, "&Previous skill", "Alt+Up", lambda: window.move_selection(-1)
        )
        view.addSeparator()
        self.sidebar_action = self._act(view, "Side&bar", "F9", window.toggle_sidebar)
        self.table_action = self._act(view, "Show as &table", "Ctrl+Shift+T", lambda: None)
        self.table_action.setCheckable(True)
        self.table_action.toggled.connect(window.skill_list.set_table)
        activity = window.messages_dock.toggleViewAction()
        activity.setText("&Activity")
        view.addAction(activity)
        skill = mb.addMenu("&Skill")
        self.preview_action = self._act(
            skill, "&Read and check the files", "Ctrl+E", self.preview_current
        )
        self.review_action = self._act(
            skill, "Review and &approve…", "Ctrl+Shift+A", lambda: self.review("")
        )
        self.compare_action = self._act(skill, "&Compare two skills…", "Ctrl+Shift+D", self.compare)
        self.install_action = self._act(skill, "&Install for agents…", "", self.install)
        skill.addSeparator()
        self.export_action = self._act(skill, "&Export decisions…", "", self.export_decisions)
        tools = mb.addMenu("&Tools")
        self.selection_action = self._act(
            tools, "&Selection lab…", "Ctrl+Shift+L", self.selection_lab
        )
        self.triggers_action = self._act(tools, "&Trigger tester…", "Ctrl+T", self.trigger_tester)
        self.model_view_action = self._act(
            tools, "What the &model would see…", "Ctrl+Shift+M", self.model_view
        )
        self.installed_action = self._act(tools, "I&nstalled skills…", "", self.installed)
        self.instructions_action = self._act(
            tools, "Server &instructions…", "Ctrl+I", lambda: self.show_instructions("")
        )

    def _keys(self) -> None:
        w = self.w
        view = self.view_menu
        self.next_pane_action = self._act(view, "Next &pane", "F6", lambda: self.cycle_pane(1))
        self.prev_pane_action = self._act(
            view, "Previous pa&ne", "Shift+F6", lambda: self.cycle_pane(-1)
        )
        self.tab_actions = []
        for i, (title, _tip) in enumerate(PAGE_TABS):
            name = title.replace("&", "")
            action = self._act(view, f"Show {name}", f"Ctrl+{i + 1}", partial(self._tab, i))
            self.tab_actions.append(action)
        help_menu = w.menuBar().addMenu("&Help")
        self.shortcuts_action = self._act(
            help_menu, "&Keyboard shortcuts", "Ctrl+?", self.show_shortcuts
        )
        # A keyboard types "?" with Shift, so Ctrl+? arrives as Ctrl+Shift+? (or, by the
        # key under it, Ctrl+Shift+/): each is bound, or the shortcut opens nothing.
        self.shortcuts_action.setShortcuts(
            [QKeySequence(k) for k in ("Ctrl+?", "Ctrl+Shift+?", "Ctrl+Shift+/", "F1")]
        )

    def _tab(self, i: int) -> None:
        self.w.tabs.setCurrentIndex(i)
        self.w.tabs.currentWidget().setFocus()

    def panes(self) -> list[QWidget]:
        w = self.w
        panes: list[QWidget] = []
        if w.sidebar.isVisible():
            panes.append(w.sidebar.tree)
        for pane in (w.filter_bar.text, w.skill_list.currentWidget(), w.tabs.currentWidget()):
            if pane is not None:
                panes.append(pane)
        return panes

    def cycle_pane(self, step: int) -> None:
        panes = self.panes()
        focus = QApplication.focusWidget()
        at = -1
        for i, pane in enumerate(panes):
            if focus is not None and (focus is pane or pane.isAncestorOf(focus)):
                at = i
        target = panes[(at + step) % len(panes)]
        target.setFocus(Qt.FocusReason.OtherFocusReason)

    def shortcut_lines(self) -> list[tuple[str, str]]:
        lines = []
        for action in self.w.findChildren(QAction):
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            if keys and action.text():
                lines.append((keys, action.text().replace("&", "")))
        return sorted(set(lines), key=lambda kv: kv[1])

    def show_shortcuts(self) -> None:
        from PySide6.QtGui import QFontDatabase
        from PySide6.QtWidgets import QMessageBox

        text = "\n".join(f"{keys:<18} {what}" for keys, what in self.shortcut_lines())
        box = QMessageBox(
            QMessageBox.Icon.NoIcon,
            "Keyboard shortcuts",
            text,
            QMessageBox.StandardButton.Close,
            self.w,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._show(box)

    def _act(
        self,
        menu: QMenu,
        text: str,
        shortcut: str | QKeySequence.StandardKey,
        slot: Callable[[], object],
    ) -> QAction:
        action = QAction(text, self.w)
        action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _show(self, dialog: QDialog) -> QDialog:
        self.dialog = dialog
        dialog.setModal(False)
        dialog.open()
        return dialog

    # -- view ---------------------------------------------------------------------

    def focus_filter(self) -> None:
        self.w.filter_bar.text.setFocus()
        self.w.filter_bar.text.selectAll()

    def refresh(self) -> None:
        self.w.stop_auto_read()
        self.w.sources_model.mark_pending()
        self.w.controller.spawn(self.w.reload_sources(), "reloading the sources")

    def preview_current(self) -> None:
        skill = self.w.current_skill()
        if skill is None:
            return
        self.w.tabs.setCurrentWidget(self.w.preview)
        if self.w.preview.skill is None or self.w.preview.skill.id != skill.id:
            self.w.preview.show_skill(skill)
        self.w.preview.fetch()

    # -- approvals ----------------------------------------------------------------

    def review(self, skill_id: str) -> None:
        """The page's Review tab on ``skill_id`` (the selected skill when empty); it then
        steps through the skills waiting for a decision. A skill waiting for one is
        reviewed with the list showing *To review*: the queue, in the sidebar."""
        from desktop.core.library import ALL, TO_REVIEW

        c = self.w.controller
        skill = c.catalog.get(skill_id) if skill_id else self.w.current_skill()
        if skill is None:
            return
        waiting = {s.id for s in c.needs_decision()}
        bar = self.w.filter_bar
        if skill.id in waiting and bar.view in ("", ALL) and not bar.source.currentData():
            self.w.sidebar.select_view(TO_REVIEW)
        self.w.select_skill(skill.id)
        self.w.show_review()

    def export_decisions(self) -> None:
        """Every stored decision to a Markdown or CSV file, as the review view exports."""
        from desktop.ui.review.export_decisions import ask_path, export_to

        chosen = ask_path(self.w)
        if chosen is not None:
            self.w.controller.spawn(export_to(self.w.controller, *chosen), "exporting decisions")

    # -- sources ------------------------------------------------------------------

    def add_source(self) -> None:
        from desktop.ui.sources.source_dialog import SourceDialog

        dialog = SourceDialog(self.w)
        dialog.accepted.connect(lambda: self._save_source(None, dialog.result_spec))
        self._show(dialog)

    def edit_source(self, label: str) -> None:
        from desktop.ui.sources.source_dialog import SourceDialog

        spec = self.w.sources_model.spec(label)
        if spec is None or not self.w.sources_model.saved(spec):
            return
        dialog = SourceDialog(self.w, spec)
        dialog.accepted.connect(lambda: self._save_source(label, dialog.result_spec))
        self._show(dialog)

    def _save_source(self, old_label: str | None, spec: SourceSpec | None) -> None:
        if spec is None:
            return
        self.w.controller.spawn(self._save(old_label, spec), "saving the source")

    async def _save(self, old_label: str | None, spec: SourceSpec) -> None:
        svc = self.w.sources
        try:
            if old_label is None:
                added, messages = await svc.add(spec)
            else:
                added, messages = await svc.replace(old_label, spec)
        except NothingSaved as exc:
            # The dialog comes back with what was typed and why.
            self.w.notifier.warning(str(exc))
            self._ask_again(old_label, spec, str(exc))
            return
        for m in messages:
            self.w.notifier.warning(m)
        if old_label is not None and (old_label != spec.label or spec.kind_info.runs_code):
            await self.w.controller.reader.forget_source(old_label)
        self.w.notifier.info(f"saved source {added.label}")
        await self.w.reload_sources()

    def _ask_again(self, old_label: str | None, spec: SourceSpec, why: str) -> None:
        from desktop.ui.sources.source_dialog import SourceDialog

        dialog = SourceDialog(self.w, spec)
        if old_label is None:
            dialog.setWindowTitle("Add source")
        dialog.error.setText(f"Not saved: {why}")
        dialog.accepted.connect(lambda: self._save_source(old_label, dialog.result_spec))
        self._show(dialog)

    def remove_source(self, label: str) -> None:
        spec = self.w.sources_model.spec(label)
        if spec is None or not self.w.sources_model.saved(spec):
            return
        what = (
            "its cached files are deleted too"
            if spec.kind_info.runs_code
            else f"the {spec.kind_info.word} itself is not touched"
        )
        if not self.w.confirm(f"Remove the source {label} from the saved sources? ({what})"):
            return
        self.w.controller.spawn(self._remove(label), "removing the source")

    async def _remove(self, label: str) -> None:
        spec = self.w.sources_model.spec(label)
        messages = await self.w.sources.remove(label)
        for m in messages:
            self.w.notifier.warning(m)
        removed = 0
        if spec is not None and spec.kind_info.runs_code:
            removed = await self.w.controller.reader.forget_source(label)
        self.w.notifier.info(
            f"removed source {label}" + (f" and its cached content ({removed})" if removed else "")
        )
        await self.w.reload_sources()

    def toggle_source(self, label: str) -> None:
        spec = self.w.sources_model.spec(label)
        if spec is None:
            return
        key = self.w.sources_model.keys.get(label, "")

        async def work() -> None:
            for m in await self.w.sources.set_enabled(label, key, not spec.enabled):
                self.w.notifier.warning(m)
            await self.w.reload_sources()

        self.w.controller.spawn(work(), "switching the source")

    # -- tools --------------------------------------------------------------------

    def show_instructions(self, label: str) -> None:
        from desktop.ui.dialogs.instructions_dialog import InstructionsDialog

        if not label:
            spec = self.w.sidebar.current_spec()
            skill = self.w.current_skill()
            label = spec.label if spec else (skill.origin.label if skill else "")
        status = self.w.controller.catalog.source(label)
        if status is None or not status.origin.kind_info.runs_code:
            self.w.notifier.info("select a server to read its instructions")
            return
        dialog = InstructionsDialog(status, self.w.controller, self.w)
        dialog.skillOpened.connect(self.w.select_skill)
        self._show(dialog)

    def show_server_output(self, label: str) -> None:
        from desktop.ui.sources.server_output_dialog import ServerOutputDialog

        spec = self.w.sources_model.spec(label)
        if spec is None or not spec.kind_info.runs_code:
            self.w.notifier.info("select a server to read what it wrote")
            return
        self._show(ServerOutputDialog(spec, self.w.controller, self.w))

    def open_folder(self, label: str) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        spec = self.w.sources_model.spec(label)
        if spec is None or not spec.kind_info.folder_on_disk:
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(spec.endpoint)):
            self.w.notifier.warning(f"could not open the folder {spec.endpoint}")

    def check_updates(self, label: str) -> None:
        """Review what a newer commit of a git source changes; the sources are read
        again once its pin moved."""
        from desktop.ui.sources.update_dialog import UpdateDialog

        spec = self.w.sources_model.spec(label)
        if spec is None or not spec.kind_info.pinned:
            return
        dialog = UpdateDialog(spec, self.w)
        dialog.updated.connect(lambda _label: self.refresh())
        self._show(dialog)

    def open_uri(self) -> None:
        from desktop.ui.dialogs.open_uri_dialog import OpenUriDialog

        dialog = OpenUriDialog(self.w.controller, self.w)
        dialog.skillOpened.connect(self.w.select_skill)
        self._show(dialog)

    def compare(self) -> None:
        from desktop.ui.dialogs.compare_dialog import CompareDialog

        chosen = self.w.selected_skills()
        current = self.w.current_skill()
        if len(chosen) < 2 and current is not None:
            chosen = [current]
        self._show(CompareDialog(self.w.controller, chosen[:2], self.w))

    def trigger_tester(self) -> None:
        from desktop.ui.dialogs.trigger_tester_dialog import TriggerTesterDialog

        dialog = TriggerTesterDialog(self.w.controller, self.w)
        dialog.skillSelected.connect(self.w.select_skill)
        self._show(dialog)

    def selection_lab(self) -> None:
        from desktop.ui.dialogs.selection_lab_dialog import SelectionLabDialog

        dialog = SelectionLabDialog(self.w.controller, self.w)
        dialog.skillSelected.connect(self.w.select_skill)
        self._show(dialog)

    def model_view(self) -> None:
        from desktop.ui.dialogs.host_view_dialog import ModelViewDialog

        self._show(ModelViewDialog(self.w.controller, self.w))

    def install(self) -> None:
        from desktop.ui.dialogs.install_dialog import InstallDialog

        skill = self.w.current_skill()
        if skill is None:
            return
        self._show(InstallDialog(self.w.controller, skill, self.w))

    def installed(self) -> None:
        from desktop.ui.dialogs.install_dialog import InstalledDialog

        self._show(InstalledDialog(self.w.controller, self.w))

"""The review view: one skill at a time from the queue, with the evidence in front of you.

It shows a skill's name, description, origin, problems (errors first) and requests
(each tool with what it allows, its scripts), then every file of its manifest, each
opened in place only once read and verified: a local skill's files are read at once,
a server's when the reviewer asks (Read, Read all files, Next unread file). Scripts
are marked as code that would run on this machine. For a skill changed since its
approval, each changed text file is a coloured diff against the bytes the approval
kept in the private cache. Approve is offered once every file was read and verified,
or after the explicit choice to approve files not read; a skill with errors only
after the explicit choice to approve it despite them. Both choices are recorded.

Keys: Alt+N next skill, Alt+P previous, Alt+U next unread file, Alt+R read the file,
Alt+A approve, Ctrl+Return approve and go to the next, Alt+J reject.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core.approvals import (
    ApprovalState,
    FileChange,
    error_problems,
    unapprovable_reason,
)
from desktop.core.freshness import listing_changes
from desktop.core.grants import has_scripts, is_script, requested_risks
from desktop.core.model import Skill, SkillFile
from desktop.core.review import approve_gate, is_binary, read_count, unread_files
from desktop.core.states import Approval
from desktop.core.verify import MISMATCHES
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.safe_browser import SafeTextBrowser
from desktop.ui.review.export_decisions import ask_path, export_to
from desktop.ui.review.review_diff import Diffs, SideBySide
from desktop.ui.review.review_html import (
    binary_html,
    esc,
    file_html,
    mismatch_html,
    no_earlier_html,
    not_read_html,
    removed_html,
    summary_html,
)
from desktop.ui.widgets.plain_label import PlainLabel

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogChange

URI_ROLE = Qt.ItemDataRole.UserRole + 1
REMOVED = "removed"


class _Reads:
    """What was read of one entry: verified bytes and failures, by URI."""

    def __init__(self, skill: Skill) -> None:
        self.skill = skill
        self.ok: dict[str, bytes] = {}
        self.failed: dict[str, str] = {}
        self.pending: set[str] = set()


class ReviewView(QDialog):
    """Steps through the skills waiting for a decision (or starts at any skill)."""

    def __init__(
        self, controller: CatalogController, skill_id: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("reviewView")
        # Closed is gone: the bytes it read, and its keys, go with it.
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(1100, 780)
        self.c = controller
        self.queue: list[str] = self._queue_from(skill_id)
        self.index = self.queue.index(skill_id) if skill_id in self.queue else 0
        self.skill: Skill | None = None
        self._reads: dict[str, _Reads] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        # Diffs of changed files, made off the GUI thread (see review_diff).
        self.diffs = Diffs(self._spawn, self._diff_ready)
        self._raw: tuple[SkillFile, SkillFile, tuple[str, str]] | None = None
        self._build()
        controller.approvalsChanged.connect(self._refresh_state)
        controller.catalogChanged.connect(self._catalog_changed)
        self.show_current()

    # -- layout -------------------------------------------------------------------

    def _button(self, text: str, key: str, slot: Any, name: str) -> QPushButton:
        """A button; its key acts at once (a button's own shortcut clicks it only
        after its press animation), and only while the button can be pressed."""
        button = QPushButton(f"{text} ({key})" if key else text, self)
        if key:
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.activated.connect(lambda: button.isEnabled() and slot())
        button.setAccessibleName(name)
        button.setAutoDefault(False)
        button.setDefault(False)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.position = QLabel(self)
        self.position.setAccessibleName("Place in the review queue")
        self.prev_button = self._button("◀ Previous", "Alt+P", self.previous, "Previous skill")
        self.next_button = self._button("Next ▶", "Alt+N", self.next, "Next skill")
        top.addWidget(self.position, 1)
        top.addWidget(self.prev_button)
        top.addWidget(self.next_button)
        layout.addLayout(top)

        # The skill on the left; its files, and the one selected, on the right.
        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.body = SafeTextBrowser(split)
        self.body.setAccessibleName("The skill under review")
        files = QWidget(split)
        files_layout = QVBoxLayout(files)
        files_layout.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        self.read_line = QLabel(files)
        self.read_line.setAccessibleName("Files read")
        self.file_list = QListWidget(files)
        self.file_list.setMaximumHeight(150)
        self.file_list.setAccessibleName("Files of the skill")
        self.file_list.currentItemChanged.connect(lambda *_: self._show_file())
        self.read_button = self._button("Read this file", "Alt+R", self.read_selected, "Read")
        self.read_all_button = self._button(
            "Read all files", "Alt+I", self.read_all, "Read all files"
        )
        self.next_unread_button = self._button(
            "Next unread file", "Alt+U", self.next_unread, "Next unread file"
        )
        left.addWidget(self.read_line)
        left.addWidget(self.file_list)
        buttons = QHBoxLayout()
        for b in (self.read_button, self.read_all_button, self.next_unread_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        left.addLayout(buttons)
        self.content = SafeTextBrowser(files)
        self.content.setAccessibleName("The selected file, verified")
        files_layout.addLayout(left)
        files_layout.addWidget(self.content, 1)
        # Both versions of a file with too many changes to diff, side by side.
        self.side_by_side = SideBySide(files)
        files_layout.addWidget(self.side_by_side, 3)
        split.addWidget(self.body)
        split.addWidget(files)
        split.setSizes([420, 680])
        layout.addWidget(split, 1)

        self.grants = QGroupBox("Grants (each a separate choice)", self)
        self.grants_layout = QVBoxLayout(self.grants)
        layout.addWidget(self.grants)
        self.tool_boxes: list[QCheckBox] = []
        self.tools: list[str] = []
        self.scripts_box: QCheckBox | None = None

        choices = QHBoxLayout()
        self.unread_box = QCheckBox("Approve files I have not read", self)
        self.unread_box.setAccessibleName("Approve unread files")
        self.despite_box = QCheckBox("Approve despite its problems", self)
        self.despite_box.setAccessibleName("Approve despite problems")
        for box in (self.unread_box, self.despite_box):
            box.toggled.connect(lambda _on: self._update_gate())
            choices.addWidget(box)
        self.reason = QLineEdit(self)
        self.reason.setPlaceholderText("Reason for rejecting (optional)")
        self.reason.setAccessibleName("Reason for rejecting")
        self.reason.setMaxLength(2000)
        choices.addWidget(self.reason, 1)
        layout.addLayout(choices)
        self.gate = PlainLabel("", self)
        self.gate.setWordWrap(True)
        self.gate.setAccessibleName("Why Approve is not offered")
        layout.addWidget(self.gate)

        row = QHBoxLayout()
        self.approve_button = self._button("Approve", "Alt+A", self.approve, "Approve")
        self.approve_next_button = self._button(
            "Approve and next",
            "Ctrl+Return",
            lambda: self.approve(then_next=True),
            "Approve and next",
        )
        self.reject_button = self._button("Reject", "Alt+J", self.reject_skill, "Reject")
        self.revoke_button = self._button("Revoke", "", self.revoke, "Revoke")
        self.export_button = self._button(
            "Export decisions…", "", self.ask_export, "Export decisions"
        )
        self.close_button = self._button("Close", "", self.close, "Close")
        for b in (self.approve_button, self.approve_next_button, self.reject_button):
            row.addWidget(b)
        row.addWidget(self.revoke_button)
        row.addStretch(1)
        row.addWidget(self.export_button)
        row.addWidget(self.close_button)
        layout.addLayout(row)

    # -- the queue ----------------------------------------------------------------

    def _queue_from(self, skill_id: str) -> list[str]:
        waiting = sorted(
            self.c.needs_decision(),
            key=lambda s: (Approval(self.c.approval_states[s.id].state).rank, s.qualified_name),
        )
        ids = [s.id for s in waiting]
        if skill_id and skill_id not in ids:
            ids.insert(0, skill_id)
        return ids

    def next(self) -> None:
        self._go(+1)

    def previous(self) -> None:
        self._go(-1)

    def _go(self, step: int) -> None:
        if not self.queue:
            return
        self.index = max(0, min(len(self.queue) - 1, self.index + step))
        self.show_current()

    def show_current(self) -> None:
        skill_id = self.queue[self.index] if self.queue else ""
        skill = self.c.catalog.get(skill_id) if skill_id else None
        self.skill = skill
        self.position.setText(
            f"Skill {self.index + 1} of {len(self.queue)} in the review"
            if self.queue
            else "Nothing waits for a decision"
        )
        self.prev_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index + 1 < len(self.queue))
        self.reason.clear()
        self.unread_box.setChecked(False)
        self.despite_box.setChecked(False)
        if skill is None:
            self.setWindowTitle("Review")
            self.body.setHtml("<p>This skill is no longer in the catalog.</p>")
            self.file_list.clear()
            self.content.clear()
            self._build_grants(None)
            self._update_gate()
            return
        self.setWindowTitle(visible(f"Review: {skill.qualified_name}"))
        self._build_grants(skill)
        self._fill_files()
        self._refresh_summary()
        if skill.kind == "local" and skill.loadable:
            self.read_all()  # a local skill's files are read at once
        self._update_gate()

    def _reads_of(self, skill: Skill) -> _Reads:
        held = self._reads.get(skill.id)
        if held is None or (held.skill is not skill and listing_changes([held.skill], [skill])):
            held = self._reads[skill.id] = _Reads(skill)
        held.skill = skill
        return held

    @property
    def state(self) -> ApprovalState | None:
        return self.c.approval_states.get(self.skill.id) if self.skill else None

    # -- grants -------------------------------------------------------------------

    def _build_grants(self, skill: Skill | None) -> None:
        while self.grants_layout.count():
            item = self.grants_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.tool_boxes, self.tools, self.scripts_box = [], [], None
        if skill is None:
            return
        held = self.state.record if self.state is not None and self.state.approved else None
        for risk in requested_risks(skill):
            text = f"Grant {visible(risk.name)}: {visible(risk.allows)} ({risk.level_words})"
            box = QCheckBox(text.replace("&", "&&"), self.grants)
            box.setAccessibleName(f"Grant tool {visible(risk.name)}")
            if risk.powerful:
                box.setStyleSheet("color: #b42318;")
            box.setChecked(bool(held and risk.name in held.grants.tools))
            self.tool_boxes.append(box)
            self.tools.append(risk.name)
            self.grants_layout.addWidget(box)
        if not self.tools:
            self.grants_layout.addWidget(QLabel("The skill requests no tools.", self.grants))
        if has_scripts(skill):
            self.scripts_box = QCheckBox(
                "Allow running the skill's bundled scripts (code that runs on this machine)",
                self.grants,
            )
            self.scripts_box.setAccessibleName("Allow scripts")
            self.scripts_box.setStyleSheet("color: #b42318;")
            self.scripts_box.setChecked(bool(held and held.grants.scripts))
            self.grants_layout.addWidget(self.scripts_box)

    def granted_tools(self) -> list[str]:
        return [t for t, b in zip(self.tools, self.tool_boxes, strict=True) if b.isChecked()]

    # -- files --------------------------------------------------------------------

    def _changes(self) -> dict[str, tuple[str, FileChange]]:
        state = self.state
        out: dict[str, tuple[str, FileChange]] = {}
        if state is not None and state.diff is not None and state.record is not None:
            for kind, items in (
                ("added", state.diff.added),
                ("changed", state.diff.changed),
                (REMOVED, state.diff.removed),
            ):
                for change in items:
                    out[change.uri] = (kind, change)
        return out

    def _fill_files(self) -> None:
        skill = self.skill
        assert skill is not None
        reads = self._reads_of(skill)
        changes = self._changes()
        chosen = self.file_list.currentItem()
        was = chosen.data(URI_ROLE) if chosen is not None else None
        self.file_list.blockSignals(True)
        self.file_list.clear()
        uris = [f.uri for f in sorted(skill.files, key=lambda f: f.uri)]
        uris += [u for u, (kind, _c) in sorted(changes.items()) if kind == REMOVED]
        for uri in uris:
            kind = changes.get(uri, ("", None))[0]
            if kind == REMOVED:
                mark = "− removed"
            elif uri in reads.ok:
                mark = "✓ read"
            elif uri in reads.failed:
                mark = "✗ failed"
            elif uri in reads.pending:
                mark = "… reading"
            else:
                mark = "○ not read"
            extra = [kind] if kind and kind != REMOVED else []
            if is_script(uri):
                extra.append("script")
            label = f"{mark}  {visible(self._short(uri))}"
            if extra:
                label += f"  [{', '.join(extra)}]"
            item = QListWidgetItem(label)
            item.setData(URI_ROLE, uri)
            item.setToolTip(visible(uri))
            self.file_list.addItem(item)
            if uri == was:
                self.file_list.setCurrentItem(item)
        if self.file_list.currentItem() is None and self.file_list.count():
            self.file_list.setCurrentRow(0)
        self.file_list.blockSignals(False)
        self.read_line.setText(read_count(skill, {u: True for u in reads.ok}))
        self._show_file()

    def _short(self, uri: str) -> str:
        """A server file's URI without the skill's own folder (``skill://x/``)."""
        skill = self.skill
        if skill is not None and skill.kind == "mcp":
            base = skill.uri.rsplit("/", 1)[0] + "/"
            if uri.startswith(base):
                return uri[len(base) :]
        return uri

    def selected_uri(self) -> str:
        item = self.file_list.currentItem()
        return str(item.data(URI_ROLE)) if item is not None else ""

    def _show_file(self) -> None:
        self._raw = None
        self._show_selected()
        if self._raw is not None:
            self.side_by_side.show_pair(*self._raw)
        else:
            self.side_by_side.clear_pair()

    def _diff_ready(self, key: tuple[str, str, str]) -> None:
        if self.skill is not None and self.selected_uri() == key[0]:
            self._show_file()

    def _show_selected(self) -> None:
        skill, uri = self.skill, self.selected_uri()
        if skill is None or not uri:
            self.content.clear()
            self.read_button.setEnabled(False)
            return
        reads = self._reads_of(skill)
        kind, change = self._changes().get(uri, ("", None))
        script = is_script(uri)
        current = skill.file(uri)
        self.read_button.setEnabled(
            current is not None and uri not in reads.ok and uri not in reads.pending
        )
        if kind == REMOVED and change is not None:
            old = SkillFile(uri, change.old_digest or "", change.old_size or 0)
            data = self.c.approved_copy(self.state, old)
            html = removed_html(old, data, binary=data is not None and is_binary(data))
        elif current is None:
            html = ""
        elif uri in reads.failed:
            html = f"<p><code>{esc(uri)}</code> — <b>not shown</b>: {esc(reads.failed[uri])}</p>"
        elif uri not in reads.ok:
            html = not_read_html(current, server=skill.kind == "mcp", script=script)
        else:
            html = self._read_file_html(current, reads.ok[uri], kind, change, script)
        self.content.setHtml(html)

    def _read_file_html(
        self, f: SkillFile, data: bytes, kind: str, change: FileChange | None, script: bool
    ) -> str:
        binary = is_binary(data)
        if kind == "changed" and change is not None:
            old = SkillFile(f.uri, change.old_digest or "", change.old_size or 0)
            before = self.c.approved_copy(self.state, old)
            if before is None:
                return no_earlier_html(f, old) + file_html(f, data, script=script, binary=binary)
            if binary or is_binary(before):
                return binary_html(old, "Approved version") + binary_html(f, "Now")
            page = self.diffs.page(f, old, before, data, script=script)
            if page.raw is not None:
                self._raw = (old, f, page.raw)
            return page.html
        html = file_html(f, data, script=script, binary=binary)
        if kind == "added":
            html = "<p><b>Added since approval.</b></p>" + html
        return html

    # -- reading ------------------------------------------------------------------

    def _spawn(self, coro: Any, what: str) -> asyncio.Task[Any]:
        task = self.c.spawn(coro, what)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def read_selected(self) -> None:
        uri = self.selected_uri()
        if uri:
            self.read_uris([uri])

    def read_all(self) -> None:
        skill = self.skill
        if skill is not None:
            reads = self._reads_of(skill)
            self.read_uris([f.uri for f in skill.files if f.uri not in reads.ok])

    def next_unread(self) -> None:
        """Select the next file not read yet (after the selected one) and read it."""
        skill = self.skill
        if skill is None:
            return
        reads = self._reads_of(skill)
        rows = [self.file_list.item(i) for i in range(self.file_list.count())]
        start = self.file_list.currentRow()
        order = list(range(start + 1, len(rows))) + list(range(0, start + 1))
        for i in order:
            uri = str(rows[i].data(URI_ROLE))
            if skill.file(uri) is not None and uri not in reads.ok:
                self.file_list.setCurrentRow(i)
                self.read_uris([uri])
                return

    def read_uris(self, uris: list[str]) -> None:
        skill = self.skill
        if skill is None or not skill.loadable:
            return
        reads = self._reads_of(skill)
        wanted = [u for u in uris if u not in reads.ok and u not in reads.pending]
        if not wanted:
            return
        reads.pending.update(wanted)
        self._fill_files()
        self._spawn(self._read(skill, reads, wanted), f"reading {len(wanted)} file(s)")

    async def _read(self, skill: Skill, reads: _Reads, uris: list[str]) -> None:
        # A file changed since approval is asked of its server afresh: a response the
        # connection kept from before the change would not match the new listing.
        changed = set(self._changes()) if skill.kind == "mcp" else set()
        try:
            for uri in uris:
                result = await self.c.read(skill, uri, refresh=uri in changed)
                reads.failed.pop(uri, None)
                if result.verified and result.data is not None:
                    reads.ok[uri] = result.data
                else:
                    reads.failed[uri] = result.message or result.state
                reads.pending.discard(uri)
                if self.skill is skill:
                    self._fill_files()
                    self._refresh_summary()
                    self._update_gate()
        finally:
            reads.pending.difference_update(uris)

    # -- state --------------------------------------------------------------------

    def _refresh_summary(self) -> None:
        skill = self.skill
        if skill is None:
            return
        reads = self._reads_of(skill)
        html = summary_html(skill, self.state, read_count(skill, {u: True for u in reads.ok}))
        seen = self.c.files.get(skill.id, {}).values()
        mismatches = [vf for vf in seen if vf.state in MISMATCHES]
        self.body.setHtml(mismatch_html(mismatches) + html)

    def _refresh_state(self) -> None:
        if self.skill is None:
            return
        self._refresh_summary()
        self._fill_files()
        self._update_gate()

    def _catalog_changed(self, change: CatalogChange) -> None:
        if change.interim or not self.queue:
            return
        skill_id = self.queue[self.index]
        current = self.c.catalog.get(skill_id)
        if current is not self.skill:
            self.show_current()

    def _update_gate(self) -> None:
        skill, state = self.skill, self.state
        # A damaged record is not honoured; a new decision replaces it. Any other problem
        # (the keyring cannot be reached) stops every decision.
        damaged = state is not None and state.damaged
        problem = state.problem if state is not None and not damaged else None
        if skill is None:
            for b in (self.approve_button, self.approve_next_button, self.reject_button):
                b.setEnabled(False)
            self.revoke_button.setEnabled(False)
            self.unread_box.setVisible(False)
            self.despite_box.setVisible(False)
            return
        reads = self._reads_of(skill)
        unapprovable = unapprovable_reason(skill)
        unread = unread_files(skill, reads.ok)
        self.unread_box.setVisible(bool(unread) and unapprovable is None)
        self.despite_box.setVisible(bool(error_problems(skill)) and unapprovable is None)
        self.read_all_button.setEnabled(bool(unread) and skill.loadable)
        self.next_unread_button.setEnabled(bool(unread) and skill.loadable)
        gate = approve_gate(
            skill,
            reads.ok,
            confirm_unread=self.unread_box.isChecked(),
            despite_problems=self.despite_box.isChecked(),
        )
        allowed = gate.allowed and problem is None and state is not None
        why = gate.why
        if problem is not None:
            why = f"Decisions cannot be stored now: {problem.message}"
        elif state is None:
            why = "Reading the keyring…"
        elif damaged and not why:
            why = "The stored decision is damaged: a new decision replaces it."
        self.gate.setText(why)
        self.approve_button.setEnabled(allowed)
        self.approve_next_button.setEnabled(allowed)
        self.reject_button.setEnabled(
            unapprovable is None and problem is None and state is not None
        )
        self.revoke_button.setEnabled(
            state is not None and (state.record is not None or damaged) and problem is None
        )
        self.grants.setEnabled(unapprovable is None and problem is None)

    # -- decisions ----------------------------------------------------------------

    def approve(self, *, then_next: bool = False) -> None:
        skill = self.skill
        if skill is None or not self.approve_button.isEnabled():
            return
        reads = self._reads_of(skill)
        self._spawn(
            self.c.approve(
                skill,
                grant_tools=self.granted_tools(),
                allow_scripts=bool(self.scripts_box and self.scripts_box.isChecked()),
                read=dict(reads.ok),
                despite_problems=self.despite_box.isChecked(),
            ),
            "approving",
        )
        if then_next:
            self.next()

    def reject_skill(self) -> None:
        skill = self.skill
        if skill is None or not self.reject_button.isEnabled():
            return
        reads = self._reads_of(skill)
        reason = self.reason.text()
        self._spawn(self.c.reject(skill, reason=reason, read=dict(reads.ok)), "rejecting")

    def revoke(self) -> None:
        if self.skill is not None and self.revoke_button.isEnabled():
            self._spawn(self.c.revoke(self.skill), "revoking")

    # -- the audit export ---------------------------------------------------------

    def ask_export(self) -> None:
        chosen = ask_path(self)
        if chosen is not None:
            self._spawn(self.export_to(*chosen), "exporting decisions")

    async def export_to(self, path: Path, fmt: str) -> int:
        """Write every stored decision to ``path`` as ``markdown`` or ``csv``."""
        return await export_to(self.c, path, fmt)

    def closeEvent(self, event: Any) -> None:
        self.diffs.closed = True
        try:
            self.c.approvalsChanged.disconnect(self._refresh_state)
            self.c.catalogChanged.disconnect(self._catalog_changed)
        except (RuntimeError, TypeError):
            pass
        super().closeEvent(event)

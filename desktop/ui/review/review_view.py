"""The review: the skill page's Review tab, with the evidence in front of you.

It shows the page's skill: its name, description, origin, problems (errors first) and
requests (each tool with what it allows, its scripts), then every file of its
manifest, each opened in place only once read and verified: a local skill's files are
read at once, a server's when the reviewer asks (Read, Read all files, Next unread
file). What is read is the session's: a file read in the Overview or the Files tab
counts here, and one read here counts there. Scripts are marked as code that would
run on this machine. For a skill changed since its approval, each changed text file
is a coloured diff against the bytes the approval kept in the private cache. Approve
is offered once every file was read and verified, or after the explicit choice to
approve files not read; a skill with errors only after the explicit choice to approve
it despite them. Both choices are recorded.

The queue is the skills waiting for a decision, in the list's order (the sidebar's
*To review* shows them); after a decision the next one is selected in the list and
shown here, the keyboard focus on its summary.

Keys while the review is shown: Alt+N next skill in the queue, Alt+P previous, Alt+G
read the file, Alt+L read all files, Alt+E next unread file, Alt+A (or Ctrl+Return)
approve, Alt+J reject.

Kept as one module: one review widget: its layout at every width, its focus order and
the gate on its decision buttons read the same widgets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
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
from desktop.core.grants import has_scripts, is_script, requested_risks
from desktop.core.identity import is_server_uri
from desktop.core.model import Skill, SkillFile
from desktop.core.review import approve_gate, is_binary, read_count, unread_files
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
    tone,
)
from desktop.ui.review.wrap_check_box import WrapCheckBox
from desktop.ui.widgets.plain_label import PlainLabel

URI_ROLE = Qt.ItemDataRole.UserRole + 1
REMOVED = "removed"
# Narrower than this (px), the summary stands above the files rather than beside them.
SIDE_BY_SIDE = 760


class ReviewView(QWidget):
    """The review of the skill page's skill; ``skillRequested`` asks the window to
    select another skill (the next in the queue)."""

    skillRequested = Signal(str)

    def __init__(
        self,
        controller: CatalogController,
        order: Callable[[list[str]], list[str]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("reviewView")
        self.c = controller
        # Puts skill ids in the list's order (the window's); by name without it.
        self._order = order
        self.skill: Skill | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # Verified bytes of the shown entry's files, by URI: what the panes show. What
        # was read and how it went is the session's (``controller.files``).
        self._bytes: dict[str, bytes] = {}
        self._pending: set[str] = set()
        # Diffs of changed files, made off the GUI thread (see review_diff).
        self.diffs = Diffs(self._spawn, self._diff_ready)
        self._raw: tuple[SkillFile, SkillFile, tuple[str, str]] | None = None
        self._grants_for: tuple[object, ...] = (None, None)
        self._build()
        controller.approvalsChanged.connect(self._refresh_state)
        controller.verificationChanged.connect(self._verification_changed)
        self.show_skill(None)

    # -- layout -------------------------------------------------------------------

    def _button(
        self, text: str, keys: tuple[str, ...], slot: Any, name: str, tip: str = ""
    ) -> QPushButton:
        """A button; its keys act at once (a button's own shortcut clicks it only after
        its press animation), while the review is shown and the button can be pressed."""
        button = QPushButton(text, self)
        if keys:
            action = QAction(f"Review: {name}", self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.triggered.connect(lambda _checked=False: button.isEnabled() and slot())
            self.addAction(action)
            tip = f"{tip} ({' or '.join(keys)})" if tip else ", ".join(keys)
        button.setToolTip(tip)
        button.setAccessibleName(name)
        button.setAutoDefault(False)
        button.setDefault(False)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        top = QHBoxLayout()
        self.position = PlainLabel("", self)
        self.position.setAccessibleName("Place in the review queue")
        self.position.setWordWrap(True)
        self.position.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.prev_button = self._button(
            "◀ Previous",
            ("Alt+P",),
            self.previous,
            "Previous skill",
            "The previous skill to review",
        )
        self.next_button = self._button(
            "Next ▶", ("Alt+N",), self.next, "Next skill", "The next skill to review"
        )
        top.addWidget(self.position, 1)
        top.addWidget(self.prev_button)
        top.addWidget(self.next_button)
        layout.addLayout(top)

        # The skill beside its files, and the one selected (above them when narrow).
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.setObjectName("reviewSplitter")
        self.split.setChildrenCollapsible(False)
        self.body = SafeTextBrowser(self.split)
        self.body.setAccessibleName("The skill under review")
        self.body.setMinimumSize(120, 60)
        files = QWidget(self.split)
        files_layout = QVBoxLayout(files)
        files_layout.setContentsMargins(0, 0, 0, 0)
        files_layout.setSpacing(2)
        self.read_line = QLabel(files)
        self.read_line.setAccessibleName("Files read")
        self.file_list = QListWidget(files)
        self.file_list.setMinimumHeight(40)
        self.file_list.setAccessibleName("Files of the skill")
        self.file_list.currentItemChanged.connect(lambda *_: self._show_file())
        self.read_button = self._button(
            "Read", ("Alt+G",), self.read_selected, "Read", "Read and check this file"
        )
        self.read_all_button = self._button(
            "Read all", ("Alt+L",), self.read_all, "Read all files", "Read and check every file"
        )
        self.next_unread_button = self._button(
            "Next unread",
            ("Alt+E",),
            self.next_unread,
            "Next unread file",
            "Select the next file not read yet and read it",
        )
        buttons = QHBoxLayout()
        buttons.addWidget(self.read_line, 1)
        for b in (self.read_button, self.read_all_button, self.next_unread_button):
            buttons.addWidget(b)
        self.content = SafeTextBrowser(files)
        self.content.setAccessibleName("The selected file, verified")
        self.content.setMinimumHeight(60)
        files_layout.addLayout(buttons)
        files_layout.addWidget(self.file_list)
        files_layout.addWidget(self.content, 1)
        # Both versions of a file with too many changes to diff, side by side.
        self.side_by_side = SideBySide(files)
        files_layout.addWidget(self.side_by_side, 3)
        self.split.addWidget(self.body)
        self.split.addWidget(files)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        layout.addWidget(self.split, 1)

        # The grants scroll when there are many; they never push the decision away.
        self.grants_title = QLabel("Grants (each a separate choice)", self)
        layout.addWidget(self.grants_title)
        self.grants = QWidget(self)
        self.grants.setObjectName("reviewGrants")
        self.grants_layout = QVBoxLayout(self.grants)
        self.grants_layout.setContentsMargins(4, 0, 4, 0)
        self.grants_layout.setSpacing(2)
        self.grants_scroll = QScrollArea(self)
        self.grants_scroll.setWidget(self.grants)
        self.grants_scroll.setWidgetResizable(True)
        self.grants_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.grants_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.grants_scroll)
        self.tool_boxes: list[QCheckBox] = []
        self.tools: list[str] = []
        self.scripts_box: QCheckBox | None = None

        choices = QHBoxLayout()
        self.unread_box = QCheckBox("Approve files I have not read", self)
        self.despite_box = QCheckBox("Approve despite its problems", self)
        for box in (self.unread_box, self.despite_box):
            box.toggled.connect(lambda _on: self._update_gate())
            choices.addWidget(box)
        choices.addStretch(1)
        layout.addLayout(choices)
        self.gate = PlainLabel("", self)
        self.gate.setWordWrap(True)
        self.gate.setAccessibleName("Why Approve is not offered")
        self.gate.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.gate)
        self.reason = QLineEdit(self)
        self.reason.setPlaceholderText("Reason for rejecting (optional)")
        self.reason.setAccessibleName("Reason for rejecting")
        self.reason.setMaxLength(2000)
        layout.addWidget(self.reason)

        row = QHBoxLayout()
        self.approve_button = self._button(
            "Approve",
            ("Alt+A", "Ctrl+Return"),
            self.approve,
            "Approve",
            "Approve with the grants chosen, then the next skill to review",
        )
        self.reject_button = self._button(
            "Reject", ("Alt+J",), self.reject_skill, "Reject", "Reject, then the next skill"
        )
        self.revoke_button = self._button(
            "Revoke", (), self.revoke, "Revoke", "Forget the stored decision"
        )
        self.export_button = self._button(
            "Export decisions…", (), self.ask_export, "Export decisions"
        )
        for b in (self.approve_button, self.reject_button, self.revoke_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(self.export_button)
        layout.addLayout(row)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._fit_grants()
        self._fit_files()
        want = (
            Qt.Orientation.Horizontal if self.width() >= SIDE_BY_SIDE else Qt.Orientation.Vertical
        )
        if self.split.orientation() != want:
            self.split.setOrientation(want)
            total = max(
                self.split.width() if want == Qt.Orientation.Horizontal else self.split.height(),
                2,
            )
            self.split.setSizes([total * 2 // 5, total * 3 // 5])

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.skill is not None:
            self._build_grants(self.skill)  # their tones follow the palette
            self._refresh_state()

    def _tab_order(self) -> None:
        """Tab goes as the eye does: top to bottom, the grants before Approve."""
        chain: list[QWidget] = [
            self.prev_button,
            self.next_button,
            self.body,
            self.read_button,
            self.read_all_button,
            self.next_unread_button,
            self.file_list,
            self.content,
            *self.tool_boxes,
            *([self.scripts_box] if self.scripts_box is not None else []),
            self.unread_box,
            self.despite_box,
            self.reason,
            self.approve_button,
            self.reject_button,
            self.revoke_button,
            self.export_button,
        ]
        for first, second in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(first, second)

    # -- the queue ----------------------------------------------------------------

    def queue(self) -> list[str]:
        """The ids of the skills waiting for a decision, in the list's order."""
        ids = [s.id for s in self.c.needs_decision()]
        if self._order is not None:
            return self._order(ids)
        names = {s.id: s.qualified_name for s in self.c.catalog.skills}
        return sorted(ids, key=lambda i: names.get(i, i))

    def _neighbour(self, step: int) -> str:
        """The skill ``step`` places away in the queue from the shown one; from where it
        would stand when it is not in the queue (decided, or never waiting)."""
        queue = self.queue()
        skill = self.skill
        if not queue or skill is None:
            return ""
        if skill.id in queue:
            at = queue.index(skill.id) + step
            return queue[at] if 0 <= at < len(queue) else ""
        placed = self._order([*queue, skill.id]) if self._order is not None else queue
        where = placed.index(skill.id) if skill.id in placed else len(queue)
        at = where if step > 0 else where - 1
        return queue[at] if 0 <= at < len(queue) else ""

    def _after_decision(self) -> str:
        """Where a decision leaves for: the next skill waiting, else the first one."""
        following = self._neighbour(+1)
        if following:
            return following
        others = [i for i in self.queue() if self.skill is None or i != self.skill.id]
        return others[0] if others else ""

    def next(self) -> None:
        self._go(self._neighbour(+1))

    def previous(self) -> None:
        self._go(self._neighbour(-1))

    def _go(self, skill_id: str) -> None:
        if skill_id:
            self.skillRequested.emit(skill_id)
            self.body.setFocus(Qt.FocusReason.OtherFocusReason)

    def _say_position(self) -> None:
        queue = self.queue()
        skill = self.skill
        if skill is not None and skill.id in queue:
            text = f"Skill {queue.index(skill.id) + 1} of {len(queue)} to review"
        elif queue:
            text = f"Not waiting for a decision; {len(queue)} to review"
        else:
            text = "Nothing waits for a decision"
        self.position.setText(text)
        self.prev_button.setEnabled(bool(self._neighbour(-1)))
        self.next_button.setEnabled(bool(self._neighbour(+1)))

    # -- showing ------------------------------------------------------------------

    def show_skill(self, skill: Skill | None) -> None:
        """Review ``skill`` (the page's); the same entry again keeps what is shown."""
        same = skill is not None and self.skill is not None and skill.id == self.skill.id
        renewed = not same or skill is not self.skill
        self.skill = skill
        if renewed:
            self._bytes = {}
            self._pending = set()
        if not same:
            self.reason.clear()
            self.unread_box.setChecked(False)
            self.despite_box.setChecked(False)
        self._say_position()
        if skill is None:
            self.body.setHtml("<p>Choose a skill in the list to review it here.</p>")
            self.file_list.clear()
            self.content.clear()
            self.side_by_side.clear_pair()
            self.read_line.clear()
            self._build_grants(None)
            self._update_gate()
            return
        if renewed:
            self._build_grants(skill)
        self._fill_files()
        self._refresh_summary()
        if skill.kind_info.folder_on_disk and skill.loadable:
            self.read_all()  # a local skill's files are read at once
        self._update_gate()

    @property
    def state(self) -> ApprovalState | None:
        return self.c.approval_states.get(self.skill.id) if self.skill else None

    def verified(self, skill: Skill) -> set[str]:
        """The files of ``skill`` the session read and verified against this entry."""
        out = set()
        for uri, vf in self.c.files.get(skill.id, {}).items():
            listed = skill.file(uri)
            if vf.ok and listed is not None and vf.expected in (None, listed):
                out.add(uri)
        return out

    def _failed(self, skill: Skill, uri: str) -> str:
        vf = self.c.file_state(skill.id, uri)
        return vf.message or vf.state if vf is not None and not vf.ok else ""

    # -- grants -------------------------------------------------------------------

    def _build_grants(self, skill: Skill | None) -> None:
        while self.grants_layout.count():
            item = self.grants_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.tool_boxes, self.tools, self.scripts_box = [], [], None
        self._grants_for = self._held_key(skill)
        if skill is None:
            self._tab_order()
            return
        held = self.state.record if self.state is not None and self.state.approved else None
        for risk in requested_risks(skill):
            text = f"Grant {visible(risk.name)}: {visible(risk.allows)} ({risk.level_words})"
            box = WrapCheckBox(text.replace("&", "&&"), self.grants)
            box.setAccessibleName(f"Grant {visible(risk.name)}")  # as it reads
            box.setAccessibleDescription(f"{visible(risk.allows)} ({risk.level_words})")
            if risk.powerful:
                self._danger(box)
            box.setChecked(bool(held and risk.name in held.grants.tools))
            self.tool_boxes.append(box)
            self.tools.append(risk.name)
            self.grants_layout.addWidget(box)
        if not self.tools:
            self.grants_layout.addWidget(QLabel("The skill requests no tools.", self.grants))
        if has_scripts(skill):
            self.scripts_box = WrapCheckBox(
                "Allow running the skill's bundled scripts (code that runs on this machine)",
                self.grants,
            )
            self.scripts_box.setAccessibleName("Allow running the skill's bundled scripts")
            self.scripts_box.setAccessibleDescription("Code that runs on this machine")
            self._danger(self.scripts_box)
            self.scripts_box.setChecked(bool(held and held.grants.scripts))
            self.grants_layout.addWidget(self.scripts_box)
        self.grants_layout.addStretch(1)
        self._tab_order()
        self._fit_grants()

    def _fit_grants(self) -> None:
        """The grants as tall as they need, up to a quarter of the review (they scroll
        past it): the decision below them stays in sight."""
        width = max(self.grants_scroll.viewport().width(), 100)
        layout = self.grants_layout
        need = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else 0
        need = max(need, layout.sizeHint().height())
        cap = max(60, self.height() // 4)
        self.grants_scroll.setFixedHeight(min(need + 2, cap))

    def _held_key(self, skill: Skill | None) -> tuple[object, ...]:
        """What the grant boxes were ticked from: the entry and the approval held."""
        state = self.state
        held = state.record if state is not None and state.approved else None
        return (skill, id(held) if held is not None else None)

    def _danger(self, box: QCheckBox) -> None:
        """A grant that lets the skill run code: said in the danger tone of the palette."""
        palette = box.palette()
        shade = tone("danger", self.palette())
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            palette.setColor(group, QPalette.ColorRole.WindowText, QColor(shade))
            palette.setColor(group, QPalette.ColorRole.Text, QColor(shade))
        box.setPalette(palette)

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
        done = self.verified(skill)
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
            elif uri in self._pending:
                mark = "… reading"
            elif uri in done:
                mark = "✓ read"
            elif self._failed(skill, uri):
                mark = "✗ failed"
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
        self.read_line.setText(read_count(skill, dict.fromkeys(done, True)))
        self._fit_files()
        self._show_file()

    def _fit_files(self) -> None:
        """The file list as tall as its rows, up to a fifth of the review (it scrolls past
        that): the file's text below gets the room."""
        rows = max(self.file_list.count(), 1)
        row = self.file_list.sizeHintForRow(0) if self.file_list.count() else 18
        need = rows * max(row, 1) + 2 * self.file_list.frameWidth() + 2
        self.file_list.setFixedHeight(min(need, max(40, self.height() // 5)))

    def _short(self, uri: str) -> str:
        """A server file's URI without the skill's own folder (``skill://x/``)."""
        skill = self.skill
        if skill is not None and is_server_uri(skill.uri):
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
        kind, change = self._changes().get(uri, ("", None))
        script = is_script(uri)
        current = skill.file(uri)
        done = uri in self.verified(skill)
        self.read_button.setEnabled(
            current is not None and not done and uri not in self._pending and skill.loadable
        )
        failed = self._failed(skill, uri)
        if kind == REMOVED and change is not None:
            old = SkillFile(uri, change.old_digest or "", change.old_size or 0)
            data = self.c.approved_copy(self.state, old)
            html = removed_html(old, data, binary=data is not None and is_binary(data))
        elif current is None:
            html = ""
        elif done and uri in self._bytes:
            html = self._read_file_html(current, self._bytes[uri], kind, change, script)
        elif done:
            # Read elsewhere (the Overview, the Files tab): its bytes are fetched again
            # through the same reader (a server's from the cache of verified bytes).
            html = f"<p><code>{esc(uri)}</code> — read and verified; opening it…</p>"
            self.read_uris([uri])
        elif failed and uri not in self._pending:
            html = f"<p><code>{esc(uri)}</code> — <b>not shown</b>: {esc(failed)}</p>"
        else:
            html = not_read_html(current, server=skill.kind_info.third_party, script=script)
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
            self.read_uris([f.uri for f in skill.files if f.uri not in self._bytes])

    def next_unread(self) -> None:
        """Select the next file not read yet (after the selected one) and read it."""
        skill = self.skill
        if skill is None:
            return
        done = self.verified(skill)
        rows = [self.file_list.item(i) for i in range(self.file_list.count())]
        start = self.file_list.currentRow()
        order = list(range(start + 1, len(rows))) + list(range(0, start + 1))
        for i in order:
            uri = str(rows[i].data(URI_ROLE))
            if skill.file(uri) is not None and uri not in done:
                self.file_list.setCurrentRow(i)
                self.read_uris([uri])
                return

    def read_uris(self, uris: list[str]) -> None:
        skill = self.skill
        if skill is None or not skill.loadable:
            return
        wanted = [u for u in uris if u not in self._bytes and u not in self._pending]
        if not wanted:
            return
        self._pending.update(wanted)
        self._fill_files()
        self._spawn(self._read(skill, wanted), f"reading {len(wanted)} file(s)")

    async def _read(self, skill: Skill, uris: list[str]) -> None:
        # A file changed since approval is asked of its server afresh, unless it was
        # read already: a response the connection kept from before the change would not
        # match the new listing.
        changed = (
            set(self._changes()) - self.verified(skill) if skill.kind_info.asks_again else set()
        )
        try:
            for uri in uris:
                result = await self.c.read(skill, uri, refresh=uri in changed)
                if self.skill is not skill:
                    continue  # another entry is shown now: its bytes are not these
                if result.verified and result.data is not None:
                    self._bytes[uri] = result.data
                self._pending.discard(uri)
                self._fill_files()
                self._refresh_summary()
                self._update_gate()
        finally:
            if self.skill is skill:
                self._pending.difference_update(uris)

    async def _verified_bytes(self, skill: Skill, held: dict[str, bytes]) -> dict[str, bytes]:
        """The bytes of every file of ``skill`` the session verified, read again through
        the session's reader where this view does not hold them."""
        out = {}
        for uri in sorted(self.verified(skill)):
            data = held.get(uri)
            if data is None:
                result = await self.c.read(skill, uri)
                data = result.data if result.verified else None
            if data is not None:
                out[uri] = data
        return out

    # -- state --------------------------------------------------------------------

    def _refresh_summary(self) -> None:
        skill = self.skill
        if skill is None:
            return
        done = self.verified(skill)
        html = summary_html(skill, self.state, read_count(skill, dict.fromkeys(done, True)))
        seen = self.c.files.get(skill.id, {}).values()
        mismatches = [vf for vf in seen if vf.state in MISMATCHES]
        self.body.setHtml(mismatch_html(mismatches) + html)

    def _refresh_state(self) -> None:
        if self.skill is None or not self.isVisible():
            return  # shown again when its tab is
        if self._held_key(self.skill) != self._grants_for:
            self._build_grants(self.skill)  # a decision taken or voided: its grants
        self._say_position()
        self._refresh_summary()
        self._fill_files()
        self._update_gate()

    def _verification_changed(self, skill_id: str) -> None:
        """A read anywhere in the window (the Overview, the Files tab, here)."""
        if self.skill is not None and self.skill.id == skill_id and not self._pending:
            self._refresh_state()

    def _update_gate(self) -> None:
        skill, state = self.skill, self.state
        # A damaged record is not honoured; a new decision replaces it. Any other problem
        # (the keyring cannot be reached) stops every decision.
        damaged = state is not None and state.damaged
        problem = state.problem if state is not None and not damaged else None
        if skill is None:
            for b in (self.approve_button, self.reject_button, self.revoke_button):
                b.setEnabled(False)
            for b in (self.read_all_button, self.next_unread_button):
                b.setEnabled(False)
            self.unread_box.setVisible(False)
            self.despite_box.setVisible(False)
            self.gate.setText("")
            return
        done = self.verified(skill)
        unapprovable = unapprovable_reason(skill)
        unread = unread_files(skill, done)
        self.unread_box.setVisible(bool(unread) and unapprovable is None)
        self.despite_box.setVisible(bool(error_problems(skill)) and unapprovable is None)
        self.read_all_button.setEnabled(bool(unread) and skill.loadable)
        self.next_unread_button.setEnabled(bool(unread) and skill.loadable)
        gate = approve_gate(
            skill,
            done,
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
        self.gate.setVisible(bool(why))
        self.approve_button.setEnabled(allowed)
        self.reject_button.setEnabled(
            unapprovable is None and problem is None and state is not None
        )
        self.revoke_button.setEnabled(
            state is not None and (state.record is not None or damaged) and problem is None
        )
        self.grants.setEnabled(unapprovable is None and problem is None)

    # -- decisions ----------------------------------------------------------------

    def approve(self) -> None:
        """Approve the shown skill with the grants chosen; then the next in the queue."""
        skill = self.skill
        if skill is None or not self.approve_button.isEnabled():
            return
        work = self._approve(
            skill,
            dict(self._bytes),
            self.granted_tools(),
            bool(self.scripts_box and self.scripts_box.isChecked()),
            self.despite_box.isChecked(),
        )
        self._spawn(work, "approving")
        self._go(self._after_decision())

    async def _approve(
        self,
        skill: Skill,
        held: dict[str, bytes],
        tools: list[str],
        scripts: bool,
        despite: bool,
    ) -> None:
        read = await self._verified_bytes(skill, held)
        await self.c.approve(
            skill,
            grant_tools=tools,
            allow_scripts=scripts,
            read=read,
            despite_problems=despite,
        )

    def reject_skill(self) -> None:
        """Reject the shown skill (with the reason typed); then the next in the queue."""
        skill = self.skill
        if skill is None or not self.reject_button.isEnabled():
            return
        self._spawn(self._reject(skill, dict(self._bytes), self.reason.text()), "rejecting")
        self._go(self._after_decision())

    async def _reject(self, skill: Skill, held: dict[str, bytes], reason: str) -> None:
        read = await self._verified_bytes(skill, held)
        await self.c.reject(skill, reason=reason, read=read)

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

    def close_review(self) -> None:
        """The window is closing: diffs finishing later are dropped."""
        self.diffs.closed = True

"""One file of a skill, as the Files tab shows it: read, checked against the entry,
then shown as text with line numbers; nothing of it before the check.

The rules are the preview's (:mod:`desktop.ui.page.preview_widget`): bytes that do not
match are not shown, a dynamic skill's bytes are marked unverified, binary is
described, text goes in by pieces within the same limits. A local file is read when
chosen; a server's when asked (Read from server), as nothing is fetched ahead of need.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from desktop.core.freshness import listing_changes
from desktop.core.model import Skill
from desktop.session.content_reader import ReadResult
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.code_view import CodeView
from desktop.ui.page.preview_widget import (
    RAW_LINE,
    TEXT_LIMIT,
    describe_binary,
    fill_plain,
    has_long_line,
    marks_note,
    problem_marks,
    showable,
    verified_head,
)
from desktop.ui.widgets.plain_label import PlainLabel

CHOOSE = "Choose a file above to read it here."


class FileViewWidget(QWidget):
    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fileView")
        self.controller = controller
        self.skill: Skill | None = None
        self.uri = ""
        self.result: ReadResult | None = None
        self._reading: tuple[str, str] | None = None  # (skill id, uri) being read
        self.status = PlainLabel(CHOOSE, self)
        self.status.setObjectName("fileStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setAccessibleName("File status")
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.read_button = QPushButton("Read", self)
        self.read_button.setObjectName("fileRead")
        self.read_button.setVisible(False)
        self.read_button.clicked.connect(lambda _=False: self.read())
        # After bytes that did not match a server's entry: ask for its entry again.
        self.refresh_button = QPushButton("Ask the server again", self)
        self.refresh_button.setObjectName("fileRefresh")
        self.refresh_button.setAccessibleName("Ask the server again for the skill's entry")
        self.refresh_button.setToolTip(
            "The bytes did not match what the server listed: ask it for the skill's "
            "current entry (skills/get), then read the file again against that"
        )
        self.refresh_button.setVisible(False)
        self.refresh_button.clicked.connect(lambda _=False: self.refresh_entry())
        self.note = PlainLabel("", self)
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Problems marked in the file")
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.note.setVisible(False)
        self.text = CodeView(self)
        self.text.setObjectName("fileText")
        self.text.setAccessibleName("File text")
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        top.addWidget(self.status, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.read_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.text, 1)

    # -- what is shown --------------------------------------------------------

    def show_file(self, skill: Skill | None, uri: str = "") -> None:
        """Say what will be read of ``uri``; nothing of it is shown yet."""
        self.skill, self.uri, self.result = skill, uri, None
        self._clear()
        self.refresh_button.setVisible(False)
        if skill is None or not uri:
            self.status.setText(CHOOSE)
            self.read_button.setVisible(False)
            return
        local = not skill.kind_info.runs_code  # read here: nothing is asked of a server
        self.read_button.setText("Read and check again" if local else "Read from server")
        self.read_button.setToolTip(
            "Read the file and check it against what the source listed"
            if local
            else "Ask the server for the file, then check it (nothing is read from a "
            "server before you ask)"
        )
        self.read_button.setVisible(True)
        self.read_button.setEnabled(skill.loadable)
        self.status.setText(self.pending_text())

    def pending_text(self) -> str:
        skill = self.skill
        assert skill is not None
        if not skill.loadable:
            reasons = skill.invalid_reasons
            return f"{skill.qualified_name} cannot be loaded ({skill.state}): {reasons}"
        f = skill.file(self.uri)
        size = f"{f.size:,} bytes" if f is not None else "no size or digest published"
        if not skill.kind_info.runs_code:
            return f"Nothing shown until checked: {self.uri} ({size})."
        return (
            f"Nothing shown until checked. Read from server fetches {self.uri} ({size}) "
            f"from {skill.origin.describe()}."
        )

    def _clear(self) -> None:
        self.text.setPlainText("")
        self.note.setText("")
        self.note.setVisible(False)

    # -- reading ----------------------------------------------------------------

    def read(self) -> None:
        """Read and check the chosen file (a task), when its skill may be read."""
        if self.skill is None or not self.uri:
            return
        if not self.skill.loadable:
            self.status.setText(self.pending_text())
            return
        if self._reading == (self.skill.id, self.uri):
            return  # already on its way
        self.controller.spawn(self.read_now(), f"reading {self.uri}")

    async def read_now(self) -> ReadResult | None:
        skill, uri = self.skill, self.uri
        if skill is None or not uri:
            return None
        self.read_button.setEnabled(False)
        self.status.setText(f"Reading {uri} from {skill.origin.describe()}…")
        self._reading = (skill.id, uri)
        try:
            result = await self.controller.read(skill, uri)
        except asyncio.CancelledError:
            if self.skill is skill and self.uri == uri:
                self.status.setText(f"Cancelled: nothing read of {uri}.")
            raise
        finally:
            if self._reading == (skill.id, uri):
                self._reading = None
            self.read_button.setEnabled(self.skill is not None and self.skill.loadable)
        current = self.skill
        if current is None or current.id != skill.id or self.uri != uri:
            return result  # another file was chosen meanwhile
        if listing_changes([skill], [current]):
            return result  # read against an entry since replaced
        self.result = result
        await self._show(result)
        return result

    async def _show(self, result: ReadResult) -> None:
        self._clear()
        data = showable(result, self.skill, self.status, self.refresh_button)
        if data is None:
            return
        vf = result.verification
        self.status.setText(verified_head(vf, len(data)))
        binary = describe_binary(data)
        if binary is not None:
            self.text.setPlainText(binary)
            return
        text = data[:TEXT_LIMIT].decode("utf-8", "replace")
        if not await fill_plain(self.text, text, lambda: self.result is result):
            return
        if has_long_line(text):
            self.status.setText(
                self.status.text() + f"; lines over {RAW_LINE:,} characters are broken"
            )
        if result.parsed is not None and self.skill is not None:
            marks, levels = problem_marks(text, self.skill.problems)
            self.text.set_marks(marks, levels)
            self.note.setText(marks_note(marks))
            self.note.setVisible(bool(marks))

    def refresh_entry(self) -> None:
        """After a mismatch: ask the server for the skill's current entry, then read the
        file again against it."""
        skill, uri = self.skill, self.uri
        if skill is None or not skill.kind_info.asks_again:
            return

        async def work() -> None:
            fresh = await self.controller.open_uri(skill.origin.label, skill.uri, refresh=True)
            if fresh is None:
                return
            kept = fresh.is_dynamic or fresh.file(uri) is not None
            self.show_file(fresh, uri if kept else "")
            if kept and fresh.loadable:
                await self.read_now()

        self.controller.spawn(work(), "refreshing the entry")

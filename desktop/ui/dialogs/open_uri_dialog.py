"""Open a skill by URI: ask a server for its entry with ``skills/get``.

An empty or partial listing is not proof of absence; a pasted URI is confirmed by the
server before it becomes a skill in the catalog (marked as opened by URI).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)

from desktop.core.states import EntryState
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.widgets.plain_label import PlainLabel


class OpenUriDialog(QDialog):
    skillOpened = Signal(str)

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Open a skill by URI")
        self.server = QComboBox(self)
        self.server.setAccessibleName("Server")
        for spec in controller.specs:
            if spec.kind_info.asks_again and spec.enabled:
                self.server.addItem(f"{spec.label} ({spec.shown_endpoint})", spec.label)
        self.uri = QLineEdit(self)
        self.uri.setAccessibleName("Skill URI")
        self.uri.setPlaceholderText("skill://…/SKILL.md")
        self.message = PlainLabel("", self)
        self.message.setWordWrap(True)
        # Room for a reason of a few lines: a form row does not grow for wrapped text,
        # and two lines were cut at their top and bottom.
        self.message.setMinimumHeight(self.message.fontMetrics().lineSpacing() * 4)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setMinimumWidth(560)
        self.message.setAccessibleName("Open by URI result")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = self.buttons.addButton(
            "&Check with the server", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.open_button.setAccessibleName("Check with the server: ask it for this URI's entry")
        self.open_button.setToolTip(
            "Ask the server for this skill's entry (skills/get); it is added only if the "
            "server confirms it"
        )
        self.open_button.clicked.connect(self.confirm)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("&Server", self.server)
        form.addRow("&URI", self.uri)
        form.addRow(self.message)
        form.addRow(self.buttons)

    def confirm(self) -> None:
        label = self.server.currentData()
        uri = self.uri.text().strip()
        if not label or not uri:
            self.message.setText("Choose a server and paste the URI of a SKILL.md.")
            return
        self.message.setText(f"Asking {label} for {uri}…")
        self.open_button.setEnabled(False)

        async def work() -> None:
            try:
                skill = await self.controller.open_uri(label, uri)
            finally:
                self.open_button.setEnabled(True)
            if skill is None:
                last = self.controller.notifier.last("error")
                self.message.setText(last.text if last else "The server does not have it.")
                return
            state = "" if skill.state is EntryState.LISTED else f" {skill.state.label}."
            self.message.setText(f"Opened {skill.qualified_name}.{state}")
            self.skillOpened.emit(skill.id)

        self.controller.spawn(work(), "opening a skill by URI")

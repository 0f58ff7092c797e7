"""*Server output…*: what a server started here wrote on its stderr, as text.

Its beginning and its end, bounded, with every secret the catalog sent it masked and
control characters made visible (see ``desktop.core.server_output``); the same text as
``skill-catalog sources log``. A server over HTTP runs elsewhere: the dialog says so.
"""

from __future__ import annotations

import time

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import SourceSpec
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.widgets.plain_label import PlainLabel

TIP = (
    "What the server wrote on its standard error since the catalog last started it: "
    "its first and last lines, bounded, with the secrets the catalog sent it masked"
)


class ServerOutputDialog(QDialog):
    def __init__(
        self, spec: SourceSpec, controller: CatalogController, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.spec = spec
        self.controller = controller
        self.setWindowTitle(f"Output of {spec.label}")
        self.resize(820, 560)
        self.summary = PlainLabel("", self)
        self.summary.setWordWrap(True)
        self.summary.setToolTip(TIP)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Server output")
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.reload_button = QPushButton("&Reload", self)
        self.reload_button.setToolTip("Show what the server has written since")
        self.reload_button.clicked.connect(self.reload)
        buttons.addButton(self.reload_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.reload()

    def reload(self) -> None:
        label = self.spec.label
        output = self.controller.server_output(label)
        if output is None:
            self.summary.setText(
                f"{label} is a server over HTTP: it runs elsewhere, and what it writes is "
                "not seen here."
            )
            self.text.setPlainText("")
            self.text.hide()
            return
        self.text.show()
        now = time.strftime("%H:%M:%S")
        if not output:
            self.summary.setText(f"{label} has written nothing on its error output ({now}).")
        else:
            self.summary.setText(
                f"What {label} wrote on its error output since it was started, as of {now} "
                "(its first and last lines; secrets masked). Third-party text, shown as text."
            )
        self.text.setPlainText(visible(output))

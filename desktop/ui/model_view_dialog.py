""" "What the model would see": the registry text a host would hand a model, its length,
and each server's instructions against the 2048-character cut."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop.core.model_view import model_registry
from desktop.core.visible import visible
from desktop.core.words import count
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.plain_label import PlainLabel


class ModelViewDialog(QDialog):
    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("What the model would see")
        self.resize(820, 560)
        self.controller = controller
        self.summary = PlainLabel("", self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Registry length")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Registry text")
        self.servers = PlainLabel("", self)
        self.servers.setWordWrap(True)
        self.servers.setAccessibleName("Server instructions lengths")
        close = QPushButton("Close", self)
        close.clicked.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.servers)
        layout.addWidget(close)
        controller.catalogChanged.connect(self.reload)
        self.reload()

    def reload(self) -> None:
        view = model_registry(self.controller.catalog)
        self.summary.setText(
            f"{count(len(view.lines), 'skill')}, {view.length:,} characters."
            " Server skills are marked "
            "third-party; names and descriptions appear exactly as a host passes them on."
        )
        body = view.text
        if view.warnings:
            body += "\n\n# will not survive intact\n" + "\n".join(view.warnings)
        if view.left_out:
            body += "\n\n# not offered (cannot be loaded)\n" + "\n".join(view.left_out)
        self.text.setPlainText(visible(body))
        lines = [s.describe() for s in view.servers] or ["no servers"]
        self.servers.setText("Server instructions: " + "; ".join(lines))

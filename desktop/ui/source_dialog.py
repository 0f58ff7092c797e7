"""Add or edit a source: a local folder, an MCP server over stdio (a command), or a URL."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from desktop.core.model import SourceSpec
from desktop.core.words import count
from desktop.sources.options import SourceOptionError, source_from_fields
from desktop.ui.plain_label import PlainLabel

KINDS = (
    ("Local folder", "folder"),
    ("MCP server (command, stdio)", "stdio"),
    ("MCP server (URL)", "http"),
)


def spec_from_fields(label: str, kind: str, where: str) -> tuple[SourceSpec | None, str]:
    """A source from the dialog's fields, or (None, why not): the command line's rule."""
    try:
        return source_from_fields(label, kind, where), ""
    except SourceOptionError as exc:
        return None, str(exc)


class SourceDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, spec: SourceSpec | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit source" if spec else "Add source")
        self.setMinimumWidth(560)
        self.kind = QComboBox(self)
        self.kind.setAccessibleName("Kind of source")
        for text, value in KINDS:
            self.kind.addItem(text, value)
        self.label = QLineEdit(self)
        self.label.setAccessibleName("Label")
        self.label.setPlaceholderText("e.g. docs (used in qualified names: docs:refunds)")
        self.where = QLineEdit(self)
        self.where.setAccessibleName("Folder, command or URL")
        self.where.setPlaceholderText(
            "/path/to/skills  |  python -m my_server  |  https://host/mcp"
        )
        browse = QPushButton("Browse…", self)
        browse.setAccessibleName("Choose a folder")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.where, 1)
        row.addWidget(browse)
        self.error = PlainLabel("", self)
        self.error.setWordWrap(True)
        self.error.setAccessibleName("Problem with the source")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("&Kind", self.kind)
        form.addRow("&Label", self.label)
        where_label = QLabel("&Where", self)
        where_label.setBuddy(self.where)
        form.addRow(where_label, row)
        form.addRow(self.error)
        # What this dialog does not edit, and keeps: said, so an edit does not look as if
        # it dropped them.
        self.kept = PlainLabel("", self)
        self.kept.setWordWrap(True)
        if spec is not None and (spec.headers or spec.env):
            parts = [count(len(spec.headers), "header"), count(len(spec.env), "environment value")]
            self.kept.setText(
                f"Kept as they are: {' and '.join(p for p in parts if not p.startswith('0 '))} "
                "(secrets stay in the keyring; sources.json holds the rest)."
            )
            form.addRow(self.kept)
        form.addRow(self.buttons)
        self.result_spec: SourceSpec | None = None
        if spec is not None:
            self.kind.setCurrentIndex(self.kind.findData(spec.transport))
            self.label.setText(spec.label)
            self.where.setText(spec.endpoint)

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Choose a skills folder")
        if chosen:
            self.kind.setCurrentIndex(self.kind.findData("folder"))
            self.where.setText(chosen)

    def _accept(self) -> None:
        spec, why = spec_from_fields(self.label.text(), self.kind.currentData(), self.where.text())
        if spec is None:
            self.error.setText(why)
            return
        self.result_spec = spec
        self.accept()

"""Add or edit a source: a local folder, an MCP server over stdio (a command), a URL,
a git repository (``URL[#REF]``), or a website's index of skills.

The fields follow the kind: a folder has Browse…; a command has its environment values;
a URL has its headers. Values that look secret are moved to the keyring when the
source is saved (as for imported configs); sources.json holds the rest.
"""

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
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from desktop.core.model import SourceSpec
from desktop.sources.config.options import SourceOptionError, parse_pairs, source_from_fields
from desktop.ui.widgets.plain_label import PlainLabel

KINDS = (
    ("Local folder", "folder"),
    ("MCP server (command, stdio)", "stdio"),
    ("MCP server (URL)", "http"),
    ("Git repository", "git"),
    ("Web index (a website's published skills)", "index"),
)

# What the place field holds, by kind: its label and an example.
WHERE = {
    "folder": ("&Folder", "/path/to/skills"),
    "stdio": ("&Command", "python -m my_server --flag value  (the command and its arguments)"),
    "http": ("&URL", "https://host/mcp"),
    "git": ("&Repository", "https://github.com/owner/repo  (add #branch, #tag or #commit)"),
    "index": ("&Website", "https://example.com  (its /.well-known/agent-skills/index.json)"),
}


def spec_from_fields(
    label: str, kind: str, where: str, env: str = "", headers: str = ""
) -> tuple[SourceSpec | None, str]:
    """A source from the dialog's fields, or (None, why not): the command line's rule.

    ``env`` and ``headers`` are the text of their fields, one ``NAME=VALUE`` a line
    (a header may be written ``Name: value``); blank lines are skipped."""
    if kind not in ("folder", "stdio", "http"):  # another kind: its own rule
        from desktop.sources.kinds import spec_from_fields as kind_spec

        try:
            return kind_spec(label, kind, where), ""
        except ValueError as exc:
            return None, str(exc)
    try:
        return source_from_fields(
            label,
            kind,
            where,
            env=parse_pairs(_lines(env), "env") if kind == "stdio" else (),
            headers=parse_pairs(_lines(headers), "header") if kind == "http" else (),
        ), ""
    except SourceOptionError as exc:
        return None, str(exc)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


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
        self.browse = QPushButton("Browse…", self)
        self.browse.setAccessibleName("Browse for a folder")
        self.browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.where, 1)
        row.addWidget(self.browse)
        self.env = QPlainTextEdit(self)
        self.env.setAccessibleName("Environment values")
        self.env.setPlaceholderText("API_KEY=...\nLOG_LEVEL=info")
        self.env.setToolTip(
            "Environment variables the server is started with, one NAME=VALUE a line. "
            "${env:NAME} takes a variable of your environment; a value that looks secret "
            "(a *_TOKEN, *_KEY, a password) is kept in the keyring, not in sources.json."
        )
        self.env.setTabChangesFocus(True)
        self.headers = QPlainTextEdit(self)
        self.headers.setAccessibleName("Headers")
        self.headers.setPlaceholderText("Authorization: Bearer ...\nX-Team: docs")
        self.headers.setToolTip(
            "HTTP headers sent with every request, one Name: value (or NAME=VALUE) a line. "
            "A secret one (Authorization, an API key) is kept in the keyring, not in "
            "sources.json."
        )
        self.headers.setTabChangesFocus(True)
        for edit in (self.env, self.headers):
            edit.setMaximumHeight(90)
        self.error = PlainLabel("", self)
        self.error.setWordWrap(True)
        self.error.setAccessibleName("Problem with the source")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        self.form = form
        form.addRow("&Kind", self.kind)
        form.addRow("&Label", self.label)
        self.where_label = QLabel("&Where", self)
        self.where_label.setBuddy(self.where)
        form.addRow(self.where_label, row)
        self.env_label = QLabel("&Environment", self)
        self.env_label.setBuddy(self.env)
        form.addRow(self.env_label, self.env)
        self.headers_label = QLabel("&Headers", self)
        self.headers_label.setBuddy(self.headers)
        form.addRow(self.headers_label, self.headers)
        self.secrets_note = PlainLabel(
            "Values that look secret are kept in your system's keyring; sources.json "
            "holds the rest.",
            self,
        )
        self.secrets_note.setWordWrap(True)
        form.addRow(self.secrets_note)
        form.addRow(self.error)
        form.addRow(self.buttons)
        self.result_spec: SourceSpec | None = None
        self.kind.currentIndexChanged.connect(self._fit_kind)
        if spec is not None:
            self.kind.setCurrentIndex(self.kind.findData(spec.transport))
            self.label.setText(spec.label)
            self.where.setText(spec.endpoint)
            # Secrets saved before show as their keyring references, never as values.
            self.env.setPlainText("\n".join(f"{n}={v}" for n, v in spec.env))
            self.headers.setPlainText("\n".join(f"{n}: {v}" for n, v in spec.headers))
        self._fit_kind()

    def _fit_kind(self) -> None:
        """Show the fields the chosen kind has, and say what the place field holds."""
        kind = self.kind.currentData()
        text, example = WHERE.get(kind, WHERE["folder"])
        self.where_label.setText(text)
        self.where.setPlaceholderText(example)
        self.browse.setVisible(kind == "folder")
        self.form.setRowVisible(self.env, kind == "stdio")
        self.form.setRowVisible(self.headers, kind == "http")
        self.form.setRowVisible(self.secrets_note, kind in ("stdio", "http"))

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Choose a skills folder")
        if chosen:
            self.kind.setCurrentIndex(self.kind.findData("folder"))
            self.where.setText(chosen)

    def _accept(self) -> None:
        spec, why = spec_from_fields(
            self.label.text(),
            self.kind.currentData(),
            self.where.text(),
            self.env.toPlainText(),
            self.headers.toPlainText(),
        )
        if spec is None:
            self.error.setText(why)
            return
        self.result_spec = spec
        self.accept()

"""Compare two skills: fields, manifests (added, removed, changed files) and, once both
``SKILL.md`` files are verified, a text diff."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import body_diff, field_rows, manifest_diff
from desktop.core.model import Skill
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.markdown_render import escape
from desktop.ui.safe_browser import SafeTextBrowser


class CompareDialog(QDialog):
    def __init__(
        self, controller: CatalogController, chosen: list[Skill], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Compare skills")
        self.resize(1000, 680)
        self.left = QComboBox(self)
        self.left.setAccessibleName("First skill")
        self.right = QComboBox(self)
        self.right.setAccessibleName("Second skill")
        for combo in (self.left, self.right):
            for s in controller.catalog.skills:
                combo.addItem(visible(f"{s.qualified_name} — {s.origin.label}"), s.id)
        ids = [s.id for s in chosen]
        if ids:
            self.left.setCurrentIndex(max(self.left.findData(ids[0]), 0))
        if len(ids) > 1:
            self.right.setCurrentIndex(max(self.right.findData(ids[1]), 0))
        elif ids:
            self._guess_partner(chosen[0])
        self.fetch_button = QPushButton("&Fetch both SKILL.md and diff", self)
        self.fetch_button.setAccessibleName("Fetch and diff")
        self.fetch_button.clicked.connect(self.fetch_and_diff)
        top = QHBoxLayout()
        top.addWidget(self.left, 1)
        top.addWidget(QLabel("against", self))
        top.addWidget(self.right, 1)
        top.addWidget(self.fetch_button)
        self.fields = SafeTextBrowser(self)
        self.fields.setAccessibleName("Fields and files compared")
        self.diff = QPlainTextEdit(self)
        self.diff.setReadOnly(True)
        self.diff.setAccessibleName("SKILL.md diff")
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.fields)
        split.addWidget(self.diff)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(close)
        self.left.currentIndexChanged.connect(self.refresh)
        self.right.currentIndexChanged.connect(self.refresh)
        self.refresh()

    def _guess_partner(self, skill: Skill) -> None:
        for s in self.controller.catalog.skills:
            if s.id != skill.id and s.name.casefold() == skill.name.casefold():
                self.right.setCurrentIndex(self.right.findData(s.id))
                return

    def pair(self) -> tuple[Skill | None, Skill | None]:
        c = self.controller.catalog
        return c.get(self.left.currentData() or ""), c.get(self.right.currentData() or "")

    def refresh(self) -> None:
        a, b = self.pair()
        self.diff.setPlainText(
            "Press “Fetch both SKILL.md and diff”: nothing is diffed until both are verified."
        )
        if a is None or b is None:
            self.fields.setHtml("<p>choose two skills</p>")
            return
        rows = []
        for r in field_rows(a, b):
            style = "" if r.same else " style='background:#fff3cd'"
            rows.append(
                f"<tr{style}><th align='left'>{escape(r.field)}</th><td>{escape(r.left)}</td>"
                f"<td>{escape(r.right)}</td></tr>"
            )
        d = manifest_diff(a, b)
        files = []
        for label, items in (("added", d.added), ("removed", d.removed), ("changed", d.changed)):
            files += [f"<li>{label}: <code>{escape(c.uri)}</code></li>" for c in items]
        html = (
            "<table cellspacing='4' border='0'><tr><th></th>"
            f"<th>{escape(a.qualified_name)}</th><th>{escape(b.qualified_name)}</th></tr>"
            + "".join(rows)
            + "</table>"
            + f"<h3>Files: {escape(d.summary())}</h3><ul>{''.join(files)}</ul>"
        )
        self.fields.setHtml(visible(html))

    def fetch_and_diff(self) -> None:
        self.controller.spawn(self.fetch_now(), "comparing")

    async def fetch_now(self) -> str:
        a, b = self.pair()
        if a is None or b is None:
            return ""
        reader = self.controller.reader
        ra = await self.controller.read(a, reader.skill_md_uri(a))
        rb = await self.controller.read(b, reader.skill_md_uri(b))
        if ra.data is None or rb.data is None:
            bad = [r.verification.message for r in (ra, rb) if r.data is None]
            text = "Not diffed: " + " / ".join(bad)
        else:
            text = body_diff(
                a.qualified_name,
                ra.data.decode("utf-8", "replace"),
                b.qualified_name,
                rb.data.decode("utf-8", "replace"),
            )
            if "dynamic" in (ra.verification.state, rb.verification.state):
                text = "(one side is dynamic: its bytes are unverified)\n" + text
        self.diff.setPlainText(visible(text))
        return text

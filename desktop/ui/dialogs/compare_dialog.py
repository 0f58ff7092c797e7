"""Compare two skills: fields, manifests (added, removed, changed files) and, once both
``SKILL.md`` files are read and checked (as soon as the pair is chosen: choosing it asks
for them; a server's bytes only through the verified reader), a text diff.

Fields that differ are marked "≠" (and shaded); the diff is monospace with line numbers,
each added line starting "+" on green, each removed one "-" on red.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import body_diff, field_rows, manifest_diff
from desktop.core.model import DYNAMIC, Skill
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.code_view import CodeView
from desktop.ui.page.markdown_render import escape
from desktop.ui.page.safe_browser import SafeTextBrowser
from desktop.ui.widgets.status_colors import differs_style


def diff_tints(text: str) -> dict[int, str]:
    """The kind of each line of a unified diff that has one (1-based): added, removed,
    or a hunk's heading; the file headings (``---``, ``+++``) have none."""
    tints = {}
    headings = True  # the diff opens with its two file headings
    for number, line in enumerate(text.split("\n"), start=1):
        if headings and line.startswith(("+++ ", "--- ")):
            continue
        if line.startswith("@@"):
            headings = False
        if line.startswith("+"):
            tints[number] = "added"
        elif line.startswith("-"):
            tints[number] = "removed"
        elif line.startswith("@@"):
            tints[number] = "hunk"
    return tints


READING = "Reading both SKILL.md files and checking them before they are compared…"


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
        self.fetch_button = QPushButton("&Read both again", self)
        self.fetch_button.setToolTip(
            "Read both SKILL.md files again, check them against what their sources listed, "
            "then show what differs"
        )
        self.fetch_button.clicked.connect(self.fetch_and_diff)
        top = QHBoxLayout()
        top.addWidget(self.left, 1)
        top.addWidget(QLabel("against", self))
        top.addWidget(self.right, 1)
        top.addWidget(self.fetch_button)
        self.fields = SafeTextBrowser(self)
        self.fields.setAccessibleName("Fields and files compared")
        self.diff = CodeView(self)
        self.diff.setObjectName("compareDiff")
        self.diff.setAccessibleName("SKILL.md diff")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.fields)
        split.addWidget(self.diff)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        self.close_button = close.button(QDialogButtonBox.StandardButton.Close)
        self.close_button.setAccessibleName("Close the comparison")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(close)
        self.left.currentIndexChanged.connect(self.refresh)
        self.right.currentIndexChanged.connect(self.refresh)
        self.refresh()

    def _guess_partner(self, skill: Skill) -> None:
        """Another skill of the same name, else the first other skill: never itself."""
        others = [s for s in self.controller.catalog.skills if s.id != skill.id]
        for s in others:
            if s.name.casefold() == skill.name.casefold():
                self.right.setCurrentIndex(self.right.findData(s.id))
                return
        if others and self.right.currentData() == skill.id:
            self.right.setCurrentIndex(self.right.findData(others[0].id))

    def pair(self) -> tuple[Skill | None, Skill | None]:
        c = self.controller.catalog
        return c.get(self.left.currentData() or ""), c.get(self.right.currentData() or "")

    def refresh(self) -> None:
        a, b = self.pair()
        self.diff.setPlainText(READING)
        same = a is not None and b is not None and a.id == b.id
        self.fetch_button.setEnabled(a is not None and b is not None and not same)
        if a is None or b is None or same:
            self.fields.setHtml(
                "<p>Choose two different skills to compare.</p>"
                if same
                else "<p>Choose two skills to compare.</p>"
            )
            self.diff.setPlainText("")
            return
        rows = []
        differs = f" style='{differs_style()}'"
        for r in field_rows(a, b):
            style = "" if r.same else differs
            mark = "" if r.same else "≠ "
            rows.append(
                f"<tr{style}><th align='left'>{mark}{escape(r.field)}</th>"
                f"<td>{escape(r.left)}</td><td>{escape(r.right)}</td></tr>"
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
        # The pair is chosen: read both and compare them, as pressing the button does.
        self.fetch_and_diff()

    def fetch_and_diff(self) -> None:
        self.controller.spawn(self.fetch_now(), "comparing")

    async def fetch_now(self) -> str:
        a, b = self.pair()
        if a is None or b is None or a.id == b.id:
            return ""
        reader = self.controller.reader
        ra = await self.controller.read(a, reader.skill_md_uri(a))
        rb = await self.controller.read(b, reader.skill_md_uri(b))
        now = self.pair()
        if (now[0] and now[0].id, now[1] and now[1].id) != (a.id, b.id):
            return ""  # another pair was chosen meanwhile: its own read shows it
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
            if DYNAMIC in (ra.verification.state, rb.verification.state):
                text = "(one side is dynamic: its bytes are unverified)\n" + text
        self.diff.setPlainText(visible(text))
        self.diff.set_tints(diff_tints(text))
        return text

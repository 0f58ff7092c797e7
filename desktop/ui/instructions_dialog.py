"""A server's ``instructions`` in full, with the 2048-character cut marked (P4).

Skill URIs the instructions mention can be confirmed with ``skills/get`` (D7): a
mention is never trusted as a skill until the server's entry for it is fetched.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QPushButton, QVBoxLayout, QWidget

from desktop.core.model import SourceStatus
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.markdown_render import escape
from desktop.ui.model_registry import INSTRUCTIONS_CUT
from desktop.ui.plain_label import PlainLabel
from desktop.ui.safe_browser import SafeTextBrowser

URI_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`()\[\]]+/SKILL\.md")
CUT_MARK = f"✂ clients that keep only the first {INSTRUCTIONS_CUT} characters cut here"


def mentioned_uris(text: str) -> list[str]:
    return list(dict.fromkeys(URI_RE.findall(text)))


def instructions_html(text: str) -> str:
    if not text:
        return "<p><i>The server sends no instructions.</i></p>"
    kept, lost = text[:INSTRUCTIONS_CUT], text[INSTRUCTIONS_CUT:]
    out = [f"<pre style='white-space:pre-wrap'>{escape(kept)}</pre>"]
    if lost:
        out.append(
            f"<p style='color:#b00020'><b>{escape(CUT_MARK)}</b> "
            f"({len(lost):,} more characters)</p>"
        )
        out.append(f"<pre style='white-space:pre-wrap;color:#666'>{escape(lost)}</pre>")
    uris = mentioned_uris(text)
    if uris:
        out.append("<h3>Skill URIs mentioned</h3><ul>")
        for uri in uris:
            out.append(
                f"<li><code>{escape(uri)}</code> — "
                f"<a href='confirm:{quote(uri, safe='')}'>confirm with skills/get</a></li>"
            )
        out.append("</ul>")
    return "".join(out)


class InstructionsDialog(QDialog):
    skillOpened = Signal(str)

    def __init__(
        self, status: SourceStatus, controller: CatalogController, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.status = status
        self.controller = controller
        label = status.origin.label
        self.setWindowTitle(f"Instructions of {label}")
        self.resize(760, 560)
        text = status.instructions or ""
        self.summary = PlainLabel("", self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Instructions length")
        if not text:
            self.summary.setText(f"{label} ({status.origin.describe()}) sends no instructions.")
        else:
            cut = " — longer than the cut" if len(text) > INSTRUCTIONS_CUT else ""
            self.summary.setText(
                f"{label} ({status.origin.describe()}): {len(text):,} characters{cut}. "
                "Third-party text, shown as text."
            )
        self.browser = SafeTextBrowser(self)
        self.browser.setAccessibleName("Instructions")
        self.browser.setHtml(visible(instructions_html(text)))
        self.browser.linkActivated.connect(self._on_link)
        close = QPushButton("Close", self)
        close.clicked.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.browser, 1)
        layout.addWidget(close)

    def _on_link(self, href: str) -> None:
        scheme, _, rest = href.partition(":")
        if scheme == "confirm":
            self.confirm(unquote(rest))

    def confirm(self, uri: str) -> None:
        async def work() -> None:
            skill = await self.controller.open_uri(self.status.origin.label, uri)
            if skill is not None:
                self.skillOpened.emit(skill.id)

        self.controller.spawn(work(), "confirming a skill URI")

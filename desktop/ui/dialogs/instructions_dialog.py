"""A server's ``instructions`` in full, monospace, with the cut many clients apply
marked in the text and their length shown against it as a bar with the numbers.

Skill URIs the instructions mention can be checked with the server (``skills/get``): a
mention is never trusted as a skill until the server's entry for it is fetched.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from desktop.core.entry import INSTRUCTIONS_KEPT as INSTRUCTIONS_CUT
from desktop.core.library import server_line
from desktop.core.model import SourceStatus
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.budget_widget import BudgetBar
from desktop.ui.page.markdown_render import escape
from desktop.ui.page.safe_browser import SafeTextBrowser
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.status_colors import status_brush

URI_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`()\[\]]+/SKILL\.md")
CUT_MARK = f"✂ clients that keep only the first {INSTRUCTIONS_CUT} characters cut here"
CUT_TIP = (
    "The server's instructions (the initialize result's instructions field): many "
    f"clients keep only the first {INSTRUCTIONS_CUT:,} characters and drop the rest"
)
SHOWN_CHARS = 100_000  # rendered at first; the rest on request
URIS_SHOWN = 50
SHOW_ALL = "show-all:"


def mentioned_uris(text: str) -> list[str]:
    return list(dict.fromkeys(URI_RE.findall(text)))


def instructions_html(text: str, shown: int | None = SHOWN_CHARS) -> str:
    """The instructions as text, the cut marked; at most ``shown`` characters of them
    (``None``: all) and the first :data:`URIS_SHOWN` skill URIs they mention.

    A server may send megabytes: rendering one takes Qt about a second per megabyte,
    and a link per URI far longer, so the rest waits for the person to ask for it.
    """
    if not text:
        return "<p><i>The server sends no instructions.</i></p>"
    body = text if shown is None else text[:shown]
    kept, lost = body[:INSTRUCTIONS_CUT], body[INSTRUCTIONS_CUT:]
    out = [f"<pre style='white-space:pre-wrap'>{escape(kept)}</pre>"]
    if len(text) > INSTRUCTIONS_CUT:
        # The mark says it in words; its colour, and the dimmed text past it, are the
        # palette's own tones (lighter ones on a dark palette).
        bad = status_brush("bad").color().name()
        dim = QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText).name()
        out.append(
            f"<p style='color:{bad}'><b>{escape(CUT_MARK)}</b> "
            f"({len(text) - INSTRUCTIONS_CUT:,} more characters)</p>"
        )
        out.append(f"<pre style='white-space:pre-wrap;color:{dim}'>{escape(lost)}</pre>")
    if len(body) < len(text):
        out.append(
            f"<p><b>{len(text) - len(body):,} more characters are not shown here.</b> "
            f"<a href='{SHOW_ALL}'>Show all</a> (Qt takes about a second per megabyte).</p>"
        )
    uris = mentioned_uris(text)
    if uris:
        out.append(f"<h3>Skill URIs mentioned ({len(uris):,})</h3><ul>")
        for uri in uris[:URIS_SHOWN]:
            out.append(
                f"<li><code>{escape(uri)}</code> — "
                f"<a href='confirm:{quote(uri, safe='')}'>check with the server</a></li>"
            )
        out.append("</ul>")
        if len(uris) > URIS_SHOWN:
            out.append(
                f"<p>and {len(uris) - URIS_SHOWN:,} more; any of them can be opened with "
                "File › Open skill by URI.</p>"
            )
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
        self.budget = BudgetBar("Length:", CUT_TIP, self)
        self.budget.set(len(text), INSTRUCTIONS_CUT)
        origin = status.origin
        server = server_line(origin)
        whole = f"{origin.label}: {origin.transport} {origin.shown_endpoint}"
        self.summary.setToolTip(plain_tooltip(f"{whole}\n\n{CUT_TIP}") or CUT_TIP)
        if not text:
            # Said once, in the summary: no empty bar, no pane saying it again.
            self.summary.setText(f"{server} sends no instructions.")
            self.budget.setVisible(False)
        else:
            cut = " — longer than the cut" if len(text) > INSTRUCTIONS_CUT else ""
            part = (
                f" The first {SHOWN_CHARS:,} are shown; Show all, at their end, shows the rest."
                if len(text) > SHOWN_CHARS
                else ""
            )
            self.summary.setText(
                f"{server}: {len(text):,} characters{cut}. Third-party text, shown as text.{part}"
            )
        self.browser = SafeTextBrowser(self)
        self.browser.setAccessibleName("Instructions")
        self.browser.setHtml(visible(instructions_html(text)))
        self.browser.linkActivated.connect(self._on_link)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        self.close_button.setAccessibleName("Close the instructions")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.budget)
        layout.addWidget(self.browser, 1)
        self.browser.setVisible(bool(text))
        if not text:
            layout.addStretch(1)
        layout.addWidget(buttons)

    def _on_link(self, href: str) -> None:
        scheme, _, rest = href.partition(":")
        if href == SHOW_ALL:
            self.show_all()
        elif scheme == "confirm":
            self.confirm(unquote(rest))

    def show_all(self) -> None:
        self.browser.setHtml(visible(instructions_html(self.status.instructions or "", None)))

    def confirm(self, uri: str) -> None:
        async def work() -> None:
            skill = await self.controller.open_uri(self.status.origin.label, uri)
            if skill is not None:
                self.skillOpened.emit(skill.id)

        self.controller.spawn(work(), "confirming a skill URI")

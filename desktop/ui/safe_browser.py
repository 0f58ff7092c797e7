"""A text browser that loads nothing by itself and follows no link (P3).

``QTextBrowser`` would load local ``file:`` images and follow relative links on its
own. Here every resource request answers "nothing", links are never opened by the
view, and a click is announced by :attr:`SafeTextBrowser.linkActivated` for the
owner to decide (open a listed file verified, ask before another server, or show).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget


class SafeTextBrowser(QTextBrowser):
    linkActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor)
        self.requested: list[str] = []  # every resource the document asked for

    def loadResource(self, kind: int, name: QUrl) -> Any:
        """Refuse every resource: images, style sheets, anything remote or local."""
        self.requested.append(name.toString())
        del self.requested[:-100]
        return None

    def setSource(self, *args: Any, **kwargs: Any) -> None:
        """Navigation by the view itself is disabled."""
        return

    def _on_anchor(self, url: QUrl) -> None:
        self.linkActivated.emit(url.toString())

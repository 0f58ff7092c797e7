"""A text browser that loads nothing by itself and follows no link.

``QTextBrowser`` would load local ``file:`` images and follow relative links on its
own. Here every resource request is answered with nothing of the file (an empty
answer Qt does not fall back from), links are never opened by the view, and a click
is announced by :attr:`SafeTextBrowser.linkActivated` for the owner to decide (open
a listed file verified, ask before another server, or show).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from PySide6.QtCore import QByteArray, QUrl, Signal
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget


@cache
def _blank_image() -> QImage:
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(0)
    return image


class SafeTextBrowser(QTextBrowser):
    linkActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor)
        self.requested: list[str] = []  # every resource the document asked for

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        """Refuse every resource: images, style sheets, anything remote or local.

        The answer is never nothing: given nothing, Qt reads a local file of that name
        itself, and given no image it loads a ``file:`` image directly. An image is
        answered with one transparent pixel, anything else with empty bytes."""
        self.requested.append(name.toString() if isinstance(name, QUrl) else name)
        del self.requested[:-100]
        if kind == QTextDocument.ResourceType.ImageResource.value:
            return _blank_image()
        return QByteArray()

    def setSource(self, *args: Any, **kwargs: Any) -> None:
        """Navigation by the view itself is disabled."""
        return

    def _on_anchor(self, url: QUrl) -> None:
        self.linkActivated.emit(url.toString())

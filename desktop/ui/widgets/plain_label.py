"""A label for text that may come from a skill or a server: never read as markup.

``QLabel`` guesses whether its text is HTML (``Qt.mightBeRichText``), and a skill
name like ``<img src=...>`` or a link target in a preview passes that guess: it
would be rendered, not shown. This label is plain text only, with control and
bidirectional formatting characters written as their codes.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from desktop.core.visible import visible


class PlainLabel(QLabel):
    def __init__(self, text: str = "", parent: Any = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(visible(text))

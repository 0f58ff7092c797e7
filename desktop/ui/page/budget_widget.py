"""A length against a host's limit: a bar and the numbers ("1,980 of 2,048
characters"), marked "⚠ over" in words and an icon when past it, the colour only
adding emphasis (a lighter tone on a dark palette)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QSizePolicy, QStyle, QWidget

from desktop.core.visible import visible
from desktop.core.words import budget
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.status_colors import status_brush

OVER = "⚠ over the limit"


class BudgetBar(QWidget):
    """``name``: a bar filled to ``length`` of ``limit``, the numbers beside it."""

    def __init__(self, name: str, tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budget")
        self.name = name
        self.tip = tip
        self.length = 0
        self.limit = 1
        self.label = PlainLabel(visible(name), self)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(self.fontMetrics().height())
        self.bar.setMinimumWidth(80)
        self.bar.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.icon = QLabel(self)
        size = self.fontMetrics().height()
        pixmap = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.icon.setPixmap(pixmap.pixmap(size, size))
        self.icon.setVisible(False)
        self.words = PlainLabel("", self)
        self.words.setObjectName("budgetWords")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.icon)
        layout.addWidget(self.words)

    @property
    def over(self) -> bool:
        return self.length > self.limit

    def set(self, length: int, limit: int) -> None:
        self.length, self.limit = length, max(1, limit)
        self.bar.setRange(0, self.limit)
        self.bar.setValue(min(length, self.limit))
        words = budget(length, limit)
        if self.over:
            words = f"{words} {OVER}"
            color = status_brush("bad").color().name()
            self.words.setStyleSheet(f"color:{color};font-weight:bold")
        else:
            self.words.setStyleSheet("")
        self.words.setText(words)
        self.icon.setVisible(self.over)
        tip = plain_tooltip(f"{self.tip}\n{words}") or ""
        for widget in (self, self.bar, self.words, self.label):
            widget.setToolTip(tip)
        self.setAccessibleName(visible(f"{self.name} {words}"))
        self.bar.setAccessibleName(visible(f"{self.name} {words}"))

    def text(self) -> str:
        return self.words.text()

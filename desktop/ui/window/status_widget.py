"""The status bar's right side: progress while sources are read and files verified, and
a Cancel button."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from desktop.ui.widgets.plain_label import PlainLabel


class ProgressWidget(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = PlainLabel("", self)
        self.label.setAccessibleName("Progress")
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Progress bar")
        self.bar.setMaximumWidth(160)
        self.bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setAccessibleName("Cancel running work")
        self.cancel_button.setMaximumWidth(90)
        self.cancel_button.setToolTip("Cancel reading sources and fetching files (Esc)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.set_busy(False)

    def set_busy(self, busy: bool) -> None:
        self.bar.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            self.bar.setRange(0, 0)  # busy until a step count arrives
        else:
            self.bar.setRange(0, 1)
            self.bar.setValue(0)

    def set_progress(self, done: int, total: int, text: str) -> None:
        if total <= 0:
            self.label.setText(text)
            return
        self.bar.setRange(0, total)
        self.bar.setValue(done)
        self.label.setText(text)

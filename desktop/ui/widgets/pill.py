"""A pill: a state in a word beside its icon, on the skill page's header.

A pill says; it does nothing. It is a label (read by a screen reader as its word and
what the word means, never focused, never pressed), drawn as a rounded outline rather
than a button. An alarm pill (a skill changed since its approval) takes the alarm tone
of :mod:`desktop.ui.widgets.status_colors` for its outline and word, beside a warning
icon: the icon and the word say it without the colour.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QIcon, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QStyle, QWidget

from desktop.core.states import Verification
from desktop.ui.widgets.status_colors import tone_color

ICON = 16
PILL_ICONS = {
    "Approved": QStyle.StandardPixmap.SP_DialogApplyButton,
    "To review": QStyle.StandardPixmap.SP_MessageBoxQuestion,
    "Changed": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "Cannot approve": QStyle.StandardPixmap.SP_DialogCancelButton,
    Verification.VERIFIED.label: QStyle.StandardPixmap.SP_DialogApplyButton,  # "Checked"
    "problems": QStyle.StandardPixmap.SP_MessageBoxCritical,  # it counts errors only
    "Files differ": QStyle.StandardPixmap.SP_MessageBoxCritical,
}


class PillWidget(QFrame):
    """A state in a word with an icon; the tooltip holds the precise meaning."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pill")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # says, does nothing
        self._icon = QIcon()
        self._alarm = False
        self.icon_label = QLabel(self)
        self.icon_label.setFixedSize(ICON, ICON)
        self.word = QLabel(self)
        self.word.setTextFormat(Qt.TextFormat.PlainText)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(7, 2, 9, 2)
        layout.setSpacing(4)
        layout.addWidget(self.icon_label)
        layout.addWidget(self.word)
        self._restyle()

    def text(self) -> str:
        return self.word.text()

    def icon(self) -> QIcon:
        return self._icon

    def iconSize(self) -> QSize:
        return QSize(ICON, ICON)

    def alarm(self) -> bool:
        return self._alarm

    def set(self, word: str, tip: str, icon_key: str = "", *, alarm: bool = False) -> None:
        self.word.setText(word)
        self.setToolTip(tip)
        self.setAccessibleName(f"{word}: {tip}")
        key = icon_key or word
        pixmap = PILL_ICONS.get(key, QStyle.StandardPixmap.SP_MessageBoxInformation)
        self._icon = self.style().standardIcon(pixmap)
        self.icon_label.setPixmap(self._icon.pixmap(ICON, ICON))
        if alarm != self._alarm:
            self._alarm = alarm
            self._restyle()
        self.setVisible(bool(word))

    def _restyle(self) -> None:
        palette = self.palette()
        if self._alarm:
            colour = tone_color("alarm", palette).name()
            border, weight = colour, "bold"
            self.word.setStyleSheet(f"color:{colour};font-weight:bold")
        else:
            border, weight = palette.color(QPalette.ColorRole.Mid).name(), "normal"
            self.word.setStyleSheet("")
        self.setStyleSheet(
            f"QFrame#pill{{border:1px solid {border};border-radius:9px;font-weight:{weight}}}"
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

"""A message bar for lasting states (no keyring, sources that could not be read), with
the one action that helps; and brief notices that show a moment and go.

Passing notices keep their full text in the Activity view (View ▸ Activity).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from desktop.core.states import Severity
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.state_icons import state_icon

NOTICE_MS = 4000

# A lasting message: its rank, text, action's words, tooltip, action and level.
_Message = tuple[int, str, str, str, Callable[[], None], Severity]


class MessageBarWidget(QFrame):
    """One lasting message at a time (the most important first); closed by its ✕."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.icon = QLabel(self)
        self.text = PlainLabel("", self)
        self.text.setWordWrap(True)
        self.text.setAccessibleName("Message")
        self.action = QPushButton("", self)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAccessibleName("Dismiss the message")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self._dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 3, 3)
        layout.addWidget(self.icon)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.action)
        layout.addWidget(self.close_button)
        self.messages: dict[str, _Message] = {}
        self.dismissed: set[tuple[str, str]] = set()
        self._slot: Callable[[], None] | None = None
        self.action.clicked.connect(lambda: self._slot() if self._slot else None)
        self.hide()

    def set_message(
        self,
        key: str,
        text: str,
        action: str,
        slot: Callable[[], None],
        *,
        tip: str = "",
        rank: int = 0,
        level: Severity = Severity.WARNING,
    ) -> None:
        """Show (or keep) the lasting message ``key``, with the icon of its ``level``; a
        dismissed one stays away until its text changes."""
        self.messages[key] = (rank, text, action, tip, slot, level)
        self._show_top()

    def clear_message(self, key: str) -> None:
        self.messages.pop(key, None)
        self._show_top()

    def _shown(self) -> list[tuple[str, _Message]]:
        items = [(k, v) for k, v in self.messages.items() if (k, v[1]) not in self.dismissed]
        return sorted(items, key=lambda kv: -kv[1][0])

    def _show_top(self) -> None:
        items = self._shown()
        if not items:
            self.hide()
            return
        key, (_rank, text, action, tip, slot, level) = items[0]
        self._key = key
        more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
        self.text.setText(text + more)
        self.text.setToolTip(tip)
        self.action.setText(action)
        self.action.setAccessibleName(action)
        self.action.setVisible(bool(action))
        self._slot = slot
        self.icon.setPixmap(state_icon(self.style(), level.icon).pixmap(16, 16))
        self.icon.setToolTip(level.label)
        self.show()

    def _dismiss(self) -> None:
        items = self._shown()
        if items:
            key, value = items[0]
            self.dismissed.add((key, value[1]))
        self._show_top()


class NoticeWidget(PlainLabel):
    """A brief notice over the bottom of the list (``anchor``), away from the page's
    buttons (a review's decision stays in sight), else over the bottom of the window; it
    goes after a few seconds."""

    def __init__(self, parent: QWidget, anchor: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.anchor = anchor  # shown over its bottom when it is shown
        self.setObjectName("notice")
        self.setWordWrap(True)
        self.setAutoFillBackground(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMargin(8)
        self.setAccessibleName("Notice")
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.hide)
        self.hide()

    def notify(self, text: str) -> None:
        parent = self.parentWidget()
        if parent is None:
            return
        self.setText(text)
        anchor = self.anchor
        if anchor is not None and anchor.isVisible() and anchor.width() > 120:
            area = QRect(anchor.mapTo(parent, QPoint(0, 0)), anchor.size())
            width = min(460, area.width() - 24)
            self.setFixedWidth(width)
            self.adjustSize()
            self.move(area.left() + 12, area.bottom() - self.height() - 12)
        else:
            width = min(460, max(parent.width() // 2, 200))
            self.setFixedWidth(width)
            self.adjustSize()
            self.move(parent.width() - width - 16, parent.height() - self.height() - 36)
        self.raise_()
        self.show()
        self.timer.start(NOTICE_MS)

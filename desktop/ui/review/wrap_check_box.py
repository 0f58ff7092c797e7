"""A check box whose text wraps to the width it is given, as a label's does.

A grant's text says what it allows and may be long (a tool's name is the skill's): a
plain ``QCheckBox`` asks for its whole text on one line, which would widen the skill
page past a small window. This one draws its box as the style does and its text
wrapped beside it; the whole of it is pressable, and it keeps its text for assistive
technology and tests.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QStyleOptionFocusRect,
    QStylePainter,
    QWidget,
)

FLAGS = Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop


class WrapCheckBox(QCheckBox):
    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _shown(self) -> str:
        return self.text().replace("&&", "&")

    def _indent(self) -> int:
        style = self.style()
        return style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, self) + (
            style.pixelMetric(QStyle.PixelMetric.PM_CheckBoxLabelSpacing, None, self)
        )

    def _text_height(self, width: int) -> int:
        room = QRect(0, 0, max(width - self._indent(), 20), 100000)
        return self.fontMetrics().boundingRect(room, int(FLAGS), self._shown()).height()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        indicator = self.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorHeight, None, self)
        return max(self._text_height(width), indicator) + 2

    def sizeHint(self) -> QSize:
        width = self._indent() + self.fontMetrics().horizontalAdvance(self._shown()) + 4
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        """Narrow, one line high: the height a width needs is heightForWidth's."""
        width = self._indent() + self.fontMetrics().averageCharWidth() * 12
        return QSize(width, self.heightForWidth(self.sizeHint().width()))

    def hitButton(self, pos: QPoint) -> bool:
        return self.rect().contains(pos)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionButton()
        self.initStyleOption(option)
        box = QStyleOptionButton(option)
        box.rect = self.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, self)
        box.rect.moveTop(max(0, (self.fontMetrics().height() - box.rect.height()) // 2 + 1))
        painter.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorCheckBox, box)
        text = self.rect().adjusted(self._indent(), 1, 0, 0)
        role = self.foregroundRole()
        painter.setPen(self.palette().color(role))
        painter.drawText(text, int(FLAGS), self._shown())
        if self.hasFocus():
            focus = QStyleOptionFocusRect()
            focus.initFrom(self)
            focus.rect = self.fontMetrics().boundingRect(text, int(FLAGS), self._shown())
            focus.rect.adjust(-2, 0, 2, 1)
            painter.drawPrimitive(QStyle.PrimitiveElement.PE_FrameFocusRect, focus)

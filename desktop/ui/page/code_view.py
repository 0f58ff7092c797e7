"""A read-only text view for files: a monospace font, line numbers in a gutter, and
lines marked with a problem (an icon in the gutter, a highlighted line, the problem's
words in a tooltip).

It only shows what it is given: whoever fills it decides what may be shown (the
preview and the Files tab fill it with verified bytes only).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from desktop.core.states import Severity
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.state_icons import state_icon

GUTTER_PAD = 6
# Backgrounds of a diff's lines, translucent so they read on a light or dark palette;
# the line's own + or - says the same without colour.
TINTS = {
    "added": QColor(40, 160, 60, 70),
    "removed": QColor(210, 50, 50, 70),
    "hunk": QColor(60, 110, 220, 55),
}


class LineNumbers(QWidget):
    """The gutter: each line's number, and a warning icon on a marked line."""

    def __init__(self, view: CodeView) -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("lineNumbers")

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.view.paint_gutter(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            self.view.show_mark_tip(event)
            return True
        return super().event(event)


class CodeView(QPlainTextEdit):
    """Monospace, read-only, unwrapped text with line numbers and marked lines."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setUndoRedoEnabled(False)  # filled by pieces; nothing to undo
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.marks: dict[int, str] = {}  # 1-based line: what is wrong there
        self.levels: dict[int, str] = {}  # 1-based line: a Severity, the gravest there
        self.tints: dict[int, str] = {}  # 1-based line: a key of TINTS (a diff's lines)
        self.gutter = LineNumbers(self)
        self.blockCountChanged.connect(self._update_width)
        self.updateRequest.connect(self._update_gutter)
        self._update_width()

    # -- marks --------------------------------------------------------------------

    def set_marks(self, marks: dict[int, str], levels: dict[int, str] | None = None) -> None:
        """Mark these lines (1-based) with these words, each with the icon of its level
        (an error, a warning, a note; warning when not given); replaces the marks before."""
        self.marks = dict(marks)
        self.levels = dict(levels or {})
        self._highlight()
        self._update_width()
        self.gutter.update()

    def set_tints(self, tints: dict[int, str]) -> None:
        """Give these lines (1-based) the background of their kind in :data:`TINTS`."""
        self.tints = dict(tints)
        self._highlight()

    def _highlight(self) -> None:
        selections = []
        doc = self.document()
        for line, kind in sorted(self.tints.items()):
            block = doc.findBlockByNumber(line - 1)
            if block.isValid() and kind in TINTS:
                tint = QTextEdit.ExtraSelection()
                tint.format.setBackground(TINTS[kind])
                tint.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                tint.cursor = QTextCursor(block)
                selections.append(tint)
        color = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        color.setAlpha(60)
        for line in sorted(self.marks):
            block = doc.findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(color)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(block)
            selection.cursor = cursor
            selections.append(selection)
        self.setExtraSelections(selections)

    def setPlainText(self, text: str) -> None:
        self.marks, self.levels, self.tints = {}, {}, {}
        super().setPlainText(text)
        self.setExtraSelections([])

    def line_at(self, y: int) -> int:
        """The 1-based line at viewport height ``y``."""
        return self.cursorForPosition(QPoint(0, y)).blockNumber() + 1

    def show_mark_tip(self, event: QHelpEvent) -> None:
        line = self.line_at(event.pos().y())
        words = self.marks.get(line)
        if words:
            QToolTip.showText(event.globalPos(), plain_tooltip(f"Line {line}: {words}") or "", self)
        else:
            QToolTip.hideText()
            event.ignore()

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            self.show_mark_tip(event)
            return True
        return super().viewportEvent(event)

    # -- the gutter -----------------------------------------------------------------

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        icon = self.fontMetrics().height() + 2 if self.marks else 0
        return GUTTER_PAD * 2 + self.fontMetrics().horizontalAdvance("9") * digits + icon

    def _update_width(self, _count: int = 0) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_width()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        r = self.contentsRect()
        self.gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        painter.setFont(self.font())
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        width = self.gutter.width() - GUTTER_PAD
        style = self.style()
        icons = {level: state_icon(style, level.icon) for level in Severity}
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                if number + 1 in self.marks:
                    icon = icons[Severity(self.levels.get(number + 1, Severity.WARNING))]
                    icon.paint(painter, QRect(2, top + 1, height - 2, height - 2))
                painter.drawText(
                    0, top, width, height, Qt.AlignmentFlag.AlignRight, str(number + 1)
                )
            block = block.next()
            top = bottom
            number += 1
        painter.end()

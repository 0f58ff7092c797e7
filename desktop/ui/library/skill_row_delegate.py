"""Two-line rows of the skill list, painted over the skill model's first column.

Line one: the name in bold (cut in the middle when there is no room, so the ends that
tell nested skills apart stay), an origin chip (a server's is filled, and says
"server"), and the status marks on the right, each an icon with its word. Line two:
the description. The words and marks are :mod:`desktop.core.library`'s; this module
only paints them with the palette's colours, so it follows a light or dark theme. A
skill changed since its approval alarms: its mark (a warning icon and "Changed") in the
alarm tone of :mod:`desktop.ui.widgets.status_colors`, and a bar of that tone along the
row's left edge; the icon and the word say it without the colour.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QHelpEvent, QIcon, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from desktop.core.library import Mark, origin_chip, row_marks
from desktop.core.model import Skill
from desktop.core.states import Approval
from desktop.core.visible import visible
from desktop.ui.library.skill_table_model import ROW_ROLE
from desktop.ui.widgets.read_only_table_model import plain_tooltip
from desktop.ui.widgets.state_icons import pixmap
from desktop.ui.widgets.status_colors import tone_color

PAD = 6
ICON = 16
INDENT = 18
ALARM_BAR = 3  # px: the left edge of a row changed since approval
CHANGED_KEY = str(Approval.CHANGED)


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].removesuffix("\r")


def row_tooltip(skill: Skill, marks: list[Mark]) -> str:
    lines = [skill.name]
    if skill.qualified_name != skill.name:
        lines.append(skill.qualified_name)
    lines.append(skill.origin.describe())
    if skill.kind_info.third_party:
        lines.append("Third-party: written by the server's publisher")
    lines.extend(f"{m.word}: {m.tip}" for m in marks)
    if skill.description:
        lines.append("")
        lines.append(skill.description[:600])
    return "\n".join(lines)


class SkillRowDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Painting is per visible row and frequent (each keystroke in the search box):
        # fonts, metrics and icons are made once per font and style, not per row.
        self._font_key = ""
        self._fonts_cache: tuple[QFont, QFont, QFontMetrics, QFontMetrics, QFontMetrics]
        self._icons: dict[str, QIcon] = {}

    def _fonts(
        self, option: QStyleOptionViewItem
    ) -> tuple[QFont, QFont, QFontMetrics, QFontMetrics, QFontMetrics]:
        key = option.font.key()
        if key != self._font_key:
            bold = QFont(option.font)
            bold.setBold(True)
            small = QFont(option.font)
            small.setPointSizeF(max(small.pointSizeF() * 0.9, 7.0))
            self._fonts_cache = (
                bold,
                small,
                QFontMetrics(option.font),
                QFontMetrics(bold),
                QFontMetrics(small),
            )
            self._font_key = key
            self._icons = {}
        return self._fonts_cache

    def _icon(self, style: QStyle, name: str, widget: QWidget | None) -> QIcon:
        icon = self._icons.get(name)
        if icon is None:
            icon = self._icons[name] = style.standardIcon(pixmap(name), None, widget)
        return icon

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(200, 2 * metrics.lineSpacing() + 3 * PAD)

    def _row(self, index: QModelIndex | QPersistentModelIndex) -> Any:
        return index.data(ROW_ROLE)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row = self._row(index)
        if row is None:
            super().paint(painter, option, index)
            return
        skill, approval, verification, depth = row
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        painter.save()
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)
        palette: QPalette = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        text_color = palette.color(text_role)
        dim = QColor(text_color)
        if not selected:
            dim = palette.color(QPalette.ColorRole.PlaceholderText)
        bold, small, metrics, bold_metrics, small_metrics = self._fonts(opt)
        rect: QRect = opt.rect
        alarm = tone_color("alarm", palette)
        if approval == Approval.CHANGED:
            painter.fillRect(QRect(rect.left(), rect.top(), ALARM_BAR, rect.height()), alarm)
        line = metrics.lineSpacing()
        left = rect.left() + PAD + depth * INDENT
        right = rect.right() - PAD
        top1 = rect.top() + PAD
        top2 = top1 + line + PAD // 2

        # Marks, right to left: icon and word, or the icon alone (the word in the
        # tooltip) when the words would cut the name.
        marks = row_marks(skill, approval, verification)
        name = visible(skill.name)
        words_w = sum(small_metrics.horizontalAdvance(m.word) + ICON + 13 for m in marks)
        name_w_full = bold_metrics.horizontalAdvance(("↳ " if depth else "") + name)
        with_words = right - words_w - left >= name_w_full + 60
        painter.setFont(small)
        x = right
        for mark in reversed(marks):
            if with_words:
                width = small_metrics.horizontalAdvance(mark.word)
                x -= width
                painter.setPen(alarm if mark.key == CHANGED_KEY and not selected else text_color)
                painter.drawText(
                    QRect(x, top1, width, line), Qt.AlignmentFlag.AlignVCenter, mark.word
                )
            x -= ICON + 3
            if style is not None:
                icon = self._icon(style, mark.icon, widget)
                icon.paint(painter, QRect(x, top1 + (line - ICON) // 2, ICON, ICON))
            x -= 10
        marks_left = x

        # The origin chip and the name share what is left of line one.
        chip_text, third_party = origin_chip(skill)
        chip_text = visible(chip_text)
        chip_w = min(small_metrics.horizontalAdvance(chip_text) + 16, 200)
        room = marks_left - left - chip_w - 10
        if room < name_w_full and marks_left - left - 70 > name_w_full:
            chip_w = max(marks_left - left - name_w_full - 14, 60)  # the name first
            room = marks_left - left - chip_w - 10
        prefix = "↳ " if depth else ""
        shown = bold_metrics.elidedText(prefix + name, Qt.TextElideMode.ElideMiddle, max(room, 40))
        painter.setFont(bold)
        painter.setPen(text_color)
        name_w = bold_metrics.horizontalAdvance(shown)
        painter.drawText(QRect(left, top1, name_w + 2, line), Qt.AlignmentFlag.AlignVCenter, shown)
        chip_x = left + name_w + 8
        if chip_x + chip_w <= marks_left:
            chip = QRect(chip_x, top1 + 1, chip_w, line - 2)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            accent = palette.color(QPalette.ColorRole.Link)
            if third_party:
                fill = QColor(accent)
                fill.setAlpha(60 if not selected else 110)
                painter.setBrush(fill)
                painter.setPen(accent if not selected else text_color)
            else:
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.setPen(dim)
            painter.drawRoundedRect(chip, 4, 4)
            painter.setFont(small)
            painter.setPen(text_color if third_party or selected else dim)
            painter.drawText(
                chip.adjusted(5, 0, -5, 0),
                Qt.AlignmentFlag.AlignVCenter,
                small_metrics.elidedText(chip_text, Qt.TextElideMode.ElideMiddle, chip_w - 10),
            )

        # Line two: the description.
        painter.setFont(opt.font)
        painter.setPen(dim)
        description = visible(first_line(skill.description)) or "No description"
        painter.drawText(
            QRect(left, top2, right - left, line),
            Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(description, Qt.TextElideMode.ElideRight, right - left),
        )
        painter.restore()

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        row = self._row(index)
        if event is None or row is None or event.type() != QEvent.Type.ToolTip:
            return super().helpEvent(event, view, option, index)
        skill, approval, verification, _depth = row
        tip = plain_tooltip(row_tooltip(skill, row_marks(skill, approval, verification)))
        QToolTip.showText(event.globalPos(), tip or "", view)
        return True

"""Text that marks trouble stays readable on a light and on a dark palette."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor, QGuiApplication, QPalette

from desktop.ui.widgets.status_colors import differs_style, status_brush


def _luminance(c: QColor) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def _contrast(a: QColor, b: QColor) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_trouble_colours_keep_their_contrast_on_light_and_dark(qtbot: Any) -> None:
    app = QGuiApplication.instance()
    assert isinstance(app, QGuiApplication)
    saved = app.palette()
    try:
        for base, text in (
            ("#ffffff", "#000000"),
            ("#efefef", "#000000"),
            ("#1e1e1e", "#e6e6e6"),
            ("#353535", "#e6e6e6"),
        ):
            palette = QPalette(saved)
            palette.setColor(QPalette.ColorRole.Base, QColor(base))
            palette.setColor(QPalette.ColorRole.Text, QColor(text))
            app.setPalette(palette)
            for kind in ("bad", "warn", "alarm"):
                colour = status_brush(kind).color()
                assert _contrast(colour, QColor(base)) >= 4.5, (base, kind, colour.name())
            background, _, foreground = differs_style().partition(";color:")
            shade = QColor(background.removeprefix("background:"))
            assert _contrast(QColor(foreground), shade) >= 4.5, (base, differs_style())
    finally:
        app.setPalette(saved)

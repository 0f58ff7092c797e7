"""Colours for text that marks trouble, readable on the palette in use.

Status is always said in words or icons as well; these colours only add emphasis. On
a dark palette (a base colour darker than its text) the lighter tones are used. The
*alarm* tone marks a skill changed since its approval: at least 4.5:1 against the
palette's Base and Window colours, light and dark (``tests/ui/test_status_colors.py``).
"""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette

# (on a light palette, on a dark one)
_TONES = {
    "bad": ("#b00020", "#ff7a85"),
    "warn": ("#9a4d00", "#ffb35c"),
    "alarm": ("#a63d00", "#ff9f5a"),
}
# A shaded table row that differs: (background, text), on a light and a dark palette.
_DIFFERS = (("#fff3cd", "#3d2e00"), ("#4a3c12", "#ffe9a8"))
_cache: dict[tuple[int, str], QBrush] = {}


def _dark(palette: QPalette) -> bool:
    return (
        palette.color(QPalette.ColorRole.Base).lightness()
        < palette.color(QPalette.ColorRole.Text).lightness()
    )


def differs_style() -> str:
    """The inline style of a rich-text table row marking a difference."""
    background, text = _DIFFERS[_dark(QGuiApplication.palette())]
    return f"background:{background};color:{text}"


def tone_color(kind: str, palette: QPalette) -> QColor:
    """The colour of ``kind`` (``bad``, ``warn`` or ``alarm``) on ``palette``."""
    return QColor(_TONES[kind][_dark(palette)])


def status_brush(kind: str) -> QBrush:
    """The brush for ``kind`` (``bad``, ``warn`` or ``alarm``) on the application's palette."""
    palette = QGuiApplication.palette()
    key = (palette.cacheKey(), kind)
    brush = _cache.get(key)
    if brush is None:
        brush = QBrush(QColor(_TONES[kind][_dark(palette)]))
        if len(_cache) > 16:
            _cache.clear()
        _cache[key] = brush
    return brush

"""A light and a dark palette for tests of what the window shows on each: the light one
the style's own, the dark one as ``scripts/screenshots.py`` sets it (a desktop's dark
theme, as Fusion shows it)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

DARK = {
    "Window": "#2b2b2b",
    "WindowText": "#e6e6e6",
    "Base": "#1e1e1e",
    "AlternateBase": "#262626",
    "Text": "#e6e6e6",
    "Button": "#353535",
    "ButtonText": "#e6e6e6",
    "ToolTipBase": "#3a3a3a",
    "ToolTipText": "#e6e6e6",
    "PlaceholderText": "#8c8c8c",
    "Highlight": "#3d6fb6",
    "HighlightedText": "#ffffff",
    "Link": "#7ab4ff",
    "LinkVisited": "#b89cff",
    "Mid": "#444444",
    "Dark": "#191919",
    "Light": "#505050",
    "Midlight": "#404040",
    "Shadow": "#000000",
}


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(getattr(QPalette.ColorRole, role), QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return palette


def light_palette(app: QApplication) -> QPalette:
    return app.style().standardPalette()

"""Whether a widget's text shows in the monospace font, on any machine's fonts."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo


def shows_monospace(font: QFont) -> bool:
    """True when ``font`` resolves to a fixed-pitch font, or to the very font the system
    names as its fixed one: where fontconfig maps "monospace" to a font whose metrics
    do not say fixed pitch, that font is still the monospace font this desktop offers."""
    shown = QFontInfo(font)
    if shown.fixedPitch():
        return True
    system = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return shown.family() == system.family()

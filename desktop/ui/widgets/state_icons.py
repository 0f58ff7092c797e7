"""A state's icon: the name :mod:`desktop.core.states` gives it, as the style draws it."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QStyle

PIXMAPS = {
    "dialog-error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "dialog-warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "dialog-information": QStyle.StandardPixmap.SP_MessageBoxInformation,
    "dialog-question": QStyle.StandardPixmap.SP_MessageBoxQuestion,
    "dialog-cancel": QStyle.StandardPixmap.SP_DialogCancelButton,
    "action-unavailable": QStyle.StandardPixmap.SP_DialogNoButton,
    "emblem-ok": QStyle.StandardPixmap.SP_DialogApplyButton,
    "view-refresh": QStyle.StandardPixmap.SP_BrowserReload,
    "media-playback-pause": QStyle.StandardPixmap.SP_MediaPause,
}


def pixmap(name: str) -> QStyle.StandardPixmap:
    """The style's own picture for the icon ``name`` (a plain file's for an unknown one)."""
    return PIXMAPS.get(name, QStyle.StandardPixmap.SP_FileIcon)


def state_icon(style: QStyle, name: str) -> QIcon:
    return style.standardIcon(pixmap(name))

"""The context menu of a skill: Open in editor, Open containing folder, Copy path,
Copy id, Review….

A skill that is files in a folder here opens in the desktop's editor for its SKILL.md
and file manager for its folder (``QDesktopServices``, so the desktop's own choices);
a server's skill has no file here, so those actions are offered disabled, their
tooltip saying why. Copy id copies what ``show`` and ``approve`` accept (a server
skill's id holds its URI).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from desktop.core.model import Skill

SKILL_MD = "SKILL.md"
NO_FILE = "{word}'s skills are not files on this computer"


def skill_md(skill: Skill) -> Path | None:
    """The skill's SKILL.md on this computer (``None`` for a server's skill)."""
    if not skill.kind_info.folder_on_disk or not skill.path:
        return None
    return Path(skill.path) / SKILL_MD


def skill_menu(
    skill: Skill,
    parent: QWidget,
    review: Callable[[str], None],
    failed: Callable[[str], None] | None = None,
) -> QMenu:
    """The menu of ``skill``; ``review`` opens its review, ``failed`` says what could
    not be opened."""
    menu = QMenu(parent)
    menu.setObjectName("skillMenu")
    menu.setAccessibleName(f"Actions for {skill.name}")
    menu.setToolTipsVisible(True)
    path = skill_md(skill)
    why = NO_FILE.format(word=f"A {skill.origin.kind_info.word_for(skill.origin.transport)}")
    why = why[:1].upper() + why[1:]

    def open_url(url: QUrl, what: str) -> None:
        if not QDesktopServices.openUrl(url) and failed is not None:
            failed(f"could not open {what}")

    editor = menu.addAction("Open in editor")
    editor.setObjectName("openInEditor")
    folder = menu.addAction("Open containing folder")
    folder.setObjectName("openFolder")
    copy_path = menu.addAction("Copy path")
    copy_path.setObjectName("copyPath")
    if path is not None:
        editor.setToolTip(f"Open {path} in the program your desktop opens it with")
        editor.triggered.connect(lambda: open_url(QUrl.fromLocalFile(str(path)), str(path)))
        folder.setToolTip(f"Show {path.parent} in your file manager")
        folder.triggered.connect(
            lambda: open_url(QUrl.fromLocalFile(str(path.parent)), str(path.parent))
        )
        copy_path.setToolTip(f"Copy {path}")
        copy_path.triggered.connect(lambda: _copy(str(path)))
    else:
        for action in (editor, folder, copy_path):
            action.setEnabled(False)
            action.setToolTip(f"{why}: Copy id gives its address")
    copy_id = menu.addAction("Copy id")
    copy_id.setObjectName("copyId")
    copy_id.setToolTip(f"Copy {skill.id}, which show, approve and reject accept")
    copy_id.triggered.connect(lambda: _copy(skill.id))
    menu.addSeparator()
    review_action = menu.addAction("Review…")
    review_action.setObjectName("review")
    review_action.setToolTip("Open its Review tab: the evidence, the grants, the decision")
    review_action.triggered.connect(lambda: review(skill.id))
    return menu


def _copy(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)

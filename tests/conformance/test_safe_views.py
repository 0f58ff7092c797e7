"""Every view of third-party text is the safe browser: nothing it shows loads a local
file or a remote address, and no link is followed by the view itself (P3).

The review view, the detail pane, the preview, the server instructions, the
comparison and the trigger tester are opened in the real window on a skill whose
texts carry markup; each rich-text view found in them is checked the same way, and no
module of the window builds a rich-text view other than the safe browser.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QTextEdit
from ui.conftest import folder_spec, wait_idle, write_skill

from desktop.ui.page.safe_browser import SafeTextBrowser

UI = Path(__file__).resolve().parents[2] / "desktop" / "ui"
RICH_VIEWS = {"QTextBrowser", "QTextEdit", "QWebEngineView"}


def _secret_files(tmp_path: Path) -> tuple[Path, Path]:
    """A red image and a page on the local disk, that no view may show."""
    png = tmp_path / "secret.png"
    image = QImage(60, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(png))
    page = tmp_path / "secret.html"
    page.write_text("<p>SECRET PAGE CONTENT</p>", encoding="utf-8")
    return png, page


def _red_pixels(view: QTextBrowser) -> int:
    shot = view.viewport().grab().toImage()
    return sum(
        1
        for x in range(0, shot.width(), 2)
        for y in range(0, shot.height(), 2)
        if (c := shot.pixelColor(x, y)).red() > 200 and c.green() < 60 and c.blue() < 60
    )


def _assert_loads_nothing(view: QTextBrowser, png: Path, page: Path, what: str) -> None:
    assert isinstance(view, SafeTextBrowser), f"{what} is a {type(view).__name__}"
    view.resize(400, 300)
    image = QUrl.fromLocalFile(str(png)).toString()
    link = QUrl.fromLocalFile(str(page)).toString()
    for src in (image, png.name, str(png)):  # absolute, relative, a bare path
        view.document().setMetaInformation(
            QTextDocument.MetaInformation.DocumentUrl,
            QUrl.fromLocalFile(str(png.parent) + "/").toString(),
        )
        view.setHtml(f'<p>x <img src="{src}" width="60" height="40"> <a href="{link}">l</a></p>')
        assert _red_pixels(view) == 0, f"{what} showed the local image {src}"
    view.setSource(QUrl.fromLocalFile(str(page)))
    assert "SECRET PAGE CONTENT" not in view.toPlainText(), f"{what} opened a local page"
    view.setHtml(f'<p><a href="{link}">open</a></p>')
    view.anchorClicked.emit(QUrl(link))  # as a click on the link does
    assert "SECRET PAGE CONTENT" not in view.toPlainText(), f"{what} followed a link"
    assert view.openLinks() is False and view.openExternalLinks() is False, what


def test_the_review_view_loads_nothing_and_follows_no_link(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    png, page = _secret_files(tmp_path)
    folder = tmp_path / "skills"
    write_skill(
        folder,
        "markup",
        "# Markup\n",
        description=f'Look: <img src="{QUrl.fromLocalFile(str(png)).toString()}"> <a href="x">',
    )
    window = make_window([folder_spec(folder)])
    skill = window.controller.catalog.get("local:markup/SKILL.md")
    window.actions_.review(skill.id)
    dialog = window.review
    wait_idle(qtbot, window)  # its files are read (a local skill's at once) and shown
    shown = dialog.body.toPlainText()
    assert "markup" in shown
    assert dialog.body.requested == [] and dialog.content.requested == []
    _assert_loads_nothing(dialog.body, png, page, "the review")
    _assert_loads_nothing(dialog.content, png, page, "the review's file")


def test_every_rich_text_view_of_the_window_and_its_dialogs_is_the_safe_browser(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    png, page = _secret_files(tmp_path)
    folder = tmp_path / "skills"
    write_skill(folder, "alpha", "# Alpha\n\n[local](secret.html)\n")
    write_skill(folder, "beta", "# Beta\n")
    window = make_window([folder_spec(folder)])
    assert window.select_skill("local:alpha/SKILL.md")
    window.preview.fetch()
    wait_idle(qtbot, window)
    window.actions_.review("local:alpha/SKILL.md")
    qtbot.wait(50)
    views: list[tuple[str, Any]] = []
    from PySide6.QtWidgets import QApplication

    for top in QApplication.topLevelWidgets():
        for view in top.findChildren(QTextEdit):
            if isinstance(view, QTextBrowser) or type(view) is QTextEdit:
                views.append((f"{type(top).__name__} {view.accessibleName()!r}", view))
    names = " ".join(n for n, _ in views)
    assert "Rendered preview" in names and "The skill under review" in names, names
    for name, view in views:
        _assert_loads_nothing(view, png, page, name)


def test_no_window_module_builds_a_rich_text_view_of_its_own() -> None:
    """A view added later is the safe browser too: only safe_browser.py subclasses
    QTextBrowser, and no module of the window builds a QTextBrowser, a QTextEdit or a web
    view directly (plain-text views, QPlainTextEdit, render no markup)."""
    found = []
    for path in sorted(UI.glob("*.py")):
        if path.name == "safe_browser.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in RICH_VIEWS:
                    found.append(f"{path.name}:{node.lineno} {name}()")
            elif isinstance(node, ast.ClassDef):
                for base in node.bases:
                    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                    if name in RICH_VIEWS:
                        found.append(f"{path.name}:{node.lineno} class {node.name}({name})")
    assert found == []

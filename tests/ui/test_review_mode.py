"""The review as a mode of the main window: one review, in the skill page's Review tab,
sized with the window (its decision in sight at 900×700), readable on a light and a
dark palette (WCAG contrast computed from the colours it paints), its focus following
the eye and moving on to the next skill after a decision."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

from desktop.ui.review.review_html import contrast
from desktop.ui.review.review_view import URI_ROLE, ReviewView
from tests.helpers.palettes import dark_palette, light_palette

from .conftest import folder_spec, wait_idle, write_skill

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(120)]

OPS = "local:ops/SKILL.md"
# A tool of every level of risk: each is said in its own tone.
TOOLS = "Bash Read Write WebFetch mcp__srv__tool Frobnicate"


@pytest.fixture
def ops_folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "ops", "# Ops\n\nRun scripts/deploy.sh.\n", **{"allowed-tools": TOOLS})
    (root / "ops" / "scripts").mkdir()
    (root / "ops" / "scripts" / "deploy.sh").write_text("#!/bin/sh\necho deploying\n")
    write_skill(root, "notes", "# Notes\n")
    write_skill(root, "Meeting_Summary", "# Minutes\n")  # a name that breaks the rules
    return root


def open_review(window: Any, qtbot: Any, skill_id: str) -> ReviewView:
    window.actions_.review(skill_id)
    view = window.review
    wait_idle(qtbot, window)
    assert view.skill is not None and view.skill.id == skill_id
    return view


def select(view: ReviewView, ending: str) -> None:
    for i in range(view.file_list.count()):
        if str(view.file_list.item(i).data(URI_ROLE)).endswith(ending):
            view.file_list.setCurrentRow(i)
            return
    raise AssertionError(f"no file {ending}")


def in_sight(widget: QWidget) -> bool:
    """Shown whole inside the window's own rectangle, hidden by no parent."""
    window = widget.window()
    top_left = widget.mapTo(window, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    whole = widget.visibleRegion().boundingRect() == widget.rect()
    return widget.isVisible() and window.rect().contains(rect) and whole


@pytest.mark.parametrize("size", [(900, 700), (1920, 1080)])
def test_the_decision_is_in_sight_in_a_small_and_a_large_window(
    secret_service: Any, make_window: Any, ops_folder: Path, qtbot: Any, size: tuple[int, int]
) -> None:
    window = make_window([folder_spec(ops_folder)])
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().width() == size[0], timeout=5000)
    view = open_review(window, qtbot, OPS)
    # The review is part of the window: no second window, and one review however often
    # it is asked for.
    assert not view.isWindow() and view.window() is window
    window.actions_.review("local:notes/SKILL.md")
    window.actions_.review(OPS)
    assert len(window.findChildren(ReviewView)) == 1
    assert [w for w in QApplication.topLevelWidgets() if isinstance(w, ReviewView)] == []
    wait_idle(qtbot, window)
    assert len(view.tool_boxes) == 6
    for button in (view.approve_button, view.reject_button, view.next_button):
        assert in_sight(button), (size, button.accessibleName(), button.geometry())
    assert in_sight(view.prev_button) and in_sight(view.reason)
    assert view.grants_scroll.isVisible() and view.body.height() >= 40


def test_focus_follows_the_eye_and_moves_on_after_a_decision(
    secret_service: Any, make_window: Any, ops_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(ops_folder)])
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    view = open_review(window, qtbot, OPS)
    # It opens on the skill's summary, not on a button of the queue.
    assert QApplication.focusWidget() is view.body
    # The sidebar shows the queue: the list is the skills waiting for a decision.
    assert window.filter_bar.view == "to-review"
    queue = view.queue()
    assert queue == [window.skill_at(window.proxy.index(r, 0)).id for r in range(len(queue))]
    # Tab from the first grant reaches every grant, then the choices, then Approve.
    view.tool_boxes[0].setFocus()
    seen: list[QWidget] = []
    for _ in range(20):
        widget = QApplication.focusWidget()
        assert widget is not None
        seen.append(widget)
        if widget is view.approve_button:
            break
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    assert seen[-1] is view.approve_button
    boxes = [*view.tool_boxes, view.scripts_box]
    assert [w for w in seen if w in boxes] == boxes
    assert seen.index(view.reason) < seen.index(view.approve_button)
    # A decision: the list selects the next skill waiting, the review shows it, and the
    # keyboard is on its summary.
    following = queue[(queue.index(OPS) + 1) % len(queue)]
    view.unread_box.setChecked(True)
    view.despite_box.setChecked(True)
    qtbot.keyClick(view.approve_button, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
    wait_idle(qtbot, window)
    assert window.controller.approval_states[OPS].approved
    current = window.current_skill()
    assert current is not None and current.id == following != OPS
    assert view.skill is current
    assert QApplication.focusWidget() is view.body
    assert OPS not in view.queue()
    assert view.position.text() == f"Skill 1 of {len(queue) - 1} to review"


@pytest.fixture(params=["light", "dark"])
def palette(request: Any, qapp: Any) -> Iterator[QPalette]:
    saved = qapp.palette()
    chosen = light_palette(qapp) if request.param == "light" else dark_palette()
    qapp.setPalette(chosen)
    try:
        yield chosen
    finally:
        qapp.setPalette(saved)


def painted_texts(browser: QTextBrowser) -> list[tuple[str, float]]:
    """Each piece of text the browser shows, with its contrast against what is behind it
    (its own shade, its paragraph's, or the browser's background)."""
    palette = browser.viewport().palette()
    base, ink = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    out = []
    block = browser.document().begin()
    while block.isValid():
        shade = block.blockFormat().background()
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.text().strip():
                fmt = fragment.charFormat()
                fg = fmt.foreground()
                bg = fmt.background()
                colour = fg.color() if fg.style() != Qt.BrushStyle.NoBrush else ink
                if bg.style() != Qt.BrushStyle.NoBrush:
                    behind = bg.color()
                elif shade.style() != Qt.BrushStyle.NoBrush:
                    behind = shade.color()
                else:
                    behind = base
                out.append((fragment.text()[:40], contrast(colour, behind)))
            it += 1
        block = block.next()
    return out


def assert_readable(browser: QTextBrowser, what: str) -> None:
    texts = painted_texts(browser)
    assert texts, what
    low = [(text, round(ratio, 2)) for text, ratio in texts if ratio < 4.5]
    assert low == [], what


def assert_widget_readable(widget: QWidget) -> None:
    palette = widget.palette()
    ink = palette.color(QPalette.ColorRole.WindowText)
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
        ratio = contrast(ink, palette.color(role))
        assert ratio >= 4.5, (widget.accessibleName(), ink.name(), ratio)


def test_every_text_of_the_review_reads_on_a_light_and_a_dark_palette(
    secret_service: Any,
    make_window: Any,
    ops_folder: Path,
    qtbot: Any,
    palette: QPalette,
) -> None:
    window = make_window([folder_spec(ops_folder)])
    view = open_review(window, qtbot, OPS)
    assert view.palette().color(QPalette.ColorRole.Base) == palette.color(QPalette.ColorRole.Base)
    body = view.body.toPlainText()
    for words in ("high risk", "changes files", "network", "a server's tool", "reads files"):
        assert words in body
    assert_readable(view.body, "the summary")
    coloured = {
        QColor(f.charFormat().foreground().color()).name()
        for f in _fragments(view.body)
        if f.charFormat().foreground().style() != Qt.BrushStyle.NoBrush
    }
    assert len(coloured) >= 3  # the risk words are in tones, and each tone reads
    select(view, "deploy.sh")
    assert "Code that would run on this machine" in view.content.toPlainText()
    assert_readable(view.content, "a script")
    for box in [*view.tool_boxes, view.scripts_box]:
        assert box is not None
        assert_widget_readable(box)
    for label in (view.position, view.read_line, view.gate, view.grants_title):
        assert_widget_readable(label)

    meeting = next(s for s in window.controller.catalog.skills if s.name == "Meeting_Summary")
    view = open_review(window, qtbot, meeting.id)
    assert "error" in view.body.toPlainText()
    assert_readable(view.body, "a skill with errors")

    # A change since approval, as a coloured diff.
    view = open_review(window, qtbot, OPS)
    view.unread_box.setChecked(True)
    view.despite_box.setChecked(True)
    view.approve()
    wait_idle(qtbot, window)
    (ops_folder / "ops" / "scripts" / "deploy.sh").write_text("#!/bin/sh\nrm -rf ~/work\n")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    view = open_review(window, qtbot, OPS)
    select(view, "deploy.sh")
    qtbot.waitUntil(lambda: "+rm -rf ~/work" in view.content.toPlainText(), timeout=30000)
    assert_readable(view.content, "a diff")
    assert "Changed since approval" in view.body.toPlainText()
    assert_readable(view.body, "the earlier approval beside the change")


def _fragments(browser: QTextBrowser) -> list[Any]:
    out = []
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().isValid():
                out.append(it.fragment())
            it += 1
        block = block.next()
    return out

"""The tools in the style of the window: a Close button (and Esc) on each, monospace
where the text is what a host compares or hands a model, and lengths shown against
the host's limits with the numbers and a mark when over; a link to a skill's file
opens it in the Files tab, read and checked there."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from helpers.fonts import shows_monospace
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocumentFragment

from desktop.core.host_view import DESCRIPTION_LIMIT, INSTRUCTIONS_CUT
from desktop.core.words import budget
from desktop.ui.dialogs.host_view_dialog import ModelViewDialog
from desktop.ui.dialogs.instructions_dialog import InstructionsDialog
from desktop.ui.dialogs.trigger_tester_dialog import TriggerTesterDialog
from desktop.ui.page.budget_widget import OVER

from .conftest import folder_spec, wait_idle, write_skill
from .test_servers_ui import serve_spec

pytestmark = pytest.mark.slow
LONG = "Use these skills for billing. " * 80  # 2,400 characters, past the cut


def test_budget_words_give_both_numbers_and_how_far_over() -> None:
    assert budget(1980, 2048) == "1,980 of 2,048 characters"
    assert budget(2400, 2048) == "2,400 of 2,048 characters, 352 over"


@pytest.fixture
def window(make_window: Any, tmp_path: Path) -> Any:
    root = tmp_path / "skills"
    write_skill(root, "long-winded", description="Says a lot. " * 100)  # 1,200 characters
    write_skill(
        root,
        "alpha-notes",
        "# Alpha\n\nSee [the guide](references/guide.md).\n",
        metadata={"nimblebrain": {"triggers": ["alpha report"]}},
    )
    (root / "alpha-notes" / "references").mkdir()
    (root / "alpha-notes" / "references" / "guide.md").write_text("# Guide\n\nStep one.\n")
    instructions = tmp_path / "instructions.txt"
    instructions.write_text(LONG)
    spec = serve_spec(root, "srv", "--instructions-file", str(instructions))
    return make_window([folder_spec(root), spec])


def _closes(qtbot: Any, dialog: Any, by_escape: bool = False) -> None:
    assert dialog.isVisible()
    assert dialog.close_button.text().replace("&", "") == "Close"
    if by_escape:
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    else:
        qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


def test_model_view_shows_budgets_against_the_limits_and_closes(window: Any, qtbot: Any) -> None:
    window.actions_.model_view()
    view = window.actions_.dialog
    assert isinstance(view, ModelViewDialog)
    assert shows_monospace(view.text.font())
    # The server's instructions against the cut: a bar, the numbers, marked over.
    (bar,) = view.bars
    assert bar.bar.maximum() == INSTRUCTIONS_CUT and bar.bar.value() == INSTRUCTIONS_CUT
    assert bar.text() == f"{len(LONG):,} of 2,048 characters, {len(LONG) - 2048:,} over {OVER}"
    assert bar.icon.isVisibleTo(view) and "srv instructions" in bar.accessibleName()
    # The description past what hosts keep is marked on its line of the registry.
    lines = view.text.toPlainText().split("\n")
    line = next(i for i, t in enumerate(lines, 1) if t.startswith("- long-winded "))
    assert f"1,200 of {DESCRIPTION_LIMIT:,} characters, 176 over" in view.text.marks[line]
    served = next(i for i, t in enumerate(lines, 1) if t.startswith("- srv:long-winded "))
    assert "176 over" in view.text.marks[served]  # the same folder, served by srv
    assert "2 descriptions longer than the 1,024 characters" in view.note.text()
    other = next(i for i, t in enumerate(lines, 1) if t.startswith("- alpha-notes "))
    assert other not in view.text.marks
    _closes(qtbot, view)


def test_instructions_show_their_length_against_the_cut_and_close(
    window: Any, qtbot: Any, tmp_path: Path
) -> None:
    window.actions_.show_instructions("srv")
    dialog = window.actions_.dialog
    assert isinstance(dialog, InstructionsDialog)
    # The first line names the source and the server's program; the command in full,
    # folders and all, is in its tooltip.
    command = window.sources_model.spec("srv").endpoint
    summary = dialog.summary.text()
    assert summary.startswith("srv (a local process: python")
    assert "-m desktop serve …/skills --instructions-file" in summary
    assert str(tmp_path) not in summary
    tip = QTextDocumentFragment.fromHtml(dialog.summary.toolTip()).toPlainText()
    assert f"srv: stdio {command}" in tip and "instructions field" in tip
    assert dialog.budget.text().startswith(f"{len(LONG):,} of 2,048 characters")
    assert dialog.budget.text().endswith(OVER)
    assert "instructions field" in dialog.budget.toolTip()
    _closes(qtbot, dialog, by_escape=True)


def test_instructions_within_the_cut_are_not_marked(make_window: Any, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "one")
    short = tmp_path / "short.txt"
    short.write_text("Short and sweet.")
    window = make_window([serve_spec(root, "srv", "--instructions-file", str(short))])
    window.actions_.show_instructions("srv")
    dialog = window.actions_.dialog
    assert dialog.budget.text() == "16 of 2,048 characters"
    assert not dialog.budget.over and not dialog.budget.icon.isVisibleTo(dialog)
    assert "cut here" not in dialog.browser.toPlainText()


def test_trigger_tester_is_monospace_and_closes(window: Any, qtbot: Any) -> None:
    window.actions_.trigger_tester()
    tester = window.actions_.dialog
    assert isinstance(tester, TriggerTesterDialog)
    assert shows_monospace(tester.message.font())
    qtbot.keyClicks(tester.message, "the alpha report, please")
    qtbot.keyClick(tester.message, Qt.Key.Key_Return)  # Enter tests; it does not close
    assert tester.isVisible()
    assert tester.summary.text() == "2 skills match"
    assert "trigger alpha report" in tester.results.toPlainText()
    assert "nimblebrain.triggers" in tester.message.toolTip()
    _closes(qtbot, tester, by_escape=True)
    window.actions_.trigger_tester()
    _closes(qtbot, window.actions_.dialog)


def test_a_file_link_in_details_opens_the_files_tab_verified(window: Any, qtbot: Any) -> None:
    skill = next(
        s for s in window.controller.catalog.skills if s.name == "alpha-notes" and s.kind == "local"
    )
    window.select_skill(skill.id)
    wait_idle(qtbot, window)
    window.tabs.setCurrentWidget(window.detail)
    assert "references/guide.md" in window.detail.text()
    window.detail.browser.linkActivated.emit("file:" + quote("references/guide.md", safe=""))
    wait_idle(qtbot, window)
    files = window.page.file_view
    assert window.tabs.currentWidget() is window.page.files_tab
    assert window.page.files.currentItem().text(0) == "guide.md"
    assert files.uri == "references/guide.md"
    assert "Checked: matches what the source listed" in files.status.text()
    assert "Step one." in files.text.toPlainText()
    # The Overview's link to the same file goes there too; an outside one is not followed.
    window.tabs.setCurrentWidget(window.preview)
    window.preview.follow_link("https://example.com/x")
    assert window.tabs.currentWidget() is window.preview
    assert "Link not opened" in window.preview.link_note.text()


def test_a_file_changed_on_disk_is_not_shown_from_a_link(
    window: Any, qtbot: Any, tmp_path: Path
) -> None:
    skill = next(
        s for s in window.controller.catalog.skills if s.name == "alpha-notes" and s.kind == "local"
    )
    window.select_skill(skill.id)
    wait_idle(qtbot, window)
    guide = tmp_path / "skills" / "alpha-notes" / "references" / "guide.md"
    guide.write_text("# Guide\n\nInjected after the listing.\n")
    window.tabs.setCurrentWidget(window.preview)
    window.preview.follow_link("references/guide.md")
    wait_idle(qtbot, window)
    files = window.page.file_view
    assert window.tabs.currentWidget() is window.page.files_tab
    assert files.status.text().startswith("Not shown:")
    assert "Injected" not in files.text.toPlainText()

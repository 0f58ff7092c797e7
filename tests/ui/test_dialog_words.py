"""The smaller dialogs say what they model, once, in plain words: the instructions of a
server that sends none, the trigger tester when nothing matches, the model view's
listing budget, and Open by URI's button."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from desktop.core.host_view import LISTING_BUDGET, model_registry
from desktop.core.words import budget
from desktop.ui.dialogs.host_view_dialog import ModelViewDialog
from desktop.ui.dialogs.instructions_dialog import InstructionsDialog
from desktop.ui.dialogs.trigger_tester_dialog import TriggerTesterDialog

from .conftest import folder_spec, write_skill
from .test_servers_ui import serve_spec


def _shown_text(dialog: QWidget) -> str:
    parts = []
    for widget in dialog.findChildren(QWidget):
        if not widget.isVisible():
            continue
        if isinstance(widget, QLabel):
            parts.append(widget.text())
        elif hasattr(widget, "toPlainText"):
            parts.append(widget.toPlainText())
    return "\n".join(parts)


def test_a_server_without_instructions_is_said_so_once(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    status = window.controller.catalog.sources[0]
    dialog = InstructionsDialog(status, window.controller)
    qtbot.addWidget(dialog)
    dialog.resize(760, 580)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert _shown_text(dialog).lower().count("no instructions") == 1
    assert not dialog.budget.isVisible() and not dialog.browser.isVisible()


def test_the_trigger_tester_says_what_it_models_when_nothing_matches(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    tester = TriggerTesterDialog(window.controller)
    qtbot.addWidget(tester)
    tester.show()
    assert not tester.note.isVisible()  # nothing typed: nothing to explain
    tester.message.setText("deploy my app to azure")
    assert tester.summary.text() == "0 skills match"
    assert tester.note.isVisible()
    assert "choose skills by reading their descriptions" in tester.note.text()
    assert "only matches the trigger phrases" in tester.note.text()
    tester.message.setText("send the alpha report")  # alpha-notes declares this trigger
    assert tester.summary.text() == "1 skill match" and not tester.note.isVisible()


def test_the_model_view_shows_the_listing_budget_and_when_it_is_over(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "many"
    for i in range(40):
        write_skill(root, f"helper-{i:02}", description="Helps with a task. " * 12)
    window = make_window([folder_spec(root, "many")])
    dialog = ModelViewDialog(window.controller)
    qtbot.addWidget(dialog)
    dialog.show()
    length = model_registry(window.controller.catalog).length
    assert length > LISTING_BUDGET
    assert dialog.listing.isVisible()
    assert dialog.listing.text().startswith(budget(length, LISTING_BUDGET))
    assert dialog.listing.over and "over the limit" in dialog.listing.text()
    assert "left out" in dialog.listing.toolTip()


def test_the_model_view_of_a_few_skills_is_within_the_budget(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder), serve_spec(skills_folder, "srv")])
    dialog = ModelViewDialog(window.controller)
    qtbot.addWidget(dialog)
    length = model_registry(window.controller.catalog).length
    assert dialog.listing.text() == budget(length, LISTING_BUDGET)
    assert not dialog.listing.over
    # A server that sends no instructions is said so, with no empty bar beside it.
    assert "srv: no instructions" in dialog.servers.text() and dialog.bars == []

"""The Selection lab: rankings per strategy as a prompt is typed, a draft description
moving a skill's rank, and what a prompt sharing no word says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import folder_spec

SKILLS = {
    "pdf": "Read, fill in and merge PDF documents: fill PDF forms, split pages.",
    "pptx": "Create and edit PowerPoint presentations: slide decks and speaker notes.",
    "xlsx": "Work with Excel spreadsheets: formulas, charts and pivot tables.",
    "docx": "Create and edit Word documents with tracked changes.",
}


@pytest.fixture
def lab(make_window: Any, qtbot: Any, tmp_path: Path) -> Any:
    root = tmp_path / "skills"
    for name, description in SKILLS.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\nbody\n"
        )
    window = make_window([folder_spec(root, "mine")])
    window.actions_.selection_action.trigger()
    dialog = window.actions_.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.window_ = window
    return dialog


def texts(view: Any) -> list[str]:
    return [view.item(i).text() for i in range(view.count())]


def test_typing_a_prompt_ranks_under_each_strategy(lab: Any, qtbot: Any) -> None:
    qtbot.keyClicks(lab.prompt, "fill in a PDF form")
    assert texts(lab.columns["bm25"])[0].startswith("1. pdf ")
    assert texts(lab.columns["listing"])[0].startswith("1. pdf ")
    assert texts(lab.columns["triggers"]) == ["no skill"]
    assert "Claude Code at 200K context" in lab.note.text()
    # Activating a pick selects the skill in the window.
    lab.columns["bm25"].itemActivated.emit(lab.columns["bm25"].item(0))
    assert lab.window_.current_skill().name == "pdf"


def test_a_draft_description_moves_the_rank(lab: Any, qtbot: Any) -> None:
    lab.prompt.setText("make a slide deck")
    assert texts(lab.columns["bm25"])[0].startswith("1. pptx ")
    lab.skill_box.setCurrentIndex(lab.skill_box.findText("docx"))
    assert "tracked changes" in lab.draft.toPlainText()  # a scratch copy to edit
    lab.draft.setPlainText("Slide decks: make a slide deck, slide by slide, deck after deck.")
    assert texts(lab.columns["bm25"])[0].startswith("1. docx (draft) ")
    lab.skill_box.setCurrentIndex(0)  # no draft: the skills as they are
    assert texts(lab.columns["bm25"])[0].startswith("1. pptx ")


def test_a_prompt_sharing_no_word_says_why_nothing_is_picked(lab: Any) -> None:
    lab.prompt.setText("deploy my app to azure")
    assert texts(lab.columns["bm25"]) == ["no skill"]
    assert "hosts choose by description" in lab.note.text()
    lab.host.setCurrentIndex(lab.host.findData("codex"))
    assert "Codex: no listing budget is known" in lab.note.text()

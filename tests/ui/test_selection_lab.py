"""The Selection lab: the Tools menu's entry opens it; a prompt ranks the skills per
strategy; editing a scratch copy of a description moves that skill's rank; a ranked
skill opens on the page; nothing edited is saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.ui.dialogs.selection_lab_dialog import SelectionLabDialog
from tests.selection.anthropic_like import SKILLS

from .conftest import folder_spec, write_skill

pytestmark = pytest.mark.slow


@pytest.fixture
def window(make_window: Any, tmp_path: Path) -> Any:
    root = tmp_path / "skills"
    for name, description in SKILLS.items():
        write_skill(root, name, description=description)
    write_skill(
        root,
        "paged",
        description="Pages people.",
        metadata={"nimblebrain.triggers": "slide deck"},
    )
    return make_window([folder_spec(root)])


def texts(view: Any) -> list[str]:
    return [view.item(i).text() for i in range(view.count())]


def test_the_menu_entry_opens_the_lab_and_a_prompt_ranks_each_strategy(
    window: Any, qtbot: Any
) -> None:
    assert window.actions_.triggers_action.text() == "&Selection lab…"
    window.actions_.triggers_action.trigger()
    lab = window.actions_.dialog
    assert isinstance(lab, SelectionLabDialog)
    assert lab.summary.text() == "Type a prompt to rank the skills."
    qtbot.keyClicks(lab.prompt, "make a slide deck")
    assert texts(lab.lists["bm25"])[0].startswith("1. pptx")
    assert texts(lab.lists["triggers"])[0].startswith("1. paged")
    assert "trigger 'slide deck'" in texts(lab.lists["triggers"])[0]
    assert texts(lab.lists["listing"])[0].startswith("1. pptx")
    lab.prompt.setText("zzzz")
    assert texts(lab.lists["bm25"]) == ["no skill matches"]
    lab.grab().save("/tmp/selection_lab_empty.png")


def test_editing_the_scratch_description_moves_the_rank(window: Any, qtbot: Any) -> None:
    window.actions_.selection_lab()
    lab = window.actions_.dialog
    lab.resize(900, 700)
    lab.skill.setCurrentIndex(lab.skill.findText("algorithmic-art"))
    description = lab.scratch.toPlainText()
    assert description.startswith("Create generative algorithmic art")
    lab.prompt.setText("make a slide deck")
    assert lab.summary.text() == "algorithmic-art is not in the top 10 of any strategy"
    lab.scratch.setPlainText("Slide deck maker: make a slide deck of generative art slides.")
    assert texts(lab.lists["bm25"])[0].startswith("1. algorithmic-art")
    assert lab.lists["bm25"].item(0).font().bold()
    assert lab.summary.text().startswith("algorithmic-art ranks Words (BM25): #1")
    lab.grab().save("/tmp/selection_lab.png")
    qtbot.mouseClick(lab.reset, Qt.MouseButton.LeftButton)
    assert lab.scratch.toPlainText() == description
    assert texts(lab.lists["bm25"])[0].startswith("1. pptx")
    skill = next(s for s in window.controller.catalog.skills if s.name == "algorithmic-art")
    assert skill.description == description  # nothing saved
    with qtbot.waitSignal(lab.skillSelected) as chosen:
        lab.lists["bm25"].itemActivated.emit(lab.lists["bm25"].item(0))
    assert chosen.args[0].endswith("pptx/SKILL.md")


def test_the_hosts_tab_says_per_host_whether_the_skill_loads_and_how_it_is_listed(
    window: Any, qtbot: Any, tmp_path: Path
) -> None:
    skill = next(s for s in window.controller.catalog.skills if s.name == "pdf")
    window.select_skill(skill.id)
    page = window.page
    page.tabs.setCurrentIndex(page.hosts_index)
    assert page.tabs.tabText(page.hosts_index) == "Hosts"
    table = page.hosts.table
    rows = {
        table.topLevelItem(i).text(0): [table.topLevelItem(i).text(c) for c in range(1, 4)]
        for i in range(table.topLevelItemCount())
    }
    assert rows["Claude Code"][:2] == ["Loads", "Listed in full"]
    assert rows["Codex"][0] == "Loads"
    assert rows["Cursor"][0] == "Unknown"
    assert "source: github.com/openai/codex" in table.topLevelItem(1).toolTip(0)
    assert page.hosts.budget.text().startswith(
        "Claude Code at 200K context: about 8,000 characters for skill listings; these 9 skills"
    )
    window.resize(900, 700)
    window.grab().save("/tmp/hosts_tab.png")

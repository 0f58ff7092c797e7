"""The skill list: two-line rows, nested skills under their parent, the table on
demand with the selection kept, and empty states that say why and offer an action."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.ui.library.skill_row_delegate import row_tooltip
from desktop.ui.library.skill_table_model import ROW_ROLE

from .conftest import click_sidebar, folder_spec, wait_idle, write_skill


def _list_names(window: Any) -> list[str]:
    proxy = window.proxy
    return [proxy.index(r, 0).data(ROW_ROLE)[0].name for r in range(proxy.rowCount())]


def test_rows_are_two_lines_and_nested_skills_follow_their_parent(
    make_window: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    parent = write_skill(root, "release-notes")
    write_skill(parent, "changelog-format")
    write_skill(root, "alpha")
    write_skill(root, "zeta")
    window = make_window([folder_spec(root)])
    assert window.skill_list.currentWidget() is window.list
    assert _list_names(window) == ["alpha", "release-notes", "changelog-format", "zeta"]
    depths = [window.proxy.index(r, 0).data(ROW_ROLE)[3] for r in range(4)]
    assert depths == [0, 0, 1, 0]
    line = window.list.fontMetrics().lineSpacing()
    assert window.list.sizeHintForRow(0) >= 2 * line
    # The whole name and where it comes from are in the row's tooltip.
    skill = window.controller.catalog.skills[0]
    tip = row_tooltip(skill, [])
    assert skill.name in tip and "local (folder " in tip


def test_screen_readers_hear_what_the_list_and_the_table_hold(
    make_window: Any, skills_folder: Path
) -> None:
    from PySide6.QtGui import QAccessible

    window = make_window([folder_spec(skills_folder)])
    for view, name in ((window.list, "Skills"), (window.table, "Skills (table)")):
        face = QAccessible.queryAccessibleInterface(view)
        assert face.text(QAccessible.Text.Name) == name
        assert face.text(QAccessible.Text.Description).startswith("The skills the filters show")


def test_the_table_is_an_option_and_keeps_the_selection(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill("local:beta-tools/SKILL.md")
    window.actions_.table_action.setChecked(True)
    assert window.skill_list.currentWidget() is window.table
    assert window.current_skill().name == "beta-tools"
    window.actions_.table_action.setChecked(False)
    assert window.skill_list.currentWidget() is window.list
    assert window.current_skill().name == "beta-tools"


def test_a_filter_that_matches_nothing_says_so_and_clears(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    window.filter_bar.text.setText("no-such-thing")
    empty = window.skill_list.empty
    assert window.skill_list.currentWidget() is empty
    assert empty.title.text() == "No skills match 'no-such-thing'"
    assert empty.button.text() == "Clear filters" and empty.button.isVisibleTo(window)
    qtbot.mouseClick(empty.button, Qt.MouseButton.LeftButton)
    assert window.filter_bar.text.text() == ""
    assert window.skill_list.currentWidget() is window.list
    assert window.proxy.rowCount() == 3


def test_an_empty_folder_and_a_failed_source_say_what_to_do(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    empty_folder = tmp_path / "nothing-here"
    empty_folder.mkdir()
    window = make_window(
        [
            folder_spec(skills_folder),
            folder_spec(empty_folder, "drafts"),
            folder_spec(tmp_path / "missing", "later"),
        ]
    )
    empty = window.skill_list.empty
    click_sidebar(qtbot, window, window.sidebar.source_items["drafts"])
    assert empty.title.text() == "This folder holds no skills"
    assert empty.button.text() == "What a skill folder looks like"
    click_sidebar(qtbot, window, window.sidebar.source_items["later"])
    assert empty.title.text() == "later could not be read"
    assert empty.button.text() == "Retry"
    write_skill(tmp_path / "missing", "arrived")
    qtbot.mouseClick(empty.button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert window.skill_list.currentWidget() is window.list
    assert _list_names(window) == ["arrived"]


def test_no_sources_at_all_offers_to_add_one(make_window: Any, qtbot: Any) -> None:
    window = make_window([])
    empty = window.skill_list.empty
    assert window.skill_list.currentWidget() is empty
    assert empty.title.text() == "No sources yet"
    qtbot.mouseClick(empty.button, Qt.MouseButton.LeftButton)
    from desktop.ui.sources.source_dialog import SourceDialog

    assert isinstance(window.actions_.dialog, SourceDialog)
    window.actions_.dialog.reject()


def test_filters_show_as_chips_that_remove_them(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    fb = window.filter_bar
    assert not fb.chips.isVisibleTo(window)
    click_sidebar(qtbot, window, window.sidebar.source_items["local"])
    fb.strategy.setCurrentIndex(fb.strategy.findData("always"))
    assert fb.chip_texts() == ["local", "loads always"]
    assert _list_names(window) == ["alpha-notes"]
    chip = fb.chips.findChild(type(fb.filters_button), "chip-strategy")
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert fb.chip_texts() == ["local"]
    assert len(_list_names(window)) == 3
    # The Filters menu offers each choice in its group.
    fb._fill_menu()
    texts = [a.text() for a in fb.filters_menu.actions()]
    assert "Review" in texts and "To review" in texts and "Clear filters" in texts


def _choose(window: Any, text: str) -> None:
    """Choose ``text`` in the Filters menu, as a click on it does."""
    fb = window.filter_bar
    fb._fill_menu()
    [action] = [a for a in fb.filters_menu.actions() if a.text() == text]
    action.trigger()


@pytest.mark.keyring
def test_filters_of_different_kinds_apply_together_and_each_chip_removes_its_own(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any, approval_service: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    for name in ("alpha-notes", "beta-tools"):
        approval_service.store.approve(window.controller.catalog.get(f"local:{name}/SKILL.md"))
    window.actions_.refresh()
    wait_idle(qtbot, window)
    for name in ("beta-tools", "gamma-release"):  # read and checked: the bytes match
        assert window.select_skill(f"local:{name}/SKILL.md")
        window.preview.fetch()
        wait_idle(qtbot, window)
    fb = window.filter_bar
    _choose(window, "Approved")
    assert _list_names(window) == ["alpha-notes", "beta-tools"]
    _choose(window, "Checked")
    assert fb.chip_texts() == ["Approved", "Checked"]
    assert _list_names(window) == ["beta-tools"]
    assert fb.count.text() == "1 of 3"
    # Within a kind, a new choice takes the place of the old one.
    _choose(window, "To review")
    assert fb.chip_texts() == ["To review", "Checked"]
    assert _list_names(window) == ["gamma-release"]
    _choose(window, "Approved")
    chip = fb.chips.findChild(type(fb.filters_button), "chip-approval")
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert fb.chip_texts() == ["Checked"]
    assert _list_names(window) == ["beta-tools", "gamma-release"]
    _choose(window, "Approved")
    chip = fb.chips.findChild(type(fb.filters_button), "chip-checks")
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert fb.chip_texts() == ["Approved"]
    assert _list_names(window) == ["alpha-notes", "beta-tools"]
    _choose(window, "Approved")  # chosen again: dropped
    assert fb.chip_texts() == []
    # A Library view of the sidebar narrows with the chosen states, and they stay.
    _choose(window, "Checked")
    click_sidebar(qtbot, window, window.sidebar.view_items["to-review"])
    assert fb.chip_texts() == ["To review", "Checked"]
    assert _list_names(window) == ["gamma-release"]
    # What is chosen is kept for the next run.
    window.save_state()
    fb.restore("", "", "", "")
    assert _list_names(window) == ["alpha-notes", "beta-tools", "gamma-release"]
    window.restore_state()
    assert fb.chip_texts() == ["Checked"]
    assert _list_names(window) == ["beta-tools", "gamma-release"]


def test_typing_keeps_the_chosen_skill_while_it_matches_and_the_page_follows_the_list(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    for name in ("alpha-report", "beta-report", "gamma-notes", "delta-report"):
        write_skill(root, name)
    window = make_window([folder_spec(root)])
    assert window.select_skill("local:beta-report/SKILL.md")
    text = window.filter_bar.text
    qtbot.keyClicks(text, "rep")
    assert _list_names(window) == ["alpha-report", "beta-report", "delta-report"]
    assert window.current_skill().name == "beta-report"
    assert window.page.title.text() == "beta-report"
    assert len(window.table.selectionModel().selectedRows()) == 1
    # Sorted the other way while filtered: the same rows, the same skill chosen.
    window.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert _list_names(window) == ["delta-report", "beta-report", "alpha-report"]
    assert window.current_skill().name == "beta-report"
    shown = [c for c in range(window.proxy.columnCount()) if not window.list.isColumnHidden(c)]
    assert shown == [0]  # the list stays one column of two-line rows
    window.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    # The chosen skill stops matching: the first one that matches is shown instead.
    text.clear()
    qtbot.keyClicks(text, "notes")
    assert _list_names(window) == ["gamma-notes"]
    assert window.current_skill().name == "gamma-notes"
    assert window.page.title.text() == "gamma-notes"
    # Nothing matches: no skill is shown as chosen.
    qtbot.keyClicks(text, "x")
    assert window.proxy.rowCount() == 0
    assert window.current_skill() is None
    assert window.page.title.text() == "No skill selected"
    # Deleting the letter brings the list back, one skill chosen.
    qtbot.keyClick(text, Qt.Key.Key_Backspace)
    assert _list_names(window) == ["gamma-notes"]
    assert window.page.title.text() == "gamma-notes"
    text.clear()
    assert len(_list_names(window)) == 4
    assert window.current_skill().name == "gamma-notes"

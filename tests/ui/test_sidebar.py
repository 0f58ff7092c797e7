"""The sidebar: Library views with counts, sources with their state, a click filters,
a right click offers what can be done, and a failed source can be tried again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.core.library import ALL, APPROVED, PROBLEMS, TO_REVIEW

from .conftest import click_sidebar, folder_spec, table_names, wait_idle, write_skill


def _count(window: Any, key: str) -> str:
    return window.sidebar.view_items[key].text(1)


def _source_cell(window: Any, label: str) -> str:
    return window.sidebar.source_items[label].text(1)


@pytest.mark.keyring
def test_counts_and_a_click_filters_the_list(
    secret_service: Any, make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    other = tmp_path / "other"
    broken = other / "delta-broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: not-the-folder-name\ndescription: x\n---\nbody\n")
    write_skill(other, "epsilon-fine")
    window = make_window([folder_spec(skills_folder), folder_spec(other, "other")])
    assert _count(window, ALL) == "5"
    assert _count(window, TO_REVIEW) == "5"
    assert _count(window, APPROVED) == "0"
    assert _count(window, PROBLEMS) == "1"
    assert _source_cell(window, "local") == "3" and _source_cell(window, "other") == "2"

    click_sidebar(qtbot, window, window.sidebar.view_items[PROBLEMS])
    assert table_names(window) == ["not-the-folder-name"]
    click_sidebar(qtbot, window, window.sidebar.source_items["other"])
    assert sorted(table_names(window)) == ["epsilon-fine", "not-the-folder-name"]
    assert window.filter_bar.count.text() == "2 of 5"
    # The search box filters within what the sidebar chose.
    window.filter_bar.text.setText("epsilon")
    assert table_names(window) == ["epsilon-fine"]
    click_sidebar(qtbot, window, window.sidebar.view_items[ALL])
    assert table_names(window) == ["epsilon-fine"]
    window.filter_bar.text.setText("")
    assert len(table_names(window)) == 5

    # Approving one moves it from To review to Approved.
    skill = window.controller.catalog.get("local:beta-tools/SKILL.md")
    window.controller.spawn(window.controller.approve(skill, grant_tools=[]), "approving")
    wait_idle(qtbot, window)
    assert _count(window, TO_REVIEW) == "4" and _count(window, APPROVED) == "1"
    click_sidebar(qtbot, window, window.sidebar.view_items[APPROVED])
    assert table_names(window) == ["beta-tools"]


def test_a_failed_source_says_so_and_retry_reads_it_again(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    later = tmp_path / "later"
    window = make_window([folder_spec(skills_folder), folder_spec(later, "later")])
    sidebar = window.sidebar
    assert _source_cell(window, "later") == "Failed"
    assert "Failed" in sidebar.source_items["later"].toolTip(1)
    sidebar.select_source("later")
    assert "later (folder): Failed — " in sidebar.status_line.text()
    assert [a.text() for a in sidebar.menu_actions()] == [
        "&Edit…",
        "Turn &off",
        "&Remove…",
        "Re&try",
        "Open &folder",
    ]
    assert sidebar.retry_action.isEnabled()
    write_skill(later, "arrived-later")
    sidebar.retry_action.trigger()
    wait_idle(qtbot, window)
    assert _source_cell(window, "later") == "1"
    assert table_names(window) == ["arrived-later"]  # still filtered by that source


def test_a_source_turned_off_says_off_and_offers_turn_on(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    from desktop.sources.config import saved as config
    from desktop.ui.sources.sources_service import SourcesService

    cfg_file = tmp_path / "config" / "sources.json"
    cfg = config.Config(exists=True)
    cfg.add(folder_spec(skills_folder, "main"))
    config.save_config(cfg, cfg_file)
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    sidebar = window.sidebar
    sidebar.select_source("main")
    sidebar.toggle_action.trigger()
    wait_idle(qtbot, window)
    assert _source_cell(window, "main") == "Off"
    assert sidebar.toggle_action.text() == "Turn &on"
    assert table_names(window) == []


def test_sources_that_failed_are_said_in_a_message_bar_with_retry(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    from PySide6.QtCore import Qt

    later = tmp_path / "later"
    window = make_window([folder_spec(skills_folder), folder_spec(later, "later")])
    bar = window.message_bar
    assert bar.isVisibleTo(window)
    assert bar.text.text() == "1 source could not be read (later)"
    assert bar.action.text() == "Retry"
    write_skill(later, "arrived-later")
    qtbot.mouseClick(bar.action, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert not bar.isVisibleTo(window)
    assert "arrived-later" in table_names(window)
    # Passing notices show a moment in the window; the Activity view keeps them all.
    window.notifier.info("saved source later")
    assert window.notice.isVisibleTo(window) and window.notice.text() == "saved source later"
    assert "saved source later" in window.messages.toPlainText()


def test_a_long_source_name_and_a_failed_mark_are_shown_whole(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    """The sidebar widens on its own (up to a limit) so no row is cut; a width the user
    set by dragging is kept."""
    long_label = "a-source-with-a-rather-long-name"
    gone = folder_spec(tmp_path / "no-such-folder", "missing-folder")
    window = make_window([folder_spec(skills_folder, long_label), gone])
    window.resize(1920, 1080)
    window.show()
    qtbot.waitExposed(window)
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert _source_cell(window, "missing-folder") == "Failed"
    sidebar = window.sidebar
    assert sidebar.width() >= sidebar.wanted_width() > 220
    assert not window.sidebar_dragged  # widened by the window, not by a drag
    assert sidebar.tree.columnWidth(0) >= sidebar.tree.sizeHintForColumn(0)
    # Dragged narrower by the user: left so.
    total = sum(window.main_splitter.sizes())
    window.main_splitter.splitterMoved.emit(200, 1)
    window.main_splitter.setSizes([200, total - 200])
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert window.main_splitter.sizes()[0] == 200

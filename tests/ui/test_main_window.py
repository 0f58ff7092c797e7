"""The main window on a real local folder: table, filter, detail, keyboard, settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QApplication

from desktop.core.model import SourceSpec
from desktop.ui.library.skill_table_model import COL_NAME, COL_ORIGIN, COL_PRIORITY

from .conftest import folder_spec, table_names, wait_idle, write_skill


def test_lists_every_skill_with_its_origin(make_window: Any, skills_folder: Path) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert sorted(table_names(window)) == ["alpha-notes", "beta-tools", "gamma-release"]
    origins = {window.proxy.index(r, COL_ORIGIN).data() for r in range(window.proxy.rowCount())}
    assert origins == {"local · folder"}
    assert window.sources_model.index(0, 5).data() == "3"
    assert window.filter_bar.count.text() == "3 of 3"


def test_typing_in_the_filter_narrows_the_table(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    qtbot.keyClicks(window.filter_bar.text, "alpha")
    assert table_names(window) == ["alpha-notes"]
    window.filter_bar.text.clear()
    qtbot.keyClicks(window.filter_bar.text, "alpha report")  # a trigger
    assert table_names(window) == ["alpha-notes"]
    window.filter_bar.text.clear()
    window.filter_bar.strategy.setCurrentIndex(window.filter_bar.strategy.findData("always"))
    assert table_names(window) == ["alpha-notes"]
    window.filter_bar.strategy.setCurrentIndex(0)
    qtbot.keyClicks(window.filter_bar.text, "no such words")
    assert table_names(window) == []
    assert window.filter_bar.count.text() == "0 of 3"


def test_selecting_a_row_shows_its_detail(make_window: Any, skills_folder: Path) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill("local:beta-tools/SKILL.md")
    text = window.detail.text()
    assert "beta-tools" in text
    assert "local folder local" in text
    assert "a request for power" in text  # allowed-tools is a request, not a property
    assert "Read Bash(git:*)" in text
    window.detail.show_all.click()  # the defaults too
    text = window.detail.text()
    assert "dynamic (default)" in text
    assert "Third-party" not in text  # a local skill is not third-party content
    assert "safe" not in text.lower() and "trusted" not in text.lower()


def test_collisions_link_to_the_other_skill(
    make_window: Any, tmp_path: Path, skills_folder: Path, qtbot: Any
) -> None:
    other = tmp_path / "other"
    write_skill(other, "alpha-notes", "# other alpha\n")
    window = make_window([folder_spec(skills_folder), folder_spec(other, "drafts")])
    assert window.select_skill("local:alpha-notes/SKILL.md")
    assert "Collisions" in window.detail.text()
    assert "drafts" in window.detail.text()
    window.detail._on_link("skill:drafts%3Aalpha-notes%2FSKILL.md")
    assert window.current_skill().id == "drafts:alpha-notes/SKILL.md"


def test_keyboard_shortcuts(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    window = make_window([folder_spec(skills_folder)])
    window.activateWindow()
    window.list.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.filter_bar.text
    window.list.setFocus()
    window.table.selectRow(0)
    first = window.current_skill().id
    qtbot.keyClick(window, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert window.current_skill().id != first
    qtbot.keyClick(window, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert window.current_skill().id == first
    assert window.actions_.refresh_action.shortcut().toString() == "F5"
    assert window.actions_.review_action.shortcut().toString() == "Ctrl+Shift+A"
    widgets = (window.filter_bar.text, window.list, window.table, window.detail.browser)
    for widget in (*widgets, window.preview.raw):
        assert widget.accessibleName()


def test_refresh_picks_up_a_new_skill(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    window = make_window([folder_spec(skills_folder)])
    write_skill(skills_folder, "delta-new")
    window.actions_.refresh_action.trigger()
    wait_idle(qtbot, window)
    assert "delta-new" in table_names(window)


def test_window_state_and_filter_persist(
    make_window: Any, skills_folder: Path, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window([folder_spec(skills_folder)])
    qtbot.keyClicks(window.filter_bar.text, "gamma")
    window.close()
    settings = QSettings(str(tmp_path / "window-0.ini"), QSettings.Format.IniFormat)
    assert settings.value("filter/text") == "gamma"
    assert settings.value("mainSplitter") is not None


def test_a_hostile_name_is_shown_as_written(make_window: Any, tmp_path: Path) -> None:
    from desktop.ui.library.skill_table_model import COL_NAME

    folder = tmp_path / "skills"
    write_skill(folder, "evil", description="<b>Verified</b> \u202etxt.exe")
    skill_md = folder / "evil" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: evil", "name: <i>evil</i>"))
    window = make_window([folder_spec(folder)])
    assert window.select_skill("local:evil/SKILL.md")
    assert window.detail.title.textFormat() == Qt.TextFormat.PlainText
    assert window.detail.title.text().startswith("<i>evil</i>")
    assert "\u202e" not in window.detail.text() and "\\u202etxt.exe" in window.detail.text()
    names = [window.table_model.index(r, COL_NAME).data() for r in range(1)]
    assert names == ["<i>evil</i>"]


def test_the_keyboard_alone_moves_between_panes_and_previews(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """Tab leaves the table for the next pane (arrows move within it); Enter on a row
    previews it, as a double click does."""
    window = make_window([folder_spec(skills_folder)])
    window.activateWindow()
    window.list.setFocus()
    window.table.selectRow(0)
    qtbot.keyClick(window.list, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not window.list
    window.list.setFocus()
    skill = window.current_skill()
    qtbot.keyClick(window.list, Qt.Key.Key_Return)
    assert window.tabs.currentWidget() is window.preview
    wait_idle(qtbot, window)
    assert window.preview.skill is skill
    assert "Checked: matches what the source listed" in window.preview.status.text()


def test_no_two_alt_keys_of_the_window_clash(make_window: Any, skills_folder: Path) -> None:
    """Each Alt+letter of the main window reaches one thing: a menu, a tab or a button."""
    import re

    from PySide6.QtWidgets import QAbstractButton

    window = make_window([folder_spec(skills_folder)])
    texts = [a.text() for a in window.menuBar().actions()]
    texts += [window.tabs.tabText(i) for i in range(window.tabs.count())]
    texts += [b.text() for b in window.findChildren(QAbstractButton)]
    keys: dict[str, list[str]] = {}
    for text in texts:
        m = re.search(r"&([^&])", text.replace("&&", ""))
        if m:
            keys.setdefault(m.group(1).lower(), []).append(text)
    assert {k: v for k, v in keys.items() if len(v) > 1} == {}


def test_a_narrow_window_is_possible_and_a_source_status_is_read_whole(
    make_window: Any, skills_folder: Path, tmp_path: Path
) -> None:
    """900 px is enough for the window; the sources table's narrow Status column is
    repeated in full under it for the selected source."""
    missing = SourceSpec(
        "gone", "mcp", "stdio", "no-such-command-here", command=("no-such-command-here",)
    )
    window = make_window([folder_spec(skills_folder), missing])
    assert window.minimumSizeHint().width() <= 900
    window.resize(900, 600)
    assert window.width() <= 900
    window.sidebar.select_source("gone")
    line = window.sidebar.status_line.text()
    alone = make_window([missing])
    assert alone.detail.title.text().startswith("No skills: gone could not be read")
    assert line.startswith("gone (local process): Failed — could not connect"), line
    # Below 1,000 px the sidebar folds away, and a button beside the search box says
    # so; F9 brings it back, status line and all, as the button does.
    assert not window.sidebar.isVisibleTo(window)
    assert window.sidebar_button.isVisibleTo(window)
    window.actions_.sidebar_action.trigger()
    assert window.sidebar.status_line.isVisibleTo(window)
    assert not window.sidebar_button.isVisibleTo(window)
    window.actions_.sidebar_action.trigger()
    window.sidebar_button.click()
    assert window.sidebar.isVisibleTo(window)
    # A laptop's first window (1088 px of a 1280 px screen) keeps the sidebar.
    window.sidebar_wanted = None
    window.resize(1088, 700)
    assert window.width() == 1088
    assert window.sidebar.isVisibleTo(window) and not window.sidebar_button.isVisibleTo(window)


def test_clicking_a_column_header_sorts_the_table_and_keeps_the_selection(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    write_skill(
        skills_folder, "delta-first", "# Delta\n", metadata={"nimblebrain": {"priority": 90}}
    )
    window = make_window([folder_spec(skills_folder)])
    window.actions_.table_action.setChecked(True)  # the table, for its column headers
    header = window.table.horizontalHeader()

    def click(column: int) -> list[str]:
        x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
        qtbot.mouseClick(
            header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2)
        )
        return table_names(window)

    by_name = ["alpha-notes", "beta-tools", "delta-first", "gamma-release"]
    assert table_names(window) == by_name
    window.table.selectRow(by_name.index("beta-tools"))
    assert click(COL_NAME) == by_name[::-1]  # the sorted column again: the other way
    assert click(COL_NAME) == by_name
    # Priority: none first, then by value (40, then 90).
    assert click(COL_PRIORITY) == ["alpha-notes", "beta-tools", "gamma-release", "delta-first"]
    assert click(COL_PRIORITY) == ["delta-first", "gamma-release", "beta-tools", "alpha-notes"]
    current = window.table.currentIndex()
    assert window.proxy.index(current.row(), 1).data() == "beta-tools"
    assert [i.row() for i in window.table.selectionModel().selectedRows()] == [current.row()]


def test_the_window_opens_at_the_size_it_was_left(qtbot: Any, tmp_path: Path) -> None:
    from desktop.ui.app import build_window, size_first_run

    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    first = build_window([], settings=settings)
    qtbot.addWidget(first)
    size_first_run(first)  # nothing saved: the first size, within the screen
    room = first.screen().availableGeometry()
    assert 0 < first.width() <= room.width() and 0 < first.height() <= room.height()
    first.resize(610, 430)
    first.save_state()
    again = build_window([], settings=settings)
    qtbot.addWidget(again)
    size_first_run(again)
    assert (again.width(), again.height()) == (610, 430)


def test_a_sort_keeps_the_selected_skill_in_sight(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    folder = tmp_path / "many"
    for i in range(300):
        write_skill(folder, f"skill-{i:03d}")
    window = make_window([folder_spec(folder)])
    assert window.select_skill("local:skill-250/SKILL.md")
    window.proxy.sort(COL_NAME, Qt.SortOrder.DescendingOrder)
    for shown in (window.list, window.table):
        window.actions_.table_action.setChecked(shown is window.table)
        qtbot.waitUntil(
            lambda shown=shown: (
                shown.viewport().rect().intersects(shown.visualRect(window.table.currentIndex()))
            )
        )
    assert window.current_skill().name == "skill-250"


def test_a_failing_source_is_said_once_not_after_every_refresh(
    make_window: Any, skills_folder: Path, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window([folder_spec(skills_folder), folder_spec(tmp_path / "gone", "ghost")])
    for _ in range(3):
        window.actions_.refresh()
        wait_idle(qtbot, window)
    said = [n for n in window.notifier.notices if n.level == "error" and "ghost" in n.text]
    assert len(said) == 1
    row = [s.label for s in window.sources_model.specs].index("ghost")
    assert str(window.sources_model.index(row, 4).data()).startswith("error")


def test_every_column_title_is_whole(make_window: Any, skills_folder: Path) -> None:
    """No table opens with a column narrower than its title ("ransport" for Transport)."""
    window = make_window([folder_spec(skills_folder)])
    views = (window.table,)
    for view in views:
        header = view.horizontalHeader()
        metrics = header.fontMetrics()
        model = view.model()
        for col in range(model.columnCount() - 1):  # the last one stretches
            title = str(model.headerData(col, Qt.Orientation.Horizontal))
            assert header.sectionSize(col) >= metrics.horizontalAdvance(title) + 8, (
                view.objectName(),
                title,
            )


def test_f6_cycles_panes_ctrl_digits_pick_tabs_and_the_shortcuts_are_listed(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    window.activateWindow()
    window.filter_bar.text.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F6)
    assert QApplication.focusWidget() is window.list
    qtbot.keyClick(window, Qt.Key.Key_F6)
    assert window.tabs.currentWidget().isAncestorOf(QApplication.focusWidget()) or (
        QApplication.focusWidget() is window.tabs.currentWidget()
    )
    qtbot.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.page.problems
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.preview
    keys = dict(window.actions_.shortcut_lines())
    assert "F6" in keys and "Ctrl+?" in keys
    # None of the usual meanings is taken: print, bookmark or delete, minimise.
    taken = {k for k, _ in window.actions_.shortcut_lines()}
    assert not {"Ctrl+P", "Ctrl+D", "Ctrl+M"} & taken
    window.actions_.shortcuts_action.trigger()
    assert "Next pane" in window.actions_.dialog.text()
    window.actions_.dialog.close()

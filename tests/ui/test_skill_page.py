"""The skill page: a header with the name, where it comes from and its states in words;
one primary button; tabs Overview, Files, Source, Details, Problems. A local skill is
read and checked when selected; a server's waits for Read from server."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.fonts import shows_monospace
from PySide6.QtCore import Qt

from desktop.core.model import SourceSpec
from desktop.ui.review.review_view import ReviewView

from .conftest import OFFSCREEN_NOISE, folder_spec, wait_idle, write_skill

BETA = "local:beta-tools/SKILL.md"


def _settle(qtbot: Any, window: Any) -> None:
    wait_idle(qtbot, window)  # the automatic read starts once a selection stays a moment


def test_a_local_skill_is_read_and_checked_when_selected(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill(BETA)
    _settle(qtbot, window)
    page = window.page
    assert page.title.text() == "beta-tools"
    assert page.origin.text().startswith("From the folder local (")
    assert window.tabs.currentWidget() is window.preview
    assert "Beta" in window.preview.rendered.toPlainText()  # nothing pressed
    assert page.verification_pill.text() == "Checked"
    assert "integrity, not safety" in page.verification_pill.toolTip()
    assert "name: beta-tools" in window.preview.raw.toPlainText()  # the Source tab
    assert window.tabs.indexOf(page.source) == 2
    assert window.preview.raw.parent() is page.source


@pytest.mark.keyring
def test_the_primary_button_fits_the_state_and_opens_the_review(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill(BETA)
    page = window.page
    assert page.approval_pill.text() == "To review"
    assert page.primary.text() == "Review and approve…"
    qtbot.mouseClick(page.primary, Qt.MouseButton.LeftButton)
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)  # a local skill's files are read at once
    qtbot.mouseClick(dialog.approve_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert window.current_skill().id != BETA  # on to the next skill waiting
    window.select_skill(BETA)
    assert page.approval_pill.text() == "Approved"
    assert page.primary.text() == "Review approval…"
    # Rejected with a reason: the pill says so, and its tooltip says who and why.
    skill = window.controller.catalog.get(BETA)
    window.controller.spawn(window.controller.reject(skill, reason="asks for too much"), "reject")
    wait_idle(qtbot, window)
    assert page.approval_pill.text() == "Rejected"
    assert "asks for too much" in page.approval_pill.toolTip()


def test_files_mark_scripts_and_problems_are_counted_on_their_tab(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    tool = write_skill(root, "runner")
    (tool / "scripts").mkdir()
    (tool / "scripts" / "go.sh").write_text("echo hi\n")
    broken = root / "broken-one"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: other-name\ndescription: x\n---\nbody\n")
    window = make_window([folder_spec(root)])
    assert window.select_skill("local:runner/SKILL.md")
    files = window.page.files
    top = [files.topLevelItem(i) for i in range(files.topLevelItemCount())]
    assert [i.text(0) for i in top] == ["SKILL.md", "scripts"]
    folder = top[1]
    assert (folder.text(0), folder.child(0).text(0), folder.child(0).text(2)) == (
        "scripts",
        "go.sh",
        "script",
    )
    assert window.tabs.tabText(4) == "Pro&blems"
    assert window.select_skill("local:broken-one/SKILL.md")
    assert window.tabs.tabText(4) == "Pro&blems (1)"
    assert window.page.problems_pill.text() == "1 problem"
    assert "other-name" in window.page.problems.item(0).text()


def test_details_start_at_the_top_for_another_skill(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    long = "\n".join(f"  line {i}" for i in range(200))
    write_skill(root, "aa-long", description="Long.\n" + long)
    write_skill(root, "bb-long", description="Long too.\n" + long)
    window = make_window([folder_spec(root)])
    window.tabs.setCurrentWidget(window.detail)
    assert window.select_skill("local:aa-long/SKILL.md")
    bar = window.detail.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    assert window.select_skill("local:bb-long/SKILL.md")
    assert bar.value() == 0


@pytest.mark.slow
def test_a_server_skill_waits_for_read_from_server(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    # the fixture keeps loading values in a mapping, which strict clients refuse
    argv = (sys.executable, "-m", "desktop", "serve", str(skills_folder), "--publish-nonconforming")
    spec = SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv)
    window = make_window([spec])
    skill = next(s for s in window.controller.catalog.skills if s.name == "beta-tools")
    assert window.select_skill(skill.id)
    _settle(qtbot, window)
    page = window.page
    assert page.origin.text().startswith("Third-party · from the server srv")
    assert window.preview.fetch_button.text() == "R&ead from server"
    assert window.preview.rendered.toPlainText() == ""
    assert window.controller.files.get(skill.id) is None  # nothing asked of the server
    assert page.verification_pill.text() == "Not read yet"
    qtbot.mouseClick(window.preview.fetch_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert "Beta" in window.preview.rendered.toPlainText()
    assert page.verification_pill.text() == "Checked"


def _file_item(window: Any, *path: str) -> Any:
    files = window.page.files
    items = [files.topLevelItem(i) for i in range(files.topLevelItemCount())]
    item = None
    for name in path:
        item = next(i for i in items if i.text(0) == name)
        items = [item.child(i) for i in range(item.childCount())]
    return item


def _click_file(qtbot: Any, window: Any, item: Any) -> None:
    files = window.page.files
    files.scrollToItem(item)
    rect = files.visualItemRect(item)
    qtbot.mouseClick(files.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _runner(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    tool = write_skill(root, "runner")
    (tool / "scripts").mkdir()
    (tool / "scripts" / "go.sh").write_text("#!/bin/sh\necho one\necho two\n")
    return root


def test_a_file_opens_in_a_monospace_viewer_with_line_numbers(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(_runner(tmp_path))])
    assert window.select_skill("local:runner/SKILL.md")
    window.tabs.setCurrentWidget(window.page.files_tab)
    view = window.page.file_view
    assert view.text.toPlainText() == ""
    assert view.status.text() == "Choose a file above to read it here."
    script = _file_item(window, "scripts", "go.sh")
    assert script.text(2) == "script" and "A script" in script.toolTip(0)
    _click_file(qtbot, window, script)
    wait_idle(qtbot, window)
    assert view.text.toPlainText() == "#!/bin/sh\necho one\necho two\n"
    assert view.status.text().startswith("Checked: matches what the source listed")
    assert "not a safety check" in view.status.text()
    assert shows_monospace(view.text.font())
    assert view.text.isReadOnly()
    # The gutter numbers the four lines (the last one empty) beside the text.
    assert view.text.blockCount() == 4
    gutter = view.text.gutter
    assert gutter.isVisible() and gutter.width() >= view.text.fontMetrics().horizontalAdvance("9")
    assert view.text.viewportMargins().left() == gutter.width()
    # The Source tab shows SKILL.md in the same viewer.
    _settle(qtbot, window)
    assert isinstance(window.preview.raw, type(view.text))
    assert "name: runner" in window.preview.raw.toPlainText()


def test_a_file_that_does_not_match_its_entry_is_not_shown(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = _runner(tmp_path)
    window = make_window([folder_spec(root)])
    # Changed on disk after it was listed: its bytes no longer match the entry.
    (root / "runner" / "scripts" / "go.sh").write_text("#!/bin/sh\nrm -rf ~\n")
    assert window.select_skill("local:runner/SKILL.md")
    window.tabs.setCurrentWidget(window.page.files_tab)
    view = window.page.file_view
    _click_file(qtbot, window, _file_item(window, "scripts", "go.sh"))
    wait_idle(qtbot, window)
    assert view.status.text().startswith("Not shown: ")
    assert view.text.toPlainText() == ""
    assert "rm -rf" not in view.text.toPlainText()


# Qt's offscreen platform says this of a tooltip shown; it is not a problem of ours.
@pytest.mark.qt_log_ignore(OFFSCREEN_NOISE, "This plugin does not support raise")
def test_frontmatter_problems_are_marked_on_their_lines_in_the_source(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    root = tmp_path / "skills"
    folder = root / "odd-one"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: Odd_One\ndescription: An odd one.\nhomepage: x\n---\n# Odd\n"
    )
    window = make_window([folder_spec(root)])
    assert window.select_skill("local:odd-one/SKILL.md")
    _settle(qtbot, window)
    raw = window.preview.raw
    assert "name: Odd_One" in raw.toPlainText()
    assert sorted(raw.marks) == [2, 4]
    assert "Error: name 'Odd_One' must be lowercase" in raw.marks[2]
    assert "does not match its directory" in raw.marks[2]
    assert raw.marks[4].startswith("Note: fields outside")  # as the Details tab says it
    note = window.preview.raw_note
    assert note.text().startswith("⚠ Problems and notes on lines 2, 4")
    assert raw.levels == {2: "error", 4: "info"}  # each line's icon
    assert note.parent() is window.page.source
    # The line is highlighted, and pointing at it says what is wrong there.
    assert len(raw.extraSelections()) == 2
    window.tabs.setCurrentWidget(window.page.source)
    block = raw.document().findBlockByNumber(1)
    y = round(raw.blockBoundingGeometry(block).translated(raw.contentOffset()).center().y())
    pos = QPoint(20, y)
    event = QHelpEvent(QEvent.Type.ToolTip, pos, raw.viewport().mapToGlobal(pos))
    QApplication.sendEvent(raw.viewport(), event)
    assert "Line 2: Error: name" in QToolTip.text()
    QToolTip.hideText()
    # Another skill's text has no marks.
    assert window.select_skill("local:odd-one/SKILL.md")
    write_skill(root, "plain-one")
    window.actions_.refresh_action.trigger()
    wait_idle(qtbot, window)
    assert window.select_skill("local:plain-one/SKILL.md")
    _settle(qtbot, window)
    assert raw.marks == {} and not note.isVisibleTo(window.page.source)


def test_the_description_cut_is_marked_in_details(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "wordy", description="k" * 1024 + "LOST" + "x" * 72)
    window = make_window([folder_spec(root)])
    assert window.select_skill("local:wordy/SKILL.md")
    text = window.detail.text()
    before, mark, after = text.partition("✂ ⚠ Cut here: hosts read at most 1,024 characters")
    assert mark, text
    assert before.rstrip().endswith("k" * 1024) and "LOST" not in before
    assert "the 76 below are past the limit" in after
    assert "LOST" + "x" * 72 in after


def test_details_show_declared_values_and_show_all_shows_the_rest(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    detail = window.detail
    assert window.select_skill("local:gamma-release/SKILL.md")  # declares a priority
    text = detail.text()
    assert "Priority\t40 (declared)" in text.replace("\n", "\t")
    for absent in ("Loading strategy", "Triggers", "Tool affinity", "Identity", "(default)"):
        assert absent not in text, absent
    assert "Not shown, as nothing was declared or the default applies: identity, state, " in text
    assert "loading strategy, triggers, tool affinity, allowed-tools." in text
    detail.show_all.click()
    text = detail.text()
    assert "Loading strategy" in text and "dynamic (default)" in text
    assert "Identity" in text and "Not shown" not in text
    assert window.select_skill("local:beta-tools/SKILL.md")
    assert "Loading strategy" in detail.text()  # Show all stays on
    detail.show_all.click()
    assert "Loading strategy" not in detail.text()
    detail._on_link("show:all")  # the sentence's link
    assert detail.show_all.isChecked() and "Loading strategy" in detail.text()


def test_the_page_starts_at_the_top_for_another_skill(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    body = "\n\n".join(f"Paragraph {i}." for i in range(300))
    write_skill(root, "aa-long", body)
    write_skill(root, "bb-long", body)
    window = make_window([folder_spec(root)])
    for tab in (window.preview, window.page.source):
        window.tabs.setCurrentWidget(tab)
        assert window.select_skill("local:aa-long/SKILL.md")
        _settle(qtbot, window)
        bars = (window.preview.rendered.verticalScrollBar(), window.preview.raw.verticalScrollBar())
        for bar in bars:
            qtbot.waitUntil(lambda bar=bar: bar.maximum() > 0)
            bar.setValue(bar.maximum())
        assert window.select_skill("local:bb-long/SKILL.md")
        _settle(qtbot, window)
        assert [bar.value() for bar in bars] == [0, 0]


@pytest.mark.slow
def test_a_server_skills_file_waits_for_read_from_server_in_the_files_tab(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    # the fixture keeps loading values in a mapping, which strict clients refuse
    argv = (sys.executable, "-m", "desktop", "serve", str(skills_folder), "--publish-nonconforming")
    spec = SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv)
    window = make_window([spec])
    skill = next(s for s in window.controller.catalog.skills if s.name == "alpha-notes")
    assert window.select_skill(skill.id)
    window.tabs.setCurrentWidget(window.page.files_tab)
    view = window.page.file_view
    guide = _file_item(window, "references", "guide.md")
    window.page.files.setCurrentItem(guide)  # chosen with the keyboard: nothing asked
    wait_idle(qtbot, window)
    assert view.status.text().startswith("Nothing shown until checked. Read from server")
    assert view.read_button.text() == "Read from server"
    assert view.text.toPlainText() == ""
    assert window.controller.files.get(skill.id) is None  # nothing asked of the server
    qtbot.mouseClick(view.read_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert view.text.toPlainText() == "# Guide\n\nStep one.\n"
    assert view.status.text().startswith("Checked: matches what the source listed")
    assert "Third-party" in window.page.origin.text()  # the mark above every tab

"""One state of a skill and of a source, shown the same everywhere: a watched folder
that vanishes is said as failed by the list, the sidebar, the message bar and the status
bar, and the page clears; a server skill checked earlier shows what was checked beside
its Verified pill; Retry shows "Reading…" on the source's row at once, then a notice."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from desktop.core.states import SourceState

from .conftest import folder_spec, wait_idle, write_skill
from .test_servers_ui import serve_spec

BETA = "local:beta-tools/SKILL.md"
WAIT_MS = 15_000


def _failed(window: Any, label: str) -> bool:
    status = window.sources_model.statuses.get(label)
    return status is not None and status.state is SourceState.FAILED


def test_a_vanished_folder_is_failed_everywhere_and_its_shown_skill_is_gone(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)], watch=True)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    assert window.select_skill(BETA)
    wait_idle(qtbot, window)
    page = window.page
    assert page.title.text() == "beta-tools" and page.tabs.isVisible()
    assert window.summary_label.text() == "3 skills from 1 source"

    shutil.rmtree(skills_folder)
    qtbot.waitUntil(lambda: _failed(window, "local"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.controller.catalog.skills, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    # The list's empty state: failed, with Retry; never "hold no skills".
    empty = window.skill_list.empty
    assert window.skill_list.currentWidget() is empty
    assert empty.title.text() == "1 source could not be read"
    assert empty.detail.text().startswith("local: the folder ")
    assert empty.detail.text().endswith("is no longer there")
    assert "hold no skills" not in empty.title.text() + empty.detail.text()
    assert empty.button.text() == "Retry" and empty.action == "retry"
    # The sidebar: the row says Failed with the error icon's mark.
    row = window.sidebar.source_items["local"]
    assert row.text(1) == "Failed"
    assert window.sidebar.view_items["all"].text(1) == "0"
    # The message bar and the status bar's count.
    bar = window.message_bar
    assert bar.isVisible() and bar.text.text() == "1 source could not be read (local)"
    assert bar.action.text() == "Retry"
    assert window.summary_label.text() == "0 skills; 1 failed"
    assert "local could not be read" in window.summary_label.toolTip()
    assert bar.text.toolTip() == window.summary_label.toolTip()
    # The page: the gone skill by name, nothing of it shown, no other skill in its place.
    assert page.skill is None
    assert page.title.text() == "beta-tools"
    assert page.origin.text().startswith("This skill is no longer in its folder.")
    assert not page.tabs.isVisible()
    assert not any(
        p.isVisible() for p in (page.approval_pill, page.verification_pill, page.problems_pill)
    )
    assert not window.table.currentIndex().isValid()
    # The status bar's last line says why, not that skills went.
    assert "no longer there" in window.statusBar().currentMessage()
    assert "beta-tools" not in window.statusBar().currentMessage()

    # The folder is back: every part says so together; choosing a skill shows it again.
    write_skill(skills_folder, "beta-tools")
    qtbot.waitUntil(lambda: len(window.controller.catalog.skills) == 1, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert not bar.isVisible()
    assert window.sidebar.source_items["local"].text(1) == "1"
    assert window.summary_label.text() == "1 skill from 1 source"
    assert window.select_skill(BETA)
    assert page.skill is not None and page.tabs.isVisible()


def test_retry_shows_reading_on_the_row_at_once_then_a_notice(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    folder = tmp_path / "later"
    window = make_window([folder_spec(folder, "later")])
    assert _failed(window, "later")
    row = window.sidebar.source_items["later"]
    assert row.text(1) == "Failed"
    lines_before = window.messages.toPlainText().count("\n")

    # Still missing: the row reads at once, then the notice says it still fails.
    window.message_bar.action.click()
    assert row.text(1) == "Reading…"
    assert window.message_bar.text.text() == "Reading later again…"
    assert not window.message_bar.action.isVisible()
    assert window.skill_list.empty.title.text() == "Reading the sources…"
    assert window.summary_label.text() == "0 skills; 1 reading…"
    assert "Reading later again…" in window.messages.toPlainText()
    assert window.messages.toPlainText().count("\n") > lines_before
    wait_idle(qtbot, window)
    assert row.text(1) == "Failed"
    assert window.notice.isVisible()
    assert window.notice.text().startswith("later still fails: ")
    assert "does not exist" in window.notice.text()
    assert window.message_bar.isVisible()
    # The empty list's Retry, limited to the source or not, reads it again too.
    for source in ("", "later"):
        window.filter_bar.restore("", source, "", "")
        empty = window.skill_list.empty
        assert empty.button.text() == "Retry"
        empty.button.click()
        assert row.text(1) == "Reading…"
        assert window.sources_model.text(window.sources_model.specs[0], 4) == "reading…"
        wait_idle(qtbot, window)
        assert row.text(1) == "Failed"
    window.filter_bar.restore("", "", "", "")

    # There now: the sidebar's Retry reads it, the notice says what it read.
    write_skill(folder, "arrived")
    write_skill(folder, "also-here")
    window.sidebar.select_source("later")
    window.sidebar.retry_action.trigger()
    assert row.text(1) == "Reading…"
    wait_idle(qtbot, window)
    assert row.text(1) == "2"
    assert window.notice.text() == "Read 2 skills from later"
    assert "Read 2 skills from later" in window.messages.toPlainText()
    assert not window.message_bar.isVisible()
    assert window.summary_label.text() == "2 skills from 1 source"
    assert sorted(s.name for s in window.controller.catalog.skills) == ["also-here", "arrived"]


@pytest.mark.slow
def test_a_server_skill_checked_earlier_shows_what_was_checked_beside_its_pill(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([serve_spec(skills_folder, "srv")])
    skill = next(s for s in window.controller.catalog.skills if s.name == "alpha-notes")
    other = next(s for s in window.controller.catalog.skills if s.name == "beta-tools")
    window.select_skill(skill.id)
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    page, preview = window.page, window.preview
    assert page.verification_pill.text() in ("Checked", "Not all files checked")
    assert "Alpha" in preview.rendered.toPlainText()
    # Away and back: the pill still says the file was checked; the pane shows it again
    # from the copy kept here, never "Read from the server and checked before it is
    # shown" beside the pill.
    window.select_skill(other.id)
    assert "Read from the server and checked before" in preview.status.text()
    window.select_skill(skill.id)
    assert "Read from the server and checked before" not in preview.status.text()
    wait_idle(qtbot, window)
    assert page.verification_pill.text() in ("Checked", "Not all files checked")
    assert "Checked: matches what the source listed" in preview.status.text()
    assert "Alpha" in preview.rendered.toPlainText()
    assert preview.result is not None and preview.result.from_cache


@pytest.mark.slow
def test_a_checked_file_without_a_kept_copy_says_how_to_show_it(
    make_window: Any, skills_folder: Path, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window([serve_spec(skills_folder, "srv")])
    skill = next(s for s in window.controller.catalog.skills if s.name == "alpha-notes")
    other = next(s for s in window.controller.catalog.skills if s.name == "beta-tools")
    window.select_skill(skill.id)
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    window.select_skill(other.id)
    shutil.rmtree(tmp_path / "cache")  # the kept copies are gone
    window.select_skill(skill.id)
    wait_idle(qtbot, window)
    text = window.preview.status.text()
    assert "was checked earlier, but no copy of it is kept here" in text
    assert "Read from server" in text
    assert window.preview.rendered.toPlainText() == ""


def test_a_skill_of_a_source_turned_off_is_not_said_to_be_gone(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    other = tmp_path / "other"
    write_skill(other, "delta-notes")
    window = make_window([folder_spec(skills_folder), folder_spec(other, "other")])
    assert window.select_skill("other:delta-notes/SKILL.md")
    wait_idle(qtbot, window)
    window.actions_.toggle_source("other")
    wait_idle(qtbot, window)
    assert window.controller.catalog.get("other:delta-notes/SKILL.md") is None
    page = window.page
    assert "no longer" not in page.origin.text()
    assert page.skill is not None and page.skill.origin.label == "local"
    assert window.summary_label.text() == "3 skills from 1 source"


@pytest.mark.slow
def test_a_reading_stopped_is_not_said_as_sources_holding_nothing(
    make_window: Any, qtbot: Any
) -> None:
    argv = (sys.executable, "-c", "import time; time.sleep(120)")
    hanging = SourceSpec("slow", "mcp", "stdio", shlex.join(argv), command=argv)
    window = make_window([hanging], start=False)
    window.start()

    def started() -> bool:  # the server's process is running
        handle = window.controller.reader.pool._handles.get("slow")
        return handle is not None and handle._worker is not None

    qtbot.waitUntil(started, timeout=WAIT_MS)
    window.progress.cancel_button.click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=WAIT_MS)
    empty = window.skill_list.empty
    assert empty.title.text() == "No skills shown: 1 source was not read"
    assert "hold no skills" not in empty.detail.text()
    assert empty.button.text() == "Read again"
    assert window.sidebar.source_items["slow"].text(1) == "Stopped"
    assert window.summary_label.text() == "0 skills; 1 not read"


@pytest.mark.slow
def test_a_server_skill_verified_elsewhere_shows_its_checked_file_in_the_pane(
    make_window: Any, skills_folder: Path, qtbot: Any, run_async: Any
) -> None:
    window = make_window([serve_spec(skills_folder, "srv")])
    skill = next(s for s in window.controller.catalog.skills if s.name == "beta-tools")
    window.select_skill(skill.id)
    wait_idle(qtbot, window)
    preview = window.preview
    assert "Read from the server and checked before" in preview.status.text()
    assert window.page.verification_pill.text() == "Not read yet"
    # Every file checked away from the Overview (as the review does): the pill says
    # Checked, and the pane shows the checked file rather than a blank beside it.
    run_async(window.controller.verify(skill))
    wait_idle(qtbot, window)
    assert window.page.verification_pill.text() == "Checked"
    assert "Checked: matches what the source listed" in preview.status.text()
    assert "Beta" in preview.rendered.toPlainText()

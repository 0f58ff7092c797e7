"""The skill page: a header with the name, where it comes from and its states in words;
one primary button; tabs Overview, Files, Source, Details, Problems. A local skill is
read and checked when selected; a server's waits for Read from server."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import SourceSpec
from desktop.ui.review_view import ReviewView

from .conftest import folder_spec, wait_idle, write_skill

BETA = "local:beta-tools/SKILL.md"


def _settle(qtbot: Any, window: Any) -> None:
    qtbot.wait(300)  # the automatic read starts once a selection stays a moment
    wait_idle(qtbot, window)


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
    assert page.verification_pill.text() == "Verified"
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
    dialog = window.actions_.dialog
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)  # a local skill's files are read at once
    qtbot.mouseClick(dialog.approve_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert page.approval_pill.text() == "Approved"
    assert page.primary.text() == "Review approval…"


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
    argv = (sys.executable, "-m", "desktop", "serve", str(skills_folder))
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
    assert page.verification_pill.text() == "Verified"

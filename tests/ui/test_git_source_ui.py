"""A git repository in the window: added in the Add source dialog, and its updates
reviewed in Check for updates before the pin moves (real git, real widgets)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.git_repos import commit_all, git, init_repo
from helpers.serve import write_skill
from PySide6.QtCore import Qt

from desktop.core.model import Skill
from desktop.sources.git import pins
from desktop.sources.git.kind import KIND, scan_repository
from desktop.ui.page.detail_html import provenance_html
from desktop.ui.sources.source_dialog import SourceDialog
from desktop.ui.sources.update_dialog import UpdateDialog

pytestmark = pytest.mark.timeout(120)


def _repo(tmp_path: Path) -> Path:
    work = init_repo(tmp_path / "work")
    write_skill(work / "skills", "pdf", "Read PDF files.")
    write_skill(work / "skills", "notes", "Keep notes.")
    commit_all(work, "first")
    return work


def test_a_git_repository_is_added_in_the_dialog(qtbot: Any, tmp_path: Path) -> None:
    work = _repo(tmp_path)
    dialog = SourceDialog(None, None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData("git"))
    assert dialog.where_label.text() == "&Repository"
    assert not dialog.browse.isVisible() and not dialog.env.isVisible()
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    dialog.where.setText("ext::sh -c touch% marker")
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result_spec is None
    assert "ext:: addresses are not used" in dialog.error.text()
    dialog.label.setText("team")
    dialog.where.setText(f"{work}#main")
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    spec = dialog.result_spec
    assert spec is not None
    assert (spec.label, spec.kind, spec.transport, spec.endpoint) == (
        "team",
        "git",
        "git",
        f"{work}#main",
    )
    assert not (tmp_path / "marker").exists()


def test_the_update_is_reviewed_and_the_pin_moves_when_accepted(
    qtbot: Any, tmp_home: Path, tmp_path: Path
) -> None:
    work = _repo(tmp_path)
    spec = KIND.parse(f"team={work}")
    _status, skills = scan_repository(spec)
    first = pins.pinned(spec)
    assert first is not None
    write_skill(work / "skills", "notes", "Keep notes, and send them away.")
    git("rm", "-r", "--quiet", "skills/pdf", cwd=work)
    write_skill(work / "skills", "slides", "Make slides.")
    second = commit_all(work, "second")

    cancelled = UpdateDialog(spec)
    qtbot.addWidget(cancelled)
    cancelled.show()
    qtbot.waitUntil(lambda: cancelled.update_button.isEnabled(), timeout=30_000)
    text = cancelled.details.toPlainText()
    assert "added    skills/slides" in text and "removed  skills/pdf" in text
    assert "changed  skills/notes" in text and "~ skills/notes/SKILL.md" in text
    assert "+description: Keep notes, and send them away." in text  # the diff, reviewed
    assert "must be approved again" in cancelled.summary.text()
    cancelled.reject()
    assert pins.pinned(spec) == first

    dialog = UpdateDialog(spec)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.update_button.isEnabled(), timeout=30_000)
    with qtbot.waitSignal(dialog.updated, timeout=30_000):
        qtbot.mouseClick(dialog.update_button, Qt.MouseButton.LeftButton)
    assert pins.pinned(spec) == second

    again = UpdateDialog(spec)
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: "up to date" in again.summary.text(), timeout=30_000)
    assert not again.update_button.isEnabled()


def test_the_page_says_where_a_published_skill_comes_from(tmp_path: Path) -> None:
    skill = Skill(
        origin=KIND.parse(f"team={_repo(tmp_path)}").origin,
        uri="skills/pdf/SKILL.md",
        name="pdf",
        description="",
        frontmatter={},
        resources=(),
        provenance={
            "repository": "https://github.com/anthropics/skills.git",
            "commit": "9d2f1ae" + "0" * 33,
            "path": "skills/pdf",
        },
    )
    html = provenance_html(skill)
    assert "anthropics/skills at 9d2f1ae, skills/pdf" in html
    assert "href='https://github.com/anthropics/skills'" in html


def test_the_window_adds_a_repository_and_moves_its_pin_after_the_review(
    make_window: Any, tmp_home: Path, tmp_path: Path, qtbot: Any
) -> None:
    from desktop.ui.sources.sources_service import SourcesService

    from .conftest import click_sidebar, table_names, wait_idle

    work = _repo(tmp_path)
    cfg_file = tmp_path / "config" / "sources.json"
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    click_sidebar(qtbot, window, window.sidebar.add_item)
    dialog = window.actions_.dialog
    assert isinstance(dialog, SourceDialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("git"))
    dialog.label.setText("team")
    dialog.where.setText(str(work))
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    wait_idle(qtbot, window)
    assert sorted(n for n in table_names(window) if n in ("notes", "pdf", "slides")) == [
        "notes",
        "pdf",
    ]
    write_skill(work / "skills", "slides", "Make slides.")
    commit_all(work, "second")
    window.sidebar.select_source("team")
    assert window.sidebar.updates_action in window.sidebar.menu_actions()
    assert window.sidebar.updates_action.isEnabled()
    window.sidebar.updates_action.trigger()
    review = window.actions_.dialog
    assert isinstance(review, UpdateDialog)
    qtbot.waitUntil(lambda: review.update_button.isEnabled(), timeout=30_000)
    assert "added    skills/slides" in review.details.toPlainText()
    with qtbot.waitSignal(review.updated, timeout=30_000):
        qtbot.mouseClick(review.update_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "slides" in table_names(window), timeout=30_000)

"""The review (the skill page's Review tab), against real folders, a real server whose
requests are recorded, and the real Secret Service: reading every file before deciding,
grants by risk, the diff of a change against the approved bytes, rejecting, errors
blocking, the keys."""

from __future__ import annotations

import csv
import io
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.core.model import SourceSpec
from desktop.ui.review.review_view import ReviewView

from .conftest import folder_spec, to_review_count, wait_idle, write_skill

pytestmark = pytest.mark.keyring

HOSTILE = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "hostile.py"
OPS = "local:ops/SKILL.md"


def rotating_server(record: Path, guide: Path) -> SourceSpec:
    argv = (sys.executable, str(HOSTILE), "rotate", "--record", str(record), "--guide", str(guide))
    return SourceSpec("h", "mcp", "stdio", shlex.join(argv), command=argv)


def methods(record: Path) -> list[str]:
    return record.read_text().split() if record.exists() else []


def open_review(window: Any, qtbot: Any, skill_id: str) -> ReviewView:
    window.actions_.review(skill_id)
    view = window.review
    assert isinstance(view, ReviewView) and not view.isWindow()
    assert view.isVisible() and view.skill is not None and view.skill.id == skill_id
    wait_idle(qtbot, window)
    return view


def select(view: ReviewView, ending: str) -> None:
    for i in range(view.file_list.count()):
        if str(view.file_list.item(i).data(Qt.ItemDataRole.UserRole + 1)).endswith(ending):
            view.file_list.setCurrentRow(i)
            return
    raise AssertionError(f"no file {ending}")


def key(qtbot: Any, view: ReviewView, k: Any, mod: Any = Qt.KeyboardModifier.AltModifier) -> None:
    from PySide6.QtWidgets import QApplication

    window = view.window()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(view, k, mod)


@pytest.fixture
def ops_folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "ops", "# Ops\n\nRun scripts/deploy.sh.\n", **{"allowed-tools": "Read Bash"})
    (root / "ops" / "scripts").mkdir()
    (root / "ops" / "scripts" / "deploy.sh").write_text("#!/bin/sh\necho deploying\n")
    (root / "ops" / "old-notes.md").write_text("Deploy on Fridays.\n")
    (root / "ops" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x01")
    write_skill(root, "notes", "# Notes\n")
    return root


def test_a_local_skill_is_read_at_once_approved_and_its_change_shown_as_a_diff(
    secret_service: Any, make_window: Any, ops_folder: Path, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window([folder_spec(ops_folder)])
    view = open_review(window, qtbot, OPS)
    body = view.body.toPlainText()
    assert "ops" in body and "The ops skill." in body and "From local (folder " in body
    assert "third-party" not in body
    assert "run any command on this machine" in body and "high risk" in body
    assert "1 script that would run on this machine" in body
    assert view.read_line.text() == "4 of 4 files read"
    select(view, "logo.png")
    assert "Binary file: 10 bytes, digest sha256:" in view.content.toPlainText()
    # Bash never looks like Read: each is its own choice, with what it allows.
    assert [b.accessibleName() for b in view.tool_boxes] == ["Grant Bash", "Grant Read"]
    assert "(high risk)" in view.tool_boxes[0].text()
    assert "(reads files)" in view.tool_boxes[1].text()
    assert view.scripts_box is not None
    select(view, "deploy.sh")
    shown = view.content.toPlainText()
    assert "Code that would run on this machine" in shown and "echo deploying" in shown
    assert view.approve_button.isEnabled() and not view.unread_box.isVisible()
    view.tool_boxes[0].setChecked(True)
    key(qtbot, view, Qt.Key.Key_A)
    wait_idle(qtbot, window)
    state = window.controller.approval_states[OPS]
    assert state.approved and state.tool_granted("Bash") and not state.tool_granted("Read")
    assert state.record is not None and state.record.files_read is True
    assert not state.scripts_allowed

    (ops_folder / "ops" / "scripts" / "deploy.sh").write_text("#!/bin/sh\nrm -rf ~/work\n")
    (ops_folder / "ops" / "extra.md").write_text("More\n")
    (ops_folder / "ops" / "old-notes.md").unlink()
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert window.controller.approval_states[OPS].state == "changed"
    view = open_review(window, qtbot, OPS)
    assert "Changed since approval" in view.body.toPlainText()
    assert not any(b.isChecked() for b in view.tool_boxes)  # decided again
    select(view, "deploy.sh")
    wait_idle(qtbot, window)  # the diff is made off the GUI thread
    diff = view.content.toPlainText()
    assert "1 line added, 1 removed" in diff
    assert "-echo deploying" in diff and "+rm -rf ~/work" in diff
    html = view.content.toHtml()
    assert "#ffebe9" in html and "#e6ffec" in html  # removed and added, coloured
    select(view, "extra.md")
    assert "Added since approval" in view.content.toPlainText()
    labels = [view.file_list.item(i).text() for i in range(view.file_list.count())]
    assert any("extra.md" in t and "added" in t for t in labels)
    assert any("old-notes.md" in t and "removed" in t for t in labels)
    select(view, "old-notes.md")
    removed = view.content.toPlainText()
    assert "removed since approval" in removed and "Deploy on Fridays." in removed
    # Revoking lets the kept copies go.
    name = state.record.key.storage_name
    assert window.controller.reader.cache.approved_dir(name).exists()
    view.revoke()
    wait_idle(qtbot, window)
    assert not window.controller.reader.cache.approved_dir(name).exists()


def test_a_server_skill_is_read_only_when_asked_and_its_rotated_file_diffed(
    secret_service: Any, make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    record, guide = tmp_path / "methods", tmp_path / "guide.md"
    guide.write_text("Step one.\nStep two.\n")
    window = make_window([rotating_server(record, guide)])
    demo = "h:skill://demo/SKILL.md"
    view = open_review(window, qtbot, demo)
    assert "third-party server" in view.body.toPlainText()
    assert view.read_line.text() == "0 of 2 files read"
    assert "resources/read" not in methods(record)
    assert not view.approve_button.isEnabled()
    assert "0 of 2 files read" in view.gate.text()
    select(view, "guide.md")
    assert "not read yet" in view.content.toPlainText()
    # Approving unread files is a choice of its own, and fetches nothing.
    assert view.unread_box.isVisible()
    view.unread_box.setChecked(True)
    assert view.approve_button.isEnabled()
    view.approve()
    wait_idle(qtbot, window)
    assert "resources/read" not in methods(record)
    state = window.controller.approval_states[demo]
    assert state.approved and state.record is not None and state.record.files_read is False
    # The decision moved the review on to the next skill waiting; back to this one.
    assert view.skill is not None and view.skill.id != demo
    view = open_review(window, qtbot, demo)

    # Read when asked, each file (the next unread one, from the keyboard).
    key(qtbot, view, Qt.Key.Key_E)
    wait_idle(qtbot, window)
    assert methods(record).count("resources/read") == 1
    assert view.read_line.text() == "1 of 2 files read"
    key(qtbot, view, Qt.Key.Key_E)
    wait_idle(qtbot, window)
    assert methods(record).count("resources/read") == 2
    assert view.read_line.text() == "2 of 2 files read"
    select(view, "guide.md")
    assert "Step two." in view.content.toPlainText()
    view.approve()
    wait_idle(qtbot, window)
    assert window.controller.approval_states[demo].record.files_read is True

    guide.write_text("Step one.\nStep 2, changed.\nStep three.\n")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert window.controller.approval_states[demo].state == "changed"
    view = open_review(window, qtbot, demo)
    select(view, "guide.md")
    assert "not read yet" in view.content.toPlainText()
    reads = methods(record).count("resources/read")
    key(qtbot, view, Qt.Key.Key_G)  # read this file
    wait_idle(qtbot, window)
    assert methods(record).count("resources/read") == reads + 1
    diff = view.content.toPlainText()
    assert "-Step two." in diff and "+Step 2, changed." in diff and "+Step three." in diff


def test_without_files_read_there_is_no_earlier_content_and_the_view_says_so(
    secret_service: Any, make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    record, guide = tmp_path / "methods", tmp_path / "guide.md"
    guide.write_text("first\n")
    window = make_window([rotating_server(record, guide)])
    demo = "h:skill://demo/SKILL.md"
    skill = window.controller.catalog.get(demo)
    window.controller.spawn(window.controller.approve(skill), "approving")
    wait_idle(qtbot, window)
    guide.write_text("second\n")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    view = open_review(window, qtbot, demo)
    assert "from the listing alone" in view.body.toPlainText()
    select(view, "guide.md")
    view.read_selected()
    wait_idle(qtbot, window)
    shown = view.content.toPlainText()
    assert "No earlier content to compare" in shown and "second" in shown


def test_reject_leaves_the_queue_until_the_files_change(
    secret_service: Any, make_window: Any, ops_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(ops_folder)])
    waiting = to_review_count(window)
    view = open_review(window, qtbot, OPS)
    view.reason.setText("deploys to production without asking")
    key(qtbot, view, Qt.Key.Key_J)
    wait_idle(qtbot, window)
    state = window.controller.approval_states[OPS]
    assert state.state == "rejected" and not state.approved
    assert not state.tool_granted("Bash")
    assert to_review_count(window) == waiting - 1
    # The review moved on to the skill still waiting, selected in the list too.
    assert view.skill is not None and view.skill.name == "notes"
    assert window.current_skill() is view.skill
    view = open_review(window, qtbot, OPS)
    assert "deploys to production without asking" in view.body.toPlainText()
    (ops_folder / "ops" / "SKILL.md").write_text(
        "---\nname: ops\ndescription: The ops skill, now quieter.\n---\n# Ops\n"
    )
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert window.controller.approval_states[OPS].state == "not-approved"
    assert to_review_count(window) == waiting


def test_errors_block_until_approved_despite_them_which_is_recorded(
    secret_service: Any, make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "bad"
    write_skill(root, "Meeting_Summary")
    window = make_window([folder_spec(root)])
    skill = window.controller.catalog.skills[0]
    view = open_review(window, qtbot, skill.id)
    body = view.body.toPlainText()
    assert "Problems (" in body and "error:" in body
    assert body.index("error:") < body.index("Requests")
    assert view.read_line.text() == "1 of 1 file read"
    assert not view.approve_button.isEnabled()
    assert "despite its problems" in view.gate.text()
    assert view.despite_box.isVisible()
    assert view.scripts_box is None  # no scripts: nothing to allow
    view.despite_box.setChecked(True)
    assert view.approve_button.isEnabled()
    view.approve()
    wait_idle(qtbot, window)
    record = window.controller.approval_states[skill.id].record
    assert record is not None and record.despite_problems


def test_the_queue_from_the_keyboard_and_approve_and_next(
    secret_service: Any, make_window: Any, ops_folder: Path, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window([folder_spec(ops_folder)])
    view = open_review(window, qtbot, OPS)
    assert view.queue() == ["local:notes/SKILL.md", OPS]
    assert view.position.text() == "Skill 2 of 2 to review"
    key(qtbot, view, Qt.Key.Key_P)
    wait_idle(qtbot, window)
    assert view.skill is not None and view.skill.name == "notes"
    key(qtbot, view, Qt.Key.Key_E)  # nothing unread: every local file was read
    key(qtbot, view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    wait_idle(qtbot, window)
    assert window.controller.approval_states["local:notes/SKILL.md"].approved
    assert view.skill is not None and view.skill.name == "ops"
    key(qtbot, view, Qt.Key.Key_N)  # the last one: stays
    assert view.skill.name == "ops"

    out = tmp_path / "decisions.csv"
    task = view._spawn(view.export_to(out, "csv"), "exporting")
    qtbot.waitUntil(task.done, timeout=30000)
    assert task.result() == 1
    (row,) = csv.DictReader(io.StringIO(out.read_text()))
    assert row["skill"] == "local:notes/SKILL.md" and row["files read"] == "yes"
    assert row["decision"] == "approved" and row["by"]
    # The same export from the window's Skill menu (the file dialog answered here).
    import desktop.ui.review.export_decisions as export_decisions

    menu_out = tmp_path / "from-the-menu.md"
    original = export_decisions.ask_path
    export_decisions.ask_path = lambda _parent: (menu_out, "markdown")
    try:
        window.actions_.export_action.trigger()
        qtbot.waitUntil(
            lambda: menu_out.exists() and "approved" in menu_out.read_text(), timeout=30000
        )
    finally:
        export_decisions.ask_path = original
    assert "local:notes/SKILL.md" in menu_out.read_text()

"""Approval review in the window, against the real Secret Service (A2-A5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from keyring.backends.fail import Keyring as NoKeyring
from PySide6.QtCore import Qt

from desktop.core.approvals import ApprovalState
from desktop.core.library import TO_REVIEW
from desktop.core.model import Origin, Skill
from desktop.session.approval_service import ApprovalService
from desktop.store.approvals_store import ApprovalStore
from desktop.ui.library.skill_table_model import COL_APPROVAL
from desktop.ui.review.review_view import ReviewView

from .conftest import click_sidebar, folder_spec, to_review_count, wait_idle, write_skill

BETA = "local:beta-tools/SKILL.md"


def _approval_cell(window: Any, skill_id: str) -> str:
    return window.table_model.index(window.table_model.row_of(skill_id), COL_APPROVAL).data()


@pytest.mark.keyring
def test_review_approve_change_and_revoke(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    assert _approval_cell(window, BETA) == "not-approved"
    assert to_review_count(window) == 3
    window.select_skill(BETA)
    window.activateWindow()
    qtbot.keyClick(
        window,
        Qt.Key.Key_A,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)  # a local skill's files are read at once
    text = dialog.body.toPlainText()
    assert "1 of 1 file read; 1 file " in text
    assert "set sha256:" in text
    names = [b.accessibleName() for b in dialog.tool_boxes]
    assert names == ["Grant Bash(git:*)", "Grant Read"]  # highest risk first
    assert not any(b.isChecked() for b in dialog.tool_boxes)  # nothing granted by default
    assert dialog.scripts_box is None  # no scripts: nothing to allow
    dialog.tool_boxes[1].setChecked(True)
    qtbot.mouseClick(dialog.approve_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "approved"
    assert to_review_count(window) == 2
    # The review went on to the next skill waiting, selected in the list.
    assert window.current_skill() is not None and window.current_skill().id != BETA
    assert window.review.skill is window.current_skill()
    window.select_skill(BETA)
    detail = window.detail.text()
    assert "granted: Read" in detail and "scripts not allowed" in detail
    state = window.controller.approval_states[BETA]
    assert state.tool_granted("Read") and not state.tool_granted("Bash(git:*)")

    (skills_folder / "beta-tools" / "notes.txt").write_text("added after approval\n")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "changed"
    window.select_skill(BETA)
    assert "changed since approval: 1 added" in window.detail.text()
    assert "added: notes.txt" in window.detail.text()
    window.actions_.review(BETA)
    dialog = window.review
    wait_idle(qtbot, window)
    assert "Changed since approval" in dialog.body.toPlainText()
    # The grants of the approval the change voided are decided again, not pre-ticked.
    assert not any(b.isChecked() for b in dialog.tool_boxes)
    qtbot.mouseClick(dialog.revoke_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "not-approved"


def test_dynamic_skill_explains_why_it_cannot_be_approved(qtbot: Any) -> None:
    skill = Skill(
        Origin("docs", "mcp", "stdio", "serve docs"),
        "skill://docs/live/SKILL.md",
        "live",
        "Served fresh each time.",
        {"name": "live", "description": "Served fresh each time."},
        "dynamic",
        qualified_name="docs:live",
    )
    from desktop.core.approvals import bind
    from desktop.core.review import approve_gate
    from desktop.ui.review.review_html import summary_html

    gate = approve_gate(skill, [], confirm_unread=True, despite_problems=True)
    assert not gate.allowed and "dynamic" in gate.why
    text = summary_html(skill, bind(skill, None), "")
    assert "This skill cannot be approved" in text and "no file manifest" in text


def test_no_keyring_is_a_clear_message_not_an_approval(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    service = ApprovalService(ApprovalStore("skill-catalog-test-none", backend=NoKeyring()))
    window = make_window([folder_spec(skills_folder)], approvals=service)
    skill = window.controller.catalog.get(BETA)
    window.controller.spawn(window.controller.approve(skill), "approving")
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "not-approved"
    last = window.notifier.last("error")
    assert last is not None and "keyring" in last.text.lower()
    assert isinstance(window.controller.approval_states[BETA], ApprovalState)


def test_without_a_keyring_the_review_says_so_before_anything_is_ticked(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """A7 in the dialog: no Approve button to press in vain, and the keyring's absence
    is warned of once, not again after every listing."""
    service = ApprovalService(ApprovalStore("skill-catalog-test-none", backend=NoKeyring()))
    window = make_window([folder_spec(skills_folder)], approvals=service)

    def keyring_warnings() -> int:
        return sum(
            1 for n in window.notifier.notices if n.level == "warning" and "approvals:" in n.text
        )

    assert keyring_warnings() == 1
    window.actions_.refresh()
    wait_idle(qtbot, window)
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert keyring_warnings() == 1
    window.actions_.review(BETA)
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)
    assert "Decisions cannot be stored or read now" in dialog.body.toPlainText()
    assert not dialog.approve_button.isEnabled() and not dialog.revoke_button.isEnabled()
    assert not dialog.reject_button.isEnabled()
    assert not dialog.tool_boxes[0].isEnabled()


def test_a_tool_name_is_shown_and_granted_as_the_skill_wrote_it(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    """A "&" in a requested tool is shown as written (not as a keyboard accelerator)
    and the grant names the tool exactly."""
    root = tmp_path / "amp"
    write_skill(root, "amp-tools", "# Amp\n", **{"allowed-tools": "Bash(make&&test) Read"})
    window = make_window([folder_spec(root)])
    skill = window.controller.catalog.skills[0]
    window.actions_.review(skill.id)
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)
    shown = [b.text().replace("&&", "&") for b in dialog.tool_boxes]
    assert shown[0].startswith("Grant Bash(make&&test): ") and shown[1].startswith("Grant Read: ")
    names = [b.accessibleName() for b in dialog.tool_boxes]
    assert names == ["Grant Bash(make&&test)", "Grant Read"]
    dialog.tool_boxes[0].setChecked(True)
    assert dialog.granted_tools() == ["Bash(make&&test)"]


def test_an_invalid_skill_is_refused_for_its_own_reason(make_window: Any, tmp_path: Path) -> None:
    root = tmp_path / "bad"
    (root / "no-desc").mkdir(parents=True)
    (root / "no-desc" / "SKILL.md").write_text("---\nname: no-desc\n---\nbody\n")
    window = make_window([folder_spec(root)])
    skill = window.controller.catalog.skills[0]
    window.actions_.review(skill.id)
    dialog = window.review
    text = dialog.body.toPlainText()
    assert "This skill cannot be approved: The entry is invalid" in text
    assert "no file manifest" not in text
    assert not dialog.approve_button.isEnabled() and not dialog.reject_button.isEnabled()
    assert "It cannot be approved" in dialog.gate.text()


@pytest.mark.keyring
def test_the_queue_works_from_the_keyboard(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """In To review, arrows show each skill's page; Ctrl+Shift+A opens its review."""
    window = make_window([folder_spec(skills_folder)])
    click_sidebar(qtbot, window, window.sidebar.view_items[TO_REVIEW])
    view = window.list
    assert window.proxy.rowCount() == to_review_count(window) >= 2
    window.activateWindow()
    view.setFocus()
    view.setCurrentIndex(window.proxy.index(0, 0))
    first = window.current_skill()
    qtbot.keyClick(view, Qt.Key.Key_Down)
    second = window.skill_at(window.proxy.index(1, 0))
    assert second is not None and window.current_skill() is not None
    assert window.current_skill().id == second.id != first.id
    # Under a style that activates items on a single click, a click still only selects.
    from PySide6.QtWidgets import QProxyStyle, QStyle

    class ClickActivates(QProxyStyle):
        def styleHint(self, hint: Any, *args: Any) -> int:
            if hint == QStyle.StyleHint.SH_ItemView_ActivateItemOnSingleClick:
                return 1
            return super().styleHint(hint, *args)

    style = ClickActivates()
    view.setStyle(style)
    rect = view.visualRect(window.proxy.index(1, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert not window.reviewing()
    qtbot.keyClick(
        view,
        Qt.Key.Key_A,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    assert second.qualified_name in dialog.body.toPlainText()
    wait_idle(qtbot, window)


@pytest.mark.keyring
def test_an_index_rebuilt_by_the_window_is_said(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any, approval_service: Any
) -> None:
    """The window rebuilds an approvals index deleted by hand, as a command does, and
    says so once in the status bar; the approval it had lost counts again."""
    window = make_window([folder_spec(skills_folder)])
    skill = window.controller.catalog.get(BETA)
    approval_service.store.approve(skill)
    approval_service.store._run(lambda blobs: blobs.delete("index"))
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "approved"
    shown = [n.text for n in window.notifier.notices]
    assert any("rebuilt from the 1 approval in the keyring" in t for t in shown), shown


def test_third_party_words_in_plain_places_show_controls_as_codes(
    make_window: Any, skills_folder: Path, qtbot: Any, monkeypatch: Any
) -> None:
    """Notices (status bar, Messages), the yes/no question and dialog titles quote names
    servers and authors chose: a right-to-left override or markup in them shows as
    written, never reversing or restyling what follows."""
    from PySide6.QtWidgets import QMessageBox

    from desktop.ui.dialogs.compare_dialog import CompareDialog

    window = make_window([folder_spec(skills_folder)])
    window.notifier.error("evil\u202egnp.exe failed \x1b[31m")
    assert window.notifier.last("error").text == "evil\\u202egnp.exe failed \\u001b[31m"
    assert "\u202e" not in window.statusBar().currentMessage()
    assert "\u202e" not in window.messages.toPlainText()

    seen: list[tuple[str, Any]] = []

    def answer(box: QMessageBox) -> int:
        seen.append((box.text(), box.textFormat()))
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "exec", answer)
    assert window._ask("Fetch <font color=white>hidden\u202e from evB?") is False
    ((text, fmt),) = seen
    assert fmt == Qt.TextFormat.PlainText
    assert text == "Fetch <font color=white>hidden\\u202e from evB?"

    skill = window.controller.catalog.get(BETA)
    skill.qualified_name = "evil\u202egnp.exe"
    window.actions_.review(BETA)
    dialog = window.review
    assert "evil\\u202egnp.exe" in dialog.body.toPlainText()
    compare = CompareDialog(window.controller, [skill])
    qtbot.addWidget(compare)
    items = [compare.left.itemText(i) for i in range(compare.left.count())]
    assert "evil\\u202egnp.exe — local" in items


def test_a_sources_status_tooltip_is_plain_text(make_window: Any, skills_folder: Path) -> None:
    window = make_window([folder_spec(skills_folder)])
    model = window.sidebar.model
    label = model.specs[0].label
    model.statuses[label].message = "banner <img src=x> \u202eevil"
    window.sidebar.select_source(label)
    window.sidebar._update_actions()
    tip = window.sidebar.status_line.toolTip()
    assert "<img" not in tip and "&lt;img src=x&gt;" in tip and "\\u202eevil" in tip


@pytest.mark.keyring
def test_a_review_left_open_across_a_change_does_not_approve_the_new_files(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """The review stays open while the catalog is read again: it then shows the new
    files (read again) rather than approve what it showed before, and Enter never
    approves."""
    window = make_window([folder_spec(skills_folder)])
    window.actions_.review(BETA)
    dialog = window.review
    assert isinstance(dialog, ReviewView)
    wait_idle(qtbot, window)
    assert dialog.approve_button.isEnabled()
    for button in (dialog.approve_button, dialog.revoke_button, dialog.reject_button):
        assert not button.isDefault() and not button.autoDefault()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    assert _approval_cell(window, BETA) == "not-approved"

    before = dialog.skill
    (skills_folder / "beta-tools" / "run.sh").write_text("#!/bin/sh\necho added\n")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert dialog.isVisible()
    assert dialog.skill is window.controller.catalog.get(BETA) is not before
    assert dialog.read_line.text() == "2 of 2 files read"  # the new file was read too
    # The entry shown before the change is never approved: the controller refuses it.
    task = window.controller.spawn(window.controller.approve(before), "approving")
    wait_idle(qtbot, window)
    assert task.result() is None
    assert _approval_cell(window, BETA) == "not-approved"
    assert "changed since its review opened" in window.notifier.last("error").text
    window.select_skill(BETA)
    assert "approved |" not in window.detail.text()
    assert window.controller.approvals.store.records() == []

"""A decision rewritten in the keyring to grant what its skill never requested (its
checksums recomputed) is damaged in the window too: not approved, said to be damaged in
the skill page and the review, and none of its grants held."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.ui.review.review_view import ReviewView
from tests.helpers.keyring_records import rewrite_record

from .conftest import folder_spec, wait_idle, write_skill

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(120)]

SKILL = "local:notes/SKILL.md"


def test_a_forged_grant_is_shown_damaged_and_not_honoured(
    secret_service: Any,
    make_window: Any,
    approval_service: Any,
    qtbot: Any,
    tmp_path: Path,
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "notes", **{"allowed-tools": "Read"})
    window = make_window([folder_spec(root)])
    window.actions_.review(SKILL)
    view = window.review
    assert isinstance(view, ReviewView)
    wait_idle(qtbot, window)
    view.tool_boxes[0].setChecked(True)
    view.approve()
    wait_idle(qtbot, window)
    assert window.controller.approval_states[SKILL].tool_granted("Read")

    def forge(record: dict[str, Any]) -> None:
        record["grants"] = {"tools": ["Read", "WebFetch", "mcp__evil"], "scripts": False}
        record["requested_tools"] = ["Read", "WebFetch", "mcp__evil"]

    rewrite_record(approval_service.store.service, forge)
    window.actions_.refresh()
    wait_idle(qtbot, window)
    state = window.controller.approval_states[SKILL]
    assert state.state == "not-approved" and state.damaged
    assert not state.tool_granted("WebFetch") and not state.tool_granted("Read")
    window.select_skill(SKILL)
    detail = window.detail.text()
    assert "stored record is damaged and not honoured" in detail
    assert "WebFetch, mcp__evil" in detail and "granted:" not in detail
    window.actions_.review(SKILL)
    view = window.review
    assert isinstance(view, ReviewView)
    wait_idle(qtbot, window)
    assert "The stored decision is damaged" in view.body.toPlainText()
    assert not any(b.isChecked() for b in view.tool_boxes)  # no forged grant offered as held
    # The reviewer can decide again: a new approval replaces the damaged record.
    assert "damaged: a new decision replaces it" in view.gate.text()
    assert view.reject_button.isEnabled() and view.revoke_button.isEnabled()
    assert view.approve_button.isEnabled()
    view.tool_boxes[0].setChecked(True)
    view.approve()
    wait_idle(qtbot, window)
    state = window.controller.approval_states[SKILL]
    assert state.approved and not state.damaged
    assert state.tool_granted("Read") and not state.tool_granted("WebFetch")

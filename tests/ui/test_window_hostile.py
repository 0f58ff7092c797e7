"""The window against misbehaving servers: what a user sees in each pane."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import wait_idle
from .test_servers_ui import hostile_spec

pytestmark = pytest.mark.slow


def _only_skill(window: Any, name: str) -> Any:
    return next(s for s in window.controller.catalog.skills if s.name == name)


def test_previewing_an_invalid_entry_again_and_again_says_why_once(
    make_window: Any, qtbot: Any
) -> None:
    # The entry lists a file outside the skill's folder: it cannot be loaded.
    window = make_window([hostile_spec("outside")])
    skill = _only_skill(window, "demo")
    assert skill.state == "invalid"
    window.select_skill(skill.id)
    assert "outside the skill directory" in window.detail.text()
    # Enter (or Ctrl+P) on the row, three times, then each file of the detail pane.
    for _ in range(3):
        window.actions_.preview_current()
        wait_idle(qtbot, window)
    for f in skill.files:
        window.detail.fileRequested.emit(skill.id, f.uri)
        wait_idle(qtbot, window)
    # Each file of the detail pane opens in the Files tab, which says why it is not read.
    files = window.page.file_view
    status = files.status.text()
    assert "cannot be loaded" in status and "outside the skill directory" in status
    assert not files.read_button.isEnabled()
    assert files.text.toPlainText() == ""
    status = window.preview.status.text()
    assert "cannot be loaded" in status and "outside the skill directory" in status
    assert not window.preview.fetch_button.isEnabled()
    assert window.preview.raw.toPlainText() == ""
    assert window.preview.rendered.toPlainText() == ""
    # The panes say why; the Messages panel does not repeat it at every press.
    assert window.messages.toPlainText().count("cannot be loaded") <= 1


def test_the_review_says_when_the_servers_bytes_did_not_match_the_entry(
    make_window: Any, qtbot: Any
) -> None:
    # The listing gives the guide a digest its bytes do not have.
    window = make_window([hostile_spec("wrong-digest")])
    skill = _only_skill(window, "demo")
    window.select_skill(skill.id)
    window.actions_.review(skill.id)
    dialog = window.review
    assert "did not match" not in dialog.body.toPlainText()  # nothing read yet
    guide = next(f.uri for f in skill.files if f.uri.endswith("guide.md"))
    window.detail.fileRequested.emit(skill.id, guide)
    wait_idle(qtbot, window)
    assert window.tabs.currentWidget() is window.page.files_tab
    status = window.page.file_view.status
    assert "differs from what the source listed" in status.text()
    assert "sha256" not in status.text() and "expected digest sha256:000" in status.toolTip()
    assert window.page.file_view.text.toPlainText() == ""
    window.actions_.review(skill.id)
    body = window.review.body.toPlainText()
    assert "The server's bytes did not match this entry" in body
    assert "expected digest sha256:000" in body and "received bytes hash to" in body


def test_a_server_that_exited_and_was_started_again_shows_its_listing_again(
    make_window: Any, qtbot: Any
) -> None:
    """The server exits on its own after listing: the source says so at once, and once
    the next read has started it again, the panel shows what the listing found, not the
    loss (nor a bare "connected") until a refresh."""
    window = make_window([hostile_spec("exit-after-listing")])
    model = window.sources_model
    status_cell = model.index(0, 4)
    assert status_cell.data().startswith("ok: 1 skill")
    qtbot.waitUntil(lambda: "connection lost" in status_cell.data(), timeout=20_000)
    skill = _only_skill(window, "demo")
    window.select_skill(skill.id)
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    assert window.preview.status.text().startswith("Checked: matches what the source listed")
    assert status_cell.data().startswith("ok: 1 skill"), status_cell.data()
    assert "connected again" in window.messages.toPlainText()

"""The team's signed review of the skill shown, on its page: "Approved by
alice@example.com, 2 Dec (signature valid)" for exactly the bytes shown, a record by
someone not allowed never shown as a decision, and adopting the team approval as
one's own in one step (real keys, real ssh-keygen, real Secret Service)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.core.review_record import (
    PAYLOAD_TYPE,
    ReviewStatement,
    envelope_text,
    pae,
    signature_info,
    skill_files,
)
from desktop.sources.team_reviews import repository_skills, write_record
from desktop.store.review_signing import sign, signing_key

from .conftest import folder_spec, wait_idle

DEPLOY = "claude:deploy/SKILL.md"


def _key(folder: Path, name: str) -> Path:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key


def _sign(repo: Path, key: Path, email: str) -> None:
    (skill,) = repository_skills(repo)[0]
    st = ReviewStatement(
        name="deploy",
        files=skill_files(skill),
        decision="approved",
        reviewer=email,
        time="2026-12-02T10:00:00+00:00",
        tools=("Read",),
    )
    with tempfile.TemporaryDirectory() as temp:
        sig = sign(signing_key(str(key), Path(temp)), pae(PAYLOAD_TYPE, st.payload()))
    keyid = signature_info(sig).fingerprint
    write_record(repo, st, keyid, envelope_text(st.payload(), keyid, sig))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # a repository's root, as the page finds it
    skill = root / ".claude/skills/deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploys\nallowed-tools: Read Bash\n---\n# deploy\n"
    )
    alice, carol = _key(tmp_path, "alice"), _key(tmp_path, "carol")
    public = " ".join(alice.with_suffix(".pub").read_text().split()[:2])
    (root / ".skill-reviews").mkdir()
    (root / ".skill-reviews/allowed_signers").write_text(f"alice@example.com {public}\n")
    _sign(root, carol, "carol@example.com")
    _sign(root, alice, "alice@example.com")
    return root


@pytest.mark.keyring
def test_the_page_shows_the_team_approval_and_adopts_it(
    secret_service: Any, make_window: Any, repo: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(repo / ".claude/skills", "claude")])
    window.select_skill(DEPLOY)
    panel = window.detail.team
    qtbot.waitUntil(panel.isVisible, timeout=30000)
    text = panel.label.text()
    assert text == "Team review: Approved by alice@example.com, 2 Dec (signature valid)"
    assert "carol" not in text
    assert panel.adopt_button.isVisible()  # on the page, above every tab
    assert not window.controller.approval_states[DEPLOY].approved
    qtbot.mouseClick(panel.adopt_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    state = window.controller.approval_states[DEPLOY]
    assert state.approved and state.tool_granted("Read")
    assert not state.tool_granted("Bash")  # only what the team reviewer granted
    qtbot.waitUntil(panel.adopt_button.isHidden, timeout=30000)
    assert "approved deploy as alice@example.com did" in window.messages.toPlainText()


@pytest.mark.keyring
def test_changed_bytes_show_the_earlier_review_and_nothing_to_adopt(
    secret_service: Any, make_window: Any, repo: Path, qtbot: Any
) -> None:
    (repo / ".claude/skills/deploy/notes.md").write_text("added later\n")
    window = make_window([folder_spec(repo / ".claude/skills", "claude")])
    window.select_skill(DEPLOY)
    panel = window.detail.team
    qtbot.waitUntil(panel.isVisible, timeout=30000)
    assert "earlier bytes; changed since: notes.md (added)" in panel.label.text()
    assert panel.adopt_button.isHidden()
    panel.adopt()  # nothing to adopt: nothing happens
    assert not window.controller.approval_states[DEPLOY].approved


@pytest.mark.keyring
def test_a_decision_here_is_signed_for_the_team_with_gits_key(
    secret_service: Any, make_window: Any, tmp_path: Path, qtbot: Any, run_async: Any
) -> None:
    root = tmp_path / "signed"
    skill = root / ".claude/skills/deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploys\n---\n# deploy\n")
    alice = _key(tmp_path, "alice")
    public = " ".join(alice.with_suffix(".pub").read_text().split()[:2])
    (root / ".skill-reviews").mkdir()
    (root / ".skill-reviews/allowed_signers").write_text(f"alice@example.com {public}\n")
    for args in (
        ("init", "-q"),
        ("config", "user.email", "alice@example.com"),
        ("config", "gpg.format", "ssh"),
        ("config", "user.signingkey", str(alice)),
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    window = make_window([folder_spec(root / ".claude/skills", "claude")])
    window.select_skill(DEPLOY)
    panel = window.detail.team
    qtbot.waitUntil(panel.isVisible, timeout=30000)
    assert panel.label.text() == "Team review: none of these files yet"
    assert panel.sign_button.isHidden()  # nothing decided here yet
    run_async(window.controller.approve(window.current_skill()))
    wait_idle(qtbot, window)
    qtbot.waitUntil(panel.sign_button.isVisible, timeout=30000)
    qtbot.mouseClick(panel.sign_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "Approved by alice@example.com" in panel.label.text(), timeout=30000)
    assert len(list((root / ".skill-reviews/deploy").glob("*.dsse.json"))) == 1
    assert "signed deploy for the team as alice@example.com" in window.messages.toPlainText()

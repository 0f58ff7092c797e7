"""Install… and Installed skills… in the window: the approved files written where the
chosen agents read, a skill not approved refused with the reason, and a copy changed on
disk shown first as changed, naming the file. Real folders in a temporary HOME, the real
keyring."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from .conftest import folder_spec

pytestmark = [pytest.mark.keyring]

SKILL = "---\nname: {name}\ndescription: Fills in PDF forms\n---\n# {name}\n"


@pytest.fixture
def published(tmp_path: Path) -> Path:
    root = tmp_path / "published"
    for name in ("pdf", "docx"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(SKILL.format(name=name))
        (root / name / "forms.md").write_text(f"{name} forms\n")
    return root


def run(qtbot: Any, coro: Any) -> Any:
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=30000)
    return task.result()


def open_install(window: Any, qtbot: Any, skill_id: str) -> Any:
    assert window.select_skill(skill_id)
    window.actions_.install_action.trigger()
    dialog = window.actions_.dialog
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_install_writes_the_approved_files_for_the_chosen_agents(
    qtbot: Any, make_window: Any, published: Path, tmp_home: Path, secret_service: Any
) -> None:
    window = make_window([folder_spec(published, "pub")])
    pdf = window.controller.catalog.get("pub:pdf/SKILL.md")
    assert run(qtbot, window.controller.approve(pdf)) is not None

    dialog = open_install(window, qtbot, pdf.id)
    assert not dialog.install_button.isEnabled()  # no agent chosen yet
    assert "Choose at least one agent" in dialog.targets.text()
    dialog.agent_boxes["claude-code"].setChecked(True)
    dialog.agent_boxes["copilot"].setChecked(True)
    assert "~/.claude/skills/pdf\n~/.copilot/skills/pdf" in dialog.targets.text()
    dialog.install_button.click()
    qtbot.waitUntil(lambda: "Installed into" in dialog.outcome.text(), timeout=30000)
    for folder in (tmp_home / ".claude/skills/pdf", tmp_home / ".copilot/skills/pdf"):
        assert (folder / "SKILL.md").read_bytes() == (published / "pdf/SKILL.md").read_bytes()
        assert (folder / "forms.md").read_text() == "pdf forms\n"

    # Changed on disk: the Installed list shows it first, naming the file.
    (tmp_home / ".claude/skills/pdf/forms.md").write_text("edited\n")
    (tmp_home / ".claude/skills/by-hand").mkdir()
    (tmp_home / ".claude/skills/by-hand/SKILL.md").write_text(SKILL.format(name="by-hand"))
    # The sidebar's Installed section opens the list.
    sidebar = window.sidebar
    sidebar.tree.itemClicked.emit(sidebar.installed_item, 0)
    listing = window.actions_.dialog
    qtbot.waitUntil(lambda: listing.table.rowCount() == 3, timeout=30000)
    first = [listing.table.item(0, c).text() for c in range(4)]
    assert first[0] == "pdf" and first[2] == "Changed on disk" and first[3] == "forms.md"
    states = {listing.table.item(r, 2).text() for r in range(3)}
    assert states == {"Changed on disk", "As approved", "Installed by something else"}
    assert "1 need attention" in listing.summary.text()
    assert sidebar.installed_item.text(1) == "1"  # the count needing attention
    assert "need attention" in sidebar.installed_item.toolTip(1)


def test_a_skill_not_approved_is_not_installed_and_says_why(
    qtbot: Any, make_window: Any, published: Path, tmp_home: Path, secret_service: Any
) -> None:
    window = make_window([folder_spec(published, "pub")])
    dialog = open_install(window, qtbot, "pub:docx/SKILL.md")
    dialog.agent_boxes["codex"].setChecked(True)
    dialog.install_button.click()
    qtbot.waitUntil(lambda: "Not installed" in dialog.outcome.text(), timeout=30000)
    assert "approve it first" in dialog.outcome.text()
    assert not (tmp_home / ".agents/skills/docx").exists()


def test_a_project_install_waits_for_its_folder(
    qtbot: Any,
    make_window: Any,
    published: Path,
    tmp_home: Path,
    tmp_path: Path,
    secret_service: Any,
) -> None:
    window = make_window([folder_spec(published, "pub")])
    pdf = window.controller.catalog.get("pub:pdf/SKILL.md")
    assert run(qtbot, window.controller.approve(pdf)) is not None
    dialog = open_install(window, qtbot, pdf.id)
    dialog.agent_boxes["claude-code"].setChecked(True)
    dialog.project_scope.setChecked(True)
    assert not dialog.install_button.isEnabled()
    assert "Choose the project folder first" in dialog.targets.text()
    project = tmp_path / "project"
    project.mkdir()
    dialog.set_project(project)
    dialog.install_button.click()
    qtbot.waitUntil(lambda: "Installed into" in dialog.outcome.text(), timeout=30000)
    assert (project / ".claude/skills/pdf/SKILL.md").exists()
    assert (project / "skill-catalog.lock.json").exists()

"""The skill page's Hosts tab: per host, loads or not and how the skill is listed,
each host's rules and sources in a tooltip, and Claude Code's listing budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import folder_spec, write_skill

pytestmark = pytest.mark.slow


def rows(page: Any) -> dict[str, list[str]]:
    table = page.hosts.table
    return {
        table.topLevelItem(i).text(0): [table.topLevelItem(i).text(c) for c in range(1, 4)]
        for i in range(table.topLevelItemCount())
    }


def test_the_hosts_tab_says_per_host_whether_the_skill_loads_and_how_it_is_listed(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "pdf", description="Fill in PDF forms and merge PDFs.")
    write_skill(root, "wordy", description="w" * 1030)
    window = make_window([folder_spec(root)])
    skill = next(s for s in window.controller.catalog.skills if s.name == "pdf")
    window.select_skill(skill.id)
    page = window.page
    assert page.tabs.tabText(page.hosts_index) == "Hosts"
    page.tabs.setCurrentIndex(page.hosts_index)
    shown = rows(page)
    assert shown["Claude Code"][:2] == ["Loads", "Listed in full"]
    assert shown["Codex"][0] == "Loads"
    assert "source:" in page.hosts.table.topLevelItem(0).toolTip(0)
    assert page.hosts.budget.text().startswith(
        "Claude Code at 200K context: about 8,000 characters for skill listings; these 2"
    )
    window.resize(900, 700)
    window.grab().save(str(tmp_path / "hosts_tab.png"))
    wordy = next(s for s in window.controller.catalog.skills if s.name == "wordy")
    window.select_skill(wordy.id)  # the tab in sight: filled at once
    shown = rows(page)
    assert shown["Codex"][0] == "Does not load"
    codex = page.hosts.table.topLevelItem(1)
    assert codex.toolTip(1) == codex.text(3)
    assert "1,024" in shown["Codex"][2] or "1024" in shown["Codex"][2]
    page.hosts.show_skill(None)
    assert page.hosts.table.topLevelItemCount() == 0

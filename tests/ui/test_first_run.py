"""First run: with nothing of the user's own, the window opens on the bundled sample
skills and the bundled sample server started with `skill-catalog serve` over stdio;
with skills or servers of the user's own, on those alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.ui.sources.sources_service import SourcesService

from .conftest import table_names, wait_idle

pytestmark = pytest.mark.slow


def test_first_run_shows_both_origins(make_window: Any, tmp_path: Path, qtbot: Any) -> None:
    service = SourcesService(config_file=tmp_path / "none" / "sources.json", detect=False)
    window = make_window(None, sources=service)
    labels = [s.label for s in window.sources_model.specs]
    assert labels == ["samples", "sample-server"]
    shown = [window.sources_model.text(s, 0) for s in window.sources_model.specs]
    assert shown == ["samples (sample)", "sample-server (sample)"]
    rows = [window.sidebar.source_items[s.label].text(0) for s in window.sources_model.specs]
    assert rows == ["samples (sample)", "sample-server (sample)"]
    kinds = {s.kind for s in window.controller.catalog.skills}
    assert kinds == {"local", "mcp"}
    names = table_names(window)
    assert "sample-server:acme/billing/refunds" in names and "git-commit-style" in names
    assert any("bundled samples are shown" in n.text for n in window.notifier.notices)
    # a newcomer previews a local sample at once
    window.select_skill("samples:git-commit-style/SKILL.md")
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    assert "Checked: matches what the source listed" in window.preview.status.text()
    assert "Commit style" in window.preview.rendered.toPlainText()


def test_first_run_finds_claude_desktop_servers_and_claude_skills(
    make_window: Any, tmp_home: Path, tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run in a home holding a Claude Desktop config (its server is
    ``skill-catalog serve FOLDER``) and a ``~/.claude/skills`` folder shows the skills of
    both, and no samples: they would mix into the user's own catalog."""
    import json
    import sys

    served = tmp_path / "served" / "refund-policy"
    served.mkdir(parents=True)
    (served / "SKILL.md").write_text(
        "---\nname: refund-policy\ndescription: How refunds are decided.\n---\n# Refunds\n"
    )
    own = tmp_home / ".claude" / "skills" / "write-notes"
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text(
        "---\nname: write-notes\ndescription: Write meeting notes.\n---\n# Notes\n"
    )
    claude = tmp_home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    argv = [sys.executable, "-m", "desktop", "serve", str(tmp_path / "served")]
    claude.write_text(
        json.dumps({"mcpServers": {"billing": {"command": argv[0], "args": argv[1:]}}})
    )
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    window = make_window(None, sources=SourcesService())
    labels = {s.label for s in window.sources_model.specs}
    assert {"billing", "claude-user"} <= labels
    assert not {"samples", "sample-server"} & labels
    assert not any("bundled samples" in n.text for n in window.notifier.notices)
    ids = {s.id for s in window.controller.catalog.skills}
    assert "claude-user:write-notes/SKILL.md" in ids
    assert any(i.startswith("billing:") and i.endswith("refund-policy/SKILL.md") for i in ids)
    names = table_names(window)
    assert "write-notes" in names and "billing:refund-policy" in names
    # Where the imported server came from, on its row.
    tip = window.sidebar.source_items["billing"].toolTip(0)
    assert f"imported from Claude Desktop: {claude}" in tip, tip


def test_the_samples_are_removed_from_the_window_and_stay_gone(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    import json

    cfg_file = tmp_path / "config" / "sources.json"
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    assert [s.label for s in window.sources_model.specs] == ["samples", "sample-server"]
    window.sidebar.select_source("samples")
    assert window.sidebar.remove_action.isEnabled()
    asked: list[str] = []
    window.confirm = lambda q: asked.append(q) is None
    window.sidebar.remove_action.trigger()
    wait_idle(qtbot, window)
    assert "the folder itself is not touched" in asked[0]
    assert [s.label for s in window.sources_model.specs] == ["sample-server"]
    assert not any(s.origin.label == "samples" for s in window.controller.catalog.skills)
    saved = json.loads(cfg_file.read_text(encoding="utf-8"))
    assert [s["label"] for s in saved["sources"]] == ["sample-server"]
    # A new window (the next start) does not bring them back.
    again = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    assert [s.label for s in again.sources_model.specs] == ["sample-server"]


def test_an_empty_agent_folder_leaves_the_samples_in_the_window(
    make_window: Any, tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's skills folder holding no skill is listed, and the samples still show,
    with the notice that says why."""
    (tmp_home / ".claude" / "skills").mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    window = make_window(None, sources=SourcesService())
    labels = [s.label for s in window.sources_model.specs]
    assert {"claude-user", "samples", "sample-server"} <= set(labels), labels
    assert "git-commit-style" in table_names(window)
    assert any("bundled samples are shown" in n.text for n in window.notifier.notices)

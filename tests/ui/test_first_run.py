"""First run: no configuration opens on the bundled sample skills and the bundled sample
server started with `skill-catalog serve` over stdio (issue item 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.ui.sources_service import SourcesService

from .conftest import table_names, wait_idle

pytestmark = pytest.mark.slow


def test_first_run_shows_both_origins(make_window: Any, tmp_path: Path, qtbot: Any) -> None:
    service = SourcesService(config_file=tmp_path / "none" / "sources.json", detect=False)
    window = make_window(None, sources=service)
    labels = [s.label for s in window.sources_model.specs]
    assert labels == ["samples", "sample-server"]
    kinds = {s.kind for s in window.controller.catalog.skills}
    assert kinds == {"local", "mcp"}
    names = table_names(window)
    assert "sample-server:refunds" in names and "git-commit-style" in names
    assert any("first run" in n.text for n in window.notifier.notices)
    # a newcomer previews a local sample at once
    window.select_skill("samples:git-commit-style/SKILL.md")
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    assert "Bytes match the manifest" in window.preview.status.text()
    assert "Commit style" in window.preview.rendered.toPlainText()

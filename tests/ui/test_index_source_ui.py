"""A web index added from the window (Add source → Web index): saved, listed, its skill
read verified, and its provenance said on the skill's page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.web_index import Site, publish_v02, serving
from PySide6.QtCore import Qt

from desktop.session.content_reader import ContentReader
from desktop.sources.config import saved as config
from desktop.store.cache import SkillCache
from desktop.ui.sources.source_dialog import SourceDialog
from desktop.ui.sources.sources_service import SourcesService

from .conftest import click_sidebar, table_names, wait_idle

pytestmark = pytest.mark.timeout(120)

NOTES = b"---\nname: notes\ndescription: Keep notes of a meeting.\n---\n\n# Notes\n"


@pytest.fixture
def site() -> Iterator[Site]:
    with serving() as served:
        yield served


def test_a_web_index_added_in_the_dialog_lists_its_skill_with_provenance(
    make_window: Any, tmp_path: Path, site: Site, qtbot: Any
) -> None:
    publish_v02(site, {"notes": {"SKILL.md": NOTES}})
    cfg_file = tmp_path / "config" / "sources.json"
    config.save_config(config.Config(exists=True), cfg_file)
    window = make_window(
        None,
        sources=SourcesService(config_file=cfg_file, detect=False),
        reader=ContentReader(cache=SkillCache(tmp_path / "cache")),
    )
    click_sidebar(qtbot, window, window.sidebar.add_item)
    dialog = window.actions_.dialog
    assert isinstance(dialog, SourceDialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("index"))
    assert dialog.where_label.text() == "&Website"
    assert not dialog.browse.isVisible() and not dialog.env.isVisible()
    dialog.label.setText("site")
    dialog.where.setText("http://example.com")  # plain http elsewhere: said, not saved
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "is plain http" in dialog.error.text()
    dialog.where.setText(site.url)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    saved = json.loads(cfg_file.read_text())["sources"]
    assert [(s["label"], s["kind"], s["transport"]) for s in saved] == [("site", "index", "index")]
    qtbot.waitUntil(lambda: "notes" in table_names(window), timeout=10000)
    item = window.sidebar.source_items["site"]
    assert "web index" in item.toolTip(0)

    assert window.select_skill("site:notes/SKILL.md")
    qtbot.waitUntil(lambda: window.preview.result is not None, timeout=10000)
    wait_idle(qtbot, window)
    result = window.preview.result
    assert result.verified and result.data == NOTES
    assert "From the web index site" in window.page.origin.text()
    window.detail.refresh()
    details = window.detail.browser.toPlainText()
    assert (
        f"Listed by the index {site.url}/.well-known/agent-skills/index.json; "
        "checked against its digest sha256:"
    ) in details


def test_a_plugin_skill_page_says_which_plugin(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    from desktop.core.model import SourceSpec

    root = tmp_path / "market"
    skill = root / "plugins" / "pdf-tools" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(NOTES.replace(b"notes", b"pdf"))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "team",
                "plugins": [
                    {
                        "name": "pdf-tools",
                        "source": "./plugins/pdf-tools",
                        "version": "1.2",
                        "author": {"name": "Ada"},
                    }
                ],
            }
        )
    )
    window = make_window([SourceSpec("m", "local", "folder", str(root))])
    assert window.select_skill("m:plugins/pdf-tools/skills/pdf/SKILL.md")
    wait_idle(qtbot, window)
    window.detail.refresh()
    assert "Part of plugin pdf-tools 1.2 by Ada" in window.detail.browser.toPlainText()

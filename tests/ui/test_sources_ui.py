"""Adding, editing and removing sources from the window; the saved file is shared with
the CLI; removing a server removes its cached content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from desktop.core.model import SkillFile, SourceSpec
from desktop.session.content_reader import ContentReader
from desktop.sources.config import saved as config
from desktop.store.cache import SkillCache
from desktop.ui.sources.source_dialog import SourceDialog, spec_from_fields
from desktop.ui.sources.sources_service import SourcesService

from .conftest import click_sidebar, folder_spec, table_names, wait_idle, write_skill


def _saved_labels(path: Path) -> list[str]:
    return [s["label"] for s in json.loads(path.read_text())["sources"]]


def test_spec_from_fields() -> None:
    spec, _ = spec_from_fields("docs", "stdio", "python -m server --flag 'a b'")
    assert spec is not None and spec.command == ("python", "-m", "server", "--flag", "a b")
    spec, _ = spec_from_fields("web", "http", "https://example.com/mcp")
    assert spec is not None and spec.transport == "http"
    assert spec_from_fields("bad:label", "stdio", "x")[0] is None
    assert spec_from_fields("web", "http", "ftp://x")[0] is None


def test_add_edit_and_remove_sources(
    make_window: Any, tmp_path: Path, skills_folder: Path, qtbot: Any
) -> None:
    cfg_file = tmp_path / "config" / "sources.json"
    cfg = config.Config(exists=True)
    cfg.add(folder_spec(skills_folder, "main"))
    config.save_config(cfg, cfg_file)
    cache = SkillCache(tmp_path / "cache")
    window = make_window(
        None,
        sources=SourcesService(config_file=cfg_file, detect=False),
        reader=ContentReader(cache=cache),
    )
    assert sorted(table_names(window)) == ["alpha-notes", "beta-tools", "gamma-release"]

    drafts = tmp_path / "drafts"
    write_skill(drafts, "draft-one")
    click_sidebar(qtbot, window, window.sidebar.add_item)
    dialog = window.actions_.dialog
    assert isinstance(dialog, SourceDialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("folder"))
    dialog.label.setText("drafts")
    dialog.where.setText(str(drafts))
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    wait_idle(qtbot, window)
    assert _saved_labels(cfg_file) == ["main", "drafts"]
    assert "draft-one" in table_names(window)

    window.actions_.edit_source("drafts")
    dialog = window.actions_.dialog
    dialog.label.setText("drafts2")
    dialog._accept()
    wait_idle(qtbot, window)
    assert _saved_labels(cfg_file) == ["main", "drafts2"]

    # switching a source off keeps it saved but drops its skills
    window.actions_.toggle_source("drafts2")
    wait_idle(qtbot, window)
    assert "draft-one" not in table_names(window)
    assert json.loads(cfg_file.read_text())["sources"][1]["enabled"] is False

    # a server with cached verified bytes: removing it removes them (V6)
    spec, _ = spec_from_fields("gone", "stdio", "no-such-command-for-skill-catalog")
    assert spec is not None
    cfg = config.load_config(cfg_file)
    cfg.add(spec)
    config.save_config(cfg, cfg_file)
    data = b"cached bytes"
    from desktop.core.manifest import sha256_digest

    cache.put(
        spec.origin,
        "skill://x/SKILL.md",
        SkillFile("skill://x/SKILL.md", sha256_digest(data), len(data)),
        data,
    )
    assert cache.source_dirs("gone")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    gone_row = [s.label for s in window.sources_model.specs].index("gone")
    assert window.sources_model.index(gone_row, 4).data().startswith("error")
    window.sidebar.select_source("gone")
    asked: list[str] = []
    window.confirm = lambda q: asked.append(q) is None and len(asked) > 1  # no, then yes
    window.sidebar.remove_action.trigger()
    wait_idle(qtbot, window)
    assert "gone" in _saved_labels(cfg_file) and cache.source_dirs("gone")
    assert "cached files are deleted too" in asked[0]
    window.sidebar.remove_action.trigger()
    wait_idle(qtbot, window)
    assert "gone" not in _saved_labels(cfg_file)
    assert cache.source_dirs("gone") == []
    assert "gone" not in [s.label for s in window.sources_model.specs]


def test_a_detected_folder_is_switched_off_not_edited_or_removed(
    make_window: Any, tmp_home: Path, tmp_path: Path, qtbot: Any
) -> None:
    """On/off passed the folder's kind ("detected-folder") where its key was needed:
    the folder stayed on and the file got a bad entry. Edit and Remove made a saved copy
    or claimed a removal that did not happen; they are for saved sources only."""
    write_skill(tmp_home / ".claude" / "skills", "found-here")
    cfg_file = config.config_path()
    cfg = config.Config(exists=True)
    cfg.add(folder_spec(tmp_path / "none", "mine"))
    config.save_config(cfg, cfg_file)
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=True))
    assert "found-here" in table_names(window)
    (label,) = [s.label for s in window.sources_model.specs if s.label != "mine"]
    window.sidebar.select_source(label)
    sw = window.sidebar
    assert sw.toggle_action.isEnabled()
    assert not sw.edit_action.isEnabled() and not sw.remove_action.isEnabled()
    sw.toggle_action.trigger()
    wait_idle(qtbot, window)
    assert "found-here" not in table_names(window)
    off = json.loads(cfg_file.read_text())["switched_off"]
    assert off and off != ["detected-folder"]
    # It stays selected, so it can be switched on again at once; it counts no skills.
    assert sw.current_spec() is not None and sw.current_spec().label == label
    row = [s.label for s in window.sources_model.specs].index(label)
    assert window.sources_model.index(row, 4).data() == "off"
    assert window.sources_model.index(row, 5).data() == ""
    assert sw.toggle_action.isEnabled()
    sw.toggle_action.trigger()
    wait_idle(qtbot, window)
    assert "found-here" in table_names(window)
    window.sidebar.select_source("mine")
    assert sw.edit_action.isEnabled() and sw.remove_action.isEnabled()


def test_the_edit_dialog_shows_saved_headers_as_their_references(qtbot: Any) -> None:
    from desktop.core.model import SourceSpec

    spec = SourceSpec(
        "web",
        "mcp",
        "http",
        "https://h.example/mcp",
        headers=(("Authorization", "${keyring:source/web/header/Authorization}"),),
    )
    dialog = SourceDialog(None, spec)
    qtbot.addWidget(dialog)
    assert dialog.headers.toPlainText() == (
        "Authorization: ${keyring:source/web/header/Authorization}"
    )
    dialog._accept()
    assert dialog.result_spec is not None
    assert dialog.result_spec.headers == spec.headers  # kept as they were


def test_a_source_that_cannot_be_saved_comes_back_as_typed(
    make_window: Any, tmp_path: Path, skills_folder: Path, qtbot: Any
) -> None:
    """With no keyring, a source holding a secret cannot be saved: the dialog closed and
    what was typed was gone, and an edit dropped the saved version too. Nothing is
    written; the dialog comes back with the fields as typed and the reason."""
    import keyring
    from keyring.backends import fail

    cfg_file = tmp_path / "config" / "sources.json"
    cfg = config.Config(exists=True)
    cfg.add(folder_spec(skills_folder, "main"))
    cfg.add(SourceSpec("web", "mcp", "http", "https://example.com/mcp"))
    config.save_config(cfg, cfg_file)
    before = cfg_file.read_text()
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    command = "npx -y @acme/mcp --api-key sk-test-1234567890"
    try:
        for old_label, kind, where in (
            (None, "stdio", command),
            ("web", "http", "https://example.com/mcp?api_key=sk-test-1234567890"),
        ):
            spec, _ = spec_from_fields("gh" if old_label is None else "web", kind, where)
            window.actions_._save_source(old_label, spec)
            wait_idle(qtbot, window)
            dialog = window.actions_.dialog
            assert isinstance(dialog, SourceDialog) and dialog.isVisible()
            assert dialog.error.text().startswith("Not saved: ")
            assert dialog.where.text() == where
            assert cfg_file.read_text() == before  # the earlier "web" is kept as it was
            dialog.reject()
    finally:
        keyring.set_keyring(previous)

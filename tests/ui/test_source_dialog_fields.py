"""The Add source dialog follows the kind (a folder has Browse…, a command its
environment, a URL its headers), and what is typed in them is saved, the secret
values in the keyring, never in sources.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.sources.config import saved as config
from desktop.sources.config.secrets import KEYRING_SERVICE
from desktop.ui.sources.source_dialog import SourceDialog
from desktop.ui.sources.sources_service import SourcesService

from .conftest import click_sidebar, folder_spec, wait_idle

pytestmark = pytest.mark.timeout(120)


def shown(dialog: SourceDialog) -> dict[str, bool]:
    return {
        "browse": dialog.browse.isVisible(),
        "env": dialog.env.isVisible(),
        "headers": dialog.headers.isVisible(),
    }


def test_the_fields_follow_the_kind(qtbot: Any) -> None:
    dialog = SourceDialog(None, None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData("folder"))
    assert shown(dialog) == {"browse": True, "env": False, "headers": False}
    assert dialog.where_label.text() == "&Folder"
    dialog.kind.setCurrentIndex(dialog.kind.findData("stdio"))
    assert shown(dialog) == {"browse": False, "env": True, "headers": False}
    assert dialog.where_label.text() == "&Command"
    dialog.kind.setCurrentIndex(dialog.kind.findData("http"))
    assert shown(dialog) == {"browse": False, "env": False, "headers": True}
    assert dialog.where_label.text() == "&URL"


def test_a_bad_header_line_is_said_and_the_dialog_stays(qtbot: Any) -> None:
    dialog = SourceDialog(None, None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData("http"))
    dialog.label.setText("web")
    dialog.where.setText("https://h.example/mcp")
    dialog.headers.setPlainText("X-Team: blue\nnot a header")
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert dialog.isVisible() and dialog.result_spec is None
    assert "a header is written NAME=VALUE or NAME: VALUE" in dialog.error.text()


def test_headers_typed_in_the_dialog_are_saved_with_the_secret_in_the_keyring(
    make_window: Any, tmp_path: Path, skills_folder: Path, secret_service: Any, qtbot: Any
) -> None:
    import keyring

    cfg_file = tmp_path / "config" / "sources.json"
    cfg = config.Config(exists=True)
    cfg.add(folder_spec(skills_folder, "main"))
    config.save_config(cfg, cfg_file)
    window = make_window(None, sources=SourcesService(config_file=cfg_file, detect=False))
    click_sidebar(qtbot, window, window.sidebar.add_item)
    dialog = window.actions_.dialog
    assert isinstance(dialog, SourceDialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("http"))
    dialog.label.setText("web")
    dialog.where.setText("http://127.0.0.1:9/mcp")
    qtbot.keyClicks(dialog.headers, "Authorization: Bearer tok-83kd02ls93kd")
    dialog.headers.appendPlainText("X-Team: blue")
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    qtbot.waitUntil(lambda: "web" in cfg_file.read_text(), timeout=30000)
    wait_idle(qtbot, window)
    text = cfg_file.read_text()
    assert "tok-83kd02ls93kd" not in text
    (saved,) = [s for s in json.loads(text)["sources"] if s["label"] == "web"]
    headers = dict(saved["headers"])
    assert headers["X-Team"] == "blue"
    ref = headers["Authorization"]
    entry = ref[len("${keyring:") : -1]
    assert keyring.get_password(KEYRING_SERVICE, entry) == "Bearer tok-83kd02ls93kd"
    keyring.delete_password(KEYRING_SERVICE, entry)

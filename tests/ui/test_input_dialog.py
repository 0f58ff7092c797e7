"""The window asks for a server's VS Code input, keeps it in the keyring and lists the
server again with it (a real VS Code file, a real server that needs the value)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from desktop.sources.config.inputs import input_entry
from desktop.sources.config.saved import load_config_file
from desktop.sources.config.secrets import KEYRING_SERVICE
from desktop.ui.sources.input_dialog import InputDialog
from tests.config.test_vscode_inputs import SECRET, keyed_server, write_vscode_config

from .conftest import table_names, wait_idle

pytestmark = pytest.mark.timeout(120)


def test_the_window_asks_for_an_input_and_keeps_it(
    make_window: Any, tmp_home: Path, tmp_path: Path, secret_service: Any, qtbot: Any
) -> None:
    import keyring

    label = f"keyed-{tmp_path.name[-12:]}".replace("_", "-")
    entry = input_entry(label, "api-key")
    if keyring.get_password(KEYRING_SERVICE, entry) is not None:
        keyring.delete_password(KEYRING_SERVICE, entry)
    config = write_vscode_config(tmp_home, keyed_server(tmp_path))
    (server,) = load_config_file(config).servers
    spec = replace(server.spec, label=label, imported_from=(server.client, str(config)))

    window = make_window([spec])
    qtbot.waitUntil(lambda: window.input_asker.dialog is not None, timeout=30000)
    dialog = window.input_asker.dialog
    assert isinstance(dialog, InputDialog)
    assert label in dialog.windowTitle()
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert any(label in t and "api-key" in t for t in labels)
    assert any("Demo API key" in t for t in labels)
    field = dialog.fields["api-key"]
    assert field.echoMode() == QLineEdit.EchoMode.Password
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert not ok.isEnabled()  # nothing entered yet
    qtbot.keyClicks(field, SECRET)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: any(n.endswith("demo") for n in table_names(window)), timeout=60000)
    wait_idle(qtbot, window)
    status = next(s for s in window.controller.catalog.sources if s.origin.label == label)
    assert status.status == "ok"
    assert keyring.get_password(KEYRING_SERVICE, entry) == SECRET
    keyring.delete_password(KEYRING_SERVICE, entry)

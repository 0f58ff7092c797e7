"""*Server output…* in the window: the sidebar's menu on a server shows what it wrote on
its stderr since it was started, bounded and with the secrets it was sent masked."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from desktop.ui.sources.server_output_dialog import ServerOutputDialog

pytestmark = pytest.mark.slow
HOSTILE = Path(__file__).resolve().parent.parent / "mcp" / "servers" / "hostile.py"
SECRET = "s3cr3tV4lue9aZ7kQ2mX8pL5"

# The "chatty-stderr" fixture server (8 MiB of logging, then it serves), started by a
# script that first says which key it was given.
WRAPPER = """
import runpy, sys
print(f"demo: started with {sys.argv[1]}", file=sys.stderr, flush=True)
sys.argv = [sys.argv[2], "chatty-stderr"]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_server_output_shows_the_beginning_and_end_with_the_secret_masked(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    script = tmp_path / "wrapper.py"
    script.write_text(WRAPPER)
    argv = (sys.executable, str(script), f"--api-key={SECRET}", str(HOSTILE))
    spec = SourceSpec("chatty", "mcp", "stdio", shlex.join(argv), command=argv)
    window = make_window([spec])
    assert window.controller.catalog.source("chatty").status == "ok"
    window.sidebar.select_source("chatty")
    action = window.sidebar.server_output_action
    assert action in window.sidebar.menu_actions() and action.isEnabled()
    action.trigger()
    dialog = window.actions_.dialog
    assert isinstance(dialog, ServerOutputDialog)
    text = dialog.text.toPlainText()
    lines = text.splitlines()
    assert lines[0].startswith("demo: started with --api-key=****"), lines[0]
    assert SECRET not in text and SECRET not in dialog.summary.text()
    assert "hostile: log line 00001" in text  # its beginning...
    assert lines[-1] == "hostile: ready to serve"  # ...and its end
    assert any(ln.startswith("[… 8,") and "bytes" in ln and "not shown" in ln for ln in lines)
    assert len(lines) <= 401
    assert "since it was started" in dialog.summary.text()


def test_server_output_of_an_http_server_says_it_runs_elsewhere(
    make_window: Any, qtbot: Any
) -> None:
    spec = SourceSpec("web", "mcp", "http", "http://127.0.0.1:9/mcp")
    window = make_window([spec])
    window.sidebar.select_source("web")
    assert not window.sidebar.server_output_action.isEnabled()
    window.actions_.show_server_output("web")
    dialog = window.actions_.dialog
    assert isinstance(dialog, ServerOutputDialog)
    assert "runs elsewhere" in dialog.summary.text()

"""The window starts without the MCP client: it is loaded, off the loop's thread, when
a server is first read or a sign-in is asked for (about 40 MB and half a second less
at start)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_window_of_folders_does_not_load_the_mcp_client(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\n# A\n")
    code = textwrap.dedent(
        f"""
        import sys
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication
        from desktop.core.model import SourceSpec
        from desktop.ui.app import build_window
        app = QApplication([])
        settings = QSettings({str(tmp_path / "w.ini")!r}, QSettings.Format.IniFormat)
        spec = SourceSpec("local", "local", "folder", {str(folder.parent)!r})
        window = build_window([spec], settings=settings)
        window.show()
        app.processEvents()
        print(sorted(m for m in ("mcp", "pydantic", "httpx2") if m in sys.modules))
        """
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"

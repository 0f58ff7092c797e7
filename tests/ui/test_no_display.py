"""The window started where there is no display says so in one line, not a crash."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_window_without_a_display_says_so_in_one_line(tmp_home) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from desktop.ui.app import main; sys.exit(main([]))"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no graphical display" in lines[0], proc.stderr

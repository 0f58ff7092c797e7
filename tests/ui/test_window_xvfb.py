"""The real window on a real X server (Xvfb), saved as a screenshot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

pytestmark = [pytest.mark.xvfb, pytest.mark.slow]


def test_window_opens_and_saves_a_screenshot(
    xvfb_env: dict[str, str], tmp_path: Path, skills_folder: Path
) -> None:
    shot = tmp_path / "window.png"
    env = dict(xvfb_env)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop.ui",
            "--folder",
            f"mine={skills_folder}",
            "--select",
            "alpha-notes",
            "--preview",
            "--screenshot",
            str(shot),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    image = QImage(str(shot))
    assert not image.isNull()
    assert image.width() >= 800 and image.height() >= 500
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 23)
    }
    assert len(colours) > 8  # a drawn window, not a blank frame

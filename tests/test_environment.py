"""The test environment that scripts/test and tests/conftest.py provide works as promised:
a real Secret Service that can be locked and unlocked, Qt offscreen in-process, real windows
on Xvfb in a subprocess, and a throw-away home."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.keyring
def test_secret_service_stores_and_deletes(secret_service: Any) -> None:
    import keyring

    service = f"skill-catalog-test-{uuid.uuid4()}"
    keyring.set_password(service, "user", "sekret")
    assert keyring.get_password(service, "user") == "sekret"
    keyring.delete_password(service, "user")
    assert keyring.get_password(service, "user") is None


@pytest.mark.keyring
def test_locked_secret_service_refuses_without_a_prompt(locked_secret_service: Any) -> None:
    import keyring
    from keyring.errors import KeyringError

    with pytest.raises(KeyringError):
        keyring.get_password(f"skill-catalog-test-{uuid.uuid4()}", "user")


@pytest.mark.keyring
def test_secret_service_is_unlocked_again_after_a_lock(secret_service: Any) -> None:
    import keyring

    service = f"skill-catalog-test-{uuid.uuid4()}"
    keyring.set_password(service, "user", "x")
    keyring.delete_password(service, "user")


def test_qt_runs_offscreen_in_the_test_process(qapp: Any) -> None:
    assert qapp.platformName() == "offscreen"


def test_qt_calls_keep_the_reference_count_of_none(qapp: Any) -> None:
    """A Qt build that drops a reference to None per call crashes any window in minutes.

    PySide6 6.12.0 does this on Python 3.11 (where None is not immortal): every call
    returning nothing (``QTimer.stop``, ``processEvents``, ``setText``...) takes one
    reference away, until the interpreter aborts with "deallocating None".
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLabel

    timer = QTimer()
    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(200):
        timer.stop()
        label.setText("x")
        qapp.processEvents()
    assert sys.getrefcount(None) - before >= -20, "this PySide6 build drops references to None"


def test_tmp_home_redirects_home_and_xdg(tmp_home: Path) -> None:
    import platformdirs

    assert Path.home() == tmp_home
    assert Path(platformdirs.user_config_dir("skill-catalog")).is_relative_to(tmp_home)
    assert Path(platformdirs.user_cache_dir("skill-catalog")).is_relative_to(tmp_home)
    assert "CLAUDE_CONFIG_DIR" not in os.environ


def test_the_run_never_sees_the_real_home() -> None:
    import pwd
    import tempfile

    assert Path.home() != Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert Path.home().is_relative_to(tempfile.gettempdir())


_SHOW_WINDOW = """
import sys
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(sys.argv)
label = QLabel("Skill Catalog")
label.resize(240, 80)
label.show()
app.processEvents()
print(app.platformName())
sys.exit(0 if label.grab().save(sys.argv[1]) else 1)
"""


@pytest.mark.xvfb
def test_a_real_window_shows_on_xvfb(xvfb_env: dict[str, str], tmp_path: Path) -> None:
    shot = tmp_path / "window.png"
    result = subprocess.run(
        [sys.executable, "-c", _SHOW_WINDOW, str(shot)],
        env=xvfb_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "xcb"
    assert shot.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    "plugin",
    ["platforms/libqxcb.so", "platforms/libqwayland.so", "platforms/libqoffscreen.so"],
)
def test_qt_platform_plugins_find_all_their_system_libraries(plugin: str) -> None:
    """scripts/setup.sh installs every library Qt's platform plugins link against."""
    import PySide6

    path = Path(PySide6.__file__).parent / "Qt" / "plugins" / plugin
    assert path.is_file(), path
    result = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    missing = [line.strip() for line in result.stdout.splitlines() if "not found" in line]
    assert not missing, f"missing libraries (add their packages to scripts/setup.sh): {missing}"

"""Shared fixtures for the whole test suite.

Run the suite with ``scripts/test``: it starts a private D-Bus session with a throw-away,
unlocked gnome-keyring (the real Secret Service) and an Xvfb server, and points HOME and the
XDG directories at throw-away folders.

Qt: every test in this process uses Qt's ``offscreen`` platform (set here, before Qt is
imported; one ``QApplication`` lives per process, so the platform cannot change mid-run).
Tests marked ``xvfb`` that need a real X display start the program in a subprocess with the
``xvfb_env`` fixture (``DISPLAY`` of the Xvfb server, ``QT_QPA_PLATFORM=xcb``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

os.environ["QT_QPA_PLATFORM"] = os.environ.get("SKILL_CATALOG_TEST_QT_PLATFORM", "offscreen")

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SKILLS_DIR = REPO_ROOT / "resources" / "skills"
RUN_WITH_SCRIPTS_TEST = "run the tests with scripts/test, which starts gnome-keyring and Xvfb"

# Variables that would let a test see the person's own agent configuration.
_HOME_VARIABLES_TO_CLEAR = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PYTHON_KEYRING_BACKEND")


def _home_environment(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "APPDATA": str(home / "AppData" / "Roaming"),
        "LOCALAPPDATA": str(home / "AppData" / "Local"),
    }


def pytest_configure(config: pytest.Config) -> None:
    """Outside scripts/test, still keep the whole run away from the real home folder.
    Under scripts/test, each pytest-xdist worker gets a session bus and keyring of its own
    (tests/helpers/worker_session.py)."""
    if os.environ.get("SKILL_CATALOG_TEST_SESSION"):
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if worker:
            from tests.helpers import worker_session

            bus = worker_session.start(worker)
            config.add_cleanup(lambda: worker_session.stop(bus))
        return
    home = Path(tempfile.mkdtemp(prefix="skill-catalog-test-home-"))
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
    os.environ.update(_home_environment(home))
    for name in _HOME_VARIABLES_TO_CLEAR:
        os.environ.pop(name, None)


# --- paths -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout's root folder."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def sample_skills_dir() -> Path:
    """The bundled sample skills (``resources/skills``). Read-only: copy before changing."""
    if not SAMPLE_SKILLS_DIR.is_dir():
        pytest.fail(f"the sample skills folder is missing: {SAMPLE_SKILLS_DIR}")
    return SAMPLE_SKILLS_DIR


@pytest.fixture
def tmp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder for this test: HOME, XDG_* and APPDATA-style variables point
    into it, and CLAUDE_CONFIG_DIR / CODEX_HOME are unset. Returns the home folder.

    The keyring keeps working: its client talks to the Secret Service over D-Bus, and the
    daemon keeps the XDG_DATA_HOME it was started with.
    """
    home = tmp_path / "home"
    env = _home_environment(home)
    for value in env.values():
        Path(value).mkdir(parents=True, exist_ok=True)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in _HOME_VARIABLES_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    return home


# --- the command line ------------------------------------------------------------------


def run_cli(
    *args: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``skill-catalog ARGS...`` (this interpreter's ``python -m desktop``) and return the
    finished process with text ``stdout``/``stderr``. ``env`` replaces the environment
    (default: the current one, including what ``tmp_home`` set)."""
    return subprocess.run(
        [sys.executable, "-m", "desktop", *(os.fspath(a) for a in args)],
        env=dict(os.environ if env is None else env),
        input=input,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


@pytest.fixture(name="run_cli")
def run_cli_fixture() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_cli(*args, env=None, input=None, cwd=None, timeout=120) -> CompletedProcess``."""
    return run_cli


# --- the Secret Service ----------------------------------------------------------------


@pytest.fixture
def secret_service() -> Iterator[Any]:
    """The keyring backend, made the real Secret Service for this test and unlocked.

    Fails with a clear message when the test does not run inside scripts/test's session.
    The Secret Service is set explicitly (not by keyring's detection, which would chain it
    with any backend class a test module defines), and set again after the test, so a test
    that changes the process-wide backend (``keyring.set_keyring``) does not leak it."""
    import keyring
    from keyring.backends import SecretService

    if os.environ.get("PYTHON_KEYRING_BACKEND"):
        pytest.fail("PYTHON_KEYRING_BACKEND is set: unset it; " + RUN_WITH_SCRIPTS_TEST)
    try:
        SecretService.Keyring.priority  # noqa: B018 (raises when no Secret Service answers)
    except RuntimeError as exc:
        pytest.fail(f"no Secret Service on the session bus ({exc}): {RUN_WITH_SCRIPTS_TEST}")
    backend = SecretService.Keyring()
    keyring.set_keyring(backend)
    if _locked_once_answering():
        unlock_secret_service()
    yield backend
    keyring.set_keyring(backend)


def _locked_once_answering(within: float = 20.0) -> bool:
    """Whether the login keyring is locked, asked until gnome-keyring answers: one that
    ended is started again by the session bus at the next call (scripts/test-keyring.sh
    writes why it ended), and a call made while it ends is dropped without an answer."""
    import time

    from secretstorage.exceptions import SecretServiceNotAvailableException

    deadline = time.monotonic() + within
    while True:
        try:
            return secret_service_locked()
        except SecretServiceNotAvailableException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)  # a new gnome-keyring takes a moment to own its bus name


def secret_service_locked() -> bool:
    """Whether the default Secret Service collection (the login keyring) is locked."""
    import secretstorage

    with secretstorage.dbus_init() as connection:
        return bool(secretstorage.get_default_collection(connection).is_locked())


def lock_secret_service() -> None:
    """Lock the default collection, as a screen lock or a timeout would."""
    import secretstorage

    with secretstorage.dbus_init() as connection:
        secretstorage.get_default_collection(connection).lock()


def unlock_secret_service() -> None:
    """Unlock the default collection without a prompt, with scripts/test's password."""
    import secretstorage
    from secretstorage.util import DBusAddressWrapper, format_secret, open_session

    password = os.environ.get("SKILL_CATALOG_TEST_KEYRING_PASSWORD")
    if password is None:
        pytest.fail("cannot unlock the keyring: " + RUN_WITH_SCRIPTS_TEST)
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        secret = format_secret(open_session(connection), password.encode(), "text/plain")
        gnome_keyring = DBusAddressWrapper(
            "/org/freedesktop/secrets",
            "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
            connection,
        )
        gnome_keyring.call(
            "UnlockWithMasterPassword", "o(oayays)", collection.collection_path, secret
        )
        if collection.is_locked():
            pytest.fail("the test keyring stayed locked after unlocking it")


@pytest.fixture
def locked_secret_service(secret_service: Any) -> Iterator[Any]:
    """The Secret Service with its default collection locked for the test (any unlock
    prompt fails at once: the session has no display); unlocked again afterwards."""
    lock_secret_service()
    try:
        yield secret_service
    finally:
        unlock_secret_service()


# --- a real X display -------------------------------------------------------------------


@pytest.fixture(scope="session")
def xvfb_display() -> str:
    """The DISPLAY (":N") of the Xvfb server scripts/test started (scripts/xvfb.sh, the one
    way the project starts one)."""
    display = os.environ.get("SKILL_CATALOG_TEST_DISPLAY")
    if not display:
        pytest.fail("no Xvfb display: " + RUN_WITH_SCRIPTS_TEST)
    return display


@pytest.fixture
def xvfb_env(xvfb_display: str) -> dict[str, str]:
    """An environment for a subprocess that shows real windows on the Xvfb server."""
    env = dict(os.environ)
    env.pop("WAYLAND_DISPLAY", None)
    env["DISPLAY"] = xvfb_display
    env["QT_QPA_PLATFORM"] = "xcb"
    return env

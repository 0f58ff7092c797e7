"""A D-Bus session with a Secret Service of its own for each pytest-xdist worker.

``scripts/test`` runs the suite in one private D-Bus session. When it spreads the tests
over several worker processes, each worker starts its own session bus here, before any
test runs, with its own gnome-keyring (own keyring files, own runtime folder) started by
the bus on first use exactly as in the main session. Workers then never share a keyring:
a test that locks it, or counts what is stored, sees its own worker's alone, and
gnome-keyring never serves the overlapping connections of two processes' tests.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path


def start(worker: str) -> subprocess.Popen[bytes]:
    """Start this worker's bus and Secret Service; point this process at them."""
    scratch = Path(os.environ["SKILL_CATALOG_TEST_SCRATCH"])
    own = scratch / f"worker-{worker}"
    services = own / "dbus-services"
    for folder in (own / "data", own / "runtime", services):
        folder.mkdir(parents=True, exist_ok=True)
    (own / "runtime").chmod(0o700)
    shutil.copy2(scratch / "keyring-password", own / "keyring-password")
    for service in (scratch / "dbus-services").iterdir():
        shutil.copy2(service, services / service.name)
    config = (scratch / "dbus-session.conf").read_text()
    config = config.replace(
        f"<listen>unix:tmpdir={scratch}</listen>", f"<listen>unix:tmpdir={own}</listen>"
    ).replace(
        f"<servicedir>{scratch}/dbus-services</servicedir>", f"<servicedir>{services}</servicedir>"
    )
    (own / "dbus-session.conf").write_text(config)
    env = {
        **os.environ,
        "SKILL_CATALOG_TEST_SCRATCH": str(own),
        "XDG_DATA_HOME": str(own / "data"),
        "XDG_RUNTIME_DIR": str(own / "runtime"),
    }
    log = os.open(own / "dbus.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        bus = subprocess.Popen(
            ["dbus-daemon", f"--config-file={own / 'dbus-session.conf'}", "--nofork"]
            + ["--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
        )
    finally:
        os.close(log)
    assert bus.stdout is not None
    address = bus.stdout.readline().decode().strip()
    if not address:
        raise RuntimeError(f"the D-Bus session of test worker {worker} did not start")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
    # Start the Secret Service now, as the main session does, so the first test does
    # not wait for it.
    subprocess.run(
        [
            "dbus-send",
            "--session",
            "--print-reply=literal",
            "--reply-timeout=30000",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.StartServiceByName",
            "string:org.freedesktop.secrets",
            "uint32:0",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return bus


def stop(bus: subprocess.Popen[bytes]) -> None:
    """Stop this worker's gnome-keyring, then its bus."""
    owner = subprocess.run(
        [
            "dbus-send",
            "--session",
            "--print-reply=literal",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID",
            "string:org.freedesktop.secrets",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    words = owner.stdout.split()
    if owner.returncode == 0 and words and words[-1].isdigit():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(words[-1]), signal.SIGTERM)
    bus.terminate()
    bus.wait(timeout=30)

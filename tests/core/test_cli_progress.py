"""Progress on a terminal: `list` and `verify` say what they wait for on stderr when it is
a terminal, and write nothing extra when it is not, or with --json."""

from __future__ import annotations

import os
import pty
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)


def slow_npx(folder: Path, skills: Path) -> str:
    """A ``--server`` value: an ``npx`` that takes 2 s to "install", then serves."""
    script = folder / "npx"
    serve = shlex.join([sys.executable, "-m", "desktop", "serve", str(skills)])
    script.write_text(f"#!/bin/sh\nsleep 2\nexec {serve}\n")
    script.chmod(0o755)
    return f"slow={shlex.join([str(script), '-y', 'pkg'])}"


def run_on_terminal(args: list[str], cwd: Path) -> tuple[int, str, bytes]:
    """Run ``skill-catalog ARGS`` with stderr on a pseudo-terminal: (rc, stdout, stderr)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        cwd=cwd,
        env=dict(os.environ, COLUMNS="200"),
    )
    os.close(follower)
    seen = bytearray()
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(leader)
    out = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=30), out, bytes(seen)


def test_list_shows_what_it_waits_for_on_a_terminal(
    tmp_home: Path, tmp_path: Path, sample_skills_dir: Path
) -> None:
    server = slow_npx(tmp_path, sample_skills_dir)
    rc, out, err = run_on_terminal(["list", "--server", server], tmp_path)
    assert rc == 0, err
    assert b"reading sources: 0 of 1 done" in err
    assert b"waiting for slow (starting (npx may be installing the package))" in err
    assert err.rstrip(b"\r\n").endswith(b"\r\x1b[K")  # the line is cleared at the end
    assert "slow:pdf-forms" in out and "\x1b" not in out


def test_verify_counts_the_skills_it_verified(tmp_home: Path, tmp_path: Path) -> None:
    rc, _, err = run_on_terminal(
        ["verify", "--all", "--folder", str(Path(__file__).resolve().parents[2] / "resources")],
        tmp_path,
    )
    assert b"verifying skills: " in err and b" of " in err, err


def test_nothing_extra_when_stderr_is_not_a_terminal_or_with_json(
    tmp_home: Path, tmp_path: Path, sample_skills_dir: Path
) -> None:
    plain = subprocess.run(
        [sys.executable, "-m", "desktop", "list", "--folder", str(sample_skills_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert plain.returncode == 0 and "reading sources" not in plain.stderr
    rc, _, err = run_on_terminal(["list", "--json", "--folder", str(sample_skills_dir)], tmp_path)
    assert rc == 0 and b"reading sources" not in err

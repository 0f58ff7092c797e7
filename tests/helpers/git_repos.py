"""Real git repositories for tests: made with ``git`` in a folder, and served by a real
``git daemon`` on 127.0.0.1 (a free port, waited for until it answers)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(*args: str | Path, cwd: Path) -> str:
    """Run git in ``cwd`` (fails the test when git fails); its stdout."""
    done = subprocess.run(
        ["git", *(os.fspath(a) for a in args)],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def init_repo(work: Path) -> Path:
    """A new repository (branch ``main``) in the folder ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    git("init", "--quiet", "--initial-branch=main", cwd=work)
    return work


def commit_all(work: Path, message: str = "change") -> str:
    """Commit everything in ``work``; the new commit's id."""
    git("add", "--all", cwd=work)
    git("commit", "--quiet", "--allow-empty", "-m", message, cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


def publish(work: Path, served: Path, name: str = "skills.git") -> Path:
    """Push ``work``'s main (and tags) to the bare repository ``served/name``."""
    bare = served / name
    if not bare.exists():
        git("init", "--quiet", "--bare", "--initial-branch=main", bare, cwd=served)
    git("push", "--quiet", "--force", "--tags", bare, "main", cwd=work)
    return bare


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """``git daemon`` serving every repository under ``base``; yields its
    ``git://127.0.0.1:PORT`` address, and ends it afterwards."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            "--export-all",
            f"--base-path={base}",
            f"--port={port}",
            "--listen=127.0.0.1",
            "--reuseaddr",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert proc.poll() is None, "git daemon ended"
            assert time.monotonic() < deadline, "git daemon did not answer"
            time.sleep(0.02)  # waiting on the daemon's port, not on a guess
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

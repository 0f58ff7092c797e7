"""Start the real ``skill-catalog serve`` in a subprocess, for tests of any area.

Usage (the ``tests`` folder is on ``sys.path`` when pytest runs, so import as
``from helpers.serve import ...``)::

    # stdio: hand the parameters (or the argv) to a client; the client starts it
    params = serve_stdio_params(folder, "--page-size", "2")
    async with mcp.Client(params, mode="legacy") as client: ...
    argv = serve_argv(folder)          # e.g. for --server "LABEL=<shlex.join(argv)>"

    # Streamable HTTP on 127.0.0.1, a free port; stopped when the block ends
    with serve_http(folder) as server:
        server.url                      # "http://127.0.0.1:PORT/mcp"
        server.stderr_text()            # what it has printed on stderr so far
        server.wait_for_stderr("serving")

All servers bind 127.0.0.1 only. ``write_skill`` makes a minimal valid skill folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from mcp import StdioServerParameters

START_TIMEOUT = 30.0


def serve_argv(folder: str | os.PathLike[str], *options: str) -> list[str]:
    """The command line that serves ``folder`` over stdio with ``options``."""
    return [sys.executable, "-m", "desktop", "serve", os.fspath(folder), *options]


def serving_pids(folder: str | os.PathLike[str]) -> list[int]:
    """Processes serving ``folder``, found by their command line in ``/proc`` (Linux)."""
    mark = os.fsencode(os.fspath(folder))
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if mark in argv and b"serve" in argv:
            found.append(int(entry))
    return found


def serve_stdio_params(
    folder: str | os.PathLike[str],
    *options: str,
    env: dict[str, str] | None = None,
) -> StdioServerParameters:
    """`mcp` stdio parameters that start ``skill-catalog serve FOLDER OPTIONS...``."""
    argv = serve_argv(folder, *options)
    return StdioServerParameters(
        command=argv[0], args=argv[1:], env=dict(os.environ if env is None else env)
    )


@dataclass
class HttpServe:
    """A running ``serve --http`` subprocess."""

    url: str
    process: subprocess.Popen[bytes]
    _stderr: list[bytes] = field(default_factory=list)

    def stderr_text(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def wait_for_stderr(self, text: str, timeout: float = 10.0) -> str:
        """Wait until ``text`` appears on the server's stderr; return all of it so far."""
        deadline = time.monotonic() + timeout
        while text not in self.stderr_text():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"{text!r} not on stderr: {self.stderr_text()!r}")
            time.sleep(0.05)
        return self.stderr_text()


def _drain(stream: IO[bytes], sink: list[bytes]) -> None:
    sink.extend(iter(stream.readline, b""))


@contextmanager
def serve_http(
    folder: str | os.PathLike[str],
    *options: str,
    host: str = "127.0.0.1",
    env: dict[str, str] | None = None,
    timeout: float = START_TIMEOUT,
) -> Iterator[HttpServe]:
    """Run ``skill-catalog serve FOLDER --http HOST:0 OPTIONS...`` until the block ends.

    Yields once the server printed its URL (the first line of its stdout), that is,
    once it listens. Fails with the server's stderr if it exits or stays silent.
    """
    argv = serve_argv(folder, "--http", f"{host}:0", *options)
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ if env is None else env),
    )
    assert process.stdout is not None and process.stderr is not None
    stderr_lines: list[bytes] = []
    threading.Thread(target=_drain, args=(process.stderr, stderr_lines), daemon=True).start()
    first: list[bytes] = []
    reader = threading.Thread(target=lambda: first.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    try:
        url = first[0].decode().strip() if first else ""
        if not url.startswith("http://"):
            process.kill()
            process.wait(10)
            err = b"".join(stderr_lines).decode("utf-8", "replace")
            raise RuntimeError(f"serve --http did not start (exit {process.returncode}): {err}")
        threading.Thread(
            target=_drain, args=(process.stdout, []), daemon=True
        ).start()  # keep its stdout from filling up
        yield HttpServe(url=url, process=process, _stderr=stderr_lines)
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server process: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def write_skill(
    parent: Path,
    skill_path: str,
    description: str = "A skill written for a test.",
    files: dict[str, bytes] | None = None,
    extra_frontmatter: str = "",
) -> Path:
    """Write ``parent/skill_path/SKILL.md`` (named after its last segment) and ``files``."""
    directory = parent / skill_path
    directory.mkdir(parents=True, exist_ok=True)
    name = Path(skill_path).name
    text = f"---\nname: {name}\ndescription: {description}\n{extra_frontmatter}---\n\n# {name}\n"
    (directory / "SKILL.md").write_bytes(text.encode("utf-8"))
    for rel, data in (files or {}).items():
        target = directory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return directory


def many_skills_folder(count: int, parent: Path | None = None) -> Path:
    """A folder holding ``count`` small valid skills (``skill-00000`` ...)."""
    root = Path(tempfile.mkdtemp(prefix="serve-many-", dir=parent))
    for i in range(count):
        write_skill(root, f"skill-{i:05d}", description=f"Skill number {i}.")
    return root

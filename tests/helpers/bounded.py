"""Run the command line under hard limits, and measure what it cost.

A hostile input that regresses must fail its test, not take the machine: the child
gets an address-space ceiling (``RLIMIT_AS``) and a CPU-time ceiling (``RLIMIT_CPU``),
runs in its own process group (ended whole at the deadline), and its output is read
only up to a cap. What it cost comes back from ``wait4``: its own peak resident memory
(and that of the children it waited for), and the wall time.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass

GIB = 1024**3
MIB = 1024**2


@dataclass
class Bounded:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes
    stdout_bytes: int
    timed_out: bool

    def summary(self) -> str:
        return (
            f"exit {self.returncode}, {self.seconds:.1f} s, peak RSS "
            f"{self.peak_rss / MIB:.0f} MiB, {self.stdout_bytes:,} bytes of output"
            + (" (killed at the deadline)" if self.timed_out else "")
        )


def run_bounded(
    *args: str | os.PathLike[str],
    seconds: float,
    memory: int = 3 * GIB,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    output_cap: int = 200 * MIB,
) -> Bounded:
    """``skill-catalog ARGS`` with at most ``memory`` bytes of address space and
    ``seconds`` of wall time (and as much CPU time); killed past either."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "desktop", *(os.fspath(a) for a in args)],
            env=dict(os.environ if env is None else env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            preexec_fn=limits,
            start_new_session=True,
        )
        timed_out = False
        deadline = started + seconds
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline or _size(out) > output_cap:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        # What the child left in its group (a server it started) ends with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        size = _size(out)
        out.seek(0)
        err.seek(0)
        stdout = out.read(min(size, output_cap)).decode("utf-8", "replace")
        stderr = err.read(4 * MIB).decode("utf-8", "replace")
    return Bounded(
        proc.returncode,
        stdout,
        stderr,
        elapsed,
        usage.ru_maxrss * 1024 if usage is not None else 0,
        size,
        timed_out,
    )


def _size(f: object) -> int:
    return os.fstat(f.fileno()).st_size  # type: ignore[attr-defined]

"""Package runners (``npx``, ``uvx``, ``pipx run``, ``bunx``, ``docker run``) and the
time a server gets to start.

A server started through a package runner may first download and install its package:
with an empty cache that takes tens of seconds, longer than an ordinary server needs to
answer its handshake. Such a server gets a longer connect timeout, its status says what
it is waiting for, and when the catalog gives up on it the runner is given time to
finish its install before its process group is ended: a runner ended mid-install can
leave a half-written package in its cache that breaks every later start.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from desktop.core.model import SourceSpec

PACKAGE_RUNNER_CONNECT_TIMEOUT = 120.0
"""Seconds a server started through a package runner has to answer its handshake."""
PACKAGE_RUNNER_EXIT_GRACE = 30.0
"""Seconds a package runner that never answered is given, once its stdin is closed, to
finish installing and exit on its own before its process group is ended."""
PACKAGE_RUNNER_KILL_GRACE = 5.0
"""Seconds between SIGTERM and SIGKILL to a package runner's process group."""
MAX_CONNECT_TIMEOUT = 3600.0

# The program (its file name, without a Windows suffix) and, for runners that are a
# subcommand of a larger tool, the subcommand.
_RUNNERS: dict[str, tuple[str, ...]] = {
    "npx": (),
    "uvx": (),
    "bunx": (),
    "pnpx": (),
    "pipx": ("run",),
    "uv": ("tool", "run"),
    "bun": ("x",),
    "pnpm": ("dlx",),
    "yarn": ("dlx",),
    "docker": ("run",),
    "podman": ("run",),
}
_SUFFIX = re.compile(r"\.(exe|cmd|bat|ps1)$", re.IGNORECASE)


def package_runner(command: Sequence[str]) -> str | None:
    """The package runner a command line starts (``"npx"``, ``"pipx run"``), or None.

    A Windows ``cmd /c`` in front is looked through; so is ``uv tool run``'s shorter
    spelling for ``uv`` (``uv tool run`` and ``uvx`` are the same runner).
    """
    argv = list(command)
    if len(argv) >= 2 and _program(argv[0]) == "cmd" and argv[1].lower() in ("/c", "/k"):
        argv = argv[2:]
    if not argv:
        return None
    program = _program(argv[0])
    sub = _RUNNERS.get(program)
    if sub is None:
        return None
    if sub and [a.lower() for a in argv[1 : 1 + len(sub)]] != list(sub):
        return None
    return " ".join((program, *sub))


def _program(arg: str) -> str:
    return _SUFFIX.sub("", os.path.basename(arg.replace("\\", "/"))).lower()


def spec_runner(spec: SourceSpec) -> str | None:
    """The package runner a stdio source starts, or None."""
    if not spec.kind_info.runs_code or spec.transport != "stdio":
        return None
    return package_runner(spec.command)


def connect_timeout(spec: SourceSpec, default: float) -> float:
    """Seconds the server of ``spec`` has to start (or be reached) and answer its
    handshake: its own setting, else the longer default of package runners, else
    ``default``."""
    if spec.connect_timeout is not None:
        return spec.connect_timeout
    if spec_runner(spec) is not None:
        return max(default, PACKAGE_RUNNER_CONNECT_TIMEOUT)
    return default


def discovery_timeout(spec: SourceSpec, connect_default: float, whole: float) -> float:
    """Seconds one server's whole discovery may take: ``whole``, lengthened by as much
    as its connect timeout exceeds ``connect_default``."""
    return whole + max(0.0, connect_timeout(spec, connect_default) - connect_default)


def starting_message(spec: SourceSpec) -> str:
    """What a source's status says while its server is starting."""
    runner = spec_runner(spec)
    if runner is None:
        return "starting" if spec.transport == "stdio" else "connecting"
    what = "image" if runner in ("docker run", "podman run") else "package"
    return f"starting ({runner.split()[0]} may be installing the {what})"


def timeout_advice(spec: SourceSpec, seconds: float) -> str:
    """What a connect timeout's message adds: what may have been happening, and how to
    give the server longer."""
    runner = spec_runner(spec)
    advice = (
        f'give it longer with --connect-timeout SECONDS, or "connect_timeout": '
        f"{_longer(seconds)} in the source's entry in sources.json"
    )
    if runner is None:
        return advice
    what = "image" if runner in ("docker run", "podman run") else "package"
    return f"{runner.split()[0]} may still have been installing the {what}; {advice}"


def _longer(seconds: float) -> str:
    return f"{max(2 * seconds, PACKAGE_RUNNER_CONNECT_TIMEOUT):g}"


def stop_graces(spec: SourceSpec) -> tuple[float, float] | None:
    """(exit grace, kill grace) for a package runner that never answered, or None."""
    if spec_runner(spec) is None:
        return None
    return PACKAGE_RUNNER_EXIT_GRACE, PACKAGE_RUNNER_KILL_GRACE


def parse_timeout(value: object) -> float:
    """A connect timeout in seconds from a config value or option: a positive number
    up to an hour. Raises ValueError with the reason."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{value!r} is not a number of seconds")
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a number of seconds") from None
    if not (0 < seconds <= MAX_CONNECT_TIMEOUT):
        raise ValueError(f"{value!r} seconds: give more than 0 and at most {MAX_CONNECT_TIMEOUT:g}")
    return seconds

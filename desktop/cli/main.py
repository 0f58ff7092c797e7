"""The ``skill-catalog`` command. Each sub-command lives in ``desktop/cli/cmd_*.py``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. Exit codes: 0 success, 1 a check failed, 2 bad usage.
A command that keeps running (``serve``) sets ``LONG_RUNNING = True``; every other
command runs to its end with the cyclic garbage collector paused.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import pkgutil
import sys
from types import ModuleType
from typing import Any

import desktop
from desktop.cli.output import CheckFailed, UsageError, VisibleText, err
from desktop.core.collector import collector_paused


def _command_names() -> list[str]:
    """Sub-command names from the ``cmd_<name>.py`` files, without importing them."""
    import desktop.cli as pkg

    return sorted(
        info.name[len("cmd_") :]
        for info in pkgutil.iter_modules(pkg.__path__)
        if info.name.startswith("cmd_")
    )


def _load(name: str) -> ModuleType:
    return importlib.import_module(f"desktop.cli.cmd_{name}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser. With ``only``, just that command's module is imported (fast start)."""
    parser = _Parser(
        prog="skill-catalog",
        description="Browse Agent Skills from local folders and MCP servers.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {desktop.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _command_names():
        if only is not None and name != only:
            sub.add_parser(name)
            continue
        mod = _load(name)
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run, _long_running=getattr(mod, "LONG_RUNNING", False))
    return parser


def _chosen(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in _command_names() else None
        if arg == "--version":
            return ""  # nothing to import
        if arg in ("-h", "--help"):
            return None
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Third-party text is printed by every command: none of it may steer the terminal.
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(_usable(stdout)), VisibleText(_usable(stderr))
    try:
        return _main(argv)
    finally:
        with contextlib.suppress(OSError):  # said already, or nobody to say it to
            sys.stdout.flush()
        sys.stdout, sys.stderr = stdout, stderr


def _usable(stream: Any) -> Any:
    """A standard stream a command can always write to: one closed at start (``>&-``)
    writes nowhere, and a character its encoding lacks (``PYTHONIOENCODING=latin-1``)
    is written as an escape instead of ending the command."""
    if stream is None:
        return open(os.devnull, "w", encoding="utf-8")
    if isinstance(stream, io.TextIOWrapper):
        with contextlib.suppress(ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")
    return stream


def _main(argv: list[str]) -> int:
    parser = build_parser(_chosen(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        if args._long_running:
            return int(args._run(args))
        with collector_paused():  # a one-shot command: its objects die with the process
            return int(args._run(args))
    except UsageError as exc:
        err(f"skill-catalog {args.command}: {exc}")
        return 2
    except CheckFailed as exc:
        err(str(exc))
        return 1
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # Output that cannot be written (a full disk, a closed terminal) or a file that
        # cannot be: a message, not a traceback.
        with contextlib.suppress(OSError):
            err(f"skill-catalog {args.command}: {exc.strerror or exc}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Source options shared by every command: each kind's own (``--folder``, ``--server``,
``--zip``, …, from :mod:`desktop.sources.kinds`), ``--config``, and ``--input`` for the
values servers ask for.

When any source option is given, only those sources are used (no saved configuration,
no detected folders), so a run is reproducible. Without any, the saved and detected
sources are used.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from typing import Any

from desktop.cli.output import err, fail_usage
from desktop.core.catalog import Catalog
from desktop.core.model import SourceSpec
from desktop.sources import kinds
from desktop.sources.config import options


def add_source_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sources (when any is given, only these are used)")
    kinds.add_kind_options(group)
    group.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP servers from a client's config file (Claude, VS Code, Cursor, Codex, Gemini "
        "CLI; the format is told by the file's name and content)",
    )
    group.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="ID=VALUE",
        type=_input_value,
        help="the value of a server's ${input:ID} (VS Code's inputs), for every server that "
        "asks for ID; kept in the OS keyring for the next run (without it, a terminal is "
        "asked)",
    )
    group.add_argument(
        "--connect-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="seconds every server has to start and answer (default: 20, or 120 for "
        "servers started with npx, uvx, pipx run, bunx or docker run, which may first "
        "install their package)",
    )


def _input_value(value: str) -> tuple[str, str]:
    input_id, sep, given = value.partition("=")
    if not sep or not input_id.strip():
        raise argparse.ArgumentTypeError(f"expected ID=VALUE, got {value.split('=')[0]!r}")
    return input_id.strip(), given


def ask_inputs(args: argparse.Namespace, specs: list[SourceSpec], *, terminal: bool = True) -> None:
    """Give every server the ``${input:ID}`` values it lacks: from ``--input``, else by
    asking on a terminal (hidden for a password). A value given is kept in the keyring
    for that server; a server still without one is not started and says which it needs."""
    given = dict(getattr(args, "input", None) or [])
    wanted = [s for s in specs if s.kind_info.runs_code and s.enabled and not s.untrusted]
    if not wanted:
        return
    from desktop.sources.config import inputs as config_inputs

    for spec in wanted:
        if not config_inputs.input_ids(spec):
            continue
        for request in config_inputs.input_requests(spec):
            value = given.get(request.id)
            if value is None:
                if config_inputs.stored_input(spec.label, request.id) is not None:
                    continue
                value = _ask_terminal(request) if terminal else None
                if value is None:
                    continue
            why = config_inputs.remember_input(spec.label, request.id, value)
            if why:
                err(f"{spec.label}: input {request.id} is used for this run only: {why}")


def _given_all(args: argparse.Namespace, spec: SourceSpec) -> bool:
    given = {i for i, _ in getattr(args, "input", None) or []}
    from desktop.sources.config.inputs import input_ids

    return set(input_ids(spec)) <= given


def _ask_terminal(request: Any) -> str | None:
    """Ask on the terminal; None without one (or when the person gives nothing)."""
    import sys

    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    question = request.prompt() + ": "
    try:
        if request.password:
            import getpass

            value = getpass.getpass(question, stream=sys.stderr)
        else:
            sys.stderr.write(question)
            sys.stderr.flush()
            value = sys.stdin.readline().rstrip("\n")
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\n")
        return None
    return value or None


def _seconds(value: str) -> float:
    from desktop.sources.launchers import parse_timeout

    try:
        return parse_timeout(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def with_connect_timeout(args: argparse.Namespace, specs: list[SourceSpec]) -> list[SourceSpec]:
    """The specs with ``--connect-timeout`` applied to every server, when it was given."""
    seconds = getattr(args, "connect_timeout", None)
    if seconds is None:
        return specs
    return [replace(s, connect_timeout=seconds) if s.kind_info.runs_code else s for s in specs]


def specs_from_args(args: argparse.Namespace) -> list[SourceSpec] | None:
    """The sources the options name, or ``None`` when no source option was given."""
    unreadable: list[str] = []
    # A --config file of which nothing could be read is a source that failed.
    args.unreadable_configs = unreadable
    try:
        specs = options.specs_from_options(
            [],
            [],
            getattr(args, "config", []) or [],
            err,
            unreadable,
            parsed=kinds.specs_from_kind_options(args),
        )
    except ValueError as exc:  # a SourceOptionError, or a kind's own
        fail_usage(str(exc))
    if specs is None:
        return None
    ask_inputs(args, specs, terminal=False)  # the window asks in its own way
    return with_connect_timeout(args, specs)


# What the sources in use said while they were gathered (a config file not understood,
# a project's servers not started), each said once per run at most (see
# say_source_notes); a command naming one skill or server says them only when it did
# not find it, since only then may they concern it.
_SOURCE_NOTES: list[str] = []
_SAID: set[str] = set()
WHOLE_CATALOG_COMMANDS = frozenset({"list", "triggers", "approvals"})


def reads_whole_catalog(args: argparse.Namespace) -> bool:
    """Whether the command reads every source, so what they said concerns it."""
    command = getattr(args, "command", None)
    return command in WHOLE_CATALOG_COMMANDS or (
        command == "verify" and bool(getattr(args, "all", False))
    )


def say_source_notes() -> None:
    """Say on stderr what the sources in use said and was not said yet in this run."""
    for note in _SOURCE_NOTES:
        if note not in _SAID:
            _SAID.add(note)
            err(note)


def resolve_specs(args: argparse.Namespace) -> list[SourceSpec]:
    specs = specs_from_args(args)
    if specs is not None:
        ask_inputs(args, [s for s in specs if not _given_all(args, s)])
        return specs
    try:
        from desktop.sources.config import saved as config
    except ImportError:
        return []
    found = config.collect_sources()
    notes = [f"{file}: {reason}" for file, reason in found.problems]
    if found.untrusted:
        from desktop.core.trust import one_line_summary

        how = "skill-catalog trust " + shlex.quote(found.untrusted[0].project)
        notes.append(one_line_summary(found.untrusted, how))
    _SOURCE_NOTES.extend(n for n in notes if n not in _SOURCE_NOTES)
    if reads_whole_catalog(args):
        say_source_notes()
    ask_inputs(args, found.specs)
    return with_connect_timeout(args, found.specs)


async def load_catalog(args: argparse.Namespace, budgets: Any = None) -> Catalog:
    from desktop.cli import progress

    show = progress.wanted(bool(getattr(args, "json", False)))
    return await progress.discover(resolve_specs(args), show=show, budgets=budgets)

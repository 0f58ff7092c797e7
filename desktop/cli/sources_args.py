"""Source options shared by every command: ``--folder``, ``--server``, ``--config``.

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
from desktop.sources import options


def add_source_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sources (when any is given, only these are used)")
    group.add_argument(
        "--folder",
        action="append",
        default=[],
        metavar="[LABEL=]DIR",
        help="a local folder of skills",
    )
    group.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="LABEL=COMMAND|URL",
        help="an MCP server: a command line (stdio) or an http(s):// URL (Streamable HTTP)",
    )
    group.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP servers from a client's config file (Claude, VS Code, Cursor, Codex)",
    )
    group.add_argument(
        "--connect-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="seconds every server has to start and answer (default: 20, or 120 for "
        "servers started with npx, uvx, pipx run, bunx or docker run, which may first "
        "install their package)",
    )


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
    return [replace(s, connect_timeout=seconds) if s.kind == "mcp" else s for s in specs]


def parse_server(value: str) -> SourceSpec:
    try:
        return options.parse_server(value)
    except options.SourceOptionError as exc:
        fail_usage(str(exc))


def parse_folder(value: str) -> SourceSpec:
    try:
        return options.parse_folder(value)
    except options.SourceOptionError as exc:
        fail_usage(f"--folder: {exc}")


def specs_from_args(args: argparse.Namespace) -> list[SourceSpec] | None:
    """The sources the options name, or ``None`` when no source option was given."""
    unreadable: list[str] = []
    # A --config file of which nothing could be read is a source that failed.
    args.unreadable_configs = unreadable
    try:
        specs = options.specs_from_options(
            getattr(args, "folder", []) or [],
            getattr(args, "server", []) or [],
            getattr(args, "config", []) or [],
            err,
            unreadable,
        )
    except options.SourceOptionError as exc:
        fail_usage(str(exc))
    return None if specs is None else with_connect_timeout(args, specs)


def resolve_specs(args: argparse.Namespace) -> list[SourceSpec]:
    specs = specs_from_args(args)
    if specs is not None:
        return specs
    try:
        from desktop.sources import config
    except ImportError:
        return []
    found = config.collect_sources()
    for file, reason in found.problems:
        err(f"{file}: {reason}")
    if found.untrusted:
        from desktop.core.trust import one_line_summary

        how = "skill-catalog trust " + shlex.quote(found.untrusted[0].project)
        err(one_line_summary(found.untrusted, how))
    return with_connect_timeout(args, found.specs)


async def load_catalog(args: argparse.Namespace, budgets: Any = None) -> Catalog:
    from desktop.cli import progress

    show = progress.wanted(bool(getattr(args, "json", False)))
    return await progress.discover(resolve_specs(args), show=show, budgets=budgets)

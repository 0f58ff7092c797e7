"""Source options shared by every command: ``--folder``, ``--server``, ``--config``.

When any source option is given, only those sources are used (no saved configuration,
no detected folders), so a run is reproducible. Without any, the saved and detected
sources are used.
"""

from __future__ import annotations

import argparse
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
    try:
        return options.specs_from_options(
            getattr(args, "folder", []) or [],
            getattr(args, "server", []) or [],
            getattr(args, "config", []) or [],
            err,
        )
    except options.SourceOptionError as exc:
        fail_usage(str(exc))


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
    return found.specs


async def load_catalog(args: argparse.Namespace, budgets: Any = None) -> Catalog:
    from desktop.sources.registry import discover

    return await discover(resolve_specs(args), budgets=budgets)

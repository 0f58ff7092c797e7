"""``skill-catalog untrust [DIR]``: forget the trust given to a project folder; its
config files' servers are not started again until trusted anew."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from desktop.cli.output import err
from desktop.core.visible import cut, one_line
from desktop.core.words import count

NAME = "untrust"
HELP = "stop starting the MCP servers a project folder's config files ask for"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="the project folder (default: here)"
    )


def run(args: argparse.Namespace) -> int:
    from desktop.session.decisions import TrustNotSaved
    from desktop.sources.config.importers import project_root

    folder = Path(args.dir).expanduser()
    if not folder.is_dir():
        err(f"skill-catalog untrust: {args.dir}: not a folder")
        return 2
    project = str(project_root(folder))  # resolved: a link to the folder is the folder
    from desktop.cli.command_session import new_session

    try:
        n = asyncio.run(new_session([]).untrust_folder(project))
    except (TrustNotSaved, OSError) as exc:
        err(f"skill-catalog untrust: {exc}")
        return 1
    shown = cut(one_line(project))
    if not n:
        print(f"{shown}: nothing was trusted here.")
        return 0
    print(f"{shown}: trust withdrawn from {count(n, 'server')}; they are not started again.")
    return 0

"""``skill-catalog uninstall NAME --agent AGENT``: remove a skill the catalog installed.

Only a skill the catalog's lock records is removed; one changed on disk since it was
installed only with ``--force``, after saying which files changed.
"""

from __future__ import annotations

import argparse

from desktop.cli.install_args import add_place_options, places_from
from desktop.cli.output import err

NAME = "uninstall"
HELP = "remove a skill the catalog installed from the agents' folders"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill's folder name")
    add_place_options(parser, "remove it")
    parser.add_argument("--force", action="store_true", help="remove it even if it changed")


def run(args: argparse.Namespace) -> int:
    from desktop.core.install import InstallError
    from desktop.session.installer import uninstall

    rc = 0
    for place in places_from(args, NAME):
        try:
            drifted = uninstall(place, args.name, force=args.force)
        except (InstallError, OSError) as exc:
            err(f"skill-catalog uninstall: {exc}")
            rc = 1
            continue
        extra = f" (it had changed: {', '.join(drifted)})" if drifted else ""
        print(f"Removed {place.folder / args.name}{extra}")
    return rc

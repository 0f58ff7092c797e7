"""``skill-catalog disable NAME --agent AGENT``: move a skill out of its agents' sight.

A disabled skill is moved out of the agent's folder into the catalog's keeping (its state
folder), so the agent stops loading it and nothing of it is lost; ``enable`` moves it
back. Only a skill the catalog installed (its lock records it) is moved.
"""

from __future__ import annotations

import argparse

from desktop.cli.install_args import add_place_options, places_from
from desktop.cli.output import err

NAME = "disable"
HELP = "move a skill the catalog installed out of its agents' sight, keeping it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill's folder name")
    add_place_options(parser, "disable it")


def run(args: argparse.Namespace) -> int:
    from desktop.core.install import InstallError
    from desktop.session.installer import set_enabled

    rc = 0
    for place in places_from(args, NAME):
        try:
            where = set_enabled(place, args.name, False)
        except (InstallError, OSError) as exc:
            err(f"skill-catalog disable: {exc}")
            rc = 1
            continue
        print(f"Disabled {args.name} for {', '.join(place.agents)}: it is now in {where}")
    return rc

"""``skill-catalog adopt NAME --agent AGENT``: take a skill another tool (or a person)
put in an agent's folder under the catalog's care, once it is approved as it is there.

Approve it first (``skill-catalog approve PATH`` on its folder, after reviewing it); then
``adopt`` records it in the lock as if the catalog had installed it, so ``installed``
follows it from then on.
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli.install_args import add_place_options, places_from
from desktop.cli.output import err
from desktop.cli.resolve import Resolver

NAME = "adopt"
HELP = "take an approved skill already in an agent's folder under the catalog's care"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill's folder name")
    add_place_options(parser, "adopt it")


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import command_session
    from desktop.core.install import InstallError
    from desktop.session.approval_service import now_utc
    from desktop.session.installer import adopt

    rc = 0
    for place in places_from(args, NAME):
        folder = place.folder / args.name
        async with command_session([]) as session:
            picked = await Resolver(session, listed=True).pick(str(folder))
            if picked.skill is None:
                err(f"skill-catalog adopt: {picked.message}")
                rc = 1
                continue
            states = await session.approvals.states([picked.skill])
        state = states.get(picked.skill.id)
        try:
            if state is None:
                raise InstallError("its approval could not be read")
            adopt(picked.skill, state, place, at=now_utc())
        except (InstallError, OSError) as exc:
            err(f"skill-catalog adopt: {folder} is not adopted: {exc}")
            if "approve" in str(exc):
                err(f"  review it, then: skill-catalog approve {folder}")
            rc = 1
            continue
        print(f"Adopted {folder}: installed follows it from now on")
    return rc

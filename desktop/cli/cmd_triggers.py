"""``skill-catalog triggers MESSAGE``: which skills a message would pull in."""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli.output import emit_json
from desktop.cli.sources_args import add_source_options, load_catalog
from desktop.core.loading import match_triggers
from desktop.core.words import count

NAME = "triggers"
HELP = "show which skills' triggers match a message"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("message", metavar="MESSAGE", help="the message a user would send")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    catalog = asyncio.run(load_catalog(args))
    matches = match_triggers(catalog.skills, args.message)
    if args.json:
        emit_json(
            {
                "message": args.message,
                "matches": [
                    {
                        "id": m.skill.id,
                        "qualified_name": m.skill.qualified_name,
                        "origin": m.skill.origin.label,
                        "trigger": m.trigger,
                        "strategy": m.skill.loading.strategy,
                    }
                    for m in matches
                ],
            }
        )
        return 0
    if not matches:
        if not any(s.loading.triggers for s in catalog.skills):
            print(f"No skill declares triggers (of {count(len(catalog.skills), 'skill')}).")
        else:
            print("No skill's triggers match this message.")
        return 0
    for m in matches:
        print(f"{m.skill.qualified_name}  ({m.skill.origin.describe()})  trigger {m.trigger!r}")
    return 0

"""``skill-catalog get LABEL URI``: confirm a skill by URI with ``skills/get``.

An empty or partial listing is not proof of absence: a URI pasted by the user, named
by another skill or by the server's instructions is confirmed here. The entry is
checked like a listed one; nothing of its files is fetched.
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli._mcp_common import server_spec
from desktop.cli.command_session import command_session
from desktop.cli.output import CheckFailed, emit_json
from desktop.cli.sources_args import add_source_options
from desktop.core.catalog import skill_json
from desktop.core.manifest import format_size
from desktop.core.model import INVALID, Skill, SourceSpec
from desktop.core.states import Severity
from desktop.core.visible import one_line

NAME = "get"
HELP = "confirm a server skill by URI with skills/get"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("label", metavar="LABEL", help="the server's label")
    parser.add_argument("uri", metavar="URI", help="the URI of the skill's SKILL.md")
    parser.add_argument("--json", action="store_true", help="print the entry as JSON")
    add_source_options(parser)


async def _get(spec: SourceSpec, uri: str) -> Skill:
    async with command_session([spec]) as session:
        asked = await session.ask_skill(spec.label, uri)
    if asked.skill is None:
        raise CheckFailed(f"{spec.label}: {asked.message}")
    return asked.skill


def run(args: argparse.Namespace) -> int:
    skill = asyncio.run(_get(server_spec(args, args.label), args.uri))
    if args.json:
        emit_json(skill_json(skill))
    else:
        # The server's words, each on its own line: none can start a line of its own.
        print(f"{one_line(skill.id)}  ({one_line(skill.origin.describe())})")
        print(f"  name: {one_line(skill.name)}   state: {skill.state}")
        print(f"  description: {one_line(skill.description)}")
        if skill.is_dynamic:
            print("  resources: dynamic (no digests: nothing can be verified)")
        for f in skill.files:
            print(f"  {one_line(f.uri)}  {format_size(f.size)}  {one_line(f.digest)}")
        for p in skill.problems:
            if p.severity != Severity.INFO:
                print(f"  {p.severity}: {p.code}: {one_line(p.message)}")
    return 1 if skill.state == INVALID else 0

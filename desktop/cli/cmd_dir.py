"""``skill-catalog dir SKILL [PATH]``: a server skill's directory as the server lists it.

Only for a server that declares ``directoryRead`` (``resources/directory/read``). What
it lists never extends the skill: each file is marked as in the entry you hold or
not part of it, and a file that is not part of it is never read as one of its files.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from desktop.cli.command_session import command_session
from desktop.cli.output import CheckFailed, emit_json, fail_usage, table
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.model import Skill
from desktop.sources.mcp.source import DirectoryChild

NAME = "dir"
HELP = (
    "list a server skill's directory as the server does (directoryRead), marked against its entry"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument(
        "path",
        metavar="PATH",
        nargs="?",
        default="",
        help="a folder inside the skill, e.g. references (default: the skill's own folder)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_source_options(parser)


def directory_uri(skill: Skill, path: str) -> str:
    """The URI of ``path`` inside the skill's directory (usage error if it leaves it)."""
    base = skill.uri.rsplit("/", 1)[0]
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        fail_usage(f"PATH must stay inside the skill's folder: {path!r}")
    return "/".join([base, *parts])


async def _list(args: argparse.Namespace) -> tuple[Skill, str, list[DirectoryChild]]:
    specs = resolve_specs(args)
    async with command_session(specs) as session:
        picked = await Resolver(session).pick(args.id)
        skill = picked.skill
        if skill is None:
            raise CheckFailed(f"skill-catalog {NAME}: {picked.message}")
        if skill.origin.kind != "mcp":
            fail_usage(f"{args.id!r} is a local skill; dir lists a server skill's directory")
        if picked.said:
            print(f"skill-catalog {NAME}: {picked.said}", file=sys.stderr)
        uri = directory_uri(skill, args.path)
        children, trouble = await session.list_directory(skill, uri)
        if children is None:
            raise CheckFailed(f"{skill.origin.label}: {trouble}")
        return skill, uri, children


def run(args: argparse.Namespace) -> int:
    skill, uri, children = asyncio.run(_list(args))
    if args.json:
        emit_json(
            {
                "id": skill.id,
                "uri": uri,
                "children": [
                    {
                        "uri": c.uri,
                        "name": c.name,
                        "directory": c.is_directory,
                        "in_held_entry": c.in_held_entry,
                    }
                    for c in children
                ],
            }
        )
        return 0
    extra = sum(1 for c in children if c.note)
    print(f"{uri}  ({skill.origin.describe()}): {len(children)} entries, {extra} not in the skill")
    rows = [[c.name + ("/" if c.is_directory else ""), c.what] for c in children]
    if rows:
        print(table(rows, ["NAME", "WHAT"], [60, 40]))
    if extra:
        print("What is not in the skill is never read as one of its files.")
    return 0

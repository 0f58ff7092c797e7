"""``skill-catalog instructions LABEL``: a server's instructions in full.

Some clients keep only the first 2048 characters of a server's instructions (seed
004): the point is marked, and skill URIs the text mentions are listed so they can
be confirmed with ``skill-catalog get``.
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli._mcp_common import server_spec
from desktop.cli.command_session import command_session
from desktop.cli.output import CheckFailed, emit_json
from desktop.cli.sources_args import add_source_options
from desktop.core.entry import INSTRUCTIONS_KEPT, skill_uri_positions
from desktop.core.model import SourceStatus
from desktop.core.states import SourceState

NAME = "instructions"
HELP = "print a server's instructions in full, with the 2048-character point marked"

CUT = INSTRUCTIONS_KEPT
MARKER = "\n----- 8< ----- 2048 characters: clients that keep only this much stop here -----\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("label", metavar="LABEL", help="the server's label")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_source_options(parser)


async def _fetch(args: argparse.Namespace) -> SourceStatus:
    spec = server_spec(args, args.label)
    async with command_session([spec]) as session:
        return await session.server_status(spec.label)


def run(args: argparse.Namespace) -> int:
    status = asyncio.run(_fetch(args))
    if status.status == SourceState.FAILED:
        raise CheckFailed(f"{args.label}: {status.message}")
    text = status.instructions or ""
    uris = skill_uri_positions(text)
    if args.json:
        emit_json(
            {
                "label": args.label,
                "length": len(text),
                "cut_at": CUT,
                "instructions": text,
                "kept_by_short_clients": text[:CUT],
                "skill_uris": [
                    {"uri": u, "position": at, "after_cut": at >= CUT} for u, at in uris.items()
                ],
            }
        )
        return 0
    if not text:
        print(f"{args.label} sends no instructions.")
        return 0
    print(f"{args.label}: {len(text)} characters of instructions", end="")
    print(f" ({len(text) - CUT} past the 2048-character point)" if len(text) > CUT else "")
    print()
    print(text[:CUT] + (MARKER + text[CUT:] if len(text) > CUT else ""))
    if uris:
        print()
        print("Skill URIs mentioned (confirm with `skill-catalog get LABEL URI`):")
        for u, at in uris.items():
            late = "  (after the 2048-character point)" if at >= CUT else ""
            print(f"  {u}{late}")
    return 0

"""``skill-catalog reject ID [--reason TEXT]``: record that a skill was rejected.

The rejection is bound to the skill's current (uri, digest) set, like an approval:
the skill shows as rejected, with the reason, until its files change, and then
waits for a decision again. It grants nothing and replaces an approval of the
skill. No file is fetched. ``revoke`` removes it.
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli.attest_args import add_attest_options, said_attestation
from desktop.cli.cmd_approvals import describe_record
from desktop.cli.output import emit_json, said_decision
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.visible import one_line

NAME = "reject"
HELP = "record that a skill's current files were rejected (with an optional reason)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument("--reason", default="", metavar="TEXT", help="why it was rejected")
    parser.add_argument("--json", action="store_true", help="print the stored record as JSON")
    add_attest_options(parser)
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import command_session

    async with command_session(resolve_specs(args)) as session:
        # The one rule for names.
        skill = (await Resolver(session, listed=True).pick(args.id)).chosen(NAME)
    done = await session.record_rejection(skill, reason=args.reason)
    record = said_decision(NAME, done)
    if record is None:
        return 1
    if args.json:
        shown = {**record.to_json(), "identity": record.key.shown_json()}
        emit_json({"rejected": shown, "service": done.service})
    else:
        print(f"Rejected {one_line(skill.id)}")
        print(describe_record(record, indent="  "))
    return await said_attestation(NAME, args, skill, record)

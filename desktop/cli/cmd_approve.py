"""``skill-catalog approve ID``: approve one skill exactly as it is listed now.

The approval binds the skill's whole (uri, digest) set. Tools the skill asks
for in ``allowed-tools`` are granted one by one with ``--grant-tool``; running
its bundled scripts is ``--allow-scripts``, for a skill that has scripts.
Only the listed entry is used: no file is fetched, and the record says the
files were not read. ``--read`` reads and verifies every file first (refusing the
approval when one does not match), records that, and keeps the verified copies so a
later change can be compared with them. A skill with errors is approved only with
``--despite-problems``, which is recorded.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from desktop.cli.attest_args import add_attest_options, said_attestation
from desktop.cli.cmd_approvals import describe_record
from desktop.cli.output import emit_json, err, said_decision
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.approvals import ApprovalError, make_record
from desktop.core.model import Skill, SkillFile
from desktop.core.visible import one_line

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogSession

NAME = "approve"
HELP = "approve a skill's current files in the OS keyring (with explicit grants)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument(
        "--grant-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="grant one tool the skill requests in allowed-tools (repeat for more)",
    )
    parser.add_argument(
        "--allow-scripts",
        action="store_true",
        help="also allow running the skill's bundled scripts",
    )
    parser.add_argument(
        "--read",
        action="store_true",
        help="read and verify every file first, and record that they were read",
    )
    parser.add_argument(
        "--despite-problems",
        action="store_true",
        help="approve a skill that has errors (recorded with the approval)",
    )
    parser.add_argument("--json", action="store_true", help="print the stored record as JSON")
    add_attest_options(parser)
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import command_session

    async with command_session(resolve_specs(args)) as session:
        chosen = await _choose(session, args)
    if chosen is None:
        return 1
    skill, read = chosen
    # Through the session, after its connections closed: approving fetches nothing.
    done = await session.record_approval(
        skill,
        grant_tools=args.grant_tool,
        allow_scripts=args.allow_scripts,
        pairs=read,
        despite_problems=args.despite_problems,
    )
    record = said_decision(NAME, done)
    if record is None:
        return 1
    if done.replaced:
        # The record this approval replaces was damaged: say so, it is gone now.
        err(
            "skill-catalog approve: the stored approval this one replaces could not be used: "
            + one_line(done.replaced)
        )
    if args.json:
        shown = {**record.to_json(), "identity": record.key.shown_json()}  # secrets masked
        emit_json({"approved": shown, "service": done.service})
    else:
        print(f"Approved {one_line(skill.id)}")
        print(describe_record(record, indent="  "))
        if read is None:
            print("  Its files were not read: pass --read to read and verify each one first.")
    return await said_attestation(NAME, args, skill, record)


async def _choose(
    session: CatalogSession, args: argparse.Namespace
) -> tuple[Skill, list[tuple[SkillFile, bytes]] | None] | None:
    """The skill to approve and, with ``--read``, its verified files, found and read by
    the command's session; ``None`` (with the reason said) when it is not to be approved."""
    # The one rule for names.
    skill = (await Resolver(session, listed=True).pick(args.id)).chosen(NAME)
    try:  # the rules first: nothing is read for an approval that would be refused
        make_record(
            skill,
            grant_tools=tuple(args.grant_tool),
            allow_scripts=args.allow_scripts,
            approved_at="",
            approved_by="",
            despite_problems=args.despite_problems,
        )
    except ApprovalError as exc:
        err(f"skill-catalog approve: {one_line(exc.message)}")
        return None
    if not args.read:
        return skill, None
    read, failures = await read_every_file(session, skill)
    if failures:
        err(
            f"skill-catalog approve: {one_line(skill.id)} is not approved: "
            "its files do not all verify"
        )
        for line in failures[:20]:
            err(f"  {one_line(line)}")
        return None
    return skill, read


async def read_every_file(
    session: CatalogSession, skill: Skill
) -> tuple[list[tuple[SkillFile, bytes]], list[str]]:
    """Every file of ``skill`` read and verified by ``session``: (file, bytes) pairs, and
    a line for each file that did not verify (nothing of those is kept)."""
    pairs: list[tuple[SkillFile, bytes]] = []
    failures: list[str] = []
    for f in sorted(skill.files, key=lambda f: f.uri):
        result = await session.read(skill, f.uri)
        if result.verified and result.data is not None:
            pairs.append((f, result.data))
        else:
            failures.append(f"{f.uri}: {result.state}: {result.message}")
    return pairs, failures

"""``skill-catalog approve ID``: approve one skill exactly as it is listed now.

The approval binds the skill's whole (uri, digest) set (A2). Tools the skill asks
for in ``allowed-tools`` are granted one by one with ``--grant-tool``; running
its bundled scripts is ``--allow-scripts`` (A3). Only the listed entry is used:
no file is fetched (V1).
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli.cmd_approvals import describe_record, find_skill
from desktop.cli.output import emit_json, err, say_notices
from desktop.cli.sources_args import add_source_options, load_catalog
from desktop.core.approvals import ApprovalError
from desktop.core.visible import one_line
from desktop.store.approvals_store import KEYRING_FAILURES, ApprovalStore

NAME = "approve"
HELP = "approve a skill's current files in the OS keyring (with explicit grants)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID", help="the skill's id, LABEL:URI (see `list`)")
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
    parser.add_argument("--json", action="store_true", help="print the stored record as JSON")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    catalog = asyncio.run(load_catalog(args))
    skill = find_skill(catalog, args.id)
    if skill is None:
        same = [s.id for s in catalog.named(args.id)]
        if len(same) > 1:
            err(
                f"skill-catalog approve: {args.id!r} names {len(same)} skills; "
                f"give one id: {', '.join(same[:5])}"
            )
        else:
            err(f"skill-catalog approve: no skill {args.id!r} in the sources given (see `list`)")
        return 1
    store = ApprovalStore()
    # Also lists again approvals an index deleted by hand lost.
    before = store.states(catalog.skills).get(skill.id)
    try:
        record = store.approve(skill, grant_tools=args.grant_tool, allow_scripts=args.allow_scripts)
    except ApprovalError as exc:
        say_notices(NAME, store.notices)
        err(f"skill-catalog approve: {one_line(exc.message)}")
        return 1
    say_notices(NAME, store.notices)
    if before is not None and before.problem and before.problem.code not in KEYRING_FAILURES:
        # The record this approval replaces was damaged: say so, it is gone now.
        err(
            "skill-catalog approve: the stored approval this one replaces could not be used: "
            + one_line(before.problem.message)
        )
    if args.json:
        shown = {**record.to_json(), "identity": record.key.shown_json()}  # secrets masked
        emit_json({"approved": shown, "service": store.service})
    else:
        print(f"Approved {one_line(skill.id)}")
        print(describe_record(record, indent="  "))
    return 0

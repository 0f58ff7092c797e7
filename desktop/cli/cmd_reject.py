"""``skill-catalog reject ID [--reason TEXT]``: record that a skill was rejected.

The rejection is bound to the skill's current (uri, digest) set, like an approval:
the skill shows as rejected, with the reason, until its files change, and then
waits for a decision again. It grants nothing and replaces an approval of the
skill. No file is fetched. ``revoke`` removes it.
"""

from __future__ import annotations

import argparse
import asyncio

from desktop.cli.cmd_approvals import describe_record
from desktop.cli.output import emit_json, err, say_notices
from desktop.cli.resolve import SKILL_HELP, pick_skill
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.approvals import ApprovalError
from desktop.core.visible import one_line
from desktop.store.approvals_store import ApprovalStore

NAME = "reject"
HELP = "record that a skill's current files were rejected (with an optional reason)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument("--reason", default="", metavar="TEXT", help="why it was rejected")
    parser.add_argument("--json", action="store_true", help="print the stored record as JSON")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    # The one rule for names.
    skill = asyncio.run(pick_skill(resolve_specs(args), args.id)).chosen("reject")
    store = ApprovalStore()
    try:
        record = store.reject(skill, reason=args.reason)
    except ApprovalError as exc:
        say_notices(NAME, store.notices)
        err(f"skill-catalog reject: {one_line(exc.message)}")
        return 1
    say_notices(NAME, store.notices)
    from desktop.store.cache import SkillCache

    # No approval: nothing to compare with later, so earlier copies are let go of.
    kept = SkillCache().keep_decision(record.key.storage_name, None)
    if kept:
        err(f"skill-catalog reject: {kept}")
    if args.json:
        shown = {**record.to_json(), "identity": record.key.shown_json()}
        emit_json({"rejected": shown, "service": store.service})
    else:
        print(f"Rejected {one_line(skill.id)}")
        print(describe_record(record, indent="  "))
    return 0

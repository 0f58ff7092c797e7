"""``--attest DIR`` and ``--key PATH`` of ``approve`` and ``reject``: the decision just
stored, signed for the team into DIR's review folder, and what the command says of it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.output import err
from desktop.core.visible import one_line

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalRecord
    from desktop.core.model import Skill


def add_attest_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--attest",
        metavar="DIR",
        help="also sign the decision for the team into DIR/.skill-reviews/ (a repository)",
    )
    parser.add_argument(
        "--key",
        metavar="PATH",
        help="the SSH key to sign with: a private key file, or a public key held by "
        "ssh-agent (default: git's user.signingkey in DIR when gpg.format is ssh)",
    )


async def said_attestation(
    command: str, args: argparse.Namespace, skill: Skill, record: ApprovalRecord
) -> int:
    """Sign ``record`` when ``--attest`` was given and say what came of it: 0 when it was
    signed or there was no key to sign with (said), 1 when signing with a key failed."""
    if not args.attest:
        if args.key:
            err(f"skill-catalog {command}: --key signs only with --attest DIR: nothing was signed")
        return 0
    from desktop.session.team_review import attest

    folder = Path(args.attest)
    if not folder.is_dir():
        err(f"skill-catalog {command}: nothing was signed: {folder} is not a folder")
        return 1
    done = await attest(skill, record, folder, args.key)
    if done.path is None:
        err(f"skill-catalog {command}: no review record was signed: {one_line(done.why)}")
        return 1 if done.failed else 0
    say = err if args.json else print  # --json keeps stdout one JSON document
    say(f"  Signed for the team as {done.reviewer}: {done.path}")
    if done.why:
        err(f"skill-catalog {command}: {one_line(done.why)}")
    return 0

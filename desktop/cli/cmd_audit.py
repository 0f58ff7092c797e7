"""``skill-catalog audit [DIR] [--require N] [--json]``: whether every skill in a
repository's agent skill folders is reviewed, by the signed records in
``DIR/.skill-reviews/``.

For CI: no keyring, no network, nothing stored. Each skill is ``reviewed`` (enough valid
approvals by allowed signers for its current digest), ``unreviewed``, ``changed``
(reviews exist for other bytes: the files changed since are named) or ``rejected``;
every record that fails verification is reported with why and never counted. Exit 0
only when every skill is reviewed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.output import UsageError, emit_json
from desktop.core.visible import one_line

NAME = "audit"
HELP = "check that every skill in a repository has enough signed team reviews (for CI)"


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError("a number of approvals from 1 to 100")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the repository")
    parser.add_argument(
        "--require",
        type=_count,
        metavar="N",
        help="approvals each skill needs (default: .skill-reviews/policy.json's, or 1)",
    )
    parser.add_argument("--json", action="store_true", help="print the audit as JSON")


def run(args: argparse.Namespace) -> int:
    from desktop.sources.team_reviews import audit, judged_sorted

    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    done = audit(folder, args.require)
    if args.json:
        emit_json(done.to_json())
        return 0 if done.passes else 1
    for problem in done.problems:
        print(f"note: {one_line(problem)}")
    if not done.skills:
        print(f"No skills found in {folder}'s agent skill folders.")
    for skill in judged_sorted(done.skills):
        print(f"{skill.state.label:<10}  {one_line(skill.name)}  ({one_line(skill.path)})")
        for path, change in skill.judgement.changed:
            print(f"    {change}: {one_line(path)}")
        for review in skill.judgement.reviews:
            print("    " + _review_line(review))
    for review in done.unattached:
        print("no skill    " + _review_line(review))
    ok = sum(1 for s in done.skills if s.state.passes)
    need = done.policy.require
    word = "approval" if need == 1 else "approvals"
    print(f"{ok} of {len(done.skills)} skills reviewed ({need} {word} each).")
    return 0 if done.passes else 1


def _review_line(review: object) -> str:
    from desktop.core.review_record import Review

    assert isinstance(review, Review)
    who = one_line(review.signer) or "unknown signer"
    what = f"{review.decision or 'record'} by {who}"
    if review.time:
        what += f", {one_line(review.time)}"
    if not review.valid:
        return f"not counted: {one_line(review.file)}: {one_line(review.why)}"
    if review.why:
        return f"{what} (signature valid; not counted: {one_line(review.why)})"
    return f"{what} (signature valid)"

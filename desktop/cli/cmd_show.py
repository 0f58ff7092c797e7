"""``skill-catalog show SKILL``: print a skill's verified ``SKILL.md``.

Only bytes that agree with the entry (size, digest, frontmatter) are printed. On a
refusal the reason goes to stderr and the exit code is 1. A ``"dynamic"`` skill has
no digests: it is refused unless ``--allow-dynamic`` is given, and then marked as
unverified on stderr. Text hidden in invisible characters is said on stderr, and marked
in what a terminal shows; a pipe gets the bytes as they are.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from desktop.cli.command_session import command_session
from desktop.cli.output import CheckFailed
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.checks import hidden_text_problems
from desktop.core.verify import VERIFIED
from desktop.core.visible import one_line
from desktop.session.content_reader import ReadResult

NAME = "show"
HELP = "print a skill's verified SKILL.md"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument(
        "--allow-dynamic",
        action="store_true",
        help="print a dynamic skill's SKILL.md too (it cannot be verified)",
    )
    add_source_options(parser)


async def _show(args: argparse.Namespace) -> ReadResult:
    specs = resolve_specs(args)
    async with command_session(specs) as session:
        # Resolved on the connections the read then uses: each server starts once.
        skill = (await Resolver(session).pick(args.id)).chosen(NAME)
        return await session.read(skill, session.reader.skill_md_uri(skill))


def run(args: argparse.Namespace) -> int:
    result = asyncio.run(_show(args))
    if result.data is None:
        hint = "; refresh the entry with `skill-catalog get`" if result.refresh_offered else ""
        raise CheckFailed(f"{args.id}: {result.state}: {result.message}{hint}")
    if result.state != VERIFIED:
        if not args.allow_dynamic:
            raise CheckFailed(
                f"{args.id}: {result.state}: {result.message}; not printed "
                "(pass --allow-dynamic to print unverified content)"
            )
        print(f"warning: {result.message}", file=sys.stderr)
    for note in result.verification.notes:
        print(f"note: {one_line(note)}", file=sys.stderr)
    for problem in hidden_text_problems("this SKILL.md", result.data.decode("utf-8", "replace")):
        print(f"{problem.severity}: {one_line(problem.message)}", file=sys.stderr)
    if sys.stdout.isatty():
        # For reading: control characters shown as their codes, invisible characters
        # marked (see desktop.core.visible).
        print(result.data.decode("utf-8", "replace"), end="")
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(result.data)  # the verified bytes, exactly, for a pipe
    sys.stdout.flush()
    return 0

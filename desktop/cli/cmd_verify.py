"""``skill-catalog verify [SKILL ...|--all]``: fetch and verify every file of skills.

Exit 0 only when every named skill verified. ``--json`` prints
``{"results": [{"id", "state", "message", "files": [...]}]}``. A match means the bytes
agree with the manifest; it is not a safety verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from desktop.cli.command_session import command_session
from desktop.cli.output import emit_json, fail_usage
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.catalog import Catalog
from desktop.core.model import Skill
from desktop.core.states import SourceState
from desktop.core.verify import READ_ERROR, VERIFIED, SkillVerification
from desktop.core.visible import one_line
from desktop.core.words import count

NAME = "verify"
COMMAND_DEADLINE = 600.0
"""Seconds one ``verify`` command may spend reading; each skill has its own deadline too."""
HELP = "fetch and verify every file of skills against their entries"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", metavar="SKILL", help=SKILL_HELP)
    parser.add_argument("--all", action="store_true", help="verify every skill in the catalog")
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_source_options(parser)


async def _verify(args: argparse.Namespace) -> tuple[list[SkillVerification], Catalog]:
    from desktop.cli import progress

    show = progress.wanted(args.json)
    specs = resolve_specs(args)
    results: list[SkillVerification | None] = []
    missing: dict[int, str] = {}
    async with command_session(specs) as session:
        # Listed or asked on the connections the reads then use: each server starts once.
        if args.all:
            catalog = await progress.discover(specs, show=show, session=session)
            skills: list[Skill | None] = list(catalog.skills)
        else:
            resolver = Resolver(session)
            skills = []
            for i, target in enumerate(args.ids):
                picked = await resolver.pick(target)
                skills.append(picked.skill)
                if picked.skill is None:
                    missing[i] = picked.message
                elif picked.said:
                    print(f"skill-catalog {NAME}: {picked.said}", file=sys.stderr)
            catalog = Catalog()  # no source was read as a whole
        # The skills found, by source: each source's are verified one after another.
        by_label: dict[str, list[tuple[int, Skill]]] = {}
        for i, skill in enumerate(skills):
            results.append(None)
            if skill is not None:
                by_label.setdefault(skill.origin.label, []).append((i, skill))

        counter = progress.CountProgress("verifying skills", sum(map(len, by_label.values())))

        async def one_source(found: list[tuple[int, Skill]]) -> None:
            for i, skill in found:
                results[i] = await session.verify(skill)
                if show:
                    counter.step()

        async def verify_all() -> None:
            # One deadline for the whole command, whatever each skill's own allows.
            sources = [asyncio.ensure_future(one_source(found)) for found in by_label.values()]
            if sources:
                _done, late = await asyncio.wait(sources, timeout=COMMAND_DEADLINE)
                for task in late:
                    task.cancel()
                await asyncio.gather(*sources, return_exceptions=True)
                for task in sources:
                    if not task.cancelled() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]

        if show:
            await progress.while_showing(counter, verify_all())
        else:
            await verify_all()
        for i, skill in enumerate(skills):
            if skill is not None and results[i] is None:
                late_note = f"not verified within the {COMMAND_DEADLINE:g} s the command may take"
                results[i] = SkillVerification(skill.id, READ_ERROR, late_note)
    out: list[SkillVerification] = []
    for i, result in enumerate(results):
        if result is None:
            out.append(SkillVerification(args.ids[i], READ_ERROR, missing.get(i, "")))
        else:
            out.append(result)
    return out, catalog


def summary_line(results: list[SkillVerification], unread_sources: int = 0) -> str:
    """The last line of ``verify --all``: how many verified, and how many did not."""
    verified = sum(1 for r in results if r.state == VERIFIED)
    line = f"{count(len(results), 'skill')} checked: {verified} verified"
    others: dict[str, int] = {}
    for r in results:
        if r.state != VERIFIED:
            others[r.state] = others.get(r.state, 0) + 1
    line += "".join(f", {n} {state}" for state, n in sorted(others.items()))
    if unread_sources:
        line += f"; {count(unread_sources, 'source')} could not be read"
    return line


def run(args: argparse.Namespace) -> int:
    if not args.ids and not args.all:
        fail_usage("name skills to verify (an id, a name or a folder; see list) or pass --all")
    if args.ids and args.all:
        fail_usage("name skills or pass --all, not both")
    results, catalog = asyncio.run(_verify(args))
    # With --all, a source that could not be read hides skills nobody verified: it is
    # named, and the run does not pass.
    unread = [s for s in catalog.sources if s.status == SourceState.FAILED] if args.all else []
    if args.json:
        out: dict[str, object] = {"results": [r.to_json() for r in results]}
        if unread:
            out["unread_sources"] = [s.to_json() for s in unread]
        emit_json(out)
    else:
        for r in results:
            # One line each: an id, a file name or a message may hold a line end.
            print(f"{one_line(r.id)}: {r.state}: {one_line(r.message)}")
            for f in r.files:
                if f.state != VERIFIED:
                    print(f"  {one_line(f.uri)}: {f.state}: {one_line(f.message)}")
                for note in f.notes:
                    print(f"  {one_line(f.uri)}: note: {one_line(note)}")
        for s in unread:
            print(one_line(f"{s.origin.label}: not read: {s.message}"), file=sys.stderr)
        if not results:
            print("no skills to verify", file=sys.stderr)
        elif args.all:
            print(summary_line(results, len(unread)))
    passed = results and not unread and all(r.state == VERIFIED for r in results)
    return 0 if passed else 1

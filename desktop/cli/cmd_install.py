"""``skill-catalog install SKILL --agent AGENT``: write a skill's approved bytes into the
folder an agent reads, and record it in a lock.

User scope by default (``~/.claude/skills/NAME`` for ``claude-code``); ``--project DIR``
writes into the project's folder for that agent and records the install in
``DIR/skill-catalog.lock.json``, which a team commits; ``--into DIR`` writes into any
other skills folder. Only a skill approved for its current files is installed, and only
the bytes its approval binds. ``install --from-lock [DIR]`` brings back a project's
skills as its lock records them, each file checked against the lock's digest.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from desktop.cli.install_args import add_place_options, places_from
from desktop.cli.output import CheckFailed, emit_json, err
from desktop.cli.resolve import SKILL_HELP, Resolver
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.visible import one_line
from desktop.session.installer import Place

NAME = "install"
HELP = "install a skill's approved files into the folders agents read"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", metavar="SKILL", nargs="*", help=SKILL_HELP + " (one or more)")
    add_place_options(parser)
    parser.add_argument(
        "--replace",
        action="store_true",
        help="replace a folder the catalog did not install (asks first; keeps a backup)",
    )
    parser.add_argument(
        "--from-lock",
        nargs="?",
        const=".",
        metavar="DIR",
        help="install what the project DIR's lock records (default: this folder)",
    )
    parser.add_argument("--yes", action="store_true", help="do not ask before writing")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")
    add_source_options(parser)


def _agents_help() -> str:
    from desktop.sources.config.install_targets import TARGETS

    lines = ["Agents (user folder; project folder):"]
    for t in TARGETS:
        lines.append(f"  {t.slug:<12} {t.agent}: ~/{t.user}; {t.project}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if "help" in args.agent:
        print(_agents_help())
        return 0
    if args.from_lock is not None:
        return asyncio.run(_from_lock(args))
    if not args.ids:
        raise CheckFailed("skill-catalog install: name a skill, or pass --from-lock")
    return asyncio.run(_install(args, places_from(args, NAME)))


def _confirm(question: str, args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        err(f"skill-catalog install: {question} Not asked without a terminal: pass --yes.")
        return False
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")


async def _install(args: argparse.Namespace, chosen: list[Place]) -> int:
    from desktop.cli.command_session import command_session
    from desktop.core.install import InstallError
    from desktop.session.approval_service import now_utc
    from desktop.session.installer import Prepared, approved_bytes, install

    batch: list[Prepared] = []
    refused = 0
    async with command_session(resolve_specs(args)) as session:
        resolver = Resolver(session, listed=True)
        for target in args.ids:
            skill = (await resolver.pick(target)).chosen(NAME)
            try:
                state, files = await approved_bytes(session, skill)
            except InstallError as exc:
                err(f"skill-catalog install: {one_line(skill.id)} is not installed: {exc}")
                refused += 1
                continue
            batch.append(Prepared(skill, state, tuple(files)))
    if not batch:
        return 1
    replace = False
    if args.replace:
        taken = [
            p.folder / b.skill.name
            for p in chosen
            for b in batch
            if (p.folder / b.skill.name).exists()
        ]
        if taken:
            shown = ", ".join(str(t) for t in taken)
            replace = _confirm(f"Replace {shown}? Each is moved aside as a backup first.", args)
            if not replace:
                return 1
    try:
        done = install(batch, chosen, at=now_utc(), replace=replace)
    except (InstallError, OSError) as exc:
        err(f"skill-catalog install: nothing was installed: {exc}")
        return 1
    for path, why in done.failed:
        err(f"skill-catalog install: {path} is not installed: {one_line(why)}")
    if args.json:
        emit_json(
            {
                "installed": [str(p) for p in done.written],
                "unchanged": [str(p) for p in done.unchanged],
                "backups": [str(p) for p in done.backups],
                "failed": [{"path": str(p), "why": why} for p, why in done.failed],
            }
        )
    else:
        for path in done.written:
            print(f"Installed {path.name} into {path}")
        for path in done.unchanged:
            print(f"{path} already holds the approved files")
        for path in done.backups:
            print(f"The folder it replaced is kept at {path}")
    return 1 if refused or done.failed else 0


async def _from_lock(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import command_session
    from desktop.core.install import InstallError
    from desktop.session.approval_service import now_utc
    from desktop.session.installer import bytes_for_lock, install_locked
    from desktop.store.installs import project_lock_path, read_lock

    project = Path(args.from_lock).expanduser().resolve()
    try:
        entries = read_lock(project_lock_path(project))
    except InstallError as exc:
        err(f"skill-catalog install: {exc}")
        return 1
    if not entries:
        err(f"skill-catalog install: {project_lock_path(project)} records no skill")
        return 1
    plans = []
    failures: list[str] = []
    async with command_session(resolve_specs(args)) as session:
        skills = list((await session.read_catalog()).skills)
        for entry in entries:
            label = entry.source.get("label", "")
            found = [s for s in skills if s.uri == entry.uri and s.origin.label == label]
            found = found or [s for s in skills if s.uri == entry.uri and s.name == entry.name]
            if not found:
                failures.append(f"{entry.name}: no source given here lists it ({label})")
                continue
            try:
                files = await bytes_for_lock(session, found[0], entry)
            except InstallError as exc:
                failures.append(str(exc))
                continue
            plans.append((entry, files))
    for line in failures:
        err(f"skill-catalog install: cannot install {one_line(line)}")
    if not plans:
        return 1
    print("Will install:")
    for entry, _ in plans:
        print(f"  {entry.name} into {project / entry.folder / entry.name}")
    if not _confirm("Install these?", args):
        return 1
    at = now_utc()
    for entry, files in plans:
        try:
            path = install_locked(entry, files, project, at=at)
        except (InstallError, OSError) as exc:
            failures.append(str(exc))
            err(f"skill-catalog install: {one_line(str(exc))}")
            continue
        print(f"Installed {entry.name} into {path}")
    if plans:
        print(
            "Installed from the lock: they are not approved on this machine until you approve "
            "them (skill-catalog installed --project shows each)."
        )
    return 1 if failures else 0

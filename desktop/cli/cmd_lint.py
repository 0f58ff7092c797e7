"""``skill-catalog lint DIR``: check a skill (or a folder of skills) as an author.

With ``--watch`` the folder is checked again after each saved change that touches a
skill, until Ctrl+C (the watching is :mod:`desktop.core.folder_changes`'s, as in the
window: a listing of names, sizes and times, a burst of saves taken as one change).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from desktop.cli import host_report
from desktop.cli.output import emit_json, err, fail_usage
from desktop.core.catalog import Catalog, build_catalog, skill_json
from desktop.core.entry import SKILL_MD
from desktop.core.folder_changes import Coalescer, changed_paths, pause, regions, skill_dir
from desktop.core.manifest import format_size
from desktop.core.model import Problem, Skill, SourceSpec, SourceStatus
from desktop.core.strict_clients import (
    STRICT_CLIENTS_CODE,
    frontmatter_breaches,
    refusal_summary,
)
from desktop.core.visible import one_line
from desktop.core.words import count
from desktop.sources.folder import folder_label, scan_folder
from desktop.sources.folder_watch import OK, list_folder

NAME = "lint"
HELP = "check a skill or a folder of skills and show its problems"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", metavar="PATH", help="a skill folder, its SKILL.md, or a folder of skills"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show every skill with the manifest it would publish (files, sizes, digests)",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="check again after each saved change, until Ctrl+C",
    )
    host_report.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    path = Path(args.dir).expanduser()
    if not path.exists():
        fail_usage(f"{path} does not exist")
    if path.is_file() and path.name == SKILL_MD:
        path = path.parent  # the skill it is the SKILL.md of
    elif not path.is_dir():
        fail_usage(f"{path} is neither a folder nor a {SKILL_MD}")
    spec = SourceSpec(folder_label(path), "local", "folder", str(path.resolve()))
    out = Output(args.json, args.verbose)
    if args.hosts:
        return _hosts(spec, args)
    if args.watch:
        return _watch(path, spec, out)
    return _lint(path, spec, out)[0]


def _hosts(spec: SourceSpec, args: argparse.Namespace) -> int:
    """``--hosts``: per host, whether each skill loads and how it is listed."""
    try:
        hosts = host_report.chosen_hosts(args.hosts)
    except KeyError as exc:
        fail_usage(str(exc.args[0]))
    _status, skills = scan_folder(spec)
    skills = build_catalog([_status], skills).skills
    return host_report.report(skills, hosts, args.context, args.json)


@dataclass(frozen=True, slots=True)
class Output:
    """How results are printed: JSON, or human lines (every skill and its manifest when
    verbose, else the skills with problems)."""

    json: bool = False
    verbose: bool = False


def _watch(path: Path, spec: SourceSpec, out: Output) -> int:
    """Lint, then lint again after each change that touches a skill (a burst of saves is
    one change), until Ctrl+C: then a short line, and exit 0."""
    # Ctrl+C stops the watching even when this process was started with it ignored (as
    # a program started by another may be): the interrupt is what ends it.
    with contextlib.suppress(ValueError):  # not the main thread (tests call run())
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _code, skill_dirs = _lint(path, spec, out)
        listing = list_folder(spec.endpoint)
        entries, folders = listing.entries, listing.directories
        trouble = listing.message if listing.state != OK else ""
        if trouble:
            err(trouble)
        err(f"watching {path} for changes (Ctrl+C to stop)")
        coalescer = Coalescer()
        held: set[str] = set()
        took = 0.0
        while True:
            time.sleep(pause(coalescer.waiting, took))
            start = time.perf_counter()
            listing = list_folder(spec.endpoint)
            took = time.perf_counter() - start
            if listing.state != OK:
                if listing.message != trouble:
                    trouble = listing.message
                    err(f"{trouble}; waiting for it (Ctrl+C to stop)")
                continue
            if trouble:  # back, or readable again
                trouble = ""
                entries, folders = listing.entries, listing.directories
                _print_again(f"{path} can be read again")
                _code, skill_dirs = _lint(path, spec, out)
                continue
            changed = changed_paths(entries, listing.entries)
            held |= {p for p in changed if p in folders or p in listing.directories}
            entries, folders = listing.entries, listing.directories
            batch = coalescer.observe(changed, time.monotonic())
            if batch is None:
                continue
            touched = regions(batch, skill_dirs, held & batch)
            held.clear()
            if touched:
                _print_again(f"{count(len(batch), 'change')} in {path}")
                _code, skill_dirs = _lint(path, spec, out)
                gc.collect()  # the collector is paused for one-shot commands
    except KeyboardInterrupt:
        err(f"stopped watching {path}")
        return 0


def _print_again(why: str) -> None:
    """The line between two results, on stderr (stdout holds the results alone)."""
    sys.stdout.flush()
    err(f"--- {why}; checking again at {time.strftime('%H:%M:%S')} ---")


def _lint(path: Path, spec: SourceSpec, out: Output) -> tuple[int, set[str]]:
    """Check the folder once and print the result; the exit code and the skill folders."""
    status, skills = scan_folder(spec)
    dirs = {skill_dir(s.uri) for s in skills}
    return _report(path, status, skills, out), dirs


def _strict_clients_problem(skill: Skill) -> Problem | None:
    """A warning naming the clients that refuse a server's whole listing holding
    ``skill``, and why (the rules `serve` leaves such a skill out for)."""
    if skill.frontmatter is None:
        return None
    folder = Path(skill.path).name if skill.path else None
    breaches = frontmatter_breaches(skill.frontmatter, folder)
    if not breaches:
        return None
    return Problem(
        STRICT_CLIENTS_CODE,
        f"{refusal_summary(breaches)}; skill-catalog serve leaves it out unless given "
        "--publish-nonconforming",
        "warning",
    )


def _report(path: Path, status: SourceStatus, skills: list[Skill], out: Output) -> int:
    catalog = build_catalog([status], skills)
    skills = catalog.skills  # with their shown names and collision notes
    for skill in skills:
        strict = _strict_clients_problem(skill)
        if strict is not None:
            skill.problems.append(strict)
    failing = [s for s in skills if s.has_errors()]
    warned = [s for s in skills if not s.has_errors() and _has(s, "warning")]
    failed = bool(failing) or not skills
    code = 1 if failed else 0
    try:
        _print_report(path, status, catalog, skills, out, failing, warned)
    except BrokenPipeError:
        # The reader stopped reading (`| head`): the verdict is the exit code all the same.
        _stdout_to_devnull()
    return code


def _has(skill: Skill, severity: str) -> bool:
    return any(p.severity == severity for p in skill.problems)


def _stdout_to_devnull() -> None:
    """Send what is left for stdout nowhere: it has no reader any more."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def summary_line(checked: int, with_errors: int, with_warnings: int) -> str:
    """The last line of a check: how many skills, how many with errors, with warnings."""
    if not with_errors and not with_warnings:
        return f"{count(checked, 'skill')} checked: no errors or warnings"
    return (
        f"{count(checked, 'skill')} checked: "
        f"{with_errors} with errors, {with_warnings} with warnings"
    )


def _print_report(
    path: Path,
    status: SourceStatus,
    catalog: Catalog,
    skills: list[Skill],
    out: Output,
    failing: list[Skill],
    warned: list[Skill],
) -> None:
    if out.json:
        emit_json(
            {
                "ok": not failing and bool(skills),
                "source": status.to_json(),
                "notes": list(status.notes),
                "skills": [skill_json(s) for s in skills],
                "collisions": [c.to_json() for c in catalog.collisions],
                "summary": {
                    "skills": len(skills),
                    "with_errors": len(failing),
                    "with_warnings": len(warned),
                },
            }
        )
        return
    # Each line holds one thing: a name holding a line end (a file's, a link's, a
    # folder's) shows it as a code, so it cannot print a line of its own.
    notes = [f"note: {one_line(n)}" for n in status.notes]
    if not skills:
        print(one_line(f"{path}: {status.message}"), *notes, sep="\n")
        return
    for skill in skills:
        if not out.verbose and not skill.problems:
            continue
        print(f"{one_line(skill.name)}  ({one_line(skill.path or '')})  {skill.state}")
        if skill.nested_in:
            print(f"  nested in {one_line(skill.nested_in)}")
        if not skill.problems:
            print("  no problems")
        for p in skill.problems:
            print(f"  [{p.severity}] {p.code}: {one_line(p.message)}")
        if out.verbose:
            print(f"  manifest ({len(skill.files)} files, {format_size(skill.total_size)}):")
            for f in skill.files:
                print(f"    {one_line(f.digest)}  {f.size:>10}  {one_line(f.uri)}")
        print()
    for note in notes:
        print(note)
    line = summary_line(len(skills), len(failing), len(warned))
    if failing:
        names = ", ".join(one_line(s.name or s.path or "?") for s in failing[:10])
        more = f" and {len(failing) - 10} more" if len(failing) > 10 else ""
        line += f"; errors in: {names}{more}"
    print(line)
    sys.stdout.flush()

"""``skill-catalog lint DIR``: check a skill (or a folder of skills) as an author.

With ``--watch`` the folder is checked again after each saved change that touches a
skill, until Ctrl+C (the watching is :mod:`desktop.core.folder_changes`'s, as in the
window: a listing of names, sizes and times, a burst of saves taken as one change).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
import time
from pathlib import Path

from desktop.cli.output import emit_json, err, fail_usage
from desktop.core.catalog import build_catalog, skill_json
from desktop.core.folder_changes import Coalescer, changed_paths, pause, regions, skill_dir
from desktop.core.manifest import format_size
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.visible import one_line
from desktop.core.words import count
from desktop.sources.folder import folder_label, scan_folder
from desktop.sources.folder_watch import OK, list_folder

NAME = "lint"
HELP = "check a skill or a folder of skills and show the manifest it would publish"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="a skill folder or a folder of skills")
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    parser.add_argument(
        "--watch",
        action="store_true",
        help="check again after each saved change, until Ctrl+C",
    )


def run(args: argparse.Namespace) -> int:
    path = Path(args.dir).expanduser()
    if not path.exists():
        fail_usage(f"{path} does not exist")
    if not path.is_dir():
        fail_usage(f"{path} is not a folder")
    spec = SourceSpec(folder_label(path), "local", "folder", str(path.resolve()))
    if args.watch:
        return _watch(path, spec, args.json)
    return _lint(path, spec, args.json)[0]


def _watch(path: Path, spec: SourceSpec, as_json: bool) -> int:
    """Lint, then lint again after each change that touches a skill (a burst of saves is
    one change), until Ctrl+C: then a short line, and exit 0."""
    # Ctrl+C stops the watching even when this process was started with it ignored (as
    # a program started by another may be): the interrupt is what ends it.
    with contextlib.suppress(ValueError):  # not the main thread (tests call run())
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _code, skill_dirs = _lint(path, spec, as_json)
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
                _code, skill_dirs = _lint(path, spec, as_json)
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
                _code, skill_dirs = _lint(path, spec, as_json)
                gc.collect()  # the collector is paused for one-shot commands
    except KeyboardInterrupt:
        err(f"stopped watching {path}")
        return 0


def _print_again(why: str) -> None:
    """The line between two results, on stderr (stdout holds the results alone)."""
    sys.stdout.flush()
    err(f"--- {why}; checking again at {time.strftime('%H:%M:%S')} ---")


def _lint(path: Path, spec: SourceSpec, as_json: bool) -> tuple[int, set[str]]:
    """Check the folder once and print the result; the exit code and the skill folders."""
    status, skills = scan_folder(spec)
    dirs = {skill_dir(s.uri) for s in skills}
    return _report(path, status, skills, as_json), dirs


def _report(path: Path, status: SourceStatus, skills: list[Skill], as_json: bool) -> int:
    catalog = build_catalog([status], skills)
    skills = catalog.skills  # with their shown names and collision notes
    failed = any(s.has_errors() for s in skills) or not skills
    if as_json:
        emit_json(
            {
                "ok": not failed,
                "source": status.to_json(),
                "notes": list(status.notes),
                "skills": [skill_json(s) for s in skills],
                "collisions": [c.to_json() for c in catalog.collisions],
            }
        )
        return 1 if failed else 0
    # Each line holds one thing: a name holding a line end (a file's, a link's, a
    # folder's) shows it as a code, so it cannot print a line of its own.
    notes = [f"note: {one_line(n)}" for n in status.notes]
    if not skills:
        print(one_line(f"{path}: {status.message}"), *notes, sep="\n")
        return 1
    for skill in skills:
        print(f"{one_line(skill.name)}  ({one_line(skill.path or '')})  {skill.state}")
        if skill.nested_in:
            print(f"  nested in {one_line(skill.nested_in)}")
        shown = [p for p in skill.problems]
        if not shown:
            print("  no problems")
        for p in shown:
            print(f"  [{p.severity}] {p.code}: {one_line(p.message)}")
        print(f"  manifest ({len(skill.files)} files, {format_size(skill.total_size)}):")
        for f in skill.files:
            print(f"    {one_line(f.digest)}  {f.size:>10}  {one_line(f.uri)}")
        print()
    for note in notes:
        print(note)
    failing = [s for s in skills if s.has_errors()]
    warned = sum(1 for s in skills for p in s.problems if p.severity == "warning")
    summary = f"{count(len(skills), 'skill')} checked, {count(warned, 'warning')}"
    if failing:
        names = ", ".join(one_line(s.name or s.path or "?") for s in failing)
        print(f"FAILED: {len(failing)} of {summary}; errors in: {names}")
    else:
        print(f"OK: {summary}")
    sys.stdout.flush()
    return 1 if failed else 0

"""``skill-catalog lint DIR``: check a skill (or a folder of skills) as an author."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.output import emit_json, fail_usage
from desktop.core.catalog import build_catalog, skill_json
from desktop.core.manifest import format_size
from desktop.core.model import SourceSpec
from desktop.core.visible import one_line
from desktop.core.words import count
from desktop.sources.folder import folder_label, scan_folder

NAME = "lint"
HELP = "check a skill or a folder of skills and show the manifest it would publish"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="a skill folder or a folder of skills")
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")


def run(args: argparse.Namespace) -> int:
    path = Path(args.dir).expanduser()
    if not path.exists():
        fail_usage(f"{path} does not exist")
    if not path.is_dir():
        fail_usage(f"{path} is not a folder")
    spec = SourceSpec(folder_label(path), "local", "folder", str(path.resolve()))
    status, skills = scan_folder(spec)
    catalog = build_catalog([status], skills)
    skills = catalog.skills  # with their shown names and collision notes
    failed = any(s.has_errors() for s in skills) or not skills
    if args.json:
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
    return 1 if failed else 0

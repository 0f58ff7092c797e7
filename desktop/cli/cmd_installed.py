"""``skill-catalog installed``: every skill in the folders agents read, and whether it is
still what was approved.

States: ``approved`` (the files equal the approved ones), ``drifted`` (changed on disk
since the catalog installed it: which files), ``changed-upstream`` (its source lists
other files now: review to update), ``not-approved`` (installed by the catalog, its
approval since revoked or rejected), ``unmanaged`` (not installed by the catalog; who
did, where another tool's record says so). The user's folders by default; ``--project
DIR`` for a project's. The sources read to tell ``changed-upstream`` are the saved and
detected ones (or those given), and the folders the installed skills were taken from.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from desktop.cli.output import emit_json, table
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.model import SourceSpec
from desktop.core.states import Installed

NAME = "installed"
HELP = "list the skills in the agents' folders and whether each is still as approved"
OTHER_LOCK_LIMIT = 4 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="a project's folders instead of yours")
    parser.add_argument(
        "--offline", action="store_true", help="read no source (no changed-upstream state)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


def _read_json(path: Path) -> object:
    try:
        with open(path, "rb") as f:
            data = f.read(OTHER_LOCK_LIMIT + 1)
        if len(data) > OTHER_LOCK_LIMIT:
            return None
        return json.loads(data)
    except (OSError, ValueError):
        return None


def _read_yaml(path: Path) -> object:
    from desktop.core.frontmatter import parse_frontmatter_text

    try:
        with open(path, "rb") as f:
            data = f.read(OTHER_LOCK_LIMIT + 1)
        if len(data) > OTHER_LOCK_LIMIT:
            return None
        found, _ = parse_frontmatter_text(data.decode("utf-8", errors="replace"))
        return found
    except OSError:
        return None


def other_records(project: Path | None, home: Path) -> dict[str, str]:
    """Skill name → who installed it, from the records other tools keep."""
    from desktop.core.install import skills_cli_names, toolhive_names

    out: dict[str, str] = {}
    places = [home / ".agents" / ".skill-lock.json"]
    if project is not None:
        places.insert(0, project / "skills-lock.json")
        out.update(toolhive_names(_read_yaml(project / "toolhive.lock.yaml")))
    for path in places:
        for name, by in skills_cli_names(_read_json(path)).items():
            out.setdefault(name, by)
    return out


def _source_specs(args: argparse.Namespace, project: Path | None) -> list[SourceSpec]:
    """The sources to read for what they publish now: the usual ones, and the folders
    the locked skills came from."""
    from desktop.core.install import InstallError
    from desktop.sources.folder import folder_label
    from desktop.store.installs import project_lock_path, read_lock, user_lock_path

    specs = list(resolve_specs(args))
    try:
        entries = read_lock(project_lock_path(project) if project else user_lock_path())
    except InstallError:
        entries = []
    labels = {s.label for s in specs}
    endpoints = {s.endpoint for s in specs}
    for entry in entries:
        if entry.source.get("transport") != "folder":
            continue
        parent = str(Path(entry.source.get("endpoint", "")))
        if parent in endpoints or not Path(parent).is_dir():
            continue
        label = folder_label(Path(parent))
        while label in labels:
            label += "-"
        labels.add(label)
        endpoints.add(parent)
        specs.append(SourceSpec(label, "local", "folder", parent))
    return specs


async def _run(args: argparse.Namespace) -> int:
    import os

    from desktop.cli.command_session import command_session
    from desktop.session.installer import installed_in, published_sets, stored_approvals
    from desktop.sources.config.install_targets import every_folder
    from desktop.sources.config.known_folders import home_dir

    project = Path(args.project).expanduser().resolve() if args.project else None
    published: dict[str, str] = {}
    specs = [] if args.offline else _source_specs(args, project)
    async with command_session(specs) as session:
        if specs:
            published = published_sets((await session.read_catalog()).skills)
        approvals = await stored_approvals(session)
    folders = [(f, agents, project) for f, agents in every_folder(project)]
    found = installed_in(
        folders, approvals, published, other_records(project, home_dir(os.environ))
    )
    if args.json:
        emit_json({"installed": [s.to_json() for s in found]})
    elif not found:
        print("No skill is installed in the folders agents read.")
    else:
        rows = []
        for s in found:
            note = ", ".join(s.files_changed) or s.installed_by or s.reason
            rows.append([s.name, s.agent, s.state.label, note])
        print(table(rows, ["Skill", "Agents", "State", "Detail"]))
    return 0 if all(s.state in (Installed.APPROVED, Installed.UNMANAGED) for s in found) else 1

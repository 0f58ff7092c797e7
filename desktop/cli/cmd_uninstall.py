"""``skill-catalog uninstall NAME --agent AGENT``: remove a skill the catalog installed.

Only a skill the catalog's lock records is removed; one changed on disk since it was
installed only with ``--force``, after saying which files changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.output import CheckFailed, err

NAME = "uninstall"
HELP = "remove a skill the catalog installed from the agents' folders"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill's folder name")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="AGENT",
        help="the agent it was installed for (repeat for more)",
    )
    parser.add_argument("--project", metavar="DIR", help="the project it was installed into")
    parser.add_argument("--into", metavar="DIR", help="the skills folder it was installed into")
    parser.add_argument("--force", action="store_true", help="remove it even if it changed")


def run(args: argparse.Namespace) -> int:
    from desktop.core.install import InstallError
    from desktop.session.installer import Place, uninstall
    from desktop.sources.config.install_targets import UnknownAgent, target

    project = Path(args.project).expanduser().resolve() if args.project else None
    places: dict[Path, Place] = {}
    try:
        for slug in args.agent:
            folder = target(slug).folder(project)
            places.setdefault(folder, Place(folder, (slug,), project))
    except UnknownAgent as exc:
        raise CheckFailed(f"skill-catalog uninstall: {exc}") from exc
    if args.into:
        folder = Path(args.into).expanduser().resolve()
        places[folder] = Place(folder, ("folder",), None)
    if not places:
        raise CheckFailed("skill-catalog uninstall: say where: --agent AGENT or --into DIR")
    rc = 0
    for place in places.values():
        try:
            drifted = uninstall(place, args.name, force=args.force)
        except (InstallError, OSError) as exc:
            err(f"skill-catalog uninstall: {exc}")
            rc = 1
            continue
        extra = f" (it had changed: {', '.join(drifted)})" if drifted else ""
        print(f"Removed {place.folder / args.name}{extra}")
    return rc

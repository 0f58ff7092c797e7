"""Where ``install``, ``uninstall``, ``adopt``, ``enable`` and ``disable`` act: the agents'
folders (``--agent``), a project's (``--project``), or any skills folder (``--into``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.output import CheckFailed
from desktop.session.installer import Place


def add_place_options(parser: argparse.ArgumentParser, doing: str = "install") -> None:
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="AGENT",
        help=f"the agent to {doing} for (repeat for more; `install --agent help` lists them)",
    )
    parser.add_argument(
        "--project", metavar="DIR", help="the project DIR's folders, recorded in its lock"
    )
    parser.add_argument("--into", metavar="DIR", help="a skills folder of your choice")


def places_from(args: argparse.Namespace, command: str) -> list[Place]:
    """The places ``args`` name: one per distinct folder, with the agents reading it."""
    from desktop.sources.config.install_targets import UnknownAgent, target

    if not args.agent and not args.into:
        raise CheckFailed(
            f"skill-catalog {command}: say where: --agent AGENT (`install --agent help` lists "
            "them) or --into DIR"
        )
    project = Path(args.project).expanduser().resolve() if args.project else None
    if project is not None and not project.is_dir():
        raise CheckFailed(f"skill-catalog {command}: the project {args.project!r} is not a folder")
    by_folder: dict[Path, list[str]] = {}
    for slug in args.agent:
        try:
            folder = target(slug).folder(project)
        except UnknownAgent as exc:
            raise CheckFailed(f"skill-catalog {command}: {exc}") from exc
        by_folder.setdefault(folder, []).append(slug)
    places = [Place(f, tuple(a), project) for f, a in by_folder.items()]
    if args.into:
        places.append(Place(Path(args.into).expanduser().resolve(), ("folder",), None))
    return places

"""``skill-catalog trust [DIR]``: review what a project folder's config files would
start or connect to, and trust it.

The project folder is the repository holding DIR (default: the working directory), or
DIR itself outside a repository. Every server its ``.mcp.json``, ``.vscode/mcp.json``
and ``.cursor/mcp.json`` files ask for (from DIR up to the repository root) is shown,
secrets masked, with what changed since it was last trusted. Trust is kept in the
user's settings, bound to each entry as written now.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.cli.output import err
from desktop.core.trust import CHANGED, ProjectServer
from desktop.core.visible import one_line
from desktop.core.words import count

NAME = "trust"
HELP = "review and trust the MCP servers a project folder's config files ask for"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="the project folder (default: here)"
    )
    parser.add_argument("--yes", action="store_true", help="trust without asking (for scripts)")


def describe(servers: list[ProjectServer]) -> list[str]:
    """What each server would run or contact, secrets masked, grouped by file."""
    lines: list[str] = []
    by_file: dict[str, list[ProjectServer]] = {}
    for s in servers:
        by_file.setdefault(s.file, []).append(s)
    for file, group in by_file.items():
        lines.append(f"{one_line(file)} asks to start or contact:")
        for s in group:
            state = {CHANGED: "changed since you trusted it", "new": "not trusted"}.get(
                s.state, "trusted"
            )
            lines.append(f"  {one_line(s.server_id)[:80]} ({state})")
            lines.extend(f"    {what}: {shown}" for what, shown in s.shown)
            if s.state == CHANGED:
                lines.extend(f"    changed: {c}" for c in s.changed)
    return lines


def run(args: argparse.Namespace) -> int:
    from desktop.sources.config import project_servers
    from desktop.sources.trust_store import TrustNotSaved

    folder = Path(args.dir).expanduser()
    if not folder.is_dir():
        err(f"skill-catalog trust: {args.dir}: not a folder")
        return 2
    project, servers, problems, store = project_servers(cwd=folder.absolute())
    for file, reason in problems:
        err(f"{file}: {reason}")
    pending = [s for s in servers if not s.trusted]
    if not servers:
        print(f"{project}: no .mcp.json, .vscode/mcp.json or .cursor/mcp.json asks for a server.")
        return 0
    print(f"Project folder {project}:")
    print("\n".join(describe(servers)))
    if not pending:
        print(f"\nEvery server here is trusted as written ({count(len(servers), 'server')}).")
        return 0
    if not args.yes:
        question = (
            f"\nTrust {count(len(pending), 'server')} above, and let Skill Catalog start "
            "the commands and contact the URLs shown? [y/N] "
        )
        print(question, end="", flush=True)
        answer = sys.stdin.readline() if sys.stdin is not None else ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing trusted.")
            return 1
    store.trust(pending)
    try:
        store.save()
    except (TrustNotSaved, OSError) as exc:
        err(f"skill-catalog trust: {exc}")
        return 1
    print(f"Trusted {count(len(pending), 'server')} of {project} as written now.")
    return 0

"""``skill-catalog trust [DIR]``: review what a project folder's config files would
start or connect to, and trust it.

The project folder is the repository holding DIR (default: the working directory), or
DIR itself outside a repository. Every server its ``.mcp.json``, ``.vscode/mcp.json``
and ``.cursor/mcp.json`` files ask for (from DIR up to the repository root) is shown
as written, one visible line per part, with what changed since it was last trusted.
Trust is kept in the user's settings, bound to each entry as written now.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from desktop.cli.output import err
from desktop.core.states import TrustState
from desktop.core.trust import CHANGED, ProjectServer, waiting
from desktop.core.visible import cut, cut_repr, one_line
from desktop.core.words import count

NAME = "trust"
HELP = "review and trust the MCP servers a project folder's config files ask for"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", default=".", metavar="DIR", help="the project folder (default: here)"
    )
    parser.add_argument("--yes", action="store_true", help="trust without asking (for scripts)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="trust only the server called NAME in the folder's files (repeat for more)",
    )


def _state(s: ProjectServer) -> str:
    if s.skipped:
        return f"{s.skipped}: not started, needs no trust"
    return TrustState(s.state).label


def describe(servers: list[ProjectServer]) -> list[str]:
    """What each server would run or contact, as its file writes it, grouped by file:
    the server's name, then its command or URL, then its env and headers, every part
    one line (line breaks and controls written as codes), at most ENTRY_PARTS of them."""
    lines: list[str] = []
    by_file: dict[str, list[ProjectServer]] = {}
    for s in servers:
        by_file.setdefault(s.file, []).append(s)
    for file, group in by_file.items():
        lines.append(f"{cut(one_line(file))} asks to start or contact:")
        for s in group:
            lines.append(f"  {cut(one_line(s.server_id), 80)} ({_state(s)})")
            lines.extend(f"    {what}: {shown}" for what, shown in s.shown)
            if s.state == CHANGED and not s.skipped:
                lines.extend(f"    changed: {c}" for c in s.changed)
    return lines


def _names(servers: list[ProjectServer]) -> str:
    return ", ".join(cut(one_line(s.server_id), 80) for s in servers) or "none"


def run(args: argparse.Namespace) -> int:
    from desktop.session.decisions import TrustNotSaved
    from desktop.sources.config.saved import project_servers

    folder = Path(args.dir).expanduser()
    if not folder.is_dir():
        err(f"skill-catalog trust: {args.dir}: not a folder")
        return 2
    found_in, servers, problems, _store = project_servers(cwd=folder.absolute())
    project = cut(one_line(str(found_in)))
    for file, reason in problems:
        err(f"{one_line(file)}: {one_line(reason)}")
    if not servers:
        print(f"{project}: no .mcp.json, .vscode/mcp.json or .cursor/mcp.json asks for a server.")
        return 0 if not args.only else 2
    pending = waiting(servers)
    if args.only:
        known = {s.server_id for s in servers}
        unknown = [n for n in args.only if n not in known]
        if unknown:
            err(
                f"skill-catalog trust: no server here is called "
                f"{', '.join(cut_repr(n) for n in unknown)} (the servers: {_names(servers)})"
            )
            return 2
        pending = [s for s in pending if s.server_id in args.only]
    print(f"Project folder {project}:")
    print("\n".join(describe(servers)))
    if not pending:
        if args.only:
            print(
                f"\n{_names([s for s in servers if s.server_id in args.only])}: nothing to trust."
            )
        else:
            trusted = sum(1 for s in servers if s.trusted)
            print(f"\nEvery server here is trusted as written ({count(trusted, 'server')}).")
        return 0
    if not args.yes:
        question = (
            f"\nTrust {count(len(pending), 'server')} above ({_names(pending)}), and let "
            "Skill Catalog start the commands and contact the URLs shown? [y/N] "
        )
        print(question, end="", flush=True)
        answer = sys.stdin.readline() if sys.stdin is not None else ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing trusted.")
            return 1
    from desktop.cli.command_session import new_session

    try:
        n = asyncio.run(new_session([]).trust_servers(pending))
    except (TrustNotSaved, OSError) as exc:
        err(f"skill-catalog trust: {exc}")
        return 1
    left = len(waiting(servers)) - n
    more = f"; {count(left, 'server')} here still not trusted" if left > 0 else ""
    print(f"Trusted {count(n, 'server')} of {project} as written now{more}.")
    return 0

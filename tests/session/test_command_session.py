"""A command that names one skill reaches it through its catalog session, without Qt: a
real folder and a real ``skill-catalog serve`` over stdio, the skill found by its id, by
its name and by its folder, then read, verified and its folder listed."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from helpers.serve import serve_argv, write_skill

from desktop.cli.command_session import command_session
from desktop.cli.resolve import Resolver
from desktop.core.model import SourceSpec

REPO = Path(__file__).resolve().parents[2]
NOTES = b"# Notes for the deployment\n"


def _sources(tmp_path: Path) -> tuple[SourceSpec, SourceSpec]:
    mine = tmp_path / "mine"
    write_skill(mine, "notes")
    served = tmp_path / "served"
    write_skill(served, "deploy", "Deploys the service.", files={"references/a.md": NOTES})
    argv = tuple(serve_argv(served))
    return (
        SourceSpec("mine", "local", "folder", str(mine)),
        SourceSpec("srv", "mcp", "stdio", shlex.join(argv), command=argv),
    )


def test_one_skill_is_found_read_and_listed_through_the_command_session(tmp_path: Path) -> None:
    local, server = _sources(tmp_path)

    async def scenario() -> dict[str, Any]:
        async with command_session([local, server]) as session:
            resolver = Resolver(session)
            by_id = await resolver.pick("srv:skill://deploy/SKILL.md")
            by_name = await resolver.pick("srv:deploy")
            missing = await resolver.pick("srv:skill://nothing/SKILL.md")
            folder = await resolver.pick(str(tmp_path / "mine" / "notes"))
            skill = by_id.skill
            assert skill is not None
            notes = await session.read(skill, "skill://deploy/references/a.md")
            verified = await session.verify(skill)
            children, trouble = await session.list_directory(skill, "skill://deploy")
            return {
                "id": (skill.id, skill.qualified_name, by_id.said),
                "name": (by_name.skill.id if by_name.skill else None, by_name.said),
                "missing": missing.message,
                "folder": (folder.skill.name if folder.skill else None, folder.said),
                "notes": (notes.state, notes.data),
                "verified": (verified.state, sorted(f.uri for f in verified.files)),
                "children": sorted((c.name, c.in_held_entry) for c in children or []),
                "trouble": trouble,
                "read so far": session.verification_of(skill)[1],
            }

    seen = asyncio.run(scenario())
    # Asked for by its id with skills/get: named as `list` names it, nothing said.
    assert seen["id"] == ("srv:skill://deploy/SKILL.md", "srv:deploy", "")
    assert seen["name"][0] == "srv:skill://deploy/SKILL.md"
    assert seen["name"][1].startswith("srv:deploy is srv:skill://deploy/SKILL.md from ")
    assert seen["missing"].startswith("no skill 'srv:skill://nothing/SKILL.md': ")
    assert seen["folder"][0] == "notes" and seen["folder"][1].startswith(
        f"{tmp_path / 'mine' / 'notes'} is the skill folder "
    )
    assert seen["notes"] == ("verified", NOTES)
    assert seen["verified"] == (
        "verified",
        ["skill://deploy/SKILL.md", "skill://deploy/references/a.md"],
    )
    assert seen["children"] == [("SKILL.md", True), ("references", True)]
    assert seen["trouble"] == ""
    assert seen["read so far"] == "2 of 2 files verified"


def test_a_command_on_folders_alone_does_not_load_the_mcp_client(
    tmp_path: Path, secret_service: Any
) -> None:
    """show, verify and approve of a folder's skill: the session finds and reads it
    without the MCP client."""
    folder = write_skill(tmp_path / "skills", "alpha")
    code = (
        "import sys\n"
        "from desktop.cli.main import main\n"
        "codes = []\n"
        f"only = ['--folder', {str(folder.parent)!r}]\n"
        f"for argv in (['show', {str(folder)!r}, *only], ['verify', 'alpha', *only],\n"
        "             ['approve', 'alpha', '--read', '--json', *only]):\n"
        "    codes.append(main(argv))\n"
        "    sys.stdout.flush()\n"
        "names = ('mcp', 'desktop.sources.mcp.source')\n"
        "print(codes, sorted(m for m in names if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": str(REPO),
            "SKILL_CATALOG_APPROVALS_SERVICE": f"skill-catalog-test-{uuid.uuid4().hex[:12]}",
        },
    )
    assert done.returncode == 0, done.stderr
    assert '"files_read": true' in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[0, 0, 0] []"

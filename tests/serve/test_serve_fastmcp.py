"""An independent client lists and reads our server: fastmcp's `Client.list_skills()` and
`Client.read_skill()` (which checks every file's size and digest and the frontmatter
against the entry) over stdio and Streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.skills.client import SkillsClientExtension
from helpers.serve import HttpServe, serve_argv

from .sample_folder import SKILL_COUNT, files_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def list_and_read_everything(client: Client[Any], folder: Path) -> set[str]:
    disk = files_on_disk(folder)
    skills = await client.list_skills()
    uris = {skill.uri for skill in skills}
    assert len(uris) == len(skills)
    for entry in skills:
        skill = await client.read_skill(entry.uri)  # raises on any mismatch
        skill_path = entry.uri.removeprefix("skill://").removesuffix("/SKILL.md")
        assert skill.name == skill_path.rpartition("/")[2]
        assert set(skill.files) == {
            rel.removeprefix(skill_path + "/") for rel in disk if rel.startswith(skill_path + "/")
        }
        for rel, data in skill.files.items():
            assert data == disk[f"{skill_path}/{rel}"]
    return uris


async def test_fastmcp_client_reads_our_stdio_server(skills_folder: Path) -> None:
    argv = serve_argv(skills_folder, "--page-size", "3")
    transport = StdioTransport(argv[0], argv[1:])
    async with Client(transport, extensions=[SkillsClientExtension()]) as client:
        assert client.protocol_version == "2026-07-28"
        uris = await list_and_read_everything(client, skills_folder)
    assert len(uris) == SKILL_COUNT


async def test_fastmcp_client_reads_our_http_server(
    skills_folder: Path, http_server: HttpServe
) -> None:
    async with Client(http_server.url, extensions=[SkillsClientExtension()]) as client:
        uris = await list_and_read_everything(client, skills_folder)
    assert len(uris) == SKILL_COUNT


async def test_fastmcp_client_reads_the_sample_skills(sample_skills_dir: Path) -> None:
    argv = serve_argv(sample_skills_dir, "--page-size", "2")
    transport = StdioTransport(argv[0], argv[1:])
    async with Client(transport, extensions=[SkillsClientExtension()]) as client:
        uris = await list_and_read_everything(client, sample_skills_dir)
    assert "skill://pdf-forms/SKILL.md" in uris

"""Against independent servers: fastmcp's skills provider, and our own ``serve``."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import FASTMCP_SERVER, TEST_BUDGETS, HttpServer, free_port, run

from desktop.core.model import SourceSpec
from desktop.sources.mcp.source import ServerHandle, discover_server
from desktop.store.cache import SkillCache

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def sample_names(folder: Path) -> set[str]:
    return {p.parent.name for p in folder.glob("*/SKILL.md")}


def local_names(folder: Path) -> set[str]:
    from desktop.sources.folder import scan_folder

    _, skills = scan_folder(SourceSpec("local", "local", "folder", str(folder)))
    return {s.name for s in skills}


def check_all(skills: list, results: dict) -> None:
    """Every skill verifies, except an entry our checks call invalid (a sample breaks
    the name rules on purpose): that one is refused before anything is read."""
    for skill in skills:
        expected = "invalid" if skill.state == "invalid" else "verified"
        assert results[skill.name].state == expected, (skill.name, results[skill.name].message)
    assert sum(1 for s in skills if s.state != "invalid") >= 4


async def discover_and_verify(spec: SourceSpec, cache: SkillCache, mode: str = "auto"):
    async with ServerHandle(spec, TEST_BUDGETS, cache, mode=mode) as handle:
        status, skills = await handle.discover()
        results = {s.name: await handle.verify(s) for s in skills}
        return status, skills, results


def strict_copy(sample_skills_dir: Path, dest: Path) -> Path:
    """The sample skills fastmcp accepts: it refuses to start on a folder whose name
    breaks the Agent Skills pattern (one sample does so on purpose, for ``lint``)."""
    from desktop.core.checks import NAME_RE
    from desktop.core.skill_md import parse_skill_md

    for md in sample_skills_dir.glob("*/SKILL.md"):
        fm = parse_skill_md(md.read_bytes()).frontmatter or {}
        name = fm.get("name")
        if isinstance(name, str) and NAME_RE.match(name) and name == md.parent.name:
            shutil.copytree(md.parent, dest / md.parent.name)
    return dest


def test_fastmcp_skills_provider_over_http(
    sample_skills_dir: Path, cache: SkillCache, tmp_path: Path
) -> None:
    folder = strict_copy(sample_skills_dir, tmp_path / "skills")
    assert len(sample_names(folder)) >= 3
    sample_skills_dir = folder
    port = free_port()
    with HttpServer(
        [sys.executable, str(FASTMCP_SERVER), str(folder), "--http", str(port)], port
    ) as server:
        spec = SourceSpec("fm", "mcp", "http", server.url)
        status, skills, results = run(discover_and_verify(spec, cache))
    assert status.status == "ok", status.message
    assert status.protocol_version == "2026-07-28"
    assert status.declares_extension is True
    assert {s.name for s in skills} == sample_names(sample_skills_dir)
    for name, result in results.items():
        assert result.state == "verified", (name, result.message)
    pdf = next(s for s in skills if s.name == "pdf-forms")
    assert len(pdf.files) > 1


def test_our_serve_over_stdio_in_both_eras_with_pages(
    sample_skills_dir: Path, cache: SkillCache
) -> None:
    argv = (sys.executable, "-m", "desktop", "serve", str(sample_skills_dir), "--page-size", "2")
    spec = SourceSpec("ours", "mcp", "stdio", " ".join(argv), command=argv)
    for mode in ("auto", "legacy"):
        status, skills, results = run(discover_and_verify(spec, cache, mode))
        assert status.status == "ok", (mode, status.message)
        # serve publishes the folder's valid skills (nested ones included)
        assert {s.name for s in skills} <= local_names(sample_skills_dir)
        assert len(skills) >= 5
        pages = -(-len(skills) // 2)
        assert pages >= 3
        assert f"in {pages} pages" in status.message
        check_all(skills, results)
    assert status.protocol_version == "2025-11-25"


def test_our_serve_over_http(sample_skills_dir: Path, cache: SkillCache) -> None:
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "desktop",
        "serve",
        str(sample_skills_dir),
        "--http",
        f"127.0.0.1:{port}",
        "--page-size",
        "2",
    ]
    with HttpServer(argv, port) as server:
        spec = SourceSpec("ours", "mcp", "http", server.url)
        for mode in ("auto", "legacy"):
            status, skills, results = run(discover_and_verify(spec, cache, mode))
            assert status.status == "ok", (mode, status.message)
            assert {s.name for s in skills} <= local_names(sample_skills_dir)
            check_all(skills, results)
        status, _ = run(discover_server(spec, TEST_BUDGETS))
        assert status.directory_read is True

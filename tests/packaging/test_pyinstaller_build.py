"""The PyInstaller one-folder build: it builds from packaging/skill-catalog.spec, and the
built `skill-catalog` lists the sample catalog exactly as the source tree does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "skill-catalog.spec"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the app into a temporary folder; return the folder holding the executables."""
    base = tmp_path_factory.mktemp("pyinstaller")
    env = dict(os.environ, PYINSTALLER_CONFIG_DIR=str(base / "config"))
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--distpath",
            str(base / "dist"),
            "--workpath",
            str(base / "work"),
            str(SPEC),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    (base / "build-seconds.txt").write_text(f"{seconds:.1f}\n")
    app = base / "dist" / "skill-catalog"
    assert (app / "skill-catalog").is_file()
    return app


def _run(
    exe: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(exe), *args],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def _skills(listing: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in listing["skills"]}


def test_built_app_lists_the_sample_skills_like_the_source_tree(
    build: Path,
    sample_skills_dir: Path,
    run_cli: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    built = _run(build / "skill-catalog", "list", "--folder", str(sample_skills_dir), "--json")
    assert built.returncode == 0, built.stderr
    assert "Traceback" not in built.stderr
    from_source = run_cli("list", "--folder", str(sample_skills_dir), "--json")
    assert from_source.returncode == 0, from_source.stderr

    built_skills = _skills(json.loads(built.stdout))
    source_skills = _skills(json.loads(from_source.stdout))
    names = {s["name"] for s in built_skills.values()}
    on_disk = {p.parent.name for p in sample_skills_dir.rglob("SKILL.md")}
    assert names, "the build listed no skills"
    # Every sample skill is listed (a skill may name itself differently from its folder).
    assert len(built_skills) == len(on_disk)
    assert built_skills.keys() == source_skills.keys()
    for skill_id, skill in built_skills.items():
        assert skill["name"] == source_skills[skill_id]["name"]
        assert skill["resources"] == source_skills[skill_id]["resources"]
        assert skill["state"] == source_skills[skill_id]["state"]


def test_built_app_reports_its_version(build: Path) -> None:
    version = _run(build / "skill-catalog", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("skill-catalog ")


def test_built_app_handles_a_missing_folder_like_the_source_tree(
    build: Path, tmp_path: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    missing = str(tmp_path / "no-such-folder")
    built = _run(build / "skill-catalog", "list", "--folder", missing)
    from_source = run_cli("list", "--folder", missing)
    assert "Traceback" not in built.stderr
    assert (built.returncode, built.stdout, built.stderr) == (
        from_source.returncode,
        from_source.stdout,
        from_source.stderr,
    )
    assert missing in built.stdout + built.stderr


def test_built_app_carries_the_resources(build: Path, repo_root: Path) -> None:
    bundled = build / "_internal" / "resources"
    assert (bundled / "skills").is_dir()
    icon = Path("icons/hicolor/scalable/apps/io.github.skillcatalog.SkillCatalog.svg")
    assert (bundled / icon).read_bytes() == (repo_root / "resources" / icon).read_bytes()
    for skill_md in (repo_root / "resources" / "skills").rglob("SKILL.md"):
        relative = skill_md.relative_to(repo_root / "resources")
        assert (bundled / relative).read_bytes() == skill_md.read_bytes()


def test_built_app_first_run_lists_the_bundled_samples_and_sample_server(
    build: Path,
    tmp_home: Path,
    repo_root: Path,
    run_cli: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    """With no source options and an empty home, the build lists its own bundled sample
    folder and the sample server (which it starts from its own executable)."""
    built = _run(build / "skill-catalog", "list", "--json", env=dict(os.environ))
    assert built.returncode == 0, built.stderr
    listing = json.loads(built.stdout)
    statuses = {s["label"]: s for s in listing["sources"]}
    assert statuses, "no bundled sources"
    problems = {k: s.get("message") for k, s in statuses.items() if s["status"] != "ok"}
    assert not problems, problems
    endpoints = " ".join(str(s.get("endpoint")) for s in statuses.values())
    assert str(build) in endpoints, "the build used resources outside itself"
    assert str(repo_root) not in endpoints

    from_source = json.loads(run_cli("list", "--json").stdout)
    assert {s["label"] for s in from_source["sources"]} == set(statuses)
    assert sorted(s["qualified_name"] for s in listing["skills"]) == sorted(
        s["qualified_name"] for s in from_source["skills"]
    )


@pytest.mark.keyring
def test_built_app_reaches_the_secret_service(build: Path, secret_service: Any) -> None:
    """The bundle carries keyring's Secret Service backend (found through package metadata
    at run time, so easy to lose in a build)."""
    result = _run(build / "skill-catalog", "approvals", "--json", env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "keyring" not in result.stderr.lower(), result.stderr
    json.loads(result.stdout)


@pytest.mark.xvfb
def test_built_window_opens_on_the_bundled_samples(
    build: Path, tmp_home: Path, xvfb_env: dict[str, str], tmp_path: Path
) -> None:
    window = build / "skill-catalog-window"
    assert window.is_file()
    shot = tmp_path / "window.png"
    result = subprocess.run(
        [str(window), "--screenshot", str(shot), "--select", "pdf-forms", "--preview"],
        env=xvfb_env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 640 and height >= 400, (width, height)

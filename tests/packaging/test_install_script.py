"""scripts/install and scripts/uninstall, run for real into a temporary home: the
commands land on ~/.local/bin, work from anywhere (with the bundled samples), the
desktop's menu gets a valid entry, and uninstall takes all of it away again while the
user's own files stay."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "VIRTUAL_ENV", "PYTHON")) and k != "HOME"
    }
    env.update(HOME=str(home), PATH="/usr/local/bin:/usr/bin:/bin", SKILL_CATALOG_NO_PIPX="1")
    return env


def test_install_then_uninstall_for_the_current_user(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    done = subprocess.run(
        [str(ROOT / "scripts" / "install")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1000,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "is not on your PATH" in done.stderr  # ~/.local/bin is not, here
    # It says what it is doing, step by step, and pip's own lines show the long step.
    steps = [line for line in done.stderr.splitlines() if line.startswith("install: [")]
    assert [line.split("]")[0] for line in steps] == [f"install: [{n}/5" for n in range(1, 6)]
    assert "with pip (about a minute)" in steps[2]
    pip_lines = done.stderr.split(steps[2], 1)[1].split(steps[3], 1)[0]
    assert "Successfully installed" in pip_lines and "skill-catalog" in pip_lines
    assert "install: installed in " in done.stderr
    bin_dir = home / ".local" / "bin"
    cli = bin_dir / "skill-catalog"
    assert cli.exists() and (bin_dir / "skill-catalog-window").exists()

    # It runs from anywhere, on its own copy of the samples (not the checkout's).
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run(
        [str(cli), "sources", "list", "--json"],
        env=env,
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    sources = json.loads(listed.stdout)["sources"]
    assert [s["label"] for s in sources] == ["samples", "sample-server"]
    assert all(str(home) in s["endpoint"] and str(ROOT) not in s["endpoint"] for s in sources)
    skills = subprocess.run(
        [str(cli), "list", "--json"],
        env=env,
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert skills.returncode == 0, skills.stderr
    assert {s["status"] for s in json.loads(skills.stdout)["sources"]} == {"ok"}

    # The desktop's menu: a valid entry starting the installed window, metainfo, icons.
    data = home / ".local" / "share"
    entry = data / "applications" / "skill-catalog.desktop"
    assert f"Exec={bin_dir / 'skill-catalog-window'}" in entry.read_text()
    if shutil.which("desktop-file-validate"):
        valid = subprocess.run(
            ["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False
        )
        assert valid.returncode == 0, valid.stdout + valid.stderr
    assert (data / "metainfo" / "io.github.skillcatalog.SkillCatalog.metainfo.xml").is_file()
    icon = data / "icons" / "hicolor" / "scalable" / "apps"
    assert any(icon.glob("io.github.skillcatalog.SkillCatalog.*"))

    # Uninstall: everything installed goes; the user's saved sources stay.
    saved = home / ".config" / "skill-catalog" / "sources.json"
    saved.parent.mkdir(parents=True)
    saved.write_text('{"version": 1, "sources": []}\n')
    gone = subprocess.run(
        [str(ROOT / "scripts" / "uninstall")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert gone.returncode == 0, gone.stderr
    assert not cli.exists() and not cli.is_symlink()
    assert not entry.exists()
    assert not (data / "skill-catalog").exists()
    assert not any(icon.glob("io.github.skillcatalog.SkillCatalog.*"))
    assert saved.read_text() == '{"version": 1, "sources": []}\n'
    again = subprocess.run(
        [str(ROOT / "scripts" / "uninstall")], env=env, capture_output=True, text=True, check=False
    )
    assert again.returncode == 1 and "not installed" in again.stderr

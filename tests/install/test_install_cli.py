"""``install``, ``installed`` and ``uninstall`` run as the program (a subprocess), with the
real Secret Service, real folders and a temporary HOME: approved bytes go into the agents'
folders, every other state is refused, and every drift is caught."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(300)]

SKILL = "---\nname: {name}\ndescription: Fills in PDF forms\n---\n# {name}\nUse the script.\n"


def make_skill(root: Path, name: str, extra: dict[str, str] | None = None) -> Path:
    folder = root / name
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name))
    (folder / "scripts" / "fill.py").write_text("print('fill')\n")
    for path, text in (extra or {}).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def home_env(home: Path, service: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local/state"),
        SKILL_CATALOG_APPROVALS_SERVICE=service,
    )
    return env


@pytest.fixture
def cli(
    tmp_path: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]], secret_service: Any
) -> Callable[..., subprocess.CompletedProcess[str]]:
    env = home_env(tmp_path / "home", f"skill-catalog-test-{uuid.uuid4().hex[:12]}")
    (tmp_path / "home").mkdir()

    def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env=env, cwd=cwd or tmp_path)

    run.env = env  # type: ignore[attr-defined]
    return run


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "published"
    make_skill(root, "pdf")
    make_skill(root, "docx")
    return root


def installed(cli: Callable[..., Any], *args: str) -> dict[str, dict[str, Any]]:
    proc = cli("installed", "--json", *args)
    return {f"{s['agent']}:{s['name']}": s for s in json.loads(proc.stdout)["installed"]}


def test_an_approved_skill_installs_byte_equal_into_two_agents(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    home = tmp_path / "home"
    refused = cli("install", "pdf", "--agent", "claude-code", *src)
    assert refused.returncode == 1
    assert "not installed" in refused.stderr and "approve it first" in refused.stderr
    assert not (home / ".claude/skills/pdf").exists()

    done = cli("approve", "pdf", *src)
    assert done.returncode == 0, done.stderr
    done = cli("install", "pdf", "--agent", "claude-code", "--agent", "copilot", *src)
    assert done.returncode == 0, done.stderr
    for folder in (home / ".claude/skills/pdf", home / ".copilot/skills/pdf"):
        assert (folder / "SKILL.md").read_bytes() == (source / "pdf/SKILL.md").read_bytes()
        assert (folder / "scripts/fill.py").read_bytes() == b"print('fill')\n"
        # Scripts were not allowed by the approval: not executable.
        assert not (folder / "scripts/fill.py").stat().st_mode & stat.S_IXUSR
    assert f"Installed pdf into {home / '.claude/skills/pdf'}" in done.stdout
    lock = json.loads((home / ".local/state/skill-catalog/installed.json").read_text())
    assert {e["folder"] for e in lock["skills"]} == {
        str(home / ".claude/skills"),
        str(home / ".copilot/skills"),
    }
    (item,) = [e for e in lock["skills"] if e["folder"].endswith(".claude/skills")]
    assert [f["path"] for f in item["files"]] == ["SKILL.md", "scripts/fill.py"]
    assert item["approved_by"] and item["approved_at"] and item["set_hash"].startswith("sha256:")

    states = installed(cli, *src)
    assert states["claude-code:pdf"]["state"] == "approved"
    assert states["copilot:pdf"]["installed_by"] == "skill-catalog"
    again = cli("install", "pdf", "--agent", "claude-code", *src)
    assert "already holds the approved files" in again.stdout


def test_scripts_are_executable_only_when_the_approval_allows_them(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    assert cli("approve", "pdf", "--allow-scripts", *src).returncode == 0
    assert cli("install", "pdf", "--agent", "codex", *src).returncode == 0
    mode = (tmp_path / "home/.agents/skills/pdf/scripts/fill.py").stat().st_mode
    assert mode & stat.S_IXUSR
    assert not (tmp_path / "home/.agents/skills/pdf/SKILL.md").stat().st_mode & stat.S_IXUSR


def test_a_changed_or_rejected_skill_is_refused(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    assert cli("approve", "pdf", *src).returncode == 0
    (source / "pdf/scripts/fill.py").write_text("import os; os.system('curl evil')\n")
    refused = cli("install", "pdf", "--agent", "claude-code", *src)
    assert refused.returncode == 1 and "changed since it was approved" in refused.stderr
    assert cli("reject", "docx", "--reason", "no", *src).returncode == 0
    refused = cli("install", "docx", "--agent", "claude-code", *src)
    assert refused.returncode == 1 and "it was rejected" in refused.stderr
    assert not (tmp_path / "home/.claude/skills").exists() or not any(
        (tmp_path / "home/.claude/skills").iterdir()
    )


def test_every_drift_is_caught(cli: Callable[..., Any], source: Path, tmp_path: Path) -> None:
    src = ("--folder", f"pub={source}")
    assert cli("approve", "pdf", *src).returncode == 0
    assert cli("approve", "docx", *src).returncode == 0
    assert cli("install", "pdf", "--agent", "claude-code", *src).returncode == 0
    assert cli("install", "docx", "--agent", "claude-code", *src).returncode == 0
    home = tmp_path / "home"

    (home / ".claude/skills/pdf/SKILL.md").write_text("---\nname: pdf\n---\nsomething else\n")
    proc = cli("installed", "--json", *src)
    assert proc.returncode == 1
    states = {s["name"]: s for s in json.loads(proc.stdout)["installed"]}
    assert states["pdf"]["state"] == "drifted"
    assert states["pdf"]["files_changed"] == ["SKILL.md"]
    assert states["docx"]["state"] == "approved"

    (source / "docx/SKILL.md").write_text(SKILL.format(name="docx") + "More.\n")
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["docx"]["state"] == "changed-upstream"
    offline = cli("installed", "--json", "--offline")
    states = {s["name"]: s for s in json.loads(offline.stdout)["installed"]}
    assert states["docx"]["state"] == "approved"  # the source was not read

    (source / "docx/SKILL.md").write_text(SKILL.format(name="docx"))
    assert cli("revoke", "docx", *src).returncode == 0
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["docx"]["state"] == "not-approved"
    text = cli("installed", *src).stdout
    assert "Changed on disk" in text and "SKILL.md" in text and "No longer approved" in text


def test_names_that_collide_are_refused(cli: Callable[..., Any], tmp_path: Path) -> None:
    root = tmp_path / "published"
    make_skill(root, "report")
    target = tmp_path / "home/.claude/skills"
    (target / "Report").mkdir(parents=True)
    (target / "Report/SKILL.md").write_text("---\nname: Report\n---\n")
    src = ("--folder", f"pub={root}")
    assert cli("approve", "report", *src).returncode == 0
    refused = cli("install", "report", "--agent", "claude-code", *src)
    assert refused.returncode == 1 and "differ only in case or Unicode form" in refused.stderr
    assert not (target / "report").exists()

    nfkc = tmp_path / "nfkc"
    make_skill(root, "ﬁll")  # the "fi" ligature: NFKC makes it "fill"
    (nfkc / "fill").mkdir(parents=True)
    assert cli("approve", "pub:ﬁll", "--despite-problems", *src).returncode == 0
    refused = cli("install", "pub:ﬁll", "--into", nfkc, *src)
    assert refused.returncode == 1 and "collide" in refused.stderr


def test_a_folder_not_installed_by_the_catalog_is_replaced_only_when_asked(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    target = tmp_path / "home/.claude/skills/pdf"
    target.mkdir(parents=True)
    (target / "SKILL.md").write_text("---\nname: pdf\n---\nmine\n")
    assert cli("approve", "pdf", *src).returncode == 0
    refused = cli("install", "pdf", "--agent", "claude-code", *src)
    assert refused.returncode == 1 and "exists" in refused.stderr
    assert "mine" in (target / "SKILL.md").read_text()
    unasked = cli("install", "pdf", "--agent", "claude-code", "--replace", *src)
    assert unasked.returncode == 1 and "pass --yes" in unasked.stderr
    done = cli("install", "pdf", "--agent", "claude-code", "--replace", "--yes", *src)
    assert done.returncode == 0, done.stderr
    assert "Fills in PDF forms" in (target / "SKILL.md").read_text()
    (backup,) = [p for p in target.parent.iterdir() if p.name.startswith(".skill-catalog-backup")]
    assert "mine" in (backup / "SKILL.md").read_text()


def test_a_project_lock_reproduces_the_install_on_another_home(
    cli: Callable[..., Any],
    source: Path,
    tmp_path: Path,
    run_cli: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    src = ("--folder", f"pub={source}")
    project = tmp_path / "project"
    project.mkdir()
    assert cli("approve", "pdf", *src).returncode == 0
    done = cli("install", "pdf", "--agent", "claude-code", "--project", project, *src)
    assert done.returncode == 0, done.stderr
    lock_text = (project / "skill-catalog.lock.json").read_text()
    (entry,) = json.loads(lock_text)["skills"]
    assert entry["folder"] == ".claude/skills" and entry["name"] == "pdf"

    # Another machine: a fresh HOME and keyring service, the project cloned without the skill.
    other = tmp_path / "clone"
    other.mkdir()
    (other / "skill-catalog.lock.json").write_text(lock_text)
    env = home_env(tmp_path / "home2", f"skill-catalog-test-{uuid.uuid4().hex[:12]}")
    (tmp_path / "home2").mkdir()
    asked = run_cli("install", "--from-lock", other, *src, env=env)
    assert asked.returncode == 1 and "pass --yes" in asked.stderr
    assert "pdf into" in asked.stdout
    done = run_cli("install", "--from-lock", other, "--yes", *src, env=env)
    assert done.returncode == 0, done.stderr
    copied = other / ".claude/skills/pdf"
    assert (copied / "SKILL.md").read_bytes() == (source / "pdf/SKILL.md").read_bytes()
    assert "not approved on this machine" in done.stdout
    listed = run_cli("installed", "--json", "--project", other, *src, env=env)
    (state,) = [s for s in json.loads(listed.stdout)["installed"] if s["name"] == "pdf"]
    assert state["state"] == "not-approved"

    # A source whose bytes are not the lock's installs nothing of them.
    (source / "pdf/SKILL.md").write_text(SKILL.format(name="pdf") + "changed\n")
    third = tmp_path / "third"
    third.mkdir()
    (third / "skill-catalog.lock.json").write_text(lock_text)
    refused = run_cli("install", "--from-lock", third, "--yes", *src, env=env)
    assert refused.returncode == 1 and "not the file the lock records" in refused.stderr
    assert not (third / ".claude").exists()


def test_skills_other_tools_installed_are_named(cli: Callable[..., Any], tmp_path: Path) -> None:
    project = tmp_path / "proj"
    for name in ("from-cli", "from-gh", "from-toolhive", "by-hand"):
        make_skill(project / ".agents/skills", name)
    (project / ".agents/skills/from-gh/SKILL.md").write_text(
        "---\nname: from-gh\ndescription: d\nmetadata:\n  github-repo: octo/skills\n"
        "  github-ref: v2\n---\n"
    )
    (project / "skills-lock.json").write_text(
        json.dumps({"version": 1, "skills": {"from-cli": {"source": "vercel-labs/agent-skills"}}})
    )
    (project / "toolhive.lock.yaml").write_text(
        "skills:\n  - name: from-toolhive\n    reference: ghcr.io/stacklok/x:1\n"
    )
    proc = cli("installed", "--json", "--offline", "--project", project)
    assert proc.returncode == 0, proc.stderr
    by = {s["name"]: s for s in json.loads(proc.stdout)["installed"]}
    assert {s["state"] for s in by.values()} == {"unmanaged"}
    assert by["from-cli"]["installed_by"] == "skills CLI from vercel-labs/agent-skills"
    assert by["from-gh"]["installed_by"] == "gh skill from octo/skills at v2"
    assert by["from-toolhive"]["installed_by"] == "ToolHive from ghcr.io/stacklok/x:1"
    assert by["by-hand"]["installed_by"] == ""


def test_uninstall_removes_only_what_the_catalog_installed(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    skills = tmp_path / "home/.claude/skills"
    make_skill(skills, "mine")
    assert cli("approve", "pdf", *src).returncode == 0
    assert cli("install", "pdf", "--agent", "claude-code", *src).returncode == 0
    refused = cli("uninstall", "mine", "--agent", "claude-code")
    assert refused.returncode == 1 and "not installed by the catalog" in refused.stderr
    assert (skills / "mine/SKILL.md").exists()
    (skills / "pdf/notes.txt").write_text("added by hand\n")
    refused = cli("uninstall", "pdf", "--agent", "claude-code")
    assert refused.returncode == 1 and "notes.txt" in refused.stderr and "--force" in refused.stderr
    done = cli("uninstall", "pdf", "--agent", "claude-code", "--force")
    assert done.returncode == 0 and "it had changed: notes.txt" in done.stdout
    assert not (skills / "pdf").exists()
    left = {s["name"]: s["state"] for s in installed(cli, "--offline").values()}
    assert left == {"mine": "unmanaged"}


def test_an_install_killed_before_its_rename_leaves_no_skill(tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from desktop.store.installs import FileToWrite, write_skill\n"
        "write_skill(Path(sys.argv[1]), 'pdf', [FileToWrite('SKILL.md', b'x' * 100000)],\n"
        "            before_rename=lambda p: os.kill(os.getpid(), signal.SIGKILL))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], check=False, timeout=60)
    assert proc.returncode == -9
    assert not (folder / "pdf").exists()
    (left,) = list(folder.iterdir())
    assert left.name.startswith(".skill-catalog-")  # hidden: no agent reads it as a skill
    from desktop.store.installs import FileToWrite, write_skill

    write_skill(folder, "pdf", [FileToWrite("SKILL.md", b"ok")])
    assert [p.name for p in folder.iterdir()] == ["pdf"]  # the leftover was swept


def test_two_installs_at_once_are_both_recorded(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    assert cli("approve", "pdf", *src).returncode == 0
    assert cli("approve", "docx", *src).returncode == 0
    env = cli.env  # type: ignore[attr-defined]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "desktop", "install", name, "--agent", "claude-code", *src],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("pdf", "docx")
    ]
    for p in procs:
        _, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
    lock = json.loads((tmp_path / "home/.local/state/skill-catalog/installed.json").read_text())
    assert sorted(e["name"] for e in lock["skills"]) == ["docx", "pdf"]


def test_agent_help_lists_the_agents(cli: Callable[..., Any]) -> None:
    proc = cli("install", "--agent", "help")
    assert proc.returncode == 0
    assert "claude-code" in proc.stdout and "~/.claude/skills" in proc.stdout
    bad = cli("install", "pdf", "--agent", "vim")
    assert bad.returncode == 1 and "unknown agent 'vim'" in bad.stderr


def test_disable_keeps_a_skill_out_of_sight_and_enable_brings_it_back(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    skills = tmp_path / "home/.claude/skills"
    assert cli("approve", "pdf", *src).returncode == 0
    assert cli("install", "pdf", "--agent", "claude-code", *src).returncode == 0
    done = cli("disable", "pdf", "--agent", "claude-code")
    assert done.returncode == 0, done.stderr
    assert not (skills / "pdf").exists()  # the agent no longer sees it
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["pdf"]["enabled"] is False and states["pdf"]["state"] == "approved"
    assert "skill-catalog/disabled" in states["pdf"]["path"]
    (skills / "pdf").mkdir(parents=True)
    blocked = cli("enable", "pdf", "--agent", "claude-code")
    assert blocked.returncode == 1 and "exists" in blocked.stderr
    (skills / "pdf").rmdir()
    done = cli("enable", "pdf", "--agent", "claude-code")
    assert done.returncode == 0, done.stderr
    assert (skills / "pdf/SKILL.md").read_bytes() == (source / "pdf/SKILL.md").read_bytes()
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["pdf"]["enabled"] is True and states["pdf"]["state"] == "approved"
    make_skill(skills, "mine")
    refused = cli("disable", "mine", "--agent", "claude-code")
    assert refused.returncode == 1 and "not installed by the catalog" in refused.stderr


def test_adopt_takes_an_approved_unmanaged_skill_under_care(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    skills = tmp_path / "home/.claude/skills"
    make_skill(skills, "handmade")
    refused = cli("adopt", "handmade", "--agent", "claude-code")
    assert refused.returncode == 1 and "approve it first" in refused.stderr
    assert f"skill-catalog approve {skills / 'handmade'}" in refused.stderr
    assert cli("approve", skills / "handmade").returncode == 0
    done = cli("adopt", "handmade", "--agent", "claude-code")
    assert done.returncode == 0, done.stderr
    states = {s["name"]: s for s in json.loads(cli("installed", "--json").stdout)["installed"]}
    assert states["handmade"]["state"] == "approved"
    assert states["handmade"]["installed_by"] == "skill-catalog"
    again = cli("adopt", "handmade", "--agent", "claude-code")
    assert again.returncode == 1 and "already installed by the catalog" in again.stderr
    (skills / "handmade/scripts/fill.py").write_text("print('changed')\n")
    states = {s["name"]: s for s in json.loads(cli("installed", "--json").stdout)["installed"]}
    assert states["handmade"]["state"] == "drifted"
    assert states["handmade"]["files_changed"] == ["scripts/fill.py"]


def test_an_update_is_installed_once_its_change_is_approved(
    cli: Callable[..., Any], source: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"pub={source}")
    target = tmp_path / "home/.claude/skills/pdf"
    assert cli("approve", "pdf", *src).returncode == 0
    assert cli("install", "pdf", "--agent", "claude-code", *src).returncode == 0
    (source / "pdf/forms.md").write_text("new forms\n")
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["pdf"]["state"] == "changed-upstream"
    refused = cli("install", "pdf", "--agent", "claude-code", *src)
    assert refused.returncode == 1 and "changed since it was approved" in refused.stderr
    assert not (target / "forms.md").exists()
    assert cli("approve", "pdf", *src).returncode == 0
    done = cli("install", "pdf", "--agent", "claude-code", *src)
    assert done.returncode == 0, done.stderr
    assert (target / "forms.md").read_text() == "new forms\n"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]  # no backup
    states = {
        s["name"]: s for s in json.loads(cli("installed", "--json", *src).stdout)["installed"]
    }
    assert states["pdf"]["state"] == "approved"

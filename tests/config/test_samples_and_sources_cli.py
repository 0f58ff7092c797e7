"""The bundled samples appear only while the user has nothing of their own, marked as
samples, and go when removed; ``skill-catalog sources`` manages the saved sources; where
imported servers came from is said in ``list`` and ``--json``."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from desktop.sources.config import saved as config

RunCli = Callable[..., CompletedProcess[str]]


def a_skill(folder: Path, name: str = "own-skill") -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Mine.\n---\n")
    return folder


def labels(found: config.Sources) -> list[str]:
    return [e.spec.label for e in found.entries]


def test_samples_show_only_while_nothing_of_the_users_own_is_found(tmp_home: Path) -> None:
    work = tmp_home / "work"
    work.mkdir()
    found = config.collect_sources(cwd=work)
    assert labels(found) == ["samples", "sample-server"]
    assert found.samples_shown and all(e.spec.sample for e in found.entries)
    # A skill folder an agent reads is the user's own: the samples go.
    a_skill(tmp_home / ".claude" / "skills")
    found = config.collect_sources(cwd=work)
    assert labels(found) == ["claude-user"] and not found.samples_shown


def test_an_empty_agent_folder_does_not_hide_the_samples(cli: Any, tmp_home: Path) -> None:
    """An agent's folder its installer made empty is not the user's own catalog: the
    samples stay, beside the folder, in the sources and in ``list``; a skill in it ends
    the samples."""
    (tmp_home / ".claude" / "skills" / "empty-dir").mkdir(parents=True)
    found = config.collect_sources(cwd=tmp_home / "work")
    assert labels(found) == ["claude-user", "samples", "sample-server"]
    assert found.samples_shown
    out = cli("list", "--json")
    assert out.returncode == 0, out.stderr
    listed = {s["label"] for s in json.loads(out.stdout)["sources"]}
    assert {"claude-user", "samples", "sample-server"} <= listed
    assert "git-commit-style" in cli("list").stdout
    # A skill linked into the folder, as people often install them, is their own.
    linked = a_skill(tmp_home / "elsewhere") / "own-skill"
    (tmp_home / ".claude" / "skills" / "empty-dir" / "own-skill").symlink_to(linked)
    found = config.collect_sources(cwd=tmp_home / "work")
    assert labels(found) == ["claude-user"] and not found.samples_shown


def test_an_imported_server_alone_hides_the_samples_and_says_where_it_came_from(
    tmp_home: Path,
) -> None:
    codex = tmp_home / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text("[mcp_servers.docs]\ncommand = 'npx'\nargs = ['-y', 'docs']\n")
    found = config.collect_sources(cwd=tmp_home)
    (entry,) = found.entries
    assert entry.spec.label == "docs"
    assert entry.spec.imported_from == ("Codex", str(codex))


def test_a_saved_source_of_the_users_own_hides_the_saved_samples(tmp_home: Path) -> None:
    cfg = config.first_run_config()  # what the window saves from on a first run
    cfg.add(SourceSpec("mine", "local", "folder", str(a_skill(tmp_home / "mine"))))
    config.save_config(cfg)
    assert labels(config.collect_sources(cwd=tmp_home)) == ["mine"]
    # With the user's source gone again, the samples come back (they were not removed).
    cfg = config.load_config()
    cfg.remove("mine")
    config.save_config(cfg)
    assert labels(config.collect_sources(cwd=tmp_home)) == ["samples", "sample-server"]


@pytest.fixture
def cli(run_cli: RunCli, tmp_home: Path) -> Callable[..., CompletedProcess[str]]:
    work = tmp_home / "work"
    work.mkdir(exist_ok=True)

    def go(*args: Any) -> CompletedProcess[str]:
        return run_cli(*args, cwd=work)

    return go


def test_sources_cli_lists_adds_switches_and_removes(cli: Any, tmp_home: Path) -> None:
    out = cli("sources", "list")
    assert out.returncode == 0, out.stderr
    assert "samples" in out.stdout and "bundled sample" in out.stdout
    assert "skill-catalog sources remove" in out.stdout
    # The samples are removed for good.
    assert cli("sources", "remove", "samples").returncode == 0
    assert cli("sources", "remove", "sample-server").returncode == 0
    data = json.loads(cli("sources", "list", "--json").stdout)
    assert data["sources"] == []
    assert "No sources" in cli("sources", "list").stdout
    # Added: a folder (by its path), a stdio server (quoted command), an HTTP server.
    folder = a_skill(tmp_home / "team")
    assert cli("sources", "add", str(folder)).returncode == 0
    argv = [sys.executable, "-m", "desktop", "serve", str(folder)]
    added = cli("sources", "add", f"srv={shlex.join(argv)}", "--connect-timeout", "45")
    assert added.returncode == 0, added.stderr
    assert "added srv (stdio server" in added.stdout
    assert cli("sources", "add", "web=https://mcp.example.com/mcp", "--off").returncode == 0
    rows = {r["label"]: r for r in json.loads(cli("sources", "list", "--json").stdout)["sources"]}
    assert rows["team"]["kind"] == "folder" and rows["team"]["origin"] == "saved"
    assert rows["srv"]["connect_timeout"] == 45
    assert rows["web"]["enabled"] is False
    # The catalog uses them: list reads the folder and the server, and not the one off.
    listing = json.loads(cli("list", "--json").stdout)
    assert {s["label"] for s in listing["sources"]} == {"team", "srv"}
    assert cli("sources", "disable", "srv").returncode == 0
    assert cli("sources", "enable", "web").returncode == 0
    rows = {r["label"]: r for r in json.loads(cli("sources", "list", "--json").stdout)["sources"]}
    assert rows["srv"]["enabled"] is False and rows["web"]["enabled"] is True
    assert cli("sources", "remove", "web").returncode == 0
    saved = json.loads(config.config_path().read_text())
    assert [s["label"] for s in saved["sources"]] == ["team", "srv"]


def test_sources_cli_refuses_clearly(cli: Any, tmp_home: Path) -> None:
    a_skill(tmp_home / ".claude" / "skills")
    missing = cli("sources", "remove", "nothing")
    assert missing.returncode == 2 and "no source is labelled 'nothing'" in missing.stderr
    detected = cli("sources", "remove", "claude-user")
    assert detected.returncode == 1
    assert "sources disable claude-user" in detected.stderr
    assert cli("sources", "disable", "claude-user").returncode == 0
    rows = json.loads(cli("sources", "list", "--json").stdout)["sources"]
    assert [(r["label"], r["enabled"], r["origin"]) for r in rows] == [
        ("claude-user", False, "detected")
    ]
    bad = cli("sources", "add", "not-a-folder-nor-a-server")
    assert bad.returncode == 2 and "is not a folder" in bad.stderr
    assert "Traceback" not in bad.stderr + missing.stderr + detected.stderr


def test_list_labels_samples_and_says_where_imported_servers_came_from(
    cli: Any, tmp_home: Path
) -> None:
    out = cli("list")
    assert "a bundled sample, shown while you have no source of your own" in out.stdout
    assert "samples (sample)" in out.stdout
    data = json.loads(cli("list", "--json").stdout)
    assert all(s.get("sample") is True for s in data["sources"])
    served = a_skill(tmp_home / "served")
    claude = tmp_home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    argv = [sys.executable, "-m", "desktop", "serve", str(served)]
    claude.write_text(
        json.dumps({"mcpServers": {"billing": {"command": argv[0], "args": argv[1:]}}})
    )
    out = cli("list")
    assert f"imported from Claude Desktop: {claude}" in out.stdout
    assert "bundled sample" not in out.stdout
    (source,) = json.loads(cli("list", "--json").stdout)["sources"]
    assert source["imported_from"] == {"client": "Claude Desktop", "file": str(claude)}

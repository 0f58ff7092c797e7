"""Plugin marketplaces in a folder: each plugin's skills grouped under it (its name,
description, version and author), the plugins from elsewhere said as not read yet
(a repository: it needs the git kind) or not readable (an npm package), and the
reading itself over any tree of files (Claude Code's, Codex's and Copilot's
marketplaces, Agent Plugins' root ``plugin.json``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.core.provenance import plugin_words, provenance_words
from desktop.sources.marketplace import (
    MAX_MANIFEST_BYTES,
    NEEDS_GIT,
    NPM,
    folder_reader,
    inside,
    read_plugins,
)


def _skill(root: Path, rel: str, name: str) -> None:
    folder = root / rel
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n")


MARKET = {
    "name": "team-market",
    "owner": {"name": "Team"},
    "plugins": [
        {
            "name": "pdf-tools",
            "source": "./plugins/pdf-tools",
            "description": "Work with PDF files.",
            "version": "1.2.0",
            "author": {"name": "Ada"},
        },
        {
            "name": "remote",
            "source": {
                "source": "git-subdir",
                "url": "https://github.com/o/r.git",
                "path": "plugins/remote",
                "sha": "9d2f1ae",
            },
        },
        {"name": "npm-one", "source": {"source": "npm", "package": "@o/plugin"}},
    ],
}


def _market_folder(tmp_path: Path) -> Path:
    root = tmp_path / "market"
    _skill(root, "plugins/pdf-tools/skills/pdf", "pdf")
    _skill(root, "plugins/pdf-tools/skills/forms", "forms")
    _skill(root, "loose", "loose")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps(MARKET))
    own = root / "plugins" / "pdf-tools" / ".claude-plugin"
    own.mkdir()
    (own / "plugin.json").write_text(json.dumps({"name": "pdf-tools", "version": "9.9"}))
    return root


def test_a_folder_marketplace_groups_its_skills_under_their_plugin(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    root = _market_folder(tmp_path)
    listed = run_cli("list", "--json", "--folder", f"m={root}")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    by = {s["name"]: s for s in data["skills"]}
    assert by["pdf"]["provenance"] == {
        "plugin": "pdf-tools",
        "plugin_version": "1.2.0",  # the marketplace's word first
        "plugin_author": "Ada",
        "plugin_description": "Work with PDF files.",
        "marketplace": "team-market",
    }
    assert "provenance" not in by["loose"]
    (source,) = data["sources"]
    plugins = {p["name"]: p for p in source["plugins"]}
    assert plugins["pdf-tools"]["read"] is True
    assert plugins["pdf-tools"]["skills"] == [
        "plugins/pdf-tools/skills/forms/SKILL.md",
        "plugins/pdf-tools/skills/pdf/SKILL.md",
    ]
    assert plugins["remote"]["read"] is False
    assert plugins["remote"]["reason"] == (
        f"from https://github.com/o/r.git (plugins/remote) at 9d2f1ae: {NEEDS_GIT}; "
        "add it as a source: --git https://github.com/o/r.git#9d2f1ae"
    )
    assert (plugins["npm-one"]["read"], plugins["npm-one"]["reason"]) == (False, NPM)
    assert f"plugin remote: {plugins['remote']['reason']}" in source["notes"]

    text = run_cli("list", "--folder", f"m={root}").stdout
    assert "    plugin pdf-tools 1.2.0 by Ada, 2 skills: forms, pdf" in text
    assert "not read yet" in text and "npm package: not readable yet" in text


def _reader(files: dict[str, Any]) -> Callable[[str], bytes | None]:
    def read(rel: str) -> bytes | None:
        value = files.get(rel)
        if value is None:
            return None
        if isinstance(value, OSError):
            raise value
        return value if isinstance(value, bytes) else json.dumps(value).encode()

    return read


def test_codex_copilot_and_root_plugins_are_read_the_same_way() -> None:
    codex = {
        ".agents/plugins/marketplace.json": {
            "name": "codex-market",
            "plugins": [
                {"name": "lint", "source": {"source": "local", "path": "./plugins/lint"}},
                {"name": "gh", "source": {"source": "github", "repo": "o/r", "ref": "v1"}},
                {"name": "odd", "source": {"source": "ftp"}},
            ],
        },
        "plugins/lint/plugin.json": {
            "description": "Lint things.",
            "version": "0.3",
            "author": "Bo",
            "skills": ["./extra", "../../outside"],
        },
    }
    found = read_plugins(_reader(codex))
    lint, gh, odd = found.plugins
    assert (lint.name, lint.description, lint.version, lint.author) == (
        "lint",
        "Lint things.",
        "0.3",
        "Bo",
    )
    assert lint.skill_dirs == ("plugins/lint/skills", "plugins/lint/extra")
    assert lint.holds("plugins/lint/extra/x/SKILL.md")
    assert not lint.holds("plugins/lint/other/SKILL.md")
    assert found.owner("plugins/lint/skills/a/SKILL.md") is lint
    assert not gh.read and gh.reason == (
        f"from o/r at v1: {NEEDS_GIT}; add it as a source: --git https://github.com/o/r#v1"
    )
    assert odd.reason == "its source 'ftp' is not a kind the catalog reads"
    assert "lint: a skills path leaves the plugin's folder; left out" in found.notes
    assert lint.in_words() == "lint 0.3 by Bo"

    copilot = {
        ".github/plugin/marketplace.json": {
            "metadata": {"pluginRoot": "./plugins"},
            "plugins": [
                {"name": "docs", "source": "docs"},
                {"name": "web", "source": "https://example.com/web.git"},
                {"name": "bare"},
                {"name": "up", "source": "../elsewhere"},
                {"name": "docs", "source": "docs"},
                {"source": "x"},
                "not an object",
            ],
        }
    }
    found = read_plugins(_reader(copilot))
    docs, web, bare, up = found.plugins
    assert docs.path == "plugins/docs" and docs.marketplace == ".github/plugin/marketplace.json"
    assert web.reason == (
        f"from https://example.com/web.git: {NEEDS_GIT}; "
        "add it as a source: --git https://example.com/web.git"
    )
    assert bare.reason == "it says no source"
    assert up.reason == "its path leaves the folder" and not up.holds("x")
    assert any("'docs' is listed twice" in n for n in found.notes)
    assert sum("has no name" in n for n in found.notes) == 2

    root = read_plugins(_reader({"plugin.json": {"name": "whole", "version": "2.0"}}))
    (whole,) = root.plugins
    assert (whole.name, whole.path, whole.version) == ("whole", "", "2.0")
    assert whole.holds("skills/a/SKILL.md") and whole.holds("anything/SKILL.md")
    claude = read_plugins(_reader({".claude-plugin/plugin.json": {"author": {"name": "Cy"}}}))
    assert [(p.name, p.author) for p in claude.plugins] == [("plugin", "Cy")]


def test_what_cannot_be_read_is_said_and_nothing_else_breaks() -> None:
    found = read_plugins(
        _reader(
            {
                ".claude-plugin/marketplace.json": b"{not json",
                ".agents/plugins/marketplace.json": b"[1]",
                ".github/plugin/marketplace.json": {"plugins": "nope"},
                "plugin.json": b"x" * (MAX_MANIFEST_BYTES + 1),
                ".claude-plugin/plugin.json": PermissionError("denied"),
            }
        )
    )
    assert found.plugins == []
    said = "\n".join(found.notes)
    assert ".claude-plugin/marketplace.json: not JSON" in said
    assert ".agents/plugins/marketplace.json: not a JSON object" in said
    assert ".github/plugin/marketplace.json: lists no plugins" in said
    assert f"plugin.json: over {MAX_MANIFEST_BYTES:,} bytes; not read" in said
    assert ".claude-plugin/plugin.json: cannot be read: denied" in said


def test_paths_never_leave_the_tree(tmp_path: Path) -> None:
    assert inside("plugins/a", "./skills") == "plugins/a/skills"
    assert inside("", ".") == "" and inside("a", "") == "a"
    for bad in ("/etc", "../x", "a/../../x", "a\\b", "a\0b", "a\nb"):
        assert inside("", bad) is None, bad
    (tmp_path / "in.json").write_text("{}")
    (tmp_path / "link.json").symlink_to("/etc/hostname")
    read = folder_reader(str(tmp_path))
    assert read("in.json") == b"{}"
    assert read("link.json") is None and read("missing.json") is None


def test_a_git_repository_marketplace_groups_its_skills_at_the_pinned_commit(
    tmp_home: Path, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    from helpers.git_repos import commit_all, init_repo

    root = _market_folder(tmp_path)
    init_repo(root)
    commit_all(root, "a marketplace")
    data = json.loads(run_cli("list", "--json", "--git", f"m={root}").stdout)
    by = {s["name"]: s for s in data["skills"]}
    assert by["pdf"]["provenance"]["plugin"] == "pdf-tools"
    assert by["pdf"]["provenance"]["commit"] and by["pdf"]["provenance"]["plugin_author"] == "Ada"
    (source,) = data["sources"]
    assert [(p["name"], p["read"]) for p in source["plugins"]] == [
        ("pdf-tools", True),
        ("remote", False),
        ("npm-one", False),
    ]


def test_a_plugin_in_words() -> None:
    said = {"plugin": "pdf-tools", "plugin_version": "1.2", "plugin_author": "Ada"}
    assert plugin_words(said) == "Part of plugin pdf-tools 1.2 by Ada"
    assert plugin_words({}) == ""
    index = {"index": "https://x.org/i.json", "url": "u", "digest": "sha256:" + "a" * 64}
    assert provenance_words(index) == (
        "Listed by the index https://x.org/i.json; checked against its digest sha256:aaaaaaaaaaaa…"
    )
    assert "vouches for no digest" in provenance_words({**index, "digest": ""})
    git = {"repository": "anthropics/skills", "commit": "9d2f1ae0123", "path": "skills/pdf"}
    assert provenance_words({**git, **said}) == (
        "anthropics/skills at 9d2f1ae, skills/pdf · Part of plugin pdf-tools 1.2 by Ada"
    )
    assert provenance_words({}) == ""


def test_a_folder_status_gives_its_plugins_in_json(tmp_path: Path) -> None:
    from desktop.core.model import SourceSpec
    from desktop.sources.folder import scan_folder, scan_regions

    root = _market_folder(tmp_path)
    spec = SourceSpec("m", "local", "folder", str(root))
    status, skills = scan_folder(spec)
    shown = status.to_json()
    assert [p["name"] for p in shown["plugins"]] == ["pdf-tools", "remote", "npm-one"]
    assert any(n.startswith("plugin npm-one: an npm package") for n in shown["notes"])
    again = scan_regions(spec, ["plugins"])
    assert again is not None
    assert {s.name: s.provenance.get("plugin") for s in again[0]} == {
        "forms": "pdf-tools",
        "pdf": "pdf-tools",
    }
    plain = tmp_path / "plain"
    _skill(plain, "one", "one")
    status, _ = scan_folder(SourceSpec("p", "local", "folder", str(plain)))
    assert "plugins" not in status.to_json()


def test_a_plugin_name_finds_its_skills_in_the_list(tmp_path: Path) -> None:
    from desktop.core.model import SourceSpec
    from desktop.core.query import search_text
    from desktop.sources.folder import scan_folder

    _status, skills = scan_folder(SourceSpec("m", "local", "folder", str(_market_folder(tmp_path))))
    found = sorted(s.name for s in skills if "pdf-tools" in search_text(s))
    assert found == ["forms", "pdf"]

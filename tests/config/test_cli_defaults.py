"""The real ``skill-catalog list`` with no source options, in a temporary home.

Each test runs the program as a subprocess (``python -m desktop``) with HOME, the XDG
folders and APPDATA pointing into a temporary home, so the person's own agent folders
and client configs are never read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(180)

RunCli = Callable[..., subprocess.CompletedProcess[str]]
SECRET = "sk-live-5e4d3c2b1a0f9e8d7c6b5a4f"


def skill(folder: Path, name: str, description: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nSteps.\n",
        encoding="utf-8",
    )


def no_first_run(home: Path) -> None:
    """A saved configuration with no sources: only detected sources are used."""
    path = home / ".config" / "skill-catalog" / "sources.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": 1, "sources": []}', encoding="utf-8")


def claude_desktop_config(home: Path, servers: dict[str, Any]) -> Path:
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def serve_entry(folder: Path, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "desktop", "serve", str(folder)], **extra}


def list_json(run_cli: RunCli, cwd: Path, *args: str) -> tuple[dict[str, Any], str]:
    proc = run_cli("list", "--json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout), proc.stderr


def test_same_skill_in_two_agent_folders_is_one_collision(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    no_first_run(tmp_home)
    skill(tmp_home / ".claude" / "skills", "tidy-desk", "Tidy a desk, Claude's copy.")
    skill(tmp_home / ".agents" / "skills", "tidy-desk", "Tidy a desk, shared copy.")
    skill(tmp_home / ".agents" / "skills", "only-shared", "Only in the shared folder.")
    work = tmp_path / "work"
    work.mkdir()
    data, _ = list_json(run_cli, work)
    sources = {s["label"]: s for s in data["sources"]}
    assert set(sources) == {"agents-user", "claude-user"}
    assert sources["claude-user"]["endpoint"] == str((tmp_home / ".claude/skills").resolve())
    assert sorted(s["id"] for s in data["skills"]) == [
        "agents-user:only-shared/SKILL.md",
        "agents-user:tidy-desk/SKILL.md",
        "claude-user:tidy-desk/SKILL.md",
    ]
    tidy = [c for c in data["collisions"] if c["name"] == "tidy-desk"]
    assert len(tidy) == 1, data["collisions"]
    assert sorted(tidy[0]["ids"]) == [
        "agents-user:tidy-desk/SKILL.md",
        "claude-user:tidy-desk/SKILL.md",
    ]
    views = {v["agent"]: v for v in tidy[0]["agents"]}
    assert views["Claude Code"]["sees"] == "claude-user"  # it does not read ~/.agents
    assert sources["claude-user"]["agents"].startswith("Claude Code")  # who reads each folder
    assert "Codex" in sources["agents-user"]["agents"]
    assert views["Codex"]["sees"] == "agents-user"  # it does not read ~/.claude
    assert views["Cursor"]["hidden"] in (["claude-user"], ["agents-user"])


def test_names_equal_only_after_case_folding_claim_no_precedence(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """`Refunds` and `refunds` are two names to an agent, which loads both: the
    collision is flagged (I4), but no copy is said to hide the other."""
    no_first_run(tmp_home)
    skill(tmp_home / ".claude" / "skills", "refunds", "User copy.")
    skill(tmp_home / ".agents" / "skills", "Refunds", "Shared copy.")
    work = tmp_path / "work"
    work.mkdir()
    data, _ = list_json(run_cli, work)
    (case,) = [c for c in data["collisions"] if c["kind"] == "case"]
    assert "agents" not in case
    human = run_cli("list", cwd=work).stdout
    assert "names equal after case folding" in human and " uses " not in human


def test_project_and_user_folders_from_a_repository(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    no_first_run(tmp_home)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill(repo / ".claude" / "skills", "deploy", "Deploy this project.")
    skill(repo / ".github" / "skills", "review", "Review a pull request.")
    skill(tmp_home / ".claude" / "skills", "deploy", "Deploy anything.")
    (repo / "src" / "pkg").mkdir(parents=True)
    data, _ = list_json(run_cli, repo / "src" / "pkg")
    assert {s["label"] for s in data["sources"]} == {
        "claude-project",
        "github-project",
        "claude-user",
    }
    deploy = next(c for c in data["collisions"] if c["name"] == "deploy")
    views = {v["agent"]: v for v in deploy["agents"]}
    assert views["Claude Code"]["sees"] == "claude-user"
    assert views["Claude Code"]["hidden"] == ["claude-project"]


@pytest.mark.slow
def test_done_when_claude_desktop_server_and_claude_skills_folder(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """Issue 6's done-when, CLI half: a first run (nothing saved) with a Claude Desktop
    config whose server is ``skill-catalog serve FOLDER`` and a ``~/.claude/skills``
    folder lists the skills of both, and no samples."""
    served = tmp_path / "served"
    skill(served, "refund-policy", "How refunds are decided.")
    claude_desktop_config(tmp_home, {"billing": serve_entry(served)})
    skill(tmp_home / ".claude" / "skills", "write-notes", "Write meeting notes.")
    work = tmp_path / "work"
    work.mkdir()
    data, _ = list_json(run_cli, work)
    sources = {s["label"]: s for s in data["sources"]}
    assert sources["billing"]["status"] == "ok", sources["billing"]
    assert sources["billing"]["kind"] == "mcp" and sources["billing"]["transport"] == "stdio"
    assert sources["claude-user"]["status"] == "ok"
    ids = {s["id"] for s in data["skills"]}
    assert "claude-user:write-notes/SKILL.md" in ids
    assert any(i.startswith("billing:") and i.endswith("refund-policy/SKILL.md") for i in ids), ids
    # The user's own are found: the bundled samples stay out of their catalog.
    assert "samples" not in sources and "sample-server" not in sources


@pytest.mark.slow
def test_config_option_reads_one_file_and_reports_bad_entries(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    served = tmp_path / "served"
    skill(served, "alpha", "Alpha skill.")
    vscode = tmp_path / "proj" / ".vscode" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text(
        "// comments are allowed\n"
        + json.dumps(
            {
                "servers": {
                    "alpha": {"type": "stdio", **serve_entry(served)},
                    "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                }
            }
        ),
        encoding="utf-8",
    )
    # Detected sources are not used when a source option is given.
    skill(tmp_home / ".claude" / "skills", "not-listed", "Must not appear.")
    data, stderr = list_json(run_cli, tmp_path, "--config", str(vscode))
    assert [s["label"] for s in data["sources"]] == ["alpha"]
    assert [s["id"].split(":")[0] for s in data["skills"]] == ["alpha"]
    assert str(vscode) in stderr and "'old'" in stderr and "SSE" in stderr


@pytest.mark.slow
def test_secrets_and_missing_variables(tmp_home: Path, tmp_path: Path, run_cli: RunCli) -> None:
    no_first_run(tmp_home)
    served = tmp_path / "served"
    skill(served, "beta", "Beta skill.")
    claude_desktop_config(
        tmp_home,
        {
            "with-secret": serve_entry(served, env={"API_KEY": SECRET}),
            "needs-var": serve_entry(served, env={"TOKEN": "${env:SKILL_CATALOG_TEST_UNSET_VAR}"}),
        },
    )
    os.environ.pop("SKILL_CATALOG_TEST_UNSET_VAR", None)
    proc = run_cli("list", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    sources = {s["label"]: s for s in json.loads(proc.stdout)["sources"]}
    assert sources["with-secret"]["status"] == "ok"
    assert sources["needs-var"]["status"] == "error"
    assert "SKILL_CATALOG_TEST_UNSET_VAR" in sources["needs-var"]["message"]
    # Nothing was written: reading configs is read-only.
    assert (
        not (tmp_home / ".config" / "skill-catalog" / "sources.json")
        .read_text()
        .count("with-secret")
    )


def test_broken_detected_config_is_reported_and_the_rest_listed(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    broken = tmp_home / ".cursor" / "mcp.json"
    stderr = _list_beside_configs(tmp_home, tmp_path, run_cli, {broken: '{"mcpServers": {"x": '})
    assert f"{broken}: not valid JSON" in stderr


def _list_beside_configs(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli, files: dict[Path, str]
) -> str:
    """`list --json` with these config files written beside a kept local skill, which
    must still be listed; returns what was said on stderr."""
    no_first_run(tmp_home)
    skill(tmp_home / ".claude" / "skills", "kept", "Still listed.")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    data, stderr = list_json(run_cli, tmp_path)
    assert [s["id"] for s in data["skills"]] == ["claude-user:kept/SKILL.md"]
    assert "Traceback" not in stderr
    return stderr


def test_configs_nested_too_deeply_are_reported_and_the_rest_listed(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """A cloned project's config nested 100,000 deep must not stop every command."""
    deep_json = tmp_home / ".cursor" / "mcp.json"
    deep_toml = tmp_home / ".codex" / "config.toml"
    saved = tmp_home / ".config" / "skill-catalog" / "sources.json"
    deep = {
        deep_json: '{"mcpServers": ' + "[" * 100_000,
        deep_toml: "a = " + "[" * 100_000,
        saved: '{"sources": ' + "[" * 100_000,
    }
    stderr = _list_beside_configs(tmp_home, tmp_path, run_cli, deep)
    assert f"{deep_json}: nested too deeply to read" in stderr
    assert f"{deep_toml}: nested too deeply to read" in stderr
    assert "nested too deeply" in stderr.split(str(saved), 1)[1]
    assert stderr.count(str(saved)) == 1  # the file is named once, not twice


def test_two_config_files_with_the_same_server_name(tmp_path: Path, run_cli: RunCli) -> None:
    one = tmp_path / "a" / "claude_desktop_config.json"
    two = tmp_path / "b" / ".mcp.json"
    for path in (one, two):
        path.parent.mkdir(parents=True)
        path.write_text(
            json.dumps({"mcpServers": {"docs": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}})
        )
    proc = run_cli("list", "--json", "--config", one, "--config", two, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # neither server answers
    # One server configured in two files is one source, as auto-detection lists it.
    sources = json.loads(proc.stdout)["sources"]
    assert [s["label"] for s in sources] == ["docs"]
    assert sources[0]["imported_from"] == {"client": "Claude Desktop", "file": str(one)}
    assert f"{two}: server 'docs' is 'docs' already" in proc.stderr


@pytest.mark.slow
def test_secrets_in_a_url_and_in_arguments_are_masked_in_list(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """Masked wherever shown: in the human listing, in --json's endpoint, and in a
    server's stderr that repeats the argument it was given."""
    no_first_run(tmp_home)
    config_file = tmp_path / "servers.json"
    argv = [sys.executable, "-m", "desktop", "serve", str(tmp_path), "--api-key", SECRET]
    config_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "tok": {"url": "http://user:pa55word@127.0.0.1:1/mcp?token=" + SECRET},
                    "arg": {"command": argv[0], "args": argv[1:]},
                }
            }
        )
    )
    for extra in ((), ("--json",)):
        proc = run_cli("list", "--config", str(config_file), *extra, cwd=tmp_path)
        out = proc.stdout + proc.stderr
        assert "tok" in out and "arg" in out
        assert SECRET not in out and "pa55word" not in out, out
        assert "--api-key ****" in out  # the argument is still there, masked
    assert "unrecognized arguments: --api-key ****" in out  # the server's own words


@pytest.mark.slow
def test_a_secret_passed_through_a_placeholder_is_masked_whatever_its_name(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """`${env:NAME}` is how the README says to pass a secret: what it stands for is
    masked when a server repeats it, even under a name that says nothing (DD_APP)."""
    no_first_run(tmp_home)
    echo = tmp_path / "echo_env.py"
    echo.write_text(
        "import os, sys\n"
        "sys.stderr.write('starting with %s and %s\\n'"
        " % (os.environ['DD_APP'], os.environ['STRIPE_KEY']))\n"
        "sys.exit(4)\n"
    )
    config_file = tmp_path / "servers.json"
    config_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "echo": {
                        "command": sys.executable,
                        "args": [str(echo)],
                        "env": {"DD_APP": "${env:MY_DD}", "STRIPE_KEY": "sk_live_51HxYzAB"},
                    },
                    "user": {"url": "http://ghp_TOKENINUSERNAME1234567890abcd@127.0.0.1:1/mcp"},
                }
            }
        )
    )
    os.environ["MY_DD"] = "ddsecretvalue777"
    try:
        proc = run_cli("list", "--config", str(config_file), cwd=tmp_path)
    finally:
        del os.environ["MY_DD"]
    out = proc.stdout + proc.stderr
    assert "starting with ****" in out, out
    for secret in ("ddsecretvalue777", "sk_live_51HxYzAB", "ghp_TOKENINUSERNAME"):
        assert secret not in out


def test_a_detected_server_given_another_label_is_reported(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """Labels are part of a server's identity: one found under a name another file
    already took is labelled otherwise, and the command says so, as --config does."""
    no_first_run(tmp_home)
    entry = {"mcpServers": {"docs": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}
    first = tmp_home / ".cursor" / "mcp.json"
    first.parent.mkdir(parents=True)
    first.write_text(json.dumps(entry))
    other = {"mcpServers": {"docs": {"type": "http", "url": "http://127.0.0.1:8/mcp"}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(other))
    (tmp_path / ".git").mkdir()
    data, stderr = list_json(run_cli, tmp_path)
    labels = sorted(s["label"] for s in data["sources"] if s["kind"] == "mcp")
    assert labels[0] == "docs" and labels[1].startswith("docs-"), labels
    assert f"server 'docs' is labelled {labels[1]!r}" in stderr

"""The official MCP TypeScript SDK client (``@modelcontextprotocol/client`` 2.4.0, its
``SkillsClient``) reads ``skill-catalog serve DIR`` over stdio. It refuses a whole
``skills/list`` result when one entry breaks an Agent Skills rule, so ``serve`` leaves
such an entry out (with a warning naming it and the rule) and every other skill
arrives; with ``--publish-nonconforming`` the client refuses the listing, as ``serve``
warned. The bundled samples and sample server arrive whole, and the catalog still reads
their loading strategy and triggers from what the server publishes.

Needs node and npm and the npm registry: installed once per run under the test
scratch folder; skipped with the reason when any of them is missing."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import serve_argv, write_skill

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

PACKAGE = "@modelcontextprotocol/client@2.4.0"
SCRIPT = Path(__file__).with_name("ts_client") / "list_skills.mjs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ts_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the client installed and the listing script beside it (node finds
    packages from the script's own folder)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to run the official TypeScript client")
    scratch = os.environ.get("SKILL_CATALOG_TEST_SCRATCH")
    base = Path(scratch) if scratch else tmp_path_factory.getbasetemp()
    folder = base / "npm" / "modelcontextprotocol-client-2.4.0"
    installed = folder / "node_modules" / "@modelcontextprotocol" / "client" / "package.json"
    if not installed.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "ts-client-check", "private": true}\n')
        try:
            proc = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--no-save", PACKAGE],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=240,
            )
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm could not install {PACKAGE} within 240 s")
        if proc.returncode != 0 or not installed.is_file():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            pytest.skip(f"npm could not install {PACKAGE} (registry unavailable?): {tail}")
    shutil.copy2(SCRIPT, folder / SCRIPT.name)
    return folder


def read_with_ts_client(ts_client: Path, folder: Path, *options: str) -> dict[str, Any]:
    proc = subprocess.run(
        ["node", str(ts_client / SCRIPT.name), json.dumps(serve_argv(folder, *options))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def mixed_folder(root: Path) -> Path:
    write_skill(root, "good-one", extra_frontmatter="metadata:\n  owner: docs-team\n")
    write_skill(root, "good-two", extra_frontmatter='compatibility: "Needs git."\n')
    write_skill(root, "wordy", description="x" * 1025)
    write_skill(root, "typed-metadata", extra_frontmatter="metadata:\n  retries: 3\n")
    write_skill(root, "demanding", extra_frontmatter=f"compatibility: {'y' * 501}\n")
    return root


def test_a_bad_entry_is_left_out_and_the_rest_arrive(ts_client: Path, tmp_path: Path) -> None:
    root = mixed_folder(tmp_path / "skills")
    got = read_with_ts_client(ts_client, root)
    assert "error" not in got, got
    assert got["supported"] is True
    assert [s["uri"] for s in got["skills"]] == [
        "skill://good-one/SKILL.md",
        "skill://good-two/SKILL.md",
    ]
    assert all(s["verified"] for s in got["skills"])
    warned = [line for line in got["stderr"].splitlines() if line.startswith("warning:")]
    assert len(warned) == 3, got["stderr"]
    by_skill = {
        name: next(line for line in warned if f"skill://{name}/SKILL.md" in line)
        for name in ("wordy", "typed-metadata", "demanding")
    }
    assert "description is 1,025 characters, over 1,024" in by_skill["wordy"]
    assert "retries is a number" in by_skill["typed-metadata"]
    assert "fastmcp 4.1.3" in by_skill["typed-metadata"]
    assert "compatibility is 501 characters, over 500" in by_skill["demanding"]
    for line in warned:
        assert line.startswith("warning: left out skill://")
        assert "TypeScript SDK client refuses" in line and "--publish-nonconforming" in line
    assert "serving 2 skills" in got["stderr"] and "; 3 left out (see above)" in got["stderr"]


def test_publishing_nonconforming_skills_is_refused_whole_as_warned(
    ts_client: Path, tmp_path: Path
) -> None:
    root = mixed_folder(tmp_path / "skills")
    got = read_with_ts_client(ts_client, root, "--publish-nonconforming")
    assert "skills/list returned invalid entries" in got.get("error", ""), got
    assert "serving 5 skills" in got["stderr"]
    warned = [line for line in got["stderr"].splitlines() if "will refuse the whole" in line]
    assert len(warned) == 3, got["stderr"]


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        (
            "skills",
            {
                "git-commit-style",
                "incident-triage",
                "pdf-forms",
                "release-notes",
                "changelog-format",
            },
        ),
        ("sample-server", {"refunds", "incident-triage", "weekly-report"}),
    ],
)
def test_the_bundled_samples_arrive_whole(ts_client: Path, folder: str, expected: set[str]) -> None:
    got = read_with_ts_client(ts_client, REPO / "resources" / folder)
    assert "error" not in got, got
    assert {s["frontmatter"]["name"] for s in got["skills"]} == expected
    assert all(s["verified"] for s in got["skills"])
    for skill in got["skills"]:
        metadata = skill["frontmatter"].get("metadata", {})
        assert all(isinstance(v, str) for v in metadata.values()), skill


def test_the_sample_server_still_declares_loading_and_triggers(
    run_cli: Any, tmp_home: Path
) -> None:
    """What the TypeScript client accepts, the catalog reads with its loading values."""
    argv = serve_argv(REPO / "resources" / "sample-server")
    command = shlex.join(argv)
    proc = run_cli("list", "--json", "--server", f"samples={command}")
    assert proc.returncode == 0, proc.stderr
    loading = {
        s["name"].rpartition(":")[2]: s["loading"] for s in json.loads(proc.stdout)["skills"]
    }
    assert loading["incident-triage"]["strategy"] == "always"
    assert loading["incident-triage"]["strategy_declared"] is True
    assert loading["incident-triage"]["priority"] == 1
    assert loading["refunds"]["triggers"] == ["refund", "money back"]
    assert loading["refunds"]["tool_affinity"] == [
        "samples__lookup_order",
        "samples__issue_refund",
    ]
    assert loading["weekly-report"]["triggers"] == ["weekly report"]

"""What `lint` and `verify --all` print: the problems (the manifest only when asked), a
summary line, a path to a SKILL.md taken for its skill, the rules strict clients refuse
a listing for named with those clients, and an exit code that says whether errors were
found even when the reader stops reading early."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.serve import write_skill

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


def folder(root: Path) -> Path:
    write_skill(root, "fine", files={"notes.md": b"notes\n"})
    write_skill(root, "wordy", description="w" * 1030)
    write_skill(root, "typed", extra_frontmatter="metadata:\n  retries: 3\n")
    return root


def test_lint_prints_problems_and_a_summary_not_the_manifest(tmp_path: Path) -> None:
    root = folder(tmp_path / "skills")
    proc = cli("lint", root)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[-1] == "3 skills checked: 1 with errors, 1 with warnings; errors in: wordy"
    assert "sha256:" not in proc.stdout and "manifest" not in proc.stdout
    assert not any(line.startswith("fine ") for line in lines)  # nothing to say of it
    assert "[error] description-too-long" in proc.stdout
    strict = [line for line in lines if "strict-clients-refuse" in line]
    assert len(strict) == 2
    assert all("official MCP TypeScript SDK client refuses" in line for line in strict)
    (typed,) = [line for line in strict if "retries is a number" in line]
    assert "fastmcp 4.1.3's client likewise" in typed
    verbose = cli("lint", "--verbose", root)
    assert verbose.returncode == 1
    assert "manifest (2 files" in verbose.stdout and "sha256:" in verbose.stdout
    assert "fine  (" in verbose.stdout


def test_lint_json_has_the_manifest_and_the_summary(tmp_path: Path) -> None:
    proc = cli("lint", "--json", folder(tmp_path / "skills"))
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["summary"] == {"skills": 3, "with_errors": 1, "with_warnings": 1}
    fine = next(s for s in data["skills"] if s["name"] == "fine")
    assert {r["uri"] for r in fine["resources"]} == {"SKILL.md", "notes.md"}


def test_lint_takes_a_skill_md_for_its_skill(tmp_path: Path) -> None:
    root = folder(tmp_path / "skills")
    proc = cli("lint", root / "fine" / "SKILL.md")
    assert (proc.returncode, proc.stdout) == (0, "1 skill checked: no errors or warnings\n")
    assert cli("lint", root / "wordy" / "SKILL.md").returncode == 1
    (root / "fine" / "other.txt").write_text("x")
    refused = cli("lint", root / "fine" / "other.txt")
    assert refused.returncode == 2 and "neither a folder nor a SKILL.md" in refused.stderr


def test_lint_fails_when_its_reader_stops_early(tmp_path: Path) -> None:
    """A reader that closes the pipe (`| head -1`) made the run exit 0 with errors found:
    the broken pipe was taken for success."""
    root = tmp_path / "many"
    for i in range(400):
        write_skill(root, f"skill-{i:03d}", description="w" * 1100)  # each an error
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "lint", "--verbose", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()  # one line, then the reader goes away
    proc.stdout.close()
    errors = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert b"Traceback" not in errors and b"BrokenPipe" not in errors


def test_verify_all_ends_with_a_summary(tmp_path: Path, tmp_home: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "one")
    write_skill(root, "two")
    proc = cli("verify", "--all", "--folder", root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 skills checked: 2 verified"


RULE_TAG = re.compile(r"\((?:[DILVAPF]\d+)(?:[,/ ]+[DILVAPF]\d+)*\)")


def test_no_rule_tags_in_what_commands_print(tmp_path: Path, tmp_home: Path) -> None:
    root = folder(tmp_path / "skills")
    runs = [
        cli("lint", root),
        cli("lint", "--verbose", root),
        cli("verify", "--all", "--folder", root),
        cli("list", "--folder", root),
    ]
    runs += [cli(name, "--help") for name in ("lint", "verify", "serve", "dir", "get", "list")]
    for proc in runs:
        assert not RULE_TAG.search(proc.stdout + proc.stderr), proc.args


def test_lint_names_a_yaml_error_on_the_file_line_in_a_plain_sentence(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "broken"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: broken\ndescription: Broken one\ntags: [a, b\n---\nbody\n", encoding="utf-8"
    )
    proc = cli("lint", skill.parent)
    assert proc.returncode == 1
    assert "[invalid] frontmatter-yaml: Line 4: a `[` is never closed" in proc.stdout
    assert "<unicode string>" not in proc.stdout

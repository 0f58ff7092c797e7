"""A publisher that reads frontmatter as YAML 1.2 (a real server over stdio and HTTP, its
entries built with ruamel.yaml): its skills verify and show, with notes on the fields the
two YAML versions read differently; a command given an id reads one skill only."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from conftest import HttpServer, free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

PUBLISHER = Path(__file__).resolve().parent / "servers" / "yaml12_publisher.py"
PDF_MD = (
    b"---\nname: pdf\ndescription: Fill PDF forms\nbuild: 017\nenabled: yes\nratio: 1:30\n"
    b"version: 1.0e3\nmetadata:\n  build: 017\n  owner: me\n---\n\n# pdf\n\nFill the form.\n"
)
PLAIN_MD = b"---\nname: plain\ndescription: Nothing to disagree on\n---\n\nPlain.\n"


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "published"
    (root / "pdf").mkdir(parents=True)
    (root / "pdf" / "SKILL.md").write_bytes(PDF_MD)
    (root / "plain").mkdir()
    (root / "plain" / "SKILL.md").write_bytes(PLAIN_MD)
    return root


def server_option(root: Path, record: Path, label: str = "pub") -> str:
    argv = [sys.executable, str(PUBLISHER), str(root), "--record", str(record)]
    return f"{label}={shlex.join(argv)}"


@pytest.fixture
def cli(run_cli, tmp_home: Path):
    return run_cli


def test_the_listing_carries_the_yaml_12_values(cli, tmp_path: Path) -> None:
    root = folder(tmp_path)
    proc = cli("list", "--json", "--server", server_option(root, tmp_path / "log"))
    assert proc.returncode == 0, proc.stderr
    skills = {s["name"]: s for s in json.loads(proc.stdout)["skills"]}
    fm = skills["pdf"]["frontmatter"]
    assert (fm["build"], fm["enabled"], fm["ratio"], fm["version"]) == (17, "yes", "1:30", 1e3)


def test_verify_accepts_the_yaml_12_reading_and_notes_each_field(cli, tmp_path: Path) -> None:
    root = folder(tmp_path)
    option = server_option(root, tmp_path / "log")
    proc = cli(
        "verify",
        "--json",
        "pub:skill://pdf/SKILL.md",
        "pub:skill://plain/SKILL.md",
        "--server",
        option,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pdf, plain = json.loads(proc.stdout)["results"]
    assert pdf["state"] == plain["state"] == "verified"
    notes = " | ".join(pdf["notes"])
    for shown in (
        "'build'",
        "17 (YAML 1.1 reads 15)",
        "'enabled'",
        "'ratio'",
        "'version'",
        "'metadata.build'",
    ):
        assert shown in notes
    assert "notes" not in plain
    human = cli("verify", "pub:skill://pdf/SKILL.md", "--server", option)
    assert human.returncode == 0, human.stdout + human.stderr
    assert "note: field 'build' agrees with the entry as YAML 1.2 reads it" in human.stdout


def test_show_prints_the_verified_bytes_and_the_notes(cli, tmp_path: Path) -> None:
    root = folder(tmp_path)
    proc = cli(
        "show", "pub:skill://pdf/SKILL.md", "--server", server_option(root, tmp_path / "log")
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.encode() == PDF_MD
    assert "note: field 'ratio'" in proc.stderr


def test_over_http_too(cli, tmp_path: Path) -> None:
    root = folder(tmp_path)
    port = free_port()
    argv = [sys.executable, str(PUBLISHER), str(root), "--http", str(port)]
    with HttpServer(argv, port) as server:
        proc = cli("verify", "pub:skill://pdf/SKILL.md", "--server", f"pub={server.url}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified" in proc.stdout


def test_a_command_given_an_id_asks_skills_get_and_reads_nothing_else(cli, tmp_path: Path) -> None:
    """`show`, `verify` of an id: one skills/get and the file reads; no listing, no tools
    (a publisher re-reading its folder per request made one `show` cost a full `list`)."""
    root = folder(tmp_path)
    for command in ("show", "verify"):
        record = tmp_path / f"{command}.log"
        proc = cli(command, "pub:skill://pdf/SKILL.md", "--server", server_option(root, record))
        assert proc.returncode == 0, proc.stderr
        methods = record.read_text().split()
        assert methods.count("skills/get") == 1, methods
        assert "resources/read" in methods, methods
        assert "skills/list" not in methods and "tools/list" not in methods, methods
    # A name needs the listing: it is walked then, and the pick is said.
    record = tmp_path / "name.log"
    proc = cli("show", "pdf", "--server", server_option(root, record))
    assert proc.returncode == 0, proc.stderr
    assert "skills/list" in record.read_text().split()
    assert "pdf is pub:skill://pdf/SKILL.md from pub" in proc.stderr


def test_a_server_without_skills_get_is_asked_for_its_listing_instead(cli, tmp_path: Path) -> None:
    """A server that lists skills but answers -32601 (method not found) to skills/get:
    a command given an id walks the listing and reads the skill as for a name."""
    raw = Path(__file__).resolve().parent / "servers" / "raw_mcp.py"
    record = tmp_path / "raw.log"
    argv = [sys.executable, str(raw), "ok", "--record", str(record)]
    proc = cli("show", "r:skill://demo/SKILL.md", "--server", "r=" + shlex.join(argv))
    assert proc.returncode == 0, proc.stderr
    assert "# Demo" in proc.stdout and "Traceback" not in proc.stderr
    methods = record.read_text().split()
    assert methods.index("skills/get") < methods.index("skills/list"), methods
    assert "resources/read" in methods, methods


def test_every_form_of_naming_a_skill_and_an_ambiguous_name(cli, tmp_path: Path) -> None:
    root = folder(tmp_path)
    local = tmp_path / "mine"
    (local / "pdf").mkdir(parents=True)
    mine_md = PLAIN_MD.replace(b"plain", b"pdf")
    (local / "pdf" / "SKILL.md").write_bytes(mine_md)
    options = ["--server", server_option(root, tmp_path / "log"), "--folder", f"mine={local}"]
    forms = {
        "pdf": "mine:pdf/SKILL.md",  # the name list shows for the local skill
        "pub:pdf": "pub:skill://pdf/SKILL.md",
        "pub:skill://pdf/SKILL.md": "pub:skill://pdf/SKILL.md",
        "mine:pdf/SKILL.md": "mine:pdf/SKILL.md",
        "pub:plain": "pub:skill://plain/SKILL.md",
        "plain": "pub:skill://plain/SKILL.md",  # a bare name of a server skill
        "nothing-here": "nothing-here",
    }
    checked = cli("verify", "--json", *forms, *options)
    results = json.loads(checked.stdout)["results"]
    assert [r["id"] for r in results] == list(forms.values()), checked.stderr
    assert [r["state"] for r in results] == ["verified"] * 6 + ["read-error"]
    assert "no skill 'nothing-here'" in results[-1]["message"]
    assert "pub:plain is pub:skill://plain/SKILL.md from pub" in checked.stderr
    shown = cli("show", str(local / "pdf"), *options)  # a folder
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.encode() == mine_md
    two = [*options, "--server", server_option(root, tmp_path / "log2", "two")]
    both = cli("show", "plain", *two)
    assert both.returncode == 1 and both.stdout == ""
    assert (
        "'plain' names 2 skills; give one id: pub:skill://plain/SKILL.md, "
        "two:skill://plain/SKILL.md" in both.stderr
    )
    assert "  two:plain  (id two:skill://plain/SKILL.md, from two (stdio" in both.stderr

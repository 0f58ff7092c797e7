"""Servers in the catalog (identity, collisions, concurrency) and the CLI commands."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, hostile_argv, hostile_spec, run, server_option

from desktop.core.model import SourceSpec
from desktop.sources.gather import discover
from desktop.sources.kinds import open_source

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def local_demo(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    (folder / "demo" / "references").mkdir(parents=True)
    (folder / "demo" / "SKILL.md").write_bytes(
        b"---\nname: demo\ndescription: The local demo\n---\n\nLocal body\n"
    )
    (folder / "demo" / "references" / "notes.md").write_bytes(b"notes\r\n")
    return folder


def test_two_servers_with_the_same_uri_and_name_stay_apart() -> None:
    catalog = run(
        discover([hostile_spec("ok", "one"), hostile_spec("ok", "two")], budgets=TEST_BUDGETS)
    )
    ids = sorted(s.id for s in catalog.skills)
    assert ids == ["one:skill://demo/SKILL.md", "two:skill://demo/SKILL.md"]
    assert sorted(s.qualified_name for s in catalog.skills) == ["one:demo", "two:demo"]
    collision = next(c for c in catalog.collisions if set(c.ids) == set(ids))
    assert collision.kind == "same-name"


def test_a_server_skill_named_like_a_local_one_never_shadows_it(tmp_path: Path) -> None:
    folder = local_demo(tmp_path)
    local = SourceSpec("mine", "local", "folder", str(folder))
    catalog = run(discover([local, hostile_spec("ok", "srv")], budgets=TEST_BUDGETS))
    names = {s.id: s.qualified_name for s in catalog.skills}
    assert names["mine:demo/SKILL.md"] == "demo"
    assert names["srv:skill://demo/SKILL.md"] == "srv:demo"
    assert any(
        {"mine:demo/SKILL.md", "srv:skill://demo/SKILL.md"} <= set(c.ids)
        for c in catalog.collisions
    )


def test_local_skills_go_through_the_same_verified_read(tmp_path: Path) -> None:
    folder = local_demo(tmp_path)
    local = SourceSpec("mine", "local", "folder", str(folder))

    async def go():
        catalog = await discover([local])
        (skill,) = catalog.skills
        source = open_source(local)  # read by its kind, as a server's skill is by its own
        before = await source.verify(skill)
        preview = await source.read(skill, "SKILL.md")
        (folder / "demo" / "references" / "notes.md").write_bytes(b"changed after the scan\n")
        after = await source.verify(skill)
        unlisted = await source.read(skill, "references/other.md")
        await source.close()
        return before, preview, after, unlisted

    before, preview, after, unlisted = run(go())
    assert before.state == "verified"
    assert preview.verified and preview.data is not None and b"Local body" in preview.data
    assert after.state == "size-mismatch"
    assert unlisted.state == "unlisted-file"


def test_many_servers_at_once_a_silent_one_does_not_hold_the_others() -> None:
    from desktop.sources.budgets import Budgets

    budgets = Budgets(connect_timeout=15, request_timeout=5, server_timeout=30)
    specs = [hostile_spec("ok", "a"), hostile_spec("silent", "quiet"), hostile_spec("ok", "b")]
    catalog = run(discover(specs, budgets=budgets))
    statuses = {s.origin.label: s for s in catalog.sources}
    assert statuses["a"].status == "ok" and statuses["b"].status == "ok"
    assert statuses["quiet"].status == "error"
    assert "could not connect" in statuses["quiet"].message
    assert len(catalog.skills) == 2


# -- the command line ------------------------------------------------------------------------


@pytest.fixture
def cli(run_cli, tmp_home: Path):
    return run_cli


def test_cli_list_json_shows_server_fields(cli) -> None:
    proc = cli("list", "--json", "--server", server_option("ok", "docs"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (source,) = data["sources"]
    for key in (
        "label",
        "transport",
        "endpoint",
        "protocol_version",
        "declares_extension",
        "status",
        "message",
    ):
        assert key in source
    assert source["status"] == "ok" and source["transport"] == "stdio"
    (skill,) = data["skills"]
    assert skill["uri"] == "skill://demo/SKILL.md"


def test_cli_get_confirms_a_uri(cli) -> None:
    proc = cli("get", "h", "skill://hidden/SKILL.md", "--json", "--server", server_option("ok"))
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)
    assert entry["uri"] == "skill://hidden/SKILL.md"
    missing = cli("get", "h", "skill://nope/SKILL.md", "--server", server_option("ok"))
    assert missing.returncode == 1
    assert "serves no skill at skill://nope/SKILL.md" in missing.stderr
    assert "Traceback" not in missing.stderr
    usage = cli("get", "x", "skill://a/SKILL.md", "--server", server_option("ok"))
    assert usage.returncode == 2


def test_cli_show_and_verify_take_an_id_that_only_get_confirms(cli) -> None:
    """The id `get` prints is accepted back although no listing carries it (D7)."""
    hidden = "h:skill://hidden/SKILL.md"
    shown = cli("show", hidden, "--server", server_option("ok"))
    assert shown.returncode == 0, shown.stderr
    assert "name: hidden" in shown.stdout
    checked = cli("verify", hidden, "h:skill://nope/SKILL.md", "--server", server_option("ok"))
    assert checked.returncode == 1
    assert f"{hidden}: verified:" in checked.stdout
    assert "the server serves no skill at skill://nope" in checked.stdout
    by_name = cli("show", "h:demo", "--server", server_option("ok"))  # the name list prints
    assert by_name.returncode == 0 and "name: demo" in by_name.stdout


def test_cli_show_prints_only_verified_bytes(cli) -> None:
    good = cli("show", "h:skill://demo/SKILL.md", "--server", server_option("ok"))
    assert good.returncode == 0, good.stderr
    assert "name: demo" in good.stdout and "A CRLF line" in good.stdout
    bad = cli("show", "h:skill://demo/SKILL.md", "--server", server_option("fm-differs"))
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert "frontmatter-mismatch" in bad.stderr and "'description'" in bad.stderr
    dyn = cli("show", "h:skill://demo/SKILL.md", "--server", server_option("dynamic"))
    assert dyn.returncode == 1 and dyn.stdout == "" and "dynamic" in dyn.stderr
    nope = cli("show", "h:skill://nope/SKILL.md", "--server", server_option("ok"))
    assert nope.returncode == 1 and "no skill" in nope.stderr


def test_cli_verify_json_shape_and_exit_codes(cli) -> None:
    ok = cli("verify", "--all", "--json", "--server", server_option("ok"))
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    (result,) = data["results"]
    assert set(result) == {"id", "state", "message", "files"}
    assert result["state"] == "verified"
    for f in result["files"]:
        assert set(f) == {"uri", "state", "expected", "actual"}
        assert set(f["expected"]) == {"digest", "size"} and f["expected"] == f["actual"]
    bad = cli(
        "verify",
        "h:skill://demo/SKILL.md",
        "g:skill://demo/SKILL.md",
        "--json",
        "--server",
        server_option("wrong-size"),
        "--server",
        server_option("ok", "g"),
    )
    assert bad.returncode == 1
    states = {r["id"]: r["state"] for r in json.loads(bad.stdout)["results"]}
    assert states == {
        "h:skill://demo/SKILL.md": "size-mismatch",
        "g:skill://demo/SKILL.md": "verified",
    }
    invalid = cli("verify", "--all", "--json", "--server", server_option("outside"))
    assert invalid.returncode == 1
    assert json.loads(invalid.stdout)["results"][0]["state"] == "invalid"
    limit = cli("verify", "--all", "--json", "--server", server_option("files-513"))
    assert json.loads(limit.stdout)["results"][0]["state"] == "over-limit"


def test_cli_instructions_marks_the_2048_point(cli) -> None:
    proc = cli("instructions", "h", "--server", server_option("ok"))
    assert proc.returncode == 0, proc.stderr
    _before, marker, after = proc.stdout.partition(
        "2048 characters: clients that keep only this much"
    )
    assert marker
    assert "skill://hidden/SKILL.md  (after the 2048-character point)" in after
    data = json.loads(cli("instructions", "h", "--json", "--server", server_option("ok")).stdout)
    assert data["length"] > 2048
    assert {u["uri"]: u["after_cut"] for u in data["skill_uris"]} == {
        "skill://demo/SKILL.md": False,
        "skill://hidden/SKILL.md": True,
    }


def test_cli_server_that_fails_gives_a_message_not_a_traceback(cli) -> None:
    proc = cli("verify", "--all", "--server", server_option("crash"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    listed = cli("list", "--server", server_option("crash"))
    assert "refusing to start" in listed.stdout
    # A server writing garbage on its protocol channel: one line, not a traceback a line.
    flooded = cli("list", "--server", server_option("flood"))
    assert "not JSON-RPC on its standard output" in flooded.stdout
    assert "Traceback" not in flooded.stderr and len(flooded.stderr) < 2000, flooded.stderr[:500]
    assert shutil.which("python") or True


def test_cli_a_server_sending_megabytes_for_a_line_gets_one_line(cli) -> None:
    """A server answering every read with a 4 MB error message: the message is quoted
    in part, with its length, not printed whole (once per file, 12 MB before)."""
    proc = cli("verify", "--all", "--server", server_option("huge-text"))
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "read-error" in out and "(4,200,000 characters in all) (error -32603)" in out
    assert len(out) < 4000, out[:500]


def test_cli_instructions_naming_tens_of_thousands_of_skills_are_printed(cli) -> None:
    """2 MB naming 60,000 skill URIs: a list and a search per URI took minutes; the
    command was killed before it printed anything."""
    proc = cli("instructions", "h", "--json", "--server", server_option("huge-text"), timeout=60)
    assert proc.returncode == 0, proc.stderr[:300]
    data = json.loads(proc.stdout)
    assert len(data["skill_uris"]) == 60000
    first, last = data["skill_uris"][0], data["skill_uris"][-1]
    assert first == {"uri": "skill://acme/s0/SKILL.md", "position": 4, "after_cut": False}
    assert last["uri"] == "skill://acme/s59999/SKILL.md" and last["after_cut"] is True


def test_cli_dir_marks_what_the_server_lists_against_the_held_entry(cli, tmp_path: Path) -> None:
    """D10 for a person: the server's directory listing, each file marked in or out of
    the skill; only where directoryRead is declared, and never a file read for it."""
    record = tmp_path / "methods"
    proc = cli(
        "dir",
        "h:skill://demo/SKILL.md",
        "references",
        "--json",
        "--server",
        server_option("directory", record=record),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["uri"] == "skill://demo/references"
    held = {c["name"]: c["in_held_entry"] for c in data["children"]}
    assert held == {"added-later.md": False, "guide.md": True}
    methods = record.read_text().split()
    assert "resources/read" not in methods
    # An id: the entry comes from skills/get alone.
    assert "skills/get" in methods and "skills/list" not in methods and "tools/list" not in methods
    human = cli(
        "dir", "h:skill://demo/SKILL.md", "references", "--server", server_option("directory")
    )
    assert "added-later.md  not part of the skill you hold" in human.stdout
    refused = cli("dir", "h:skill://demo/SKILL.md", "--server", server_option("ok", record=record))
    assert refused.returncode == 1 and "does not declare directoryRead" in refused.stderr
    outside = cli("dir", "h:skill://demo/SKILL.md", "../x", "--server", server_option("directory"))
    assert outside.returncode == 2 and "inside the skill's folder" in outside.stderr


def test_cli_show_and_verify_start_each_server_once(cli, tmp_path: Path) -> None:
    """The listing's connection serves the reads after it: a stdio server is started
    once per command, not once for the listing and again for the reads."""
    starts = tmp_path / "starts"
    wrapper = tmp_path / "server.sh"
    wrapper.write_text(
        f"#!/bin/sh\necho start >> {shlex.quote(str(starts))}\n"
        f"exec {shlex.join(hostile_argv('ok'))}\n"
    )
    wrapper.chmod(0o755)
    for args in (("show", "h:demo"), ("verify", "h:demo"), ("verify", "--all")):
        starts.unlink(missing_ok=True)
        proc = cli(*args, "--server", f"h={wrapper}")
        assert proc.returncode == 0, (args, proc.stderr)
        assert starts.read_text().split() == ["start"], args


def test_cli_show_of_a_name_no_listing_carries_asks_no_server(cli, tmp_path: Path) -> None:
    """Only a SKILL.md URI can be confirmed with skills/get: a name was sent as one."""
    record = tmp_path / "methods"
    unknown = cli("show", "h:nothing", "--server", server_option("ok", record=record))
    assert unknown.returncode == 1
    said = unknown.stderr + unknown.stdout
    assert "is asked for by the URI of its SKILL.md" in said and "Traceback" not in said
    assert "skills/get" not in record.read_text().split()


def test_get_prints_a_servers_words_one_line_each(cli, tmp_path: Path) -> None:
    """A description holding line ends printed lines of its own: a forged resource."""
    import sys

    folder = tmp_path / "skills" / "tidy"
    folder.mkdir(parents=True)
    forged = "Formats code.\\n  scripts/x.sh  1 B  sha256:forged"
    (folder / "SKILL.md").write_text(f'---\nname: tidy\ndescription: "{forged}"\n---\nbody\n')
    serve = shlex.join([sys.executable, "-m", "desktop", "serve", str(tmp_path / "skills")])
    proc = cli("get", "s", "skill://tidy/SKILL.md", "--server", f"s={serve}")
    assert proc.returncode == 0, proc.stderr
    assert "  description: Formats code.\\u000a  scripts/x.sh" in proc.stdout
    assert not any(line.startswith("  scripts/x.sh") for line in proc.stdout.splitlines())


def test_show_and_verify_start_only_the_servers_their_ids_name(cli, tmp_path: Path) -> None:
    """An unrelated server was started and listed too: a slow one held `show` for 22 s."""
    other = tmp_path / "other-methods"
    options = ["--server", server_option("ok", "h"), "--server", server_option("ok", "o", other)]
    shown = cli("show", "h:skill://demo/SKILL.md", *options)
    assert shown.returncode == 0, shown.stderr
    checked = cli("verify", "h:skill://demo/SKILL.md", *options)
    assert checked.returncode == 0, checked.stderr
    assert not other.exists()  # the server labelled "o" was never asked anything
    every = cli("verify", "--all", *options)
    assert every.returncode == 0, every.stderr
    assert other.exists()

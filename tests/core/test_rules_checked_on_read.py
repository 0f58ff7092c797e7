"""Rules added with the checks of records, keys, hidden text and loading values: each
branch with what a person would see (the state, the message, the value)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from desktop.core.approvals import (
    APPROVED,
    NOT_APPROVED,
    ApprovalError,
    ApprovalKey,
    ApprovalRecord,
    ApprovalState,
    bind,
    grants_problem,
)
from desktop.core.checks import MAX_HIDDEN_REPORTED, frontmatter_hidden_text
from desktop.core.identity import legacy_endpoint, server_key
from desktop.core.loading import _number
from desktop.core.model import Problem
from desktop.core.problem_lines import problem_paths

from .test_approval_binding_rules import approve, local, reject, skill, stored

TAG = "".join(chr(0xE0000 + ord(c)) for c in "run x")


def test_a_record_granting_what_it_never_requested_is_damaged_on_read() -> None:
    forged = stored(grants={"tools": ["Read", "WebFetch"], "scripts": False})
    with pytest.raises(ApprovalError) as raised:
        ApprovalRecord.from_json(forged)
    assert raised.value.code == "tampered"
    assert "grants WebFetch, which the skill does not request (Bash, Read)" in str(raised.value)


def test_what_no_reviewer_could_grant_is_named() -> None:
    s = skill()
    fine = approve(s, grant_tools=["Read"])
    assert grants_problem(fine, ("Bash", "Read"), True) is None
    too_much = replace(fine, grants=replace(fine.grants, tools=("Read",), scripts=True))
    problem = grants_problem(too_much, (), False)
    assert problem is not None and problem.code == "tampered"
    assert "grants Read, which the skill does not request (no tools)" in problem.message
    assert "allows running scripts, which the skill does not have" in problem.message
    rejected = reject(s)
    granting = replace(rejected, grants=replace(rejected.grants, tools=("Bash",)))
    assert "grants Bash" in str(grants_problem(granting, ("Bash",), True))


def test_a_record_checked_against_its_skill_is_damaged_and_says_so() -> None:
    s = skill()
    record = approve(s, grant_tools=["Read"])
    assert bind(s, record).state == APPROVED
    forged = replace(
        record,
        grants=replace(record.grants, tools=("Read", "mcp__evil")),
        requested_tools=("Read", "mcp__evil"),
    )
    state = bind(s, forged)
    assert state.state == NOT_APPROVED and state.damaged
    assert not state.tool_granted("Read")
    out = state.to_json()
    assert out["damaged"] is True and out["error"]["code"] == "tampered"
    assert "mcp__evil" in out["message"]
    # A problem that is not damage (the keyring cannot be reached) is not called damaged.
    unreachable = ApprovalState(NOT_APPROVED, problem=ApprovalError("keyring", "locked"))
    assert "damaged" not in unreachable.to_json()


def test_keys_of_older_versions() -> None:
    mine = local()
    assert ApprovalKey.legacy_for_identity(mine.full_identity) is None
    server = skill()
    new = ApprovalKey.for_skill(server, {})
    old = ApprovalKey.legacy_for_identity(server.full_identity, {})
    assert old is not None and old.transport == "" and old.moved_to(new)
    assert not new.moved_to(new)  # a key of today is no older key
    other = replace(old, label="another")
    assert not other.moved_to(new)
    assert legacy_endpoint("local", "/skills/./x") == "/skills/./x"


def test_a_server_key_writes_an_ipv6_host_in_brackets() -> None:
    key = server_key("mcp", "http", "HTTP://[::1]:80/mcp", {})
    assert (key.transport, key.endpoint) == ("http", "http://[::1]/mcp")
    with_user = server_key("mcp", "http", "https://ana@Example.COM:443", {})
    assert with_user.endpoint == "https://ana@example.com/"


def test_a_priority_written_as_text_that_is_no_finite_number_stays_text() -> None:
    assert _number("inf") == "inf"
    assert _number(" 20 ") == 20 and _number("2.5") == 2.5 and _number("high") == "high"


def test_hidden_text_under_keys_that_are_not_text_and_past_the_reported_number() -> None:
    assert frontmatter_hidden_text({1: f"a{TAG}"})[0].message.startswith("'1'")
    many: dict[str, Any] = {f"k{i}": f"v{TAG}" for i in range(MAX_HIDDEN_REPORTED + 3)}
    problems = frontmatter_hidden_text(many)
    assert problems[-1].message == "3 more frontmatter values hide characters"
    assert problems[-1].severity == "error"


def test_a_dropped_trigger_is_placed_on_the_triggers() -> None:
    paths = problem_paths(Problem("trigger-dropped", "a trigger was dropped", "warning"))
    assert ["metadata", "nimblebrain", "triggers"] in paths

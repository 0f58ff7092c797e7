"""Approvals in the real Secret Service: approve, list states, diffs, grants, identities."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from approval_helpers import (
    HTTP_A,
    STDIO_A,
    STDIO_B,
    scan,
    server_entry,
    server_skill,
    skill_md,
    write_skill,
)

from desktop.core.approvals import APPROVED, CHANGED, NOT_APPROVED, UNAPPROVABLE, ApprovalError
from desktop.store.approvals_keyring import CHUNK_CHARS
from desktop.store.approvals_store import ApprovalStore

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(120)]


def test_the_store_uses_the_secret_service(store: ApprovalStore) -> None:
    assert store.backend_name() == "keyring.backends.SecretService.Keyring"


def test_approved_then_rotated_digest_shows_changed_with_the_diff(store: ApprovalStore) -> None:
    skill = server_skill("docs", STDIO_A, server_entry("refunds", {"policy.md": b"30 days"}))
    assert store.state(skill).state == NOT_APPROVED
    store.approve(skill, who="alice", when="2026-01-01T00:00:00+00:00")
    state = store.state(skill)
    assert state.state == APPROVED
    assert state.record is not None and state.record.approved_by == "alice"

    rotated = server_skill("docs", STDIO_A, server_entry("refunds", {"policy.md": b"365 days"}))
    state = store.state(rotated)
    assert state.state == CHANGED and state.diff is not None
    (change,) = state.diff.changed
    assert change.uri == "skill://refunds/policy.md"
    assert (change.old_size, change.new_size) == (7, 8)
    assert change.old_digest != change.new_digest


def test_local_file_added_and_removed(store: ApprovalStore, tmp_path: Path) -> None:
    write_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf"), "forms.md": "forms"})
    skill = scan(tmp_path)["pdf/SKILL.md"]
    store.approve(skill)
    assert store.state(scan(tmp_path)["pdf/SKILL.md"]).state == APPROVED

    (tmp_path / "pdf" / "extra.py").write_text("print('hi')\n")
    state = store.state(scan(tmp_path)["pdf/SKILL.md"])
    assert state.state == CHANGED and state.diff is not None
    assert [c.uri for c in state.diff.added] == ["extra.py"]

    (tmp_path / "pdf" / "extra.py").unlink()
    (tmp_path / "pdf" / "forms.md").unlink()
    state = store.state(scan(tmp_path)["pdf/SKILL.md"])
    assert state.state == CHANGED and state.diff is not None
    assert [c.uri for c in state.diff.removed] == ["forms.md"] and not state.diff.added


def test_same_uri_from_two_servers_is_approved_separately(store: ApprovalStore) -> None:
    entry = server_entry("refunds")
    a = server_skill("docs", STDIO_A, entry)
    b = server_skill("billing", STDIO_B, entry)
    store.approve(a)
    states = store.states([a, b])
    assert states[a.id].state == APPROVED
    assert states[b.id].state == NOT_APPROVED
    store.approve(b, grant_tools=[])
    store.revoke(a.id)
    states = store.states([a, b])
    assert (states[a.id].state, states[b.id].state) == (NOT_APPROVED, APPROVED)


def test_nested_skill_is_not_covered_by_its_parent(store: ApprovalStore, tmp_path: Path) -> None:
    write_skill(tmp_path, "outer", {"SKILL.md": skill_md("outer")})
    write_skill(tmp_path, "outer/inner", {"SKILL.md": skill_md("inner")})
    skills = scan(tmp_path)
    outer, inner = skills["outer/SKILL.md"], skills["outer/inner/SKILL.md"]
    assert inner.nested_in == outer.id
    record = store.approve(outer)
    assert "inner/SKILL.md" in {f.uri for f in record.files}  # its bytes are pinned...
    states = store.states([outer, inner])
    assert states[outer.id].state == APPROVED
    assert states[inner.id].state == NOT_APPROVED  # ...but it is not approved to activate


def test_nested_server_skill_is_not_covered(store: ApprovalStore) -> None:
    outer = server_skill("docs", STDIO_A, server_entry("outer", {"inner/SKILL.md": b"x"}))
    inner = server_skill("docs", STDIO_A, server_entry("inner", base="skill://outer/"))
    store.approve(outer)
    assert store.state(inner).state == NOT_APPROVED


def test_dynamic_skill_is_refused_and_nothing_is_stored(
    store: ApprovalStore, stored_secrets: Callable[[], dict[str, str]]
) -> None:
    skill = server_skill("docs", STDIO_A, server_entry("live", dynamic=True))
    with pytest.raises(ApprovalError) as exc:
        store.approve(skill)
    assert exc.value.code == "unapprovable" and "dynamic" in exc.value.message
    assert store.state(skill).state == UNAPPROVABLE
    assert stored_secrets() == {}


def test_grants_are_recorded_and_required(store: ApprovalStore) -> None:
    entry = server_entry("deploy", {"run.sh": b"echo"}, allowed_tools="Bash Read")
    skill = server_skill("ops", STDIO_A, entry)
    store.approve(skill)
    state = store.state(skill)
    assert state.approved and not state.tool_granted("Bash") and not state.scripts_allowed

    store.approve(skill, grant_tools=["Bash"], allow_scripts=True)
    state = store.state(skill)
    assert state.tool_granted("Bash") and not state.tool_granted("Read")
    assert state.scripts_allowed
    (stored,) = store.records()
    assert stored.record is not None
    assert stored.record.grants.tools == ("Bash",) and stored.record.grants.scripts
    assert stored.record.requested_tools == ("Bash", "Read")

    with pytest.raises(ApprovalError) as exc:
        store.approve(skill, grant_tools=["Write"])
    assert exc.value.code == "tool-not-requested"
    assert store.state(skill).tool_granted("Bash")  # the refused approval changed nothing


def test_label_repointed_at_another_endpoint_does_not_carry_approvals(
    store: ApprovalStore,
) -> None:
    entry = server_entry("refunds")
    before = server_skill("docs", STDIO_A, entry)
    after = server_skill("docs", HTTP_A, entry, transport="http")
    store.approve(before)
    state = store.state(after)
    assert state.state == NOT_APPROVED
    assert [k.endpoint for k in state.elsewhere] == [STDIO_A]
    assert "previous endpoint" in state.message()
    assert state.to_json()["approved_elsewhere"][0]["endpoint"] == STDIO_A
    # pointing the label back finds the approval again: it was never moved or lost
    assert store.state(before).state == APPROVED


def test_512_file_skill_fits_windows_sized_secrets(
    store: ApprovalStore, stored_secrets: Callable[[], dict[str, str]]
) -> None:
    files = {f"refs/file-{i:03}.md": f"content {i}".encode() for i in range(511)}
    skill = server_skill("docs", STDIO_A, server_entry("big", files))
    assert len(skill.files) == 512 and skill.state == "listed"
    store.approve(skill, who="bob")
    secrets = stored_secrets()
    assert len(secrets) > 3  # the record was split into chunks
    for name, value in secrets.items():
        assert len(value) <= CHUNK_CHARS, name
        assert len(value.encode("utf-16-le")) <= 2560, name  # Windows' CredentialBlob cap
    state = store.state(skill)
    assert state.state == APPROVED and state.record is not None
    assert state.record.file_count == 512
    # a smaller approval later reuses the name and leaves no stale chunk behind
    small = server_skill("docs", STDIO_A, server_entry("big"))
    store.approve(small)
    assert store.state(small).state == APPROVED
    assert len(stored_secrets()) < len(secrets)


def test_revoke_and_records_listing(store: ApprovalStore, tmp_path: Path) -> None:
    write_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf")})
    local = scan(tmp_path, label="mine")["pdf/SKILL.md"]
    server = server_skill("docs", STDIO_A, server_entry("refunds"))
    store.approve(local)
    store.approve(server)
    assert {r.entry.skill_id for r in store.records()} == {local.id, server.id}
    gone = store.revoke(str(tmp_path.resolve() / "pdf"))  # a local skill by its folder
    assert [g.skill_id for g in gone] == [local.id]
    assert store.revoke("nothing:here") == []
    assert [r.entry.skill_id for r in store.records()] == [server.id]
    assert store.state(local).state == NOT_APPROVED


def test_an_endpoint_written_with_a_variable_is_the_server_the_variable_names(
    store: ApprovalStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve ${SKILLS_DIR}` is another server once the variable points elsewhere (I1):
    the approval was keyed on the placeholder as written and went with it."""
    skill = server_skill("docs", "skill-catalog serve ${SKILLS_DIR}", server_entry("refunds"))
    monkeypatch.setenv("SKILLS_DIR", "/srv/one")
    store.approve(skill)
    assert store.state(skill).state == APPROVED
    monkeypatch.setenv("SKILLS_DIR", "/srv/two")
    state = store.state(skill)
    assert state.state == NOT_APPROVED
    assert [k.endpoint for k in state.elsewhere] == ["skill-catalog serve /srv/one"]
    monkeypatch.setenv("SKILLS_DIR", "/srv/one")
    assert store.state(skill).state == APPROVED


def test_revoking_one_endpoint_leaves_the_same_label_and_uri_at_another(
    store: ApprovalStore,
) -> None:
    """Given the sources, revoke removes the approval of the skill they list; without
    them, every approval of that label and URI goes (the README's two cases)."""
    from desktop.core.approvals import ApprovalKey

    entry = server_entry("refunds")
    here = server_skill("docs", STDIO_A, entry)
    there = server_skill("docs", "python -m docs_server --root /srv/b", entry)
    store.approve(here)
    store.approve(there)
    gone = store.revoke(there.id, key=ApprovalKey.for_skill(there))
    assert [e.key.endpoint for e in gone] == ["python -m docs_server --root /srv/b"]
    assert store.state(here).state == APPROVED
    store.approve(there)
    assert len(store.revoke(there.id)) == 2


def test_an_index_deleted_by_hand_is_listed_again_from_the_records_found(
    store: ApprovalStore,
) -> None:
    """Someone tidying the keyring removes the index: the approvals still counted but
    `approvals` listed none, and the next approval (a new index) voided them (A6)."""
    from desktop.store.approvals_store import INDEX_NAME

    beta = server_skill("docs", STDIO_A, server_entry("beta"))
    gamma = server_skill("docs", STDIO_A, server_entry("gamma"))
    store.approve(beta)
    store._run(lambda blobs: blobs.delete(INDEX_NAME))
    assert store.states([beta, gamma])[beta.id].state == APPROVED
    assert [r.entry.skill_id for r in store.records()] == [beta.id]
    store.approve(gamma)
    states = store.states([beta, gamma])
    assert (states[beta.id].state, states[gamma.id].state) == (APPROVED, APPROVED)

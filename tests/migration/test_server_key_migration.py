"""What the version before the server key (3f4c5c9) stored keeps working: approvals in
the keyring, a sign-in, the cache's folders and the copies an approval kept. The items
and files are those in ``fixture_3f4c5c9.json``, made by that version's own code (see
``README.md``), put back in the real Secret Service and a cache folder as it left them.
And one keyring policy for every secret: a backend that is not an OS keyring is refused
for approvals, sign-ins and saved sources' secrets alike."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.approvals import APPROVED, NOT_APPROVED, ApprovalKey
from desktop.core.entry import parse_entry
from desktop.core.model import Origin, Skill, SourceSpec
from desktop.sources.config.secrets import KeyringSecrets, secure_spec
from desktop.sources.mcp import signin
from desktop.store.approvals_store import ApprovalStore
from desktop.store.cache import SkillCache

FIXTURE = json.loads((Path(__file__).parent / "fixture_3f4c5c9.json").read_text())
LEGACY_APPROVALS = sorted(n for n in FIXTURE["approvals"] if n != "index")


@pytest.fixture
def old_state(
    secret_service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, SkillCache]]:
    """The fixture's keyring items (approvals in a service of this test's own, the
    sign-in in ``skill-catalog``) and cache files, written back as 3f4c5c9 left them."""
    for name, value in FIXTURE["environ"].items():
        monkeypatch.setenv(name, value)
    service = f"skill-catalog-test-{uuid.uuid4().hex[:12]}"
    for name, secret in FIXTURE["approvals"].items():
        secret_service.set_password(service, name, secret)
    for entry, secret in FIXTURE["secrets"].items():
        secret_service.set_password(signin.SERVICE, entry, secret)
    root = tmp_path / "verified"
    for rel, data in FIXTURE["cache"].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(base64.b64decode(data))
    yield service, SkillCache(root)
    for spec in web_specs():
        signin.sign_out(spec)


def skills() -> list[Skill]:
    """The fixture's skills, listed now by the same servers."""
    return [
        parse_entry(FIXTURE["entries"][label], Origin(label, "mcp", transport, endpoint))
        for label, transport, endpoint in FIXTURE["sources"]
    ]


def web_specs() -> list[SourceSpec]:
    return [SourceSpec(label, "mcp", t, e) for label, t, e in FIXTURE["sources"] if t == "http"]


def names(secret_service: Any, service: str) -> set[str]:
    import secretstorage

    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        items = collection.search_items({"service": service})
        return {item.get_attributes()["username"] for item in items}


def test_approvals_of_3f4c5c9_are_moved_under_the_server_key_with_what_they_bind(
    old_state: tuple[str, SkillCache], secret_service: Any
) -> None:
    service, cache = old_state
    store = ApprovalStore(service, timeout=30, cache=cache)
    listed = skills()
    states = store.states(listed)
    new_names = {ApprovalKey.for_skill(s).storage_name for s in listed}
    assert not new_names & set(LEGACY_APPROVALS)  # the keys did change
    for skill in listed:
        state = states[skill.id]
        assert state.state == APPROVED, state
        record = state.record
        assert record is not None and record.key == ApprovalKey.for_skill(skill)
        # What it binds is the record 3f4c5c9 wrote: who, when, the evidence, the grant.
        assert (record.approved_by, record.approved_at) == ("ann", "2026-12-01T10:00:00+00:00")
        assert record.files_read is True and state.tool_granted("Read")
        # The copies kept when it was approved moved with it.
        for f in skill.resources:
            assert cache.approved_copy(record.key.storage_name, f) is not None
    stored = names(secret_service, service)
    assert stored == new_names | {"index"}
    for name in LEGACY_APPROVALS:
        assert not cache.approved_dir(name).exists()
    listed_now = store.records()
    assert sorted(i.entry.name for i in listed_now) == sorted(new_names)
    assert all(i.problem is None for i in listed_now)
    assert any("moved under the server's new key" in n for n in store.notices)
    # Asked again (another run): found under the new key, nothing more to move.
    again = ApprovalStore(service, timeout=30, cache=cache)
    assert all(s.state == APPROVED for s in again.states(listed).values())
    assert again.notices == []


def test_an_approval_of_3f4c5c9_never_moves_to_a_server_of_another_transport(
    old_state: tuple[str, SkillCache], secret_service: Any
) -> None:
    """The older key left the transport out: an HTTP source given the label and the very
    text of a stdio source's command would have found its approval. It is not moved."""
    service, cache = old_state
    label, _, endpoint = FIXTURE["sources"][0]
    posing = parse_entry(FIXTURE["entries"][label], Origin(label, "mcp", "http", endpoint))
    store = ApprovalStore(service, timeout=30, cache=cache)
    assert store.state(posing).state == NOT_APPROVED
    assert names(secret_service, service) == set(FIXTURE["approvals"])  # left as it was
    real = next(s for s in skills() if s.origin.label == label)
    assert store.state(real).state == APPROVED


def test_cache_folders_of_3f4c5c9_are_found_and_renamed(
    old_state: tuple[str, SkillCache],
) -> None:
    _, cache = old_state
    for skill in skills():
        legacy = cache.legacy_source_dir(skill.origin)
        assert legacy.is_dir() and not cache.source_dir(skill.origin).exists()
        name = skill.name
        files = {"SKILL.md": None, "notes.md": f"{name} notes\n".encode()}
        for f in skill.resources:
            data = cache.get(skill.origin, f.uri, f)
            assert data is not None, f.uri
            expected = files[f.uri.rsplit("/", 1)[1]]
            assert expected is None or data == expected
        assert cache.source_dir(skill.origin).is_dir() and not legacy.exists()
        assert cache.source_dirs(skill.origin.label) == [cache.source_dir(skill.origin)]


def test_a_sign_in_of_3f4c5c9_is_moved_under_the_server_key(
    old_state: tuple[str, SkillCache], secret_service: Any
) -> None:
    (spec,) = web_specs()
    legacy = signin.legacy_entry_name(spec)
    assert set(FIXTURE["secrets"]) == {legacy}
    entry = signin.entry_name(spec)
    assert entry != legacy
    # A connection reads it (and moves it) as it loads the stored tokens.
    storage = signin.KeyringTokenStorage(entry, legacy=legacy)
    tokens = asyncio.run(storage.get_tokens())
    assert tokens is not None and tokens.access_token == "fixture-access"
    assert tokens.refresh_token == "fixture-refresh"
    stored = names(secret_service, signin.SERVICE)
    assert entry in stored and legacy not in stored
    assert signin.signed_in(spec)
    # The same sign-in found from the URL as written otherwise (the same server).
    lower = SourceSpec(spec.label, "mcp", "http", "https://skills.example/mcp")
    assert signin.entry_name(lower) == entry
    assert signin.sign_out(spec) and not signin.signed_in(spec)


def test_signed_in_moves_a_sign_in_of_3f4c5c9(
    old_state: tuple[str, SkillCache], secret_service: Any
) -> None:
    (spec,) = web_specs()
    assert signin.signed_in(spec)
    stored = names(secret_service, signin.SERVICE)
    assert signin.entry_name(spec) in stored and signin.legacy_entry_name(spec) not in stored


@pytest.mark.parametrize("refused", ["null", "fail"])
def test_one_keyring_policy_refuses_a_backend_that_is_no_os_keyring_for_every_secret(
    secret_service: Any, refused: str, tmp_path: Path
) -> None:
    import keyring
    from keyring.backends import fail, null

    backend = null.Keyring() if refused == "null" else fail.Keyring()
    keyring.set_keyring(backend)  # the secret_service fixture sets it back afterwards
    words = "is not an OS keyring" if refused == "null" else "No OS keyring is available"
    # Saved sources' secrets: the source is not saved.
    ok, why = KeyringSecrets().available()
    assert not ok and words.lower() in why.lower() and "Credential Manager" in why
    spec = SourceSpec("api", "mcp", "http", "https://h/mcp?api_key=sk-live-0123456789abcdef")
    secured, messages = secure_spec(spec, KeyringSecrets())
    assert secured is None and "api was not saved" in messages[0]
    assert words.lower() in messages[0].lower()
    # Sign-in: kept for this run only, saying why.
    entry = f"signin/policy/{uuid.uuid4().hex}"
    try:
        said = signin._keyring_set(entry, "{}")
        assert words.lower() in said.lower()
    finally:
        signin._keyring_delete(entry)
    # Approvals: refused with the same message, and what it means for them.
    store = ApprovalStore(f"skill-catalog-test-{uuid.uuid4().hex[:12]}", timeout=10)
    with pytest.raises(Exception) as caught:
        store.backend()
    assert words in str(caught.value) and "counts as not approved" in str(caught.value)
    assert os.environ.get("PYTHON_KEYRING_BACKEND") is None


def test_a_revoke_or_a_new_decision_takes_the_approval_of_3f4c5c9_with_it(
    old_state: tuple[str, SkillCache], secret_service: Any
) -> None:
    """Revoked (or decided again) before it was ever moved, an older version's approval
    goes too: it never comes back under the new key on the next listing."""
    service, cache = old_state
    store = ApprovalStore(service, timeout=30, cache=cache)
    docs, web = skills()
    gone = store.revoke(docs.id, key=ApprovalKey.for_skill(docs))
    for entry in gone:  # as `revoke` and the window do with what went
        cache.keep_decision(entry.name, None)
    assert [e.name for e in gone] == [
        ApprovalKey.legacy_for_identity(docs.full_identity).storage_name
    ]  # type: ignore[union-attr]
    store.reject(web, reason="not needed")
    assert store.state(docs).state == NOT_APPROVED
    assert store.state(web).state == "rejected"
    stored = names(secret_service, service)
    assert not stored & set(LEGACY_APPROVALS)
    assert stored == {"index", ApprovalKey.for_skill(web).storage_name}
    for name in LEGACY_APPROVALS:
        assert not cache.approved_dir(name).exists()

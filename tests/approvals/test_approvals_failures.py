"""A7 failure modes against the real Secret Service: no backend, a refused backend, a
locked keyring, damaged or altered records. Each gives a clear message, the skill counts
as not approved, and nothing stored is deleted or rewritten."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import keyring
import pytest
from approval_helpers import STDIO_A, server_entry, server_skill, unlock_keyring
from keyring.backends import fail, null
from secretstorage import dbus_init, get_default_collection

from desktop.core.approvals import APPROVED, NOT_APPROVED, ApprovalError
from desktop.core.catalog import Catalog
from desktop.core.model import Skill
from desktop.store.approvals_keyring import Deadline, KeyringBlobs, run_bounded
from desktop.store.approvals_store import INDEX_NAME, ApprovalStore, approval_states

pytestmark = [pytest.mark.keyring, pytest.mark.timeout(120)]


def refunds(content: bytes = b"30 days") -> Skill:
    return server_skill("docs", STDIO_A, server_entry("refunds", {"policy.md": content}))


class PlaintextFileKeyring:
    """Stands for keyrings.alt's file backends: not an OS keyring. (Not a subclass of
    KeyringBackend: that would register it with keyring for every other test.)"""

    def get_password(self, service: str, username: str) -> str | None:
        raise AssertionError("a plaintext backend must never be used")

    set_password = delete_password = get_password


@pytest.mark.parametrize(
    ("backend", "code", "words"),
    [
        (fail.Keyring(), "no-backend", "No OS keyring is available"),
        (null.Keyring(), "refused-backend", "is not an OS keyring"),
        (PlaintextFileKeyring(), "refused-backend", "is not an OS keyring"),
    ],
)
def test_without_an_os_keyring_nothing_is_stored_or_lost(
    store: ApprovalStore,
    service_name: str,
    stored_secrets: Callable[[], dict[str, str]],
    backend: Any,
    code: str,
    words: str,
) -> None:
    skill = refunds()
    store.approve(skill)
    before = stored_secrets()
    other = ApprovalStore(service_name, backend=backend, timeout=10)
    with pytest.raises(ApprovalError) as exc:
        other.approve(skill)
    assert exc.value.code == code and words in exc.value.message
    assert "Credential Manager" in exc.value.message  # says where approvals can live
    state = other.state(skill)
    assert state.state == NOT_APPROVED and state.problem is not None
    assert state.problem.code == code
    with pytest.raises(ApprovalError):
        other.records()
    with pytest.raises(ApprovalError):
        other.revoke(skill.id)
    assert stored_secrets() == before
    assert store.state(skill).state == APPROVED


def test_locked_keyring_gives_a_clear_message_and_loses_nothing(
    store: ApprovalStore,
    stored_secrets: Callable[[], dict[str, str]],
    request: pytest.FixtureRequest,
) -> None:
    kept, new = refunds(), server_skill("docs", STDIO_A, server_entry("other"))
    store.approve(kept)
    before = stored_secrets()
    request.getfixturevalue("locked_secret_service")  # locked until the test ends
    # No prompter can be shown in the test session: gnome-keyring completes the unlock
    # prompt as dismissed, exactly what it reports when a person presses Cancel.
    state = store.state(kept)
    assert state.state == NOT_APPROVED and state.problem is not None
    assert state.problem.code == "locked"
    assert "locked" in state.message() and "refused" in state.message()
    for action in (lambda: store.approve(new), lambda: store.revoke(kept.id), store.records):
        with pytest.raises(ApprovalError) as exc:
            action()
        assert exc.value.code == "locked"
    listed = approval_states(Catalog(skills=[kept, new]), store)
    assert listed[kept.id]["state"] == NOT_APPROVED
    assert listed[kept.id]["error"]["code"] == "locked"

    with dbus_init() as connection:
        assert get_default_collection(connection).is_locked()  # nothing unlocked it
    unlock_keyring()
    assert stored_secrets() == before
    assert store.state(kept).state == APPROVED
    assert store.state(new).state == NOT_APPROVED


def test_altered_record_is_refused_and_left_as_is(
    store: ApprovalStore,
    service_name: str,
    stored_secrets: Callable[[], dict[str, str]],
) -> None:
    skill = refunds()
    record = store.approve(skill)
    # Someone edits the stored record: the digest of policy.md now matches other bytes.
    blobs = KeyringBlobs(keyring.get_keyring(), service_name, Deadline(30))
    data = blobs.read(record.key.storage_name)
    data["files"][1]["digest"] = "sha256:" + "0" * 64
    blobs.write(record.key.storage_name, data)
    before = stored_secrets()

    state = store.state(skill)
    assert state.state == NOT_APPROVED and state.problem is not None
    assert state.problem.code == "tampered"
    assert "altered" in state.message()
    (item,) = store.records()
    assert item.record is None and item.problem is not None and item.problem.code == "tampered"
    assert stored_secrets() == before  # reading changed nothing

    # An index rebuilt (deleted by hand) still lists the altered record with its problem.
    blobs.delete(INDEX_NAME)
    (item,) = store.records()
    assert item.entry.skill_id == skill.id and item.problem.code == "tampered"
    assert any("rebuilt from the 1 approval" in n for n in store.notices)
    before = stored_secrets()

    # A record copied under another skill's name is refused too (approvals never move).
    other = server_skill("docs", "python -m elsewhere", server_entry("refunds"))
    store.approve(other)
    copied = blobs.read(store.records()[0].entry.name)
    blobs.write(record.key.storage_name, copied if copied else {})
    problem = store.state(skill).problem
    assert problem is not None and problem.code == "tampered"


def test_unparseable_record_and_index(
    store: ApprovalStore,
    service_name: str,
    stored_secrets: Callable[[], dict[str, str]],
) -> None:
    skill = refunds()
    record = store.approve(skill)
    backend = keyring.get_keyring()
    backend.set_password(service_name, record.key.storage_name, "{not json")
    before = stored_secrets()
    state = store.state(skill)
    assert state.state == NOT_APPROVED and state.problem is not None
    assert state.problem.code == "unparseable"
    assert stored_secrets() == before

    # An index that cannot be read is rebuilt from the records the Secret Service lists,
    # so approving goes on (it was refused for good before), and the change is said.
    backend.set_password(service_name, INDEX_NAME, "garbage")
    new = server_skill("docs", STDIO_A, server_entry("other"))
    approved = store.approve(new)
    assert any("rebuilt from the 0 approvals" in n for n in store.notices)
    assert [r.entry.skill_id for r in store.records()] == [new.id]  # the damaged names no key
    assert store.state(new).state == APPROVED
    assert set(stored_secrets()) == {INDEX_NAME, record.key.storage_name, approved.key.storage_name}

    # An explicit revoke by the resolved key removes the damaged record.
    gone = store.revoke(skill.id, key=record.key)
    assert [g.key for g in gone] == [record.key]
    assert set(stored_secrets()) == {INDEX_NAME, approved.key.storage_name}


def test_a_keyring_that_does_not_answer_times_out_and_writes_nothing() -> None:
    release, answered, ended = threading.Event(), threading.Event(), threading.Event()
    wrote: list[str] = []

    def work(deadline: Deadline) -> None:
        try:
            release.wait(60)  # an unlock prompt nobody answers
            answered.set()
            deadline.check()
            wrote.append("record")
        finally:
            ended.set()

    with pytest.raises(ApprovalError) as exc:
        run_bounded(work, 0.5)
    assert exc.value.code == "timeout" and "did not answer" in exc.value.message
    assert not answered.is_set()  # given up while the keyring was still silent
    release.set()
    assert ended.wait(10)
    assert wrote == []  # the abandoned work stopped before writing


def _bus_call(method: str, signature: str, *args: Any) -> Any:
    from jeepney import DBusAddress, new_method_call
    from jeepney.io.blocking import open_dbus_connection

    bus_daemon = DBusAddress(
        "/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus"
    )
    with open_dbus_connection(bus="SESSION") as bus:
        reply = bus.send_and_get_reply(new_method_call(bus_daemon, method, signature, args))
    return reply.body


def _stop_prompter() -> None:
    """End the unlock prompter this test caused D-Bus to start (gnome-keyring then
    completes the prompt as dismissed)."""
    import os
    import signal

    owner = "org.gnome.keyring.SystemPrompter"
    for _ in range(50):
        if _bus_call("NameHasOwner", "s", owner)[0]:
            (pid,) = _bus_call(
                "GetConnectionUnixProcessID", "s", _bus_call("GetNameOwner", "s", owner)[0]
            )
            os.kill(pid, signal.SIGTERM)
            return
        time.sleep(0.1)


@pytest.mark.xvfb
def test_an_unlock_prompt_nobody_answers_does_not_hang(
    store: ApprovalStore,
    service_name: str,
    xvfb_display: str,
    request: pytest.FixtureRequest,
) -> None:
    """With a display, gnome-keyring shows its real unlock prompt and waits for a person;
    the store gives up after its timeout with a message instead of hanging."""
    skill = refunds()
    store.approve(skill)
    # D-Bus starts the prompter with its own environment: give it the Xvfb display.
    _bus_call(
        "UpdateActivationEnvironment", "a{ss}", {"DISPLAY": xvfb_display, "NO_AT_BRIDGE": "1"}
    )
    try:
        request.getfixturevalue("locked_secret_service")
        waiting = ApprovalStore(service_name, timeout=3)
        state = waiting.state(skill)
        assert state.state == NOT_APPROVED and state.problem is not None
        assert state.problem.code == "timeout"
        assert "did not answer within 3 s" in state.message()
    finally:
        _stop_prompter()
        _bus_call("UpdateActivationEnvironment", "a{ss}", {"DISPLAY": ""})
    unlock_keyring()
    assert store.state(skill).state == APPROVED


class FlickeringSecretService:
    """The real Secret Service behind a stand-in for gnome-keyring reloading its file:
    the first ``flickers`` calls fail as the daemon answered then (the default collection
    resolving to an object that is gone)."""

    def __init__(self, real: Any, flickers: int, message: str) -> None:
        self.real, self.flickers, self.message, self.calls = real, flickers, message, 0

    def _maybe_fail(self) -> None:
        self.calls += 1
        if self.calls <= self.flickers:
            cause = RuntimeError(self.message)
            raise keyring.errors.InitError("Failed to create the collection") from cause

    def get_password(self, service: str, username: str) -> str | None:
        self._maybe_fail()
        return self.real.get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        self._maybe_fail()
        self.real.set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self._maybe_fail()
        self.real.delete_password(service, username)


GONE = "Object does not exist at path “/org/freedesktop/secrets/collection/_ce_1fS6q”"


def test_a_collection_that_flickers_while_reloading_is_asked_again(
    secret_service: Any, service_name: str
) -> None:
    blobs = KeyringBlobs(
        FlickeringSecretService(secret_service, 2, GONE), service_name, Deadline(30)
    )
    blobs._set("probe", "value")
    assert blobs._get("probe") == "value"
    assert blobs.backend.calls == 4  # two refused, then the write and the read
    # Removing stale chunks goes through the same door (it flickered there too).
    blobs.backend.flickers, blobs.backend.calls = 2, 0
    assert blobs._delete("probe") is True
    assert blobs._get("probe") is None
    assert blobs.backend.calls == 4


NO_REPLY = "Message recipient disconnected from message bus without replying"


def test_a_secret_service_that_ended_mid_call_is_asked_again(
    secret_service: Any, service_name: str
) -> None:
    """gnome-keyring can end in the middle of a call; the bus starts it again on the
    next one, so the call is asked again rather than the approval failing."""
    blobs = KeyringBlobs(
        FlickeringSecretService(secret_service, 1, NO_REPLY), service_name, Deadline(30)
    )
    blobs._set("probe", "value")
    assert blobs.backend.calls == 2
    assert blobs._get("probe") == "value"


def test_other_failures_are_not_asked_again(secret_service: Any, service_name: str) -> None:
    flaky = FlickeringSecretService(secret_service, 1, "Prompt dismissed")
    blobs = KeyringBlobs(flaky, service_name, Deadline(30))
    with pytest.raises(ApprovalError, match="failed"):
        blobs._set("probe", "value")
    assert flaky.calls == 1


def test_keyring_calls_never_overlap(
    store: ApprovalStore, secret_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gnome-keyring aborts when new Secret Service connections overlap (see
    ``KeyringBlobs.map``): a record of many chunks is read one value at a time."""
    files = {f"refs/file-{i:03}.md": f"content {i}".encode() for i in range(200)}
    skill = server_skill("docs", STDIO_A, server_entry("many", files))
    store.approve(skill)
    lock, in_flight, most = threading.Lock(), [0], [0]
    real_get = secret_service.get_password

    def get(service: str, username: str) -> str | None:
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        try:
            time.sleep(0.005)  # a window two overlapping calls could not miss
            return real_get(service, username)
        finally:
            with lock:
                in_flight[0] -= 1

    monkeypatch.setattr(secret_service, "get_password", get)
    assert store.state(skill).state == APPROVED
    assert most[0] == 1


def test_a_keyring_failing_halfway_through_a_change_does_not_say_nothing_changed(
    store: ApprovalStore, service_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Secret Service can go away between two writes of one change (seen during a
    revoke: the record gone, the index not yet rewritten). Its message must not claim
    that nothing was changed. (The failure is put in by hand: gnome-keyring cannot be
    made to drop out at one chosen call.)"""
    skill = refunds()
    store.approve(skill)
    backend = keyring.get_keyring()
    real_set = backend.set_password

    def index_write_fails(service: str, name: str, value: str) -> None:
        if name == INDEX_NAME:
            raise keyring.errors.PasswordSetError("the Secret Service went away")
        real_set(service, name, value)

    monkeypatch.setattr(backend, "set_password", index_write_fails)
    halfway = ApprovalStore(service_name, backend=backend, timeout=30)
    with pytest.raises(ApprovalError) as revoked:
        halfway.revoke(skill.id)
    assert "Nothing was changed" not in revoked.value.message
    assert "Part of the change had been written" in revoked.value.message
    assert "skill-catalog approvals" in revoked.value.message

    # A failure before anything was written still says that nothing was.
    def every_write_fails(service: str, name: str, value: str) -> None:
        raise keyring.errors.PasswordSetError("the Secret Service went away")

    monkeypatch.setattr(backend, "set_password", every_write_fails)
    with pytest.raises(ApprovalError) as approved:
        halfway.approve(server_skill("docs", STDIO_A, server_entry("other")))
    assert "Nothing was changed." in approved.value.message

"""The OS keyring under approvals: backend choice, bounded calls, chunked records.

- The backend is the one :mod:`desktop.store.os_keyring` chooses, by the policy every
  secret follows: only OS keyrings, a plaintext or unknown backend refused with one
  message; nothing ever falls back to a file.
- Every keyring call runs on a worker thread bounded by a deadline, so a prompt
  nobody answers cannot hang the program: the caller gets a ``timeout`` error.
- A value is compressed and split into chunks of at most :data:`CHUNK_CHARS`
  characters. Windows stores a secret as UTF-16 in at most 2,560 bytes, so a
  chunk stays at 1,000 ASCII characters (2,000 bytes there). A head entry holds
  the chunk count and the SHA-256 of the whole payload; chunks are written before
  the head, so an interrupted write reads back as corrupt, never as a different
  approval.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import queue
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import keyring
import keyring.backend
import keyring.errors

from desktop.core.approvals import ApprovalError
from desktop.store import os_keyring
from desktop.store.os_keyring import SECRET_SERVICE, WHERE, KeyringUnavailable
from desktop.store.os_keyring import backend_name as backend_name

DEFAULT_SERVICE = "skill-catalog-approvals"
SERVICE_ENV = "SKILL_CATALOG_APPROVALS_SERVICE"
TIMEOUT_ENV = "SKILL_CATALOG_KEYRING_TIMEOUT"
# Long enough for a person to type a keyring password at an unlock prompt.
DEFAULT_TIMEOUT = 120.0
CHUNK_CHARS = 1000
MAX_CHUNKS = 4096
BLOB_FORMAT = 1
# What a stored value may unpack to: far above any approval (a 512-file record is about
# 100 KB), far below what a damaged or planted entry could make a read swallow.
MAX_VALUE_BYTES = 64 * 1024 * 1024

T = TypeVar("T")


def default_service() -> str:
    return os.environ.get(SERVICE_ENV) or DEFAULT_SERVICE


def default_timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def choose_backend(backend: keyring.backend.KeyringBackend | None = None) -> Any:
    """The OS keyring backend (:func:`desktop.store.os_keyring.choose_backend`), or its
    :class:`ApprovalError` ``no-backend``/``refused-backend`` saying what it means for
    approvals."""
    try:
        return os_keyring.choose_backend(backend)
    except KeyringUnavailable as exc:
        raise KeyringUnavailable(
            exc.code,
            f"{exc.message} Nothing was stored and every skill counts as not approved.",
        ) from exc


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.changed = False  # something was written or removed under it

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise timeout_error(self.seconds)


# What a failure left behind, said at the end of its message: a change the keyring
# dropped out of halfway must not be reported as one that never began.
NOTHING_CHANGED = "Nothing was changed."
PARTLY_CHANGED = (
    "Part of the change had been written when it stopped: `skill-catalog approvals` lists "
    "what is stored now."
)


def timeout_error(seconds: float, *, changed: bool = False) -> ApprovalError:
    return ApprovalError(
        "timeout",
        f"The OS keyring did not answer within {seconds:g} s (an unlock prompt may be "
        f"waiting). {PARTLY_CHANGED if changed else NOTHING_CHANGED} Skills count as not "
        "approved until it answers.",
    )


def run_bounded(fn: Callable[[Deadline], T], seconds: float) -> T:
    """Run ``fn`` on a worker thread; give up (``timeout``) after ``seconds``.

    ``fn`` receives the :class:`Deadline` and must check it before each keyring
    call, so work abandoned after a timeout writes nothing more; it sets the deadline's
    ``changed`` once it has written or removed anything.
    """
    deadline = Deadline(seconds)
    results: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

    def work() -> None:
        try:
            results.put((True, fn(deadline)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            results.put((False, exc))

    threading.Thread(target=work, name="approvals-keyring", daemon=True).start()
    try:
        ok, value = results.get(timeout=seconds)
    except queue.Empty:
        deadline.end = 0.0
        raise timeout_error(seconds, changed=deadline.changed) from None
    if ok:
        return cast(T, value)
    raise value


# Seconds to wait before asking again after a transient Secret Service failure.
TRANSIENT_RETRIES = (0.1, 0.4, 1.0)


# What the Secret Service answers while it is briefly away (see ``transient``).
TRANSIENT_MESSAGES = (
    "Object does not exist at path",
    "Message recipient disconnected from message bus without replying",
)


def transient(exc: BaseException) -> bool:
    """Whether a keyring failure is the Secret Service being briefly away.

    - gnome-keyring reloading its collection: while it writes a keyring file and reads
      it back, the default collection can briefly resolve to an object that no longer
      exists ("Object does not exist at path"); secretstorage then tries to create a
      new default collection, which needs a prompt. Asked again a moment later, the
      collection is there. Seen under many quick writes (a 512-file approval is stored
      as several chunks).
    - gnome-keyring ending in the middle of a call (it aborts now and then under many
      quick connections; D-Bus reports the call as "disconnected ... without
      replying"). The session bus, or the desktop's service manager, starts it again
      on the next call. Every call asked again is one that can be repeated: a read, a
      write of the whole value, a removal (a second removal finds nothing).
    """
    seen: BaseException | None = exc
    while seen is not None:
        if any(message in str(seen) for message in TRANSIENT_MESSAGES):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def translate(exc: Exception, backend: object, *, changed: bool = False) -> ApprovalError:
    """A keyring exception as an :class:`ApprovalError` with a message for people;
    ``changed``: something had already been written or removed when it failed."""
    if isinstance(exc, ApprovalError):
        return exc
    name = backend_name(backend)
    outcome = PARTLY_CHANGED if changed else NOTHING_CHANGED
    if isinstance(exc, keyring.errors.KeyringLocked):
        return ApprovalError(
            "locked",
            f"The OS keyring ({name}) is locked and was not unlocked: the unlock prompt was "
            "refused or could not be shown. Unlock it (for example in Seahorse / Keychain "
            f"Access) and try again. {outcome} Skills count as not approved.",
        )
    if isinstance(exc, keyring.errors.NoKeyringError):
        return ApprovalError("no-backend", f"No OS keyring is available ({exc}); {WHERE}.")
    return ApprovalError(
        "keyring-error",
        f"The OS keyring ({name}) failed: {type(exc).__name__}: {exc}. {outcome}",
    )


@dataclass(slots=True)
class KeyringBlobs:
    """Named JSON values in one keyring service, chunked and compressed."""

    backend: Any
    service: str
    deadline: Deadline

    def map(self, fn: Callable[[Any], T], items: list[Any]) -> list[T]:
        """``[fn(x) for x in items]``: one keyring call at a time, for every backend.

        The Secret Service backend opens a D-Bus connection per call, and the first
        thing each asks is a collection property. gnome-keyring (42.1, and reports of
        later versions) aborts on such a property asked for by a client it has not
        finished registering, which calls overlapping on new connections make likely:
        reading a 512-file approval on four connections at once brought it down within
        a few rounds, one at a time never did.
        """
        return [fn(x) for x in items]

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        for pause in (*TRANSIENT_RETRIES, None):
            self.deadline.check()
            try:
                return fn(*args)
            except ApprovalError:
                raise
            except Exception as exc:  # every backend failure becomes a message
                if pause is None or not transient(exc):
                    changed = self.deadline.changed
                    raise translate(exc, self.backend, changed=changed) from exc
            time.sleep(pause)
        raise AssertionError("unreachable")

    def _get(self, name: str) -> str | None:
        def get() -> str | None:
            try:
                return cast("str | None", self.backend.get_password(self.service, name))
            except UnicodeDecodeError as exc:
                # One entry's bytes, not the keyring: only that entry cannot be used.
                raise ApprovalError(
                    "unparseable",
                    f"the keyring entry {name!r} cannot be read (it is not UTF-8 text: "
                    f"{exc.reason} at byte {exc.start})",
                ) from None

        return self._call(get)

    def _set(self, name: str, value: str) -> None:
        self._call(self.backend.set_password, self.service, name, value)
        self.deadline.changed = True

    def _delete(self, name: str) -> bool:
        """Remove one entry; ``False`` when there was none."""

        def delete() -> bool:
            try:
                self.backend.delete_password(self.service, name)
            except keyring.errors.PasswordDeleteError:
                return False
            self.deadline.changed = True
            return True

        return self._call(delete)

    def names(self) -> list[str] | None:
        """Every entry name of the service, where the backend can list them (the Secret
        Service, by the attributes keyring gives its items); ``None`` elsewhere."""
        if backend_name(self.backend) != SECRET_SERVICE:
            return None

        def listed() -> list[str]:
            from contextlib import closing

            scheme = self.backend.schemes[self.backend.scheme]
            collection = self.backend.get_preferred_collection()
            with closing(collection.connection):
                items = collection.search_items({scheme["service"]: self.service})
                found = {item.get_attributes().get(scheme["username"]) for item in items}
            return sorted(n for n in found if isinstance(n, str))

        return self._call(listed)

    def read_head(self, name: str) -> dict[str, Any] | None:
        raw = self._get(name)
        if raw is None:
            return None
        try:
            head = json.loads(raw)
            if not isinstance(head, dict) or head.get("v") != BLOB_FORMAT:
                raise ValueError("unknown layout")
            n = head["n"]
            if not isinstance(n, int) or not 0 <= n <= MAX_CHUNKS:
                raise ValueError("bad chunk count")
            if not isinstance(head["sha256"], str):
                raise TypeError("bad checksum")
        except RecursionError:
            # JSON nested deeper than a parser goes: no layout this program writes.
            raise ApprovalError(
                "unparseable", f"the keyring entry {name!r} cannot be read (nested too deep)"
            ) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise ApprovalError(
                "unparseable", f"the keyring entry {name!r} cannot be read ({exc})"
            ) from exc
        return head

    def read(self, name: str) -> Any | None:
        """The stored JSON value, ``None`` if absent; ``unparseable`` if damaged."""
        head = self.read_head(name)
        if head is None:
            return None
        if head["n"] == 0:
            payload = head.get("data")
        else:
            pieces = self.map(self._get, [f"{name}.{i}" for i in range(1, head["n"] + 1)])
            payload = None if any(p is None for p in pieces) else "".join(pieces)  # type: ignore[arg-type]
        if not isinstance(payload, str):
            raise ApprovalError("unparseable", f"the keyring entry {name!r} is incomplete")
        if hashlib.sha256(payload.encode("ascii", "replace")).hexdigest() != head["sha256"]:
            raise ApprovalError(
                "unparseable",
                f"the keyring entry {name!r} is incomplete or was altered (checksum mismatch)",
            )
        try:
            unpacker = zlib.decompressobj()
            raw = unpacker.decompress(base64.b64decode(payload, validate=True), MAX_VALUE_BYTES)
            if unpacker.unconsumed_tail:
                raise ValueError(f"it unpacks to more than {MAX_VALUE_BYTES:,} bytes")
            if not unpacker.eof:
                raise ValueError("it ends before its compressed data does")
            return json.loads(raw)
        except RecursionError:
            raise ApprovalError(
                "unparseable", f"the keyring entry {name!r} cannot be decoded (nested too deep)"
            ) from None
        except (ValueError, zlib.error) as exc:
            raise ApprovalError(
                "unparseable", f"the keyring entry {name!r} cannot be decoded ({exc})"
            ) from exc

    def write(self, name: str, value: Any) -> int:
        """Store ``value``; returns the number of keyring entries it took."""
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        payload = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
        digest = hashlib.sha256(payload.encode("ascii")).hexdigest()
        try:
            old = self.read_head(name)
        except ApprovalError:
            old = None
        old_n = old["n"] if old else 0
        inline = {"v": BLOB_FORMAT, "n": 0, "sha256": digest, "data": payload}
        if len(json.dumps(inline)) <= CHUNK_CHARS:
            self._set(name, json.dumps(inline))
            n = 0
        else:
            chunks = [payload[i : i + CHUNK_CHARS] for i in range(0, len(payload), CHUNK_CHARS)]
            if len(chunks) > MAX_CHUNKS:
                raise ApprovalError("too-large", f"{name!r} is too large for the keyring")
            self.map(
                lambda item: self._set(*item), [(f"{name}.{i}", c) for i, c in enumerate(chunks, 1)]
            )
            n = len(chunks)
            self._set(name, json.dumps({"v": BLOB_FORMAT, "n": n, "sha256": digest}))
        self.map(self._delete, [f"{name}.{i}" for i in range(n + 1, old_n + 1)])
        return n + 1

    def delete(self, name: str) -> bool:
        """Remove a value and its chunks (even when the head is damaged)."""
        try:
            head = self.read_head(name)
            count = head["n"] if head else 0
        except ApprovalError:
            count = None
        found = self._delete(name)
        if count is not None:
            for i in range(1, count + 1):
                self._delete(f"{name}.{i}")
        else:  # damaged head: remove chunks until the first missing one
            i = 1
            while i <= MAX_CHUNKS and self._delete(f"{name}.{i}"):
                i += 1
        return found

"""The OS keyring: the one door every secret goes through, with one policy.

Every secret the program keeps is in the OS keyring, read and written here:

- approvals, in service ``skill-catalog-approvals`` (chunked records:
  :mod:`desktop.store.approvals_keyring` over the backend chosen here);
- sign-ins (tokens and client registrations), saved sources' secrets
  (``${keyring:ENTRY}``) and the values given for servers' inputs, in service
  ``skill-catalog`` (:func:`get_secret`, :func:`set_secret`, :func:`delete_secret`).

**The policy** (:func:`choose_backend`), the same for every secret: only a backend that
keeps secrets in the operating system's keyring is used (Secret Service / KWallet on
Linux, Keychain on macOS, Credential Manager on Windows). A plaintext, encrypted-file,
``null``, ``fail`` or unknown backend (``keyrings.alt``, a ``PYTHON_KEYRING_BACKEND`` or
``keyringrc.cfg`` naming one) is refused with one message (:data:`WHERE` says where
secrets can live); nothing ever falls back to a file. What a caller does without a
keyring is its own: approvals count as not approved, a sign-in or an input is kept for
the run only, a source holding a secret is not saved.
"""

from __future__ import annotations

import contextlib
from typing import Any

import keyring
import keyring.backend
import keyring.errors

from desktop.core.approvals import ApprovalError

# The service of every secret but approvals (sign-ins, saved sources' secrets, inputs).
SECRETS_SERVICE = "skill-catalog"

# Backends that keep secrets in the operating system's keyring.
OS_BACKENDS = frozenset(
    {
        "keyring.backends.SecretService.Keyring",
        "keyring.backends.libsecret.Keyring",
        "keyring.backends.kwallet.DBusKeyring",
        "keyring.backends.kwallet.DBusKeyringKWallet4",
        "keyring.backends.macOS.Keyring",
        "keyring.backends.Windows.WinVaultKeyring",
    }
)
CHAINER = "keyring.backends.chainer.ChainerBackend"
SECRET_SERVICE = "keyring.backends.SecretService.Keyring"

WHERE = (
    "secrets (approvals, sign-ins, saved sources' secrets) are kept only in the OS "
    "keyring: Secret Service (GNOME Keyring, KWallet) on Linux, Keychain on macOS, "
    "Credential Manager on Windows"
)


class KeyringUnavailable(ApprovalError):
    """No OS keyring can be used: code ``no-backend`` (none there) or
    ``refused-backend`` (the one configured is not an OS keyring)."""


def backend_name(backend: object) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def choose_backend(backend: keyring.backend.KeyringBackend | None = None) -> Any:
    """The OS keyring backend to use (``backend``, or the one keyring is configured
    with), or :class:`KeyringUnavailable` saying why none is: the one policy."""
    if backend is None:
        try:
            backend = keyring.get_keyring()
        except Exception as exc:  # a bad PYTHON_KEYRING_BACKEND or keyringrc.cfg
            raise KeyringUnavailable(
                "no-backend", f"No OS keyring could be loaded ({exc}); {WHERE}."
            ) from exc
    name = backend_name(backend)
    if name == CHAINER:
        chained = [b for b in getattr(backend, "backends", []) if backend_name(b) in OS_BACKENDS]
        if chained:
            return chained[0]
    if name in OS_BACKENDS:
        return backend
    if name in ("keyring.backends.fail.Keyring", CHAINER):
        raise KeyringUnavailable(
            "no-backend", f"No OS keyring is available (keyring backend {name}); {WHERE}."
        )
    raise KeyringUnavailable(
        "refused-backend",
        f"The keyring backend {name} is not an OS keyring and is not used; {WHERE}.",
    )


def why_unavailable(backend: keyring.backend.KeyringBackend | None = None) -> str:
    """Why no secret can be kept, as a clause (``""`` when the OS keyring can be used):
    the policy's message with its first letter in lower case."""
    try:
        choose_backend(backend)
    except KeyringUnavailable as exc:
        text = exc.message.rstrip(".")
        return text[:1].lower() + text[1:]
    return ""


def get_secret(entry: str, service: str = SECRETS_SERVICE) -> str | None:
    """The secret stored as ``entry``, ``None`` when there is none. Raises
    :class:`KeyringUnavailable` without an OS keyring, and the backend's error when it
    fails (locked, gone)."""
    value = choose_backend().get_password(service, entry)
    return value if isinstance(value, str) else None


def set_secret(entry: str, value: str, service: str = SECRETS_SERVICE) -> None:
    """Store ``value`` as ``entry``; raises as :func:`get_secret` does."""
    choose_backend().set_password(service, entry, value)


def delete_secret(entry: str, service: str = SECRETS_SERVICE) -> bool:
    """Remove ``entry``; whether there was one. Without a usable keyring nothing is
    stored there, so nothing is removed (``False``)."""
    try:
        backend = choose_backend()
    except KeyringUnavailable:
        return False
    with contextlib.suppress(keyring.errors.PasswordDeleteError):
        if backend.get_password(service, entry) is not None:
            backend.delete_password(service, entry)
            return True
    return False

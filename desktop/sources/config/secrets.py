"""Secrets of saved sources: kept in the OS keyring, referenced as ``${keyring:ENTRY}``.

Literal secrets in env values, headers, command arguments and URLs are found here,
moved to the keyring when a source is saved, and looked up again at connect time.
Every secret goes through :mod:`desktop.store.os_keyring` and its one policy: without
an OS keyring (none, or a plaintext or unknown backend, which is refused) a secret is
never written anywhere: the caller is told why.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from typing import Protocol
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from desktop.core.model import SourceSpec
from desktop.core.secrets import looks_secret, only_placeholders, secret_arg_spans

# desktop.store.os_keyring.SECRETS_SERVICE, written here so that reading the settings
# does not load the keyring (it is loaded when a secret is first needed).
KEYRING_SERVICE = "skill-catalog"


class SecretStore(Protocol):
    def available(self) -> tuple[bool, str]: ...
    def set(self, entry: str, value: str) -> None: ...
    def get(self, entry: str) -> str | None: ...
    def delete(self, entry: str) -> None: ...


class KeyringSecrets:
    """Secrets in the OS keyring, under service ``skill-catalog``
    (:mod:`desktop.store.os_keyring`)."""

    def available(self) -> tuple[bool, str]:
        from desktop.store import os_keyring

        why = os_keyring.why_unavailable()
        return not why, why

    def set(self, entry: str, value: str) -> None:
        from desktop.store import os_keyring

        os_keyring.set_secret(entry, value)

    def get(self, entry: str) -> str | None:
        try:
            from desktop.store import os_keyring

            return os_keyring.get_secret(entry)
        except Exception:  # noqa: BLE001 - a locked or missing keyring resolves to nothing
            return None

    def delete(self, entry: str) -> None:
        # Already gone, or no keyring: nothing to delete.
        try:
            from desktop.store import os_keyring

            os_keyring.delete_secret(entry)
        except Exception:  # noqa: BLE001 - a locked or failing keyring: nothing removed
            return


def secret_lookup(entry: str) -> str | None:
    """For :func:`desktop.core.placeholders.resolve`: a ``${keyring:ENTRY}`` value."""
    return KeyringSecrets().get(entry)


def secret_entry(label: str, where: str, name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    return f"source/{label}/{where}/{safe}"


def secret_places(spec: SourceSpec) -> list[tuple[str, str, str]]:
    """(where, name, literal secret) for every secret in a spec: env, headers, args, URL."""
    found = [
        (where, name, value)
        for where, pairs in (("env", spec.env), ("header", spec.headers))
        for name, value in pairs
        if not only_placeholders(value) and looks_secret(name, value)
    ]
    for i, offset in secret_arg_spans(spec.command):
        found.append(("arg", str(i), spec.command[i][offset:]))
    if spec.transport == "http":
        parts = urlsplit(spec.endpoint)
        password = parts.password
        if password and not only_placeholders(password):
            found.append(("url", "password", password))
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if value and not only_placeholders(value) and looks_secret(name, value):
                found.append(("url", name, value))
    return found


def secure_spec(spec: SourceSpec, store: SecretStore) -> tuple[SourceSpec | None, list[str]]:
    """The spec with literal secrets moved to the keyring, or None when that is impossible."""
    places = secret_places(spec)
    if not places:
        return spec, []
    ok, why = store.available()
    if not ok:
        names = ", ".join(_describe_place(w, n) for w, n, _ in places)
        message = (
            f"{spec.label} was not saved: it holds a secret ({names}) and {why}. "
            "Put the secret in an environment variable and write ${env:NAME} in its place."
        )
        return None, [message]
    refs: dict[tuple[str, str], str] = {}
    for where, name, value in places:
        entry = secret_entry(spec.label, where, name)
        try:
            store.set(entry, value)
        except Exception as exc:  # noqa: BLE001 - a locked keyring, a refused write
            return None, [f"{spec.label} was not saved: the keyring refused the secret ({exc})"]
        refs[(where, name)] = "${keyring:" + entry + "}"
    env = tuple((n, refs.get(("env", n), v)) for n, v in spec.env)
    headers = tuple((n, refs.get(("header", n), v)) for n, v in spec.headers)
    command = list(spec.command)
    for i, offset in secret_arg_spans(spec.command):
        command[i] = command[i][:offset] + refs[("arg", str(i))]
    endpoint = spec.endpoint
    if spec.transport == "stdio":
        endpoint = shlex.join(command)
    elif any(w == "url" for w, _, _ in places):
        endpoint = _url_with_refs(spec.endpoint, refs)
    secured = replace(spec, env=env, headers=headers, command=tuple(command), endpoint=endpoint)
    return secured, []


def _describe_place(where: str, name: str) -> str:
    if where == "arg":
        return f"command argument {name}"
    if where == "url":
        return f"URL {name}"
    return f"{where} {name}"


def _url_with_refs(url: str, refs: dict[tuple[str, str], str]) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if ("url", "password") in refs:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:{refs[('url', 'password')]}@{host}"
    query = "&".join(
        f"{quote(k, safe='')}={refs.get(('url', k)) or quote(v, safe='')}"
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))

"""A source's settings with their placeholders resolved, for one connection.

The placeholders themselves (what they are, how each is resolved) are
:mod:`desktop.core.placeholders`. Pure: no I/O, no global state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from desktop.core.model import SourceSpec
from desktop.core.placeholders import (
    Placeholder,
    UnresolvedPlaceholder,
    find_placeholders,
    resolve,
)


def placeholder_values(
    spec: SourceSpec,
    environ: Mapping[str, str],
    *,
    inputs: Mapping[str, str] | None = None,
    secret_lookup: Callable[[str], str | None] | None = None,
) -> list[str]:
    """What the placeholders a spec's secrets are written with stand for: every one in an
    env value or a header (the README's way to pass a secret is ``${env:NAME}``), and
    keyring and input references anywhere. Whatever their names, messages mask them."""
    found = [p for _, v in (*spec.env, *spec.headers) for p in find_placeholders(v)]
    found += [
        p for t in (*spec.command, spec.endpoint) for p in find_placeholders(t) if p.kind != "env"
    ]
    values: list[str] = []
    for p in found:
        try:
            value = resolve(p.text, environ, inputs=inputs, secret_lookup=secret_lookup)
        except UnresolvedPlaceholder:
            continue
        if len(value) >= 4:
            values.append(value)
    return values


def resolve_spec(
    spec: SourceSpec,
    environ: Mapping[str, str],
    *,
    inputs: Mapping[str, str] | None = None,
    secret_lookup: Callable[[str], str | None] | None = None,
) -> SourceSpec:
    """The spec with its command, URL, env and headers resolved, for one connection.

    Never store or display the result: it holds the secrets themselves. Every
    missing placeholder is reported in one :class:`UnresolvedPlaceholder`.
    """
    kw = {"inputs": inputs, "secret_lookup": secret_lookup}
    missing: list[Placeholder] = []

    def one(value: str) -> str:
        try:
            return resolve(value, environ, **kw)  # type: ignore[arg-type]
        except UnresolvedPlaceholder as exc:
            missing.extend(p for p in exc.missing if p not in missing)
            return value

    command = tuple(one(a) for a in spec.command)
    endpoint = one(spec.endpoint) if spec.transport == "http" else spec.endpoint
    env = tuple((k, one(v)) for k, v in spec.env)
    headers = tuple((k, one(v)) for k, v in spec.headers)
    if missing:
        raise UnresolvedPlaceholder(missing)
    return replace(spec, command=command, endpoint=endpoint, env=env, headers=headers)

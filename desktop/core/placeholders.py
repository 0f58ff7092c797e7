"""Placeholders in server settings: find them and resolve them.

Imported server settings keep their placeholders as written; they are resolved only
when a connection is made, from the environment given at that moment:

- ``${VAR}`` and ``${env:VAR}``: an environment variable (``${VAR:-default}`` gives a
  default when the variable is unset or empty, as Claude Code writes it).
- ``${input:ID}``: a value VS Code prompts for; resolved from an ``inputs`` mapping
  (the values the user gave, which the caller keeps).
- ``${keyring:ENTRY}``: a secret the program stored in the OS keyring; resolved by a
  ``secret_lookup`` callable passed in by the caller (this module touches no keyring).

What is secret in a setting and how it is shown is :mod:`desktop.core.secrets`; a
whole source's settings are resolved by :mod:`desktop.core.resolved_spec`.

Pure: no I/O, no global state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from desktop.core.secrets import PLACEHOLDER_RE


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``${...}`` occurrence: its kind (env|input|keyring), name and exact text."""

    kind: str
    name: str
    text: str
    default: str | None = None


class UnresolvedPlaceholder(ValueError):
    """Raised by :func:`resolve` when a placeholder has no value; names what is missing."""

    def __init__(self, missing: list[Placeholder]) -> None:
        self.missing = missing
        super().__init__("not set: " + ", ".join(describe(p) for p in missing))


def describe(p: Placeholder) -> str:
    if p.kind == "env":
        return f"environment variable {p.name}"
    if p.kind == "input":
        return (
            f"input {p.name} (a value to be given: the window asks for it, the command line "
            f"on a terminal or with --input {p.name}=VALUE)"
        )
    return f"keyring entry {p.name}"


def find_placeholders(value: str) -> list[Placeholder]:
    """Every placeholder in ``value``, in order."""
    return [_placeholder(m) for m in PLACEHOLDER_RE.finditer(value)]


def _placeholder(m: re.Match[str]) -> Placeholder:
    kind = m.group("kind") or "env"
    return Placeholder(kind, m.group("name"), m.group(0), m.group("default"))


def resolve(
    value: str,
    environ: Mapping[str, str],
    *,
    inputs: Mapping[str, str] | None = None,
    secret_lookup: Callable[[str], str | None] | None = None,
) -> str:
    """``value`` with every placeholder replaced; raises :class:`UnresolvedPlaceholder`.

    ``environ`` is the environment at connect time (``os.environ`` in the program,
    a plain dict in tests). An env variable that is unset uses its ``:-default``
    when one is written; otherwise it is missing (an empty value is a value).
    """
    missing: list[Placeholder] = []

    def sub(m: re.Match[str]) -> str:
        p = _placeholder(m)
        found: str | None
        if p.kind == "env":
            found = _env_value(p, environ)
        elif p.kind == "input":
            found = inputs.get(p.name) if inputs is not None else None
        else:
            found = secret_lookup(p.name) if secret_lookup is not None else None
        if found is None:
            missing.append(p)
            return m.group(0)
        return found

    out = PLACEHOLDER_RE.sub(sub, value)
    if missing:
        raise UnresolvedPlaceholder(missing)
    return out


def _env_value(p: Placeholder, environ: Mapping[str, str]) -> str | None:
    """An env placeholder's value: the variable, else its ``:-default``, else None."""
    found = environ.get(p.name)
    if p.default is not None and not found:
        found = p.default
    return found


def expand_env(value: str, environ: Mapping[str, str]) -> str:
    """``value`` with its environment placeholders replaced where they can be (an unset
    one without a default stays as written); keyring and input references are kept:
    they name one secret whatever it holds. Gives the server an endpoint stands for."""

    def sub(m: re.Match[str]) -> str:
        p = _placeholder(m)
        found = _env_value(p, environ) if p.kind == "env" else None
        return m.group(0) if found is None else found

    return PLACEHOLDER_RE.sub(sub, value)


def resolve_pairs(
    pairs: Iterable[tuple[str, str]],
    environ: Mapping[str, str],
    *,
    inputs: Mapping[str, str] | None = None,
    secret_lookup: Callable[[str], str | None] | None = None,
) -> dict[str, str]:
    """Resolve the values of (name, value) pairs (env or headers); names are kept.

    Every missing placeholder across all pairs is reported in one exception.
    """
    out: dict[str, str] = {}
    missing: list[Placeholder] = []
    for name, value in pairs:
        try:
            out[name] = resolve(value, environ, inputs=inputs, secret_lookup=secret_lookup)
        except UnresolvedPlaceholder as exc:
            missing.extend(p for p in exc.missing if p not in missing)
    if missing:
        raise UnresolvedPlaceholder(missing)
    return out

"""Values a server's settings ask the user for: VS Code's ``${input:ID}``.

VS Code asks for each input the first time it starts the server and keeps the value in
its secret storage. So does the catalog: the window asks in a dialog, the command line
on a terminal or takes ``--input ID=VALUE``, and the value is kept in the OS keyring for
that server and input (entry ``input/LABEL/ID`` under service ``skill-catalog``). A
value is written nowhere else; without a usable keyring it is kept for this run only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.core.model import SourceSpec
from desktop.core.placeholders import find_placeholders
from desktop.sources.config.secrets import KeyringSecrets, SecretStore

# Values given during this run, by (server label, input id): the keyring's stand-in
# when it cannot be used, and what a connection made meanwhile reads first.
_GIVEN: dict[tuple[str, str], str] = {}


@dataclass(frozen=True, slots=True)
class InputRequest:
    """One input a server needs: its id, what its config file says of it, and the
    server's label (who asks)."""

    label: str
    id: str
    description: str = ""
    password: bool = False

    def prompt(self) -> str:
        """The question, naming the server and the input."""
        what = f" ({self.description})" if self.description else ""
        return f"{self.label} needs input {self.id}{what}"


def input_entry(label: str, input_id: str) -> str:
    """The keyring entry that keeps one server's value of one input."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", input_id)
    return f"input/{label}/{safe}"


def input_ids(spec: SourceSpec) -> list[str]:
    """The ``${input:ID}`` a spec refers to (command, URL, env, headers), in order."""
    texts = [*spec.command, spec.endpoint, *(v for _, v in (*spec.env, *spec.headers))]
    out: list[str] = []
    for text in texts:
        for p in find_placeholders(text):
            if p.kind == "input" and p.name not in out:
                out.append(p.name)
    return out


def input_requests(spec: SourceSpec) -> list[InputRequest]:
    """Every input the spec refers to, described by the VS Code file it came from."""
    ids = input_ids(spec)
    if not ids:
        return []
    declared = {}
    if spec.imported_from is not None:
        from desktop.sources.config.importers.vscode import input_declarations

        declared = input_declarations(Path(spec.imported_from[1]))
    out: list[InputRequest] = []
    for input_id in ids:
        d = declared.get(input_id)
        out.append(
            InputRequest(spec.label, input_id, d.description if d else "", bool(d and d.password))
        )
    return out


def stored_input(label: str, input_id: str, store: SecretStore | None = None) -> str | None:
    """The value given for this server's input: this run's, else the keyring's."""
    given = _GIVEN.get((label, input_id))
    if given is not None:
        return given
    return (store or KeyringSecrets()).get(input_entry(label, input_id))


def missing_inputs(spec: SourceSpec, store: SecretStore | None = None) -> list[InputRequest]:
    """The inputs of a server that has not been given a value yet."""
    if spec.kind != "mcp" or spec.untrusted:
        return []
    return [r for r in input_requests(spec) if stored_input(spec.label, r.id, store) is None]


def remember_input(label: str, input_id: str, value: str, store: SecretStore | None = None) -> str:
    """Keep a value given for a server's input: in the keyring, and for this run.

    Returns "" when the keyring kept it, else why it is kept for this run only."""
    _GIVEN[(label, input_id)] = value
    store = store or KeyringSecrets()
    ok, why = store.available()
    if not ok:
        return why
    try:
        store.set(input_entry(label, input_id), value)
    except Exception as exc:  # noqa: BLE001 - a locked keyring, a refused write
        return f"the keyring refused it ({exc})"
    return ""


class InputValues(Mapping[str, str]):
    """One server's given input values, as the mapping placeholders are resolved from
    (each looked up when it is asked for)."""

    def __init__(self, label: str, store: SecretStore | None = None) -> None:
        self._label = label
        self._store = store

    def __getitem__(self, key: str) -> str:
        value = stored_input(self._label, key, self._store)
        if value is None:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

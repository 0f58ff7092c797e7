"""Trust in the MCP servers a project folder's config files ask for.

A cloned repository's ``.mcp.json``, ``.vscode/mcp.json`` or ``.cursor/mcp.json`` is
written by whoever wrote the repository. A server entry in one of them is started or
connected to only once the user trusted it. Trust is given per project folder (the
repository root, or the working directory outside a repository) and bound to the
digest of each server's entry as written: an entry that changes later (another
command, URL, header or variable) is untrusted again, and what changed is shown.

Pure: no I/O. The trust records are read and written by ``desktop.sources.config.trust_store``.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.model import SourceSpec
from desktop.core.secrets import display_value, mask_endpoint, redact_command
from desktop.core.states import TrustState
from desktop.core.visible import cut, one_line

NEW = TrustState.NEW  # never trusted
CHANGED = TrustState.CHANGED  # trusted once, written otherwise since
TRUSTED = TrustState.TRUSTED


class EntryTooDeep(ValueError):
    """An entry nested too deeply to be digested (and so to be trusted)."""


def entry_digest(entry: Any) -> str:
    """``sha256:<hex>`` of a server entry as written (its JSON, keys sorted).

    Any change to what the entry says (command, arguments, URL, env, headers, type,
    and keys this program does not read) gives another digest.
    """
    try:
        text = json.dumps(
            entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
        )
    except (RecursionError, ValueError):
        raise EntryTooDeep("nested too deeply to read") from None
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# Characters of one part of an entry (a command line, a URL, a value) shown before it
# is cut, saying how long it was.
SHOWN_CHARS = 300
COMMAND_CHARS = 1000
# Parts of one entry shown (the command or URL first, then env and headers); past it,
# one line says how many more there are.
ENTRY_PARTS = 24
MORE = "not shown"


def _cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """One visible line: every control, line break and tab written as its code, then cut
    to ``limit`` characters, saying how long it was."""
    return cut(one_line(text), limit)


def _parts(spec: SourceSpec, value: Callable[[str, str], str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if spec.transport == "stdio":
        out.append(("command", _cut(shlex.join(spec.command), COMMAND_CHARS)))
    else:
        out.append(("url", _cut(spec.endpoint, COMMAND_CHARS)))
    out += [(f"env {_cut(k, 80)}", _cut(value(k, v))) for k, v in spec.env]
    out += [(f"header {_cut(k, 80)}", _cut(value(k, v))) for k, v in spec.headers]
    return out


def summary(spec: SourceSpec) -> tuple[tuple[str, str], ...]:
    """What a project's server entry would run or contact, as the file writes it:
    ``(what, shown)`` pairs such as ``("command", "npx -y server")``, ``("url", ...)``,
    ``("env API_KEY", "${env:API_KEY}")``, the command or URL first.

    Nothing is masked: every value is the repository's own text (placeholders such as
    ``${GITHUB_TOKEN}`` stay placeholders; nothing of the user's environment or keyring
    is filled in before trust). Every part, names included, is one visible line: a line
    break or a control in it is written as its code, so no part can draw a line of its
    own; each is cut at :data:`SHOWN_CHARS` (the command or URL at
    :data:`COMMAND_CHARS`), saying how long it was."""
    return tuple(_parts(spec, lambda _name, v: v))


def masked_summary(spec: SourceSpec) -> tuple[tuple[str, str], ...]:
    """:func:`summary` with the values that look secret masked: what a trust record and
    the listing keep and show of an entry."""
    parts = _parts(spec, display_value)
    if spec.transport == "stdio":
        parts[0] = ("command", _cut(shlex.join(redact_command(spec.command)), COMMAND_CHARS))
    else:
        parts[0] = ("url", _cut(mask_endpoint("http", spec.endpoint), COMMAND_CHARS))
    return tuple(parts)


def bounded(parts: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """At most :data:`ENTRY_PARTS` parts of an entry, the last saying how many more
    there are (``("not shown", "40 more settings (63 in all)")``)."""
    if len(parts) <= ENTRY_PARTS:
        return tuple(parts)
    left = len(parts) - (ENTRY_PARTS - 1)
    return (*parts[: ENTRY_PARTS - 1], (MORE, f"{left} more settings ({len(parts)} in all)"))


def _part_digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def changes(record: Mapping[str, Any], spec: SourceSpec) -> list[str]:
    """What changed in an entry since its trust ``record`` was kept, one line each: the
    value before as the record kept it (masked where it looked secret), the value now
    as the file writes it.

    A part is changed when its digest in the record differs (a record without digests:
    when its masked value differs). An entry whose digest changed although no part did
    changed in a setting not shown: said so."""
    before = record.get("shown")
    old: dict[str, str] = {}
    if isinstance(before, list):
        old = {str(p[0]): str(p[1]) for p in before if isinstance(p, list) and len(p) == 2}
    digests = record.get("parts")
    old_digests = digests if isinstance(digests, dict) else {}
    now = dict(summary(spec))
    now_masked = dict(masked_summary(spec))
    lines: list[str] = []
    for what, value in now.items():
        if what not in old:
            lines.append(f"{what} added: {value}")
        elif what in old_digests:
            if old_digests[what] != _part_digest(value):
                lines.append(f"{what}: {old[what]} → {value}")
        elif old[what] != now_masked.get(what):
            lines.append(f"{what}: {old[what]} → {value}")
    lines += [f"{what} removed (was {old[what]})" for what in old if what not in now]
    if not lines:
        lines.append("a setting not shown changed")
    if len(lines) > ENTRY_PARTS:
        lines[ENTRY_PARTS - 1 :] = [f"{len(lines) - ENTRY_PARTS + 1} more changes"]
    return lines


@dataclass(frozen=True, slots=True)
class ProjectServer:
    """One server entry in a project folder's config file, and whether it is trusted.

    ``project`` is the folder trust is given for; ``file`` the config file that asks
    for the server; ``state`` is :data:`NEW`, :data:`CHANGED` or :data:`TRUSTED`, and
    ``changed`` says what changed since it was trusted.
    """

    project: str
    file: str
    server_id: str
    digest: str
    spec: SourceSpec
    state: str = NEW
    changed: tuple[str, ...] = ()
    # Why it is not started whatever its trust (switched off, or the same server as one
    # listed before it): it waits for no trust, and is not counted.
    skipped: str = ""

    @property
    def key(self) -> str:
        """The entry's key within its project's trust record (file and server id)."""
        return f"{self.file}#{self.server_id}"

    @property
    def trusted(self) -> bool:
        return self.state == TRUSTED

    @property
    def shown(self) -> tuple[tuple[str, str], ...]:
        """What the entry would run or contact, as written, for a person to review: one
        visible line per part, the command or URL first, at most :data:`ENTRY_PARTS`."""
        return bounded(summary(self.spec))

    @property
    def verb(self) -> str:
        return "start" if self.spec.transport == "stdio" else "connect to"

    def reason(self) -> str:
        """Why the server is not started, naming the file that asks for it."""
        file = _cut(self.file)
        if self.state == CHANGED:
            what = "; ".join(self.changed)
            return f"{file} changed this server since you trusted it ({what})"
        return f"{file} asks to {self.verb} it, and this folder is not trusted"


def judge(
    project: str,
    file: str,
    server_id: str,
    digest: str,
    spec: SourceSpec,
    record: Mapping[str, Mapping[str, Any]] | None,
) -> ProjectServer:
    """The entry's trust state against its project's trust record (``key -> {digest,
    shown}``), or no record at all."""
    server = ProjectServer(project, file, server_id, digest, spec)
    kept = (record or {}).get(server.key)
    if kept is None:
        return server
    if kept.get("digest") == digest:
        return ProjectServer(project, file, server_id, digest, spec, TRUSTED)
    return ProjectServer(
        project, file, server_id, digest, spec, CHANGED, tuple(changes(kept, spec))
    )


def waiting(servers: Iterable[ProjectServer]) -> list[ProjectServer]:
    """The servers that wait for the user's trust: not trusted as written, and started
    once trusted (not switched off, not the same server as one listed before them).
    The one count of untrusted servers that ``trust``, ``list`` and the window say."""
    return [s for s in servers if not s.trusted and not s.skipped]


def record_entry(server: ProjectServer) -> dict[str, Any]:
    """What the trust record keeps for a trusted entry: its digest, its masked summary
    (to say what changed later) and a digest of each part as written (to tell which
    part changed). Never a secret in clear."""
    return {
        "digest": server.digest,
        "shown": [list(p) for p in masked_summary(server.spec)],
        "parts": {what: _part_digest(value) for what, value in summary(server.spec)},
    }


def one_line_summary(servers: Iterable[ProjectServer], how: str) -> str:
    """``Not started: 2 servers asked for by /p/.mcp.json (a, b); to review and trust
    them: skill-catalog trust /p`` — one line for the command line."""
    by_file: dict[str, list[str]] = {}
    for s in servers:
        by_file.setdefault(s.file, []).append(s.server_id)
    parts = []
    for file, ids in by_file.items():
        n = len(ids)
        names = ", ".join(_cut(i)[:60] for i in ids[:5]) + (", …" if n > 5 else "")
        parts.append(f"{n} server{'s' if n != 1 else ''} asked for by {file} ({names})")
    return f"Not started: {'; '.join(parts)}; to review and trust them: {how}"

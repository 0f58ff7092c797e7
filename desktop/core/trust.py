"""Trust in the MCP servers a project folder's config files ask for.

A cloned repository's ``.mcp.json``, ``.vscode/mcp.json`` or ``.cursor/mcp.json`` is
written by whoever wrote the repository. A server entry in one of them is started or
connected to only once the user trusted it. Trust is given per project folder (the
repository root, or the working directory outside a repository) and bound to the
digest of each server's entry as written: an entry that changes later (another
command, URL, header or variable) is untrusted again, and what changed is shown.

Pure: no I/O. The trust records are read and written by ``desktop.sources.trust_store``.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.model import SourceSpec
from desktop.core.secrets import display_value, mask_endpoint, redact_command
from desktop.core.visible import one_line

# A value shown in a summary is cut to this many characters.
SHOWN_CHARS = 300

NEW = "new"  # never trusted
CHANGED = "changed"  # trusted once, written otherwise since
TRUSTED = "trusted"


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


def _cut(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def summary(spec: SourceSpec) -> tuple[tuple[str, str], ...]:
    """What a server entry would run or contact, secrets masked: ``(what, shown)`` pairs
    such as ``("command", "npx -y server")``, ``("url", ...)``, ``("env API_KEY", "****")``,
    ``("header Authorization", "Bearer ****")``."""
    out: list[tuple[str, str]] = []
    if spec.transport == "stdio":
        out.append(("command", _cut(shlex.join(redact_command(spec.command)))))
    else:
        out.append(("url", _cut(mask_endpoint("http", spec.endpoint))))
    out += [(f"env {k}", _cut(display_value(k, v))) for k, v in spec.env]
    out += [(f"header {k}", _cut(display_value(k, v))) for k, v in spec.headers]
    return tuple(out)


def changes(
    before: Iterable[tuple[str, str]] | Mapping[str, str], after: Iterable[tuple[str, str]]
) -> list[str]:
    """What changed between two summaries, one line each; masked values stay masked.

    An entry whose digest changed although every shown value is the same changed in a
    value shown masked, or in a setting not shown: said so."""
    old = dict(before.items() if isinstance(before, Mapping) else before)
    new = dict(after)
    lines: list[str] = []
    for what, value in new.items():
        if what not in old:
            lines.append(f"{what} added: {value}")
        elif old[what] != value:
            lines.append(f"{what}: {old[what]} → {value}")
    lines += [f"{what} removed (was {old[what]})" for what in old if what not in new]
    if not lines:
        lines.append("a masked value or a setting not shown changed")
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

    @property
    def key(self) -> str:
        """The entry's key within its project's trust record (file and server id)."""
        return f"{self.file}#{self.server_id}"

    @property
    def trusted(self) -> bool:
        return self.state == TRUSTED

    @property
    def shown(self) -> tuple[tuple[str, str], ...]:
        return summary(self.spec)

    @property
    def verb(self) -> str:
        return "start" if self.spec.transport == "stdio" else "connect to"

    def reason(self) -> str:
        """Why the server is not started, naming the file that asks for it."""
        if self.state == CHANGED:
            what = "; ".join(self.changed)
            return f"{self.file} changed this server since you trusted it ({what})"
        return f"{self.file} asks to {self.verb} it, and this folder is not trusted"


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
    before = kept.get("shown")
    shown_before: dict[str, str] = {}
    if isinstance(before, list):
        shown_before = {str(p[0]): str(p[1]) for p in before if isinstance(p, list) and len(p) == 2}
    return ProjectServer(
        project, file, server_id, digest, spec, CHANGED, tuple(changes(shown_before, summary(spec)))
    )


def record_entry(server: ProjectServer) -> dict[str, Any]:
    """What the trust record keeps for a trusted entry: its digest and its masked
    summary (to say what changed later). Never a secret in clear."""
    return {"digest": server.digest, "shown": [list(p) for p in server.shown]}


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

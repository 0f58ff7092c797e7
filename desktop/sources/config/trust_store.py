"""The user's trust in project folders, kept with the user's settings.

``trust.json`` sits beside ``sources.json`` in the user config folder (platformdirs'
choice, ``$XDG_CONFIG_HOME/skill-catalog`` on Linux), never inside a project: a
repository cannot trust itself. For each project folder it keeps the digest of every
server entry the user trusted, and its masked summary (to say what changed later).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from desktop.core.trust import ProjectServer, judge, record_entry
from desktop.sources.config.settings_file import locked, write_json
from desktop.sources.config.user_dirs import config_dir

T = TypeVar("T")

TRUST_FILE = "trust.json"
FORMAT_VERSION = 1
MAX_TRUST_BYTES = 16 * 1024 * 1024


def trust_path(environ: Mapping[str, str] | None = None) -> Path:
    return config_dir(environ) / TRUST_FILE


class TrustNotSaved(Exception):
    """The trust file was not written; the message says why."""


@dataclass(slots=True)
class TrustStore:
    """The trust records, by project folder: ``project -> {entry key -> record}``."""

    path: Path
    projects: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    problem: str | None = None  # the file could not be read: nothing is trusted

    def record(self, project: str) -> dict[str, dict[str, Any]]:
        return self.projects.get(project, {})

    def judge(self, server: ProjectServer) -> ProjectServer:
        return judge(
            server.project,
            server.file,
            server.server_id,
            server.digest,
            server.spec,
            self.record(server.project),
        )

    def trust(self, servers: Iterable[ProjectServer]) -> int:
        """Trust these entries as they are written now; returns how many."""
        n = 0
        for s in servers:
            self.projects.setdefault(s.project, {})[s.key] = record_entry(s)
            n += 1
        return n

    def untrust(self, project: str) -> int:
        """Forget every entry trusted for ``project``; returns how many."""
        return len(self.projects.pop(project, {}))

    def save(self) -> None:
        """Write the records (see :func:`change_trust` for a change made whole)."""
        if self.problem is not None:
            raise TrustNotSaved(
                f"{self.path} was not changed: {self.problem}. Mend the file or move it aside"
            )
        data = {"version": FORMAT_VERSION, "projects": self.projects}
        with locked(self.path):
            write_json(self.path, data, ensure_ascii=False)


def change_trust(
    change: Callable[[TrustStore], T],
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> T:
    """Change the trust file whole: under its lock, read it again, apply ``change`` and
    write it when it changed, so that no other command's change is lost or undone. Returns what
    ``change`` returns; raises :class:`TrustNotSaved` or ``OSError`` when nothing was
    written."""
    p = path or trust_path(environ)
    with locked(p):
        store = load_trust(p)
        before = json.dumps(store.projects, sort_keys=True, default=str)
        result = change(store)
        if json.dumps(store.projects, sort_keys=True, default=str) != before:
            store.save()
    return result


def load_trust(path: Path | None = None, environ: Mapping[str, str] | None = None) -> TrustStore:
    """Read the trust file; one that cannot be read trusts nothing and says why."""
    p = path or trust_path(environ)
    store = TrustStore(p)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        return store
    except OSError as exc:
        store.problem = f"it cannot be read ({exc.strerror or exc})"
        return store
    if size > MAX_TRUST_BYTES:
        store.problem = f"it is {size} bytes, larger than a trust file can be"
        return store
    try:
        data = json.loads(p.read_bytes().decode("utf-8"))
    except RecursionError:
        store.problem = "it could not be read (nested too deeply)"
        return store
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        store.problem = f"it could not be read ({exc})"
        return store
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        store.problem = "it is not a trust file"
        return store
    version = data.get("version", FORMAT_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version > FORMAT_VERSION:
        store.problem = "a newer version wrote it"
    for project, record in projects.items():
        if isinstance(record, dict):
            store.projects[str(project)] = {
                str(k): v for k, v in record.items() if isinstance(v, dict)
            }
    return store

"""The user's trust in project folders, kept with the user's settings.

``trust.json`` sits beside ``sources.json`` in the user config folder (platformdirs'
choice, ``$XDG_CONFIG_HOME/skill-catalog`` on Linux), never inside a project: a
repository cannot trust itself. For each project folder it keeps the digest of every
server entry the user trusted, and its masked summary (to say what changed later).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.trust import ProjectServer, judge, record_entry
from desktop.sources.user_dirs import config_dir

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
        if self.problem is not None:
            raise TrustNotSaved(
                f"{self.path} was not changed: {self.problem}. Mend the file or move it aside"
            )
        data = {"version": FORMAT_VERSION, "projects": self.projects}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, self.path)


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

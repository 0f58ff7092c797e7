"""What an importer hands back: proposed servers and the problems met on the way."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.model import SourceSpec
from desktop.core.secrets import display_value, mask_endpoint


@dataclass(frozen=True, slots=True)
class ImportedServer:
    """One MCP server read from another client's config file, not yet saved.

    ``label`` is the host-assigned label proposed for it (unique among what was
    imported together); ``server_id`` is the name the file gave it. ``notes``
    say what was adjusted on the way (for the import preview). The ``repr`` never
    shows env or header values in full.
    """

    label: str
    spec: SourceSpec
    source_file: str
    client: str
    server_id: str
    notes: tuple[str, ...] = ()
    # ``sha256:`` digest of the entry as written (what trust is bound to).
    digest: str = ""
    # The project folder whose trust this server needs, when a project's file asks
    # for it; None for the user's own configs and files named on the command line.
    project: str | None = None

    @property
    def key(self) -> str:
        """A stable key for this entry (file and server id), for switching it off."""
        return f"import:{self.source_file}#{self.server_id}"

    def preview(self) -> dict[str, object]:
        """What an import preview shows: secrets redacted, placeholders kept."""
        s = self.spec
        return {
            "label": self.label,
            "server_id": self.server_id,
            "client": self.client,
            "file": self.source_file,
            "transport": s.transport,
            "endpoint": redact_endpoint(s),
            "env": {k: display_value(k, v) for k, v in s.env},
            "headers": {k: display_value(k, v) for k, v in s.headers},
            "enabled": s.enabled,
            "notes": list(self.notes),
        }

    def __repr__(self) -> str:
        p = self.preview()
        return (
            f"ImportedServer(label={self.label!r}, client={self.client!r}, "
            f"transport={p['transport']!r}, endpoint={p['endpoint']!r}, "
            f"env={p['env']!r}, headers={p['headers']!r}, file={self.source_file!r})"
        )


def redact_endpoint(spec: SourceSpec) -> str:
    """The endpoint for display: secrets in a command line, URL query or userinfo masked."""
    return mask_endpoint(spec.transport, spec.endpoint, spec.command)


@dataclass(slots=True)
class ImportResult:
    """Servers read from one or more files, and ``(file, reason)`` for what was not."""

    servers: list[ImportedServer] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)

    def extend(self, other: ImportResult) -> None:
        self.servers.extend(other.servers)
        self.problems.extend(other.problems)

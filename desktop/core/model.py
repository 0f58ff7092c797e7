"""The catalog's nouns: origins, skill files, skills, problems.

A skill is always addressed by its identity (source label + URI; see
:mod:`desktop.core.identity`), never by its name and never by its URI alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.identity import (
    Identity,
    SkillIdentity,
    SourceIdentity,
    SourceKind,
    Transport,
    skill_id,
)
from desktop.core.secrets import mask_endpoint
from desktop.core.source_kinds import KindInfo, kind_info
from desktop.core.states import EntryState, SignIn, SourceState, member
from desktop.core.states import Severity as Severity

# Severity of a problem (desktop.core.states.Severity): invalid (the entry can never be
# loaded: unparseable frontmatter, missing name), error (the Agent Skills rules are
# broken, but a lenient reader still loads it), warning, info. A problem may be
# made with the word or the member; ``Problem.level`` is always the member.
SeverityWord = Severity | Literal["invalid", "error", "warning", "info"]
SEVERITIES: tuple[str, ...] = tuple(Severity)

# States of a listed skill (the CLI's `state` field).
LISTED = EntryState.LISTED
INVALID = EntryState.INVALID
OVER_LIMIT = EntryState.OVER_LIMIT
DYNAMIC = EntryState.DYNAMIC

DYNAMIC_RESOURCES = "dynamic"
OPENED_BY_URI = "opened-by-uri"  # the code of the note on a skill opened by URI


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong or notable about a skill, with a stable code."""

    code: str
    message: str
    severity: SeverityWord = Severity.ERROR

    @property
    def level(self) -> Severity:
        """The severity as its type: its word for people, rank and icon."""
        return Severity(self.severity)

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "severity": self.severity}


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill's manifest: URI, ``sha256:<hex>`` digest, byte size."""

    uri: str
    digest: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"uri": self.uri, "digest": self.digest, "size": self.size}


@dataclass(frozen=True, slots=True)
class Origin(SourceIdentity):
    """Where a skill came from: its source's identity, and how it is shown.

    ``kind`` is ``local``, ``mcp`` or a kind added in ``desktop/sources/``; what it
    means is asked of :attr:`kind_info`. ``transport`` is how the source is reached
    (``folder``, ``stdio``, ``http``, …); ``endpoint`` is the resolved folder path, the
    command line, the URL or the file.
    """

    @property
    def kind_info(self) -> KindInfo:
        """What this source's kind is (:mod:`desktop.core.source_kinds`)."""
        return kind_info(self.kind)

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as shown to people: secrets in a command or URL masked."""
        if self.kind_info.path_endpoint:
            return self.endpoint
        return _masked_endpoint(self.transport, self.endpoint)

    def describe(self) -> str:
        """The source in a message: its label and where it is (cut to a readable length)."""
        from desktop.core.visible import cut

        return f"{cut(self.label)} ({self.transport} {cut(self.shown_endpoint)})"

    def to_json(self) -> dict[str, str]:
        return {
            "label": self.label,
            "kind": self.kind,
            "transport": self.transport,
            "endpoint": self.shown_endpoint,
        }


@functools.lru_cache(maxsize=512)
def _masked_endpoint(transport: str, endpoint: str) -> str:
    # Asked once per skill (the filter's text, the Origin column), for a handful of
    # servers: parsing the command line each time took 0.3 s over 3,000 skills.
    return mask_endpoint(transport, endpoint)


@dataclass(frozen=True, slots=True)
class LoadingConfig:
    """How a host would load the skill, read leniently.

    Each value says whether it was declared by the skill or is a default.
    """

    strategy: str = "dynamic"
    strategy_declared: bool = False
    priority: float | int | None = None
    priority_declared: bool = False
    triggers: tuple[str, ...] = ()
    triggers_declared: bool = False
    tool_affinity: tuple[str, ...] = ()
    tool_affinity_declared: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "strategy_declared": self.strategy_declared,
            "priority": self.priority,
            "priority_declared": self.priority_declared,
            "triggers": list(self.triggers),
            "triggers_declared": self.triggers_declared,
            "tool_affinity": list(self.tool_affinity),
            "tool_affinity_declared": self.tool_affinity_declared,
        }


Resources = tuple[SkillFile, ...] | Literal["dynamic"] | None


@dataclass(slots=True)
class Skill:
    """One skill entry: frontmatter and manifest, never its body.

    ``uri`` is the ``SKILL.md`` URI for server skills and the path of ``SKILL.md``
    relative to the scanned folder for local skills. ``resources`` is the manifest,
    ``"dynamic"``, or ``None`` when the entry had no usable manifest (invalid).
    For local skills, resource URIs are relative to the skill's own folder.
    """

    origin: Origin
    uri: str
    name: str
    description: str
    frontmatter: dict[str, Any] | None
    resources: Resources
    loading: LoadingConfig = field(default_factory=LoadingConfig)
    problems: list[Problem] = field(default_factory=list)
    path: str | None = None
    nested_in: str | None = None
    qualified_name: str = ""
    # Where a published skill's bytes come from, for ``--json`` and the page: for a git
    # source {"repository", "commit", "path"} (and "plugin"), for a web index {"index",
    # "url", "digest"}. Empty for folders and servers, whose origin says it all.
    provenance: dict[str, str] = field(default_factory=dict)

    @property
    def identity(self) -> Identity:
        """The id: source label and URI."""
        return Identity(self.origin.label, self.uri)

    @property
    def full_identity(self) -> SkillIdentity:
        """The source as configured and the URI (approval keys and cache folders)."""
        return SkillIdentity(self.origin, self.uri)

    @property
    def id(self) -> str:
        return skill_id(self.origin.label, self.uri)  # Identity's, without building one

    @property
    def kind(self) -> str:
        return self.origin.kind

    @property
    def kind_info(self) -> KindInfo:
        """What its source's kind is (:mod:`desktop.core.source_kinds`)."""
        return self.origin.kind_info

    @property
    def is_dynamic(self) -> bool:
        return self.resources == DYNAMIC_RESOURCES

    @property
    def opened_by_uri(self) -> bool:
        """Known from ``skills/get`` alone: no listing of its server carries it."""
        return any(p.code == OPENED_BY_URI for p in self.problems)

    @property
    def files(self) -> tuple[SkillFile, ...]:
        """The manifest as a tuple (empty for dynamic or invalid entries)."""
        if isinstance(self.resources, tuple):
            return self.resources
        return ()

    @property
    def state(self) -> EntryState:
        if any(p.severity == Severity.INVALID for p in self.problems):
            return INVALID
        if self.is_dynamic:
            return DYNAMIC
        if any(p.code.startswith("limit-") for p in self.problems):
            return OVER_LIMIT
        return LISTED

    @property
    def loadable(self) -> bool:
        """Whether files may be read against this entry (not invalid, not over a limit)."""
        return self.state.loadable

    @property
    def invalid_reasons(self) -> str:
        """Why the entry can never be loaded: its invalid problems' messages, joined."""
        return "; ".join(p.message for p in self.problems if p.severity == Severity.INVALID)

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)

    def file(self, uri: str) -> SkillFile | None:
        for f in self.files:
            if f.uri == uri:
                return f
        return None

    def allowed_tools(self) -> list[str]:
        """The ``allowed-tools`` a skill requests (a request for power)."""
        fm = self.frontmatter or {}
        raw = fm.get("allowed-tools")
        if isinstance(raw, str):
            return split_tools(raw)
        if isinstance(raw, list):
            return [str(t).strip() for t in raw if isinstance(t, str | int) and str(t).strip()]
        return []

    def has_errors(self) -> bool:
        return any(p.level.is_error for p in self.problems)


def split_tools(text: str) -> list[str]:
    """Split an ``allowed-tools`` string on spaces and commas outside parentheses.

    ``Bash(kubectl get:*) Read`` is two tools, ``Bash(kubectl get:*)`` and ``Read``.
    """
    tools: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                tools.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        tools.append("".join(current))
    return tools


@dataclass(slots=True)
class SourceStatus:
    """What happened when a source was read: shown beside its skills."""

    origin: Origin
    status: str = SourceState.OK  # a SourceState's word: ok | no-skills | error | ...
    message: str = ""
    protocol_version: str | None = None
    declares_extension: bool | None = None
    directory_read: bool = False
    instructions: str | None = None
    tools: list[str] | None = None
    ttl_ms: int | None = None
    notes: list[str] = field(default_factory=list)
    skill_count: int = 0
    # Sign-in of an HTTP server, a SignIn's word: "" (none asked) | required | again |
    # signed-in.
    sign_in: str = SignIn.NONE
    # The plugins the source publishes (a marketplace's, or a plugin at its root), each
    # as ``--json`` gives it: name, description, version, author, whether it is read
    # (and why not), and the URIs of its skills.
    plugins: list[dict[str, Any]] = field(default_factory=list)

    @property
    def state(self) -> SourceState | None:
        """The status as its type; ``None`` for a word no state has."""
        return member(SourceState, self.status)

    @property
    def sign_in_state(self) -> SignIn:
        """The sign-in as its type (a word no state has: none asked)."""
        return member(SignIn, self.sign_in) or SignIn.NONE

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = self.origin.to_json()
        out.update(
            {
                "status": self.status,
                "message": self.message,
                "skill_count": self.skill_count,
            }
        )
        if self.origin.kind_info.runs_code:  # a server's handshake and listing
            out.update(
                {
                    "protocol_version": self.protocol_version,
                    "declares_extension": self.declares_extension,
                    "directory_read": self.directory_read,
                    "instructions_length": len(self.instructions or ""),
                    "tools": self.tools,
                    "ttl_ms": self.ttl_ms,
                    "notes": list(self.notes),
                }
            )
            if self.sign_in:
                out["sign_in"] = self.sign_in
        elif self.notes:  # a folder's notes: links not followed, a limit that applied
            out["notes"] = list(self.notes)
        if self.plugins:
            out["plugins"] = [dict(p) for p in self.plugins]
        return out


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A configured source, before it is read.

    For ``stdio`` the ``command`` is the argv; ``endpoint`` is its display form
    (the command line). ``env`` and ``headers`` may hold ``${VAR}`` / ``${env:VAR}``
    placeholders, resolved only at connect time. ``agent`` names the agent that
    reads a detected folder (``None`` for folders the user added).
    ``connect_timeout`` is the seconds a server has to start and answer its handshake
    (``None``: the default for its kind of command). ``imported_from`` is (client, file)
    for a server read from a client's config file; ``sample`` marks a bundled sample.
    """

    label: str
    kind: SourceKind
    transport: Transport
    endpoint: str
    command: tuple[str, ...] = ()
    # Values may be secrets (an imported API key): kept out of repr and logs.
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    enabled: bool = True
    agent: str | None = None
    connect_timeout: float | None = None
    imported_from: tuple[str, str] | None = None
    sample: bool = False
    # Why this server must not be started or connected to (a project's config file asks
    # for it and the user has not trusted it); empty when nothing stands in the way.
    untrusted: str = ""

    @property
    def origin(self) -> Origin:
        return Origin(self.label, self.kind, self.transport, self.endpoint)

    @property
    def kind_info(self) -> KindInfo:
        """What this source's kind is (:mod:`desktop.core.source_kinds`)."""
        return kind_info(self.kind)

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as shown to people: secrets in a command or URL masked."""
        if self.kind_info.path_endpoint:
            return self.endpoint
        return mask_endpoint(self.transport, self.endpoint, self.command)

"""A source of skills, whatever its kind: the one shape the session and commands drive.

A :class:`Source` is one configured source (a :class:`SourceSpec`) made ready to be
read: it lists its skills (entries: frontmatter and manifest, never bodies), reads a
file of one of them verified (always through :mod:`desktop.sources.reader`), lists a
folder of one, lists itself again, and says who it is, where its skills come from,
whether it must be trusted before it runs anything, and how its last listing went.

A :class:`Kind` is what registers a kind of source (``desktop/sources/kinds.py``): its
:class:`~desktop.core.source_kinds.KindInfo` (words, icon, whether it runs anything),
how its command-line option and its saved form are read, and the factory that makes a
:class:`Source` of a spec. The folder (``folder_source.py``), the MCP server
(``mcp/source.py``), the zip archive (``zip_archive.py``), the git repository
(``git/kind.py``) and the web index (``web_index.py``) are the kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from desktop.core.identity import ServerKey
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import KindInfo
from desktop.core.states import SourceState

if TYPE_CHECKING:
    from desktop.core.verify import SkillVerification
    from desktop.sources.budgets import Budgets
    from desktop.sources.reader import ReadResult
    from desktop.store.cache import SkillCache

# A source as read: its state and its skills.
SourceRead = tuple[SourceStatus, list[Skill]]

NOT_HELD = "not part of the skill you hold"


@dataclass(frozen=True, slots=True)
class DirectoryChild:
    """One child of a folder listing, judged against the held entry."""

    uri: str
    name: str
    is_directory: bool
    in_held_entry: bool

    @property
    def note(self) -> str:
        """A warning for a file outside the held entry; empty otherwise."""
        return "" if self.is_directory or self.in_held_entry else NOT_HELD

    @property
    def what(self) -> str:
        """What the child is, for people: a folder, or a file in or out of the skill."""
        if self.is_directory:
            return "folder"
        return "in the skill you hold" if self.in_held_entry else NOT_HELD


def judge_children(skill: Skill, children: list[dict[str, Any]]) -> list[DirectoryChild]:
    """Children as a source lists them (``uri``, ``name``, ``mimeType``), each marked
    in or out of the held entry."""
    listed = {f.uri for f in skill.files}
    prefixes = {f.uri.rsplit("/", 1)[0] for f in skill.files}
    out: list[DirectoryChild] = []
    for child in children:
        uri = str(child.get("uri"))
        is_dir = child.get("mimeType") == "inode/directory"
        held = uri in listed or (
            is_dir and any(p == uri or p.startswith(uri + "/") for p in prefixes)
        )
        name = child.get("name") if isinstance(child.get("name"), str) else uri.rsplit("/", 1)[-1]
        out.append(DirectoryChild(uri, str(name)[:200], is_dir, held))
    return out


def manifest_children(skill: Skill, uri: str) -> list[DirectoryChild]:
    """The children of the folder ``uri`` of ``skill`` as its own manifest has them (a
    source whose listing is the whole truth: a folder, an archive)."""
    base = uri.rstrip("/")
    prefix = base + "/" if base else ""
    seen: dict[str, dict[str, Any]] = {}
    for f in skill.files:
        if not f.uri.startswith(prefix):
            continue
        head, sep, _rest = f.uri[len(prefix) :].partition("/")
        child = prefix + head
        if child not in seen:
            mime = "inode/directory" if sep else "application/octet-stream"
            seen[child] = {"uri": child, "name": head, "mimeType": mime}
    return judge_children(skill, list(seen.values()))


@dataclass
class SourceContext:
    """What the sources of one session share: budgets, the cache of verified bytes, and
    what a kind keeps for all its sources (the MCP kind's pool of connections), made on
    first use by ``make`` and kept by name."""

    budgets: Budgets | None = None
    cache: SkillCache | None = None
    shared_makers: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    _shared: dict[str, Any] = field(default_factory=dict)

    def shared(self, name: str) -> Any:
        """What the kind ``name`` shares among its sources (``None`` when nothing)."""
        if name not in self._shared:
            make = self.shared_makers.get(name)
            if make is None:
                return None
            self._shared[name] = make()
        return self._shared[name]


@runtime_checkable
class Source(Protocol):
    """One configured source made ready to be read (see the module)."""

    spec: SourceSpec

    @property
    def info(self) -> KindInfo:
        """What its kind is."""
        ...

    @property
    def identity(self) -> tuple[str, ServerKey]:
        """Its label and the key of what it reaches (:func:`~desktop.core.identity.server_key`)."""
        ...

    @property
    def provenance(self) -> str:
        """Where its skills come from, as a skill's origin shows it."""
        ...

    @property
    def needs_trust(self) -> bool:
        """Whether it must be trusted before it runs anything (and is not yet)."""
        ...

    @property
    def status(self) -> SourceStatus | None:
        """How its last listing went (``None`` before one)."""
        ...

    async def discover(self) -> SourceRead:
        """Its skills listed, and its state; never raises (a failure is the state)."""
        ...

    async def refresh(self) -> SourceRead:
        """Listed again, anything it held of the last listing dropped."""
        ...

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        """One listed file of ``skill``, verified against its entry."""
        ...

    async def verify(self, skill: Skill) -> SkillVerification:
        """Every file of ``skill`` read and verified."""
        ...

    async def list_folder(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        """The children of one folder of ``skill``; raises ``SourceError`` saying why
        when the source cannot list it."""
        ...

    async def close(self) -> None:
        """Give up what it holds open."""
        ...


class BaseSource:
    """What every kind's source does the same way; a kind's source overrides
    :meth:`_discover` and :meth:`read` (and what else differs)."""

    failed = "reading"  # what failed, in a status: "reading failed: …"

    def __init__(self, spec: SourceSpec, context: SourceContext | None = None) -> None:
        self.spec = spec
        self.context = context or SourceContext()
        self._status: SourceStatus | None = None

    @property
    def info(self) -> KindInfo:
        return self.spec.kind_info

    @property
    def identity(self) -> tuple[str, ServerKey]:
        return self.spec.label, self.spec.origin.server()

    @property
    def provenance(self) -> str:
        return self.spec.origin.describe()

    @property
    def needs_trust(self) -> bool:
        return bool(self.spec.untrusted)

    @property
    def status(self) -> SourceStatus | None:
        return self._status

    async def discover(self) -> SourceRead:
        if self.needs_trust:
            found: SourceRead = untrusted_status(self.spec), []
        else:
            try:
                found = await self._discover()
            except Exception as exc:  # noqa: BLE001 - one bad source must not stop the others
                found = (
                    SourceStatus(
                        self.spec.origin, SourceState.FAILED, f"{self.failed} failed: {exc}"
                    ),
                    [],
                )
        self._status = found[0]
        return found

    async def _discover(self) -> SourceRead:
        raise NotImplementedError

    async def refresh(self) -> SourceRead:
        return await self.discover()

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        raise NotImplementedError

    async def verify(self, skill: Skill) -> SkillVerification:
        from desktop.core.verify import summarize

        if not skill.loadable:
            return summarize(skill, [])
        results = [await self.read(skill, f.uri) for f in skill.files]
        return summarize(skill, [r.verification for r in results])

    async def list_folder(self, skill: Skill, uri: str) -> list[DirectoryChild]:
        return manifest_children(skill, uri)

    async def close(self) -> None:
        return None


def untrusted_status(spec: SourceSpec) -> SourceStatus:
    """The state of a source that is not started: what it would run or contact (the
    origin's masked endpoint, and its env and headers masked here) and which file asks."""
    from desktop.core.trust import masked_summary

    notes = [f"would set {what}: {shown}" for what, shown in masked_summary(spec)[1:]]
    return SourceStatus(spec.origin, UNTRUSTED, f"not started: {spec.untrusted}", notes=notes)


UNTRUSTED = SourceState.UNTRUSTED


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of source as it registers (``desktop/sources/kinds.py``).

    ``info`` is what views and rules ask of it. ``option`` is its command-line option
    (``--zip``; empty when the command line has its own way, as ``--server`` does),
    read by ``parse`` (the option's value: ``[LABEL=]WHERE``); ``from_fields`` makes a
    spec of a label, a transport and where it is (``sources.json``, the source dialog).
    ``make`` is the factory: a :class:`Source` of a spec, sharing ``context``.
    """

    info: KindInfo
    make: Callable[[SourceSpec, SourceContext], Source]
    from_fields: Callable[[str, str, str], SourceSpec]
    option: str = ""
    metavar: str = ""
    help: str = ""
    parse: Callable[[str], SourceSpec] | None = None

    @property
    def name(self) -> str:
        return self.info.name

"""The web index kind (``--index [LABEL=]URL``): skills a website publishes in an Agent
Skills discovery index.

Listing reads ``URL/.well-known/agent-skills/index.json``, then
``URL/.well-known/skills/index.json`` (a URL ending in ``.json`` is read as the index
itself), in any of its three shapes (:mod:`desktop.sources.index_document`), and
fetches every skill's artifacts (:mod:`desktop.sources.web_fetch`: https only, except
on this computer; redirects checked again; every response bounded). Each artifact is
checked against the digest the index gives before anything of it is used: a skill
whose bytes do not match is listed as invalid, with the reason, and nothing of it is
shown. Archives are unpacked in memory (:mod:`desktop.sources.archives`). A v0.1 index
gives no digests: its files are hashed when first read and pinned
(:mod:`desktop.sources.index_pins`), and each of its skills says so.

The verified bytes are held for the listing's life; a read goes through
:mod:`desktop.sources.reader` like every other kind's, and is verified again there.
Each skill's ``provenance`` is ``{"index", "url", "digest"}``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from desktop.core.identity import LABEL_RE
from desktop.core.manifest import MAX_BYTES, check_limits, sha256_digest
from desktop.core.model import Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.source_kinds import KindInfo
from desktop.core.states import SourceState
from desktop.sources.base import BaseSource, Kind, SourceContext, SourceRead

if TYPE_CHECKING:
    from desktop.core.verify import SkillVerification
    from desktop.sources.index_document import IndexDocument, IndexEntry
    from desktop.sources.index_pins import Pins
    from desktop.sources.reader import ReadResult
    from desktop.sources.web_fetch import Fetcher

WELL_KNOWN = (".well-known/agent-skills/index.json", ".well-known/skills/index.json")
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024
MAX_LISTING_BYTES = 256 * 1024 * 1024  # fetched in all by one listing
NO_DIGEST = "index-no-digest"
DIGEST_MISMATCH = "index-digest"
UNREADABLE = "index-unreadable"
CHANGED = "index-changed"

INDEX = KindInfo(
    name="index",
    transports=("index",),
    word="web index",
    icon="web index",
    icons={"web index": ("applications-internet", "SP_DriveNetIcon")},
)


class IndexSourceError(ValueError):
    """A ``--index`` value or a saved index that cannot be a source."""


def index_addresses(url: str) -> tuple[str, ...]:
    """Where the index of ``url`` is looked for, in order."""
    if urlsplit(url).path.endswith(".json"):
        return (url,)
    base = url if url.endswith("/") else url + "/"
    return tuple(urljoin(base, path) for path in WELL_KNOWN)


@dataclass(slots=True)
class _Budget:
    """The bytes one listing may still fetch, all its skills together."""

    left: int


@dataclass(slots=True)
class _Read:
    """One skill as read: the entry, and the verified bytes of its files by URI."""

    skill: Skill
    data: dict[str, bytes]


class IndexSource(BaseSource):
    """A website's discovery index of skills, read over https."""

    failed = "reading the index"

    def __init__(self, spec: SourceSpec, context: SourceContext | None = None) -> None:
        super().__init__(spec, context)
        self._held: dict[str, bytes] = {}

    async def _discover(self) -> SourceRead:
        from desktop.core.words import count
        from desktop.sources.index_pins import Pins, pins_root
        from desktop.sources.web_fetch import Fetcher, FetchError

        async with Fetcher() as fetcher:
            try:
                document = await _read_index(fetcher, self.spec.endpoint)
            except FetchError as exc:
                return SourceStatus(self.spec.origin, SourceState.FAILED, str(exc)), []
            cache = self.context.cache
            pins = Pins(pins_root(cache.root if cache else None), document.url).load()
            budget = _Budget(MAX_LISTING_BYTES)
            reads = await asyncio.gather(
                *(
                    _read_entry(fetcher, self.spec, document, e, pins, budget)
                    for e in document.entries
                )
            )
        await asyncio.to_thread(pins.save)
        self._held = {uri: b for r in reads for uri, b in r.data.items()}
        skills = [r.skill for r in reads]
        ok = sum(1 for s in skills if s.loadable)
        message = f"{count(len(skills), 'skill')} in the index (v{document.shape})"
        if ok != len(skills):
            message += f", {count(len(skills) - ok, 'skill')} not readable"
        state = SourceState.OK if skills else SourceState.NO_SKILLS
        status = SourceStatus(
            self.spec.origin,
            state,
            message,
            notes=list(document.notes[:20]),
            skill_count=len(skills),
        )
        return status, skills

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        from desktop.sources.reader import read_file

        return await read_file(
            skill, uri, source=_HeldBytes(self, skill), cache=self.context.cache, refresh=refresh
        )

    async def verify(self, skill: Skill) -> SkillVerification:
        from desktop.sources.reader import verify_skill

        return await verify_skill(skill, source=_HeldBytes(self, skill))

    async def fetch_again(self, skill: Skill) -> None:
        """The skill's artifacts read from the index again (a source made after the
        listing holds none): checked against the index's digests as a listing checks
        them, and against the skill as it was listed by the reader."""
        from desktop.sources.index_document import IndexFormatError
        from desktop.sources.index_pins import Pins, pins_root
        from desktop.sources.web_fetch import Fetcher, FetchError

        index_url = skill.provenance.get("index", "")
        try:
            async with Fetcher() as fetcher:
                document = await _read_index(fetcher, index_url)
                entry = next(
                    (e for e in document.entries if f"{e.name}/SKILL.md" == skill.uri), None
                )
                if entry is None:
                    raise FetchError(f"the index no longer lists {skill.name}")
                cache = self.context.cache
                pins = Pins(pins_root(cache.root if cache else None), document.url).load()
                read = await _read_entry(fetcher, self.spec, document, entry, pins)
        except (FetchError, IndexFormatError) as exc:
            raise FileNotFoundError(str(exc)) from None
        if not read.data:
            raise FileNotFoundError(read.skill.invalid_reasons or "nothing was read")
        self._held.update(read.data)

    async def close(self) -> None:
        self._held = {}


class _HeldBytes:
    """The reader's byte source: the bytes a listing fetched and checked, or fetched
    again for ``skill`` when this source holds none of it."""

    def __init__(self, source: IndexSource, skill: Skill) -> None:
        self.source = source
        self.skill = skill

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes:
        if refresh or uri not in self.source._held:
            await self.source.fetch_again(self.skill)
        data = self.source._held.get(uri)
        if data is None:
            raise FileNotFoundError(f"{uri} is no longer in what the index gives")
        return data[: limit or len(data)]

    def mark_stale(self, uri: str) -> None:
        return None

    def describe_error(self, exc: BaseException) -> str:
        return f"cannot read it from the index: {exc}"


async def _read_index(fetcher: Fetcher, url: str) -> IndexDocument:
    from desktop.sources.index_document import (
        MAX_INDEX_BYTES,
        IndexFormatError,
        parse_index,
    )
    from desktop.sources.web_fetch import FetchError

    tried: list[str] = []
    for address in index_addresses(url):
        try:
            fetched = await fetcher.get(address, MAX_INDEX_BYTES)
        except FetchError as exc:
            said = str(exc)
            if " answered 404" in said or " answered 410" in said:
                tried.append(address)
                continue
            raise
        try:
            return parse_index(fetched.data, fetched.url)
        except IndexFormatError as exc:
            raise FetchError(f"{fetched.url}: {exc}") from None
    raise FetchError(f"no discovery index found (tried {', '.join(tried)})")


async def _read_entry(
    fetcher: Fetcher,
    spec: SourceSpec,
    document: IndexDocument,
    entry: IndexEntry,
    pins: Pins,
    budget: _Budget | None = None,
) -> _Read:
    from desktop.sources.archives import ArchiveError, unpack
    from desktop.sources.web_fetch import FetchError

    provenance = {"index": document.url, "url": _shown_url(entry), "digest": _digest_of(entry)}
    if entry.refused:
        return _Read(_unreadable(spec, entry, entry.refused, provenance), {})
    files: dict[str, bytes] = {}
    try:
        for artifact in entry.artifacts:
            limit = MAX_ARCHIVE_BYTES if artifact.archive else MAX_BYTES
            if budget is not None and budget.left <= 0:
                why = (
                    f"not read: the index's skills are over {MAX_LISTING_BYTES:,} bytes in all "
                    "(the listing's budget)"
                )
                return _Read(_unreadable(spec, entry, why, provenance), {})
            fetched = await fetcher.get(artifact.url, limit)
            if budget is not None:
                budget.left -= len(fetched.data)
            got = sha256_digest(fetched.data)
            if artifact.digest and got != artifact.digest:
                why = (
                    f"{artifact.url} does not match the digest the index gives "
                    f"(the index says {artifact.digest}, the bytes read are {got}); "
                    "nothing of it is shown"
                )
                return _Read(_unreadable(spec, entry, why, provenance, DIGEST_MISMATCH), {})
            if artifact.archive:
                files.update(unpack(fetched.data, artifact.archive))
            else:
                files[artifact.path] = fetched.data
    except (FetchError, ArchiveError) as exc:
        return _Read(_unreadable(spec, entry, str(exc), provenance), {})
    except Exception as exc:  # noqa: BLE001 - one entry must not fail the whole index
        why = f"cannot read it: {exc or type(exc).__name__}"
        return _Read(_unreadable(spec, entry, why, provenance), {})
    return _skill_of(spec, entry, files, provenance, pins)


def _shown_url(entry: IndexEntry) -> str:
    if len(entry.artifacts) == 1:
        return entry.artifacts[0].url
    skill_md = next((a for a in entry.artifacts if a.path == "SKILL.md"), None)
    return skill_md.url if skill_md else ""


def _digest_of(entry: IndexEntry) -> str:
    if len(entry.artifacts) == 1:
        return entry.artifacts[0].digest
    skill_md = next((a for a in entry.artifacts if a.path == "SKILL.md"), None)
    return skill_md.digest if skill_md else ""


def _unreadable(
    spec: SourceSpec,
    entry: IndexEntry,
    why: str,
    provenance: dict[str, str],
    code: str = UNREADABLE,
) -> Skill:
    return Skill(
        origin=spec.origin,
        uri=f"{entry.name}/SKILL.md",
        name=entry.name,
        description=entry.description,
        frontmatter=None,
        resources=None,
        problems=[Problem(code, why, "invalid")],
        qualified_name=entry.name,
        provenance=provenance,
    )


def _skill_of(
    spec: SourceSpec,
    entry: IndexEntry,
    files: dict[str, bytes],
    provenance: dict[str, str],
    pins: Pins,
) -> _Read:
    from desktop.core.checks import check_frontmatter
    from desktop.core.loading import read_loading
    from desktop.core.skill_md import parse_skill_md

    problems: list[Problem] = []
    manifest: list[SkillFile] = []
    held: dict[str, bytes] = {}
    vouched = entry.vouched
    for path in sorted(files):
        uri = f"{entry.name}/{path}"
        digest = sha256_digest(files[path])
        if not vouched:
            pinned = pins.pin(uri, digest)
            if pinned != digest:
                problems.append(
                    Problem(
                        CHANGED,
                        f"{path} changed since the catalog first read it; the index vouches "
                        "for no digest, so the first bytes stay pinned and the new ones are "
                        "not shown",
                        "error",
                    )
                )
                digest = pinned
        manifest.append(SkillFile(uri, digest, len(files[path])))
        held[uri] = files[path]
    if not vouched:
        problems.append(
            Problem(
                NO_DIGEST,
                "the index vouches for no digest: the catalog hashed these files when it "
                "first read them and holds them to that",
                "warning",
            )
        )
    skill_md = files.get("SKILL.md")
    if skill_md is None:
        return _Read(
            _unreadable(spec, entry, "no SKILL.md in what the index gives", provenance), {}
        )
    parsed = parse_skill_md(skill_md)
    problems.extend(parsed.problems)
    frontmatter = parsed.frontmatter
    if frontmatter is not None:
        problems.extend(check_frontmatter(frontmatter, entry.name))
    loading, loading_problems = read_loading(frontmatter, None)
    problems.extend(loading_problems)
    problems.extend(check_limits(manifest))
    fm = frontmatter or {}
    declared = fm.get("name")
    description = fm.get("description")
    skill = Skill(
        origin=spec.origin,
        uri=f"{entry.name}/SKILL.md",
        name=declared if isinstance(declared, str) else entry.name,
        description=description if isinstance(description, str) else entry.description,
        frontmatter=frontmatter,
        resources=tuple(manifest),
        loading=loading,
        problems=problems,
        qualified_name=declared if isinstance(declared, str) else entry.name,
        provenance=provenance,
    )
    return _Read(skill, held)


def _from_fields(label: str, transport: str, where: str) -> SourceSpec:
    from desktop.sources.web_fetch import check_url, host_of

    url = where.strip()
    if not url:
        raise IndexSourceError("enter the address of a website that publishes skills")
    if "://" not in url:
        url = "https://" + url
    why = check_url(url)
    if why:
        raise IndexSourceError(why)
    label = label.strip() or host_of(url).replace(":", "-")
    if not LABEL_RE.match(label):
        raise IndexSourceError(
            f"the label {label!r} may use letters, digits, '.', '_' and '-' only"
        )
    return SourceSpec(label, INDEX.name, "index", url)


def _parse(value: str) -> SourceSpec:
    label, sep, rest = value.partition("=")
    if not sep or not LABEL_RE.match(label):
        label, rest = "", value
    return _from_fields(label, "index", rest)


def _make(spec: SourceSpec, context: SourceContext) -> IndexSource:
    return IndexSource(spec, context)


KIND = Kind(
    INDEX,
    _make,
    _from_fields,
    option="--index",
    metavar="[LABEL=]URL",
    help="a website's Agent Skills discovery index (https; read only)",
    parse=_parse,
)

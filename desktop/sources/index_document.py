"""An Agent Skills discovery index read: its three published shapes, one list of entries.

- **v0.1** (``/.well-known/skills/index.json``): ``skills[]`` with ``name``,
  ``description`` and ``files``, a list of paths under ``<index folder>/<name>/``.
  No digests: the catalog hashes what it reads first and keeps that (it pins them).
- **early v0.2**: a ``version``, and per skill ``files[{path, digest}]`` and/or a
  ``package{url, digest}`` (an archive of the whole skill).
- **v0.2** (``/.well-known/agent-skills/index.json``, with ``$schema``): per skill
  ``name``, ``type`` (``skill-md`` or ``archive``), ``description``, ``url`` (relative
  to the index) and ``digest``.

Parsing is pure: every address is made absolute against the index's own, every path
and name judged, every digest's form checked. An entry that cannot be read is kept
with the reason (the listing shows it); the index as a whole fails only when it is not
an index at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin

from desktop.core.manifest import DIGEST_RE
from desktop.sources.archives import kind_of, unsafe_name

MAX_INDEX_BYTES = 4 * 1024 * 1024
MAX_SKILLS = 5_000
MAX_FILES_LISTED = 512
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")

V01 = "0.1"
V02_EARLY = "0.2 (early)"
V02 = "0.2"


class IndexFormatError(ValueError):
    """A document that is not a discovery index, and why."""


@dataclass(frozen=True, slots=True)
class Artifact:
    """One thing to fetch: its address, the digest the index vouches for (empty when
    none) and, for a file, its path in the skill (empty for an archive)."""

    url: str
    digest: str = ""
    path: str = ""
    archive: str = ""  # for an archive, its kind (archives.TAR_GZ or archives.ZIP)


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One skill as the index lists it: what to fetch, or why it cannot be."""

    name: str
    description: str
    artifacts: tuple[Artifact, ...] = ()
    refused: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def vouched(self) -> bool:
        """Whether the index gives a digest for everything it lists."""
        return bool(self.artifacts) and all(a.digest for a in self.artifacts)


@dataclass(frozen=True, slots=True)
class IndexDocument:
    url: str
    shape: str
    entries: tuple[IndexEntry, ...]
    notes: tuple[str, ...] = ()


def parse_index(data: bytes, url: str) -> IndexDocument:
    """The index at ``url`` read from ``data``; :class:`IndexFormatError` when it is none."""
    if len(data) > MAX_INDEX_BYTES:
        raise IndexFormatError(f"the index is over {MAX_INDEX_BYTES:,} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise IndexFormatError(f"the index is not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("skills"), list):
        raise IndexFormatError("the index has no list of skills")
    raw = doc["skills"]
    notes: list[str] = []
    if len(raw) > MAX_SKILLS:
        notes.append(f"the index lists {len(raw):,} skills; the first {MAX_SKILLS:,} are read")
        raw = raw[:MAX_SKILLS]
    shape = _shape(doc)
    entries: list[IndexEntry] = []
    seen: set[str] = set()
    for n, item in enumerate(raw):
        if not isinstance(item, dict):
            notes.append(f"skill #{n + 1} is not an object; left out")
            continue
        name = item.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name) or name in ("..", "."):
            notes.append(f"skill #{n + 1} has no usable name ({str(name)[:60]!r}); left out")
            continue
        if name in seen:
            notes.append(f"{name!r} is listed twice; the first is read")
            continue
        seen.add(name)
        description = item.get("description")
        description = description if isinstance(description, str) else ""
        entries.append(_entry(shape, item, name, description[:4096], url))
    return IndexDocument(url, shape, tuple(entries), tuple(notes[:50]))


def _shape(doc: dict[str, object]) -> str:
    skills = [s for s in doc["skills"] if isinstance(s, dict)]  # type: ignore[attr-defined]
    if "$schema" in doc or any("url" in s or "type" in s for s in skills):
        return V02
    if "version" in doc or any("package" in s for s in skills):
        return V02_EARLY
    return V01


def _entry(
    shape: str, item: dict[str, object], name: str, description: str, url: str
) -> IndexEntry:
    artifacts: tuple[Artifact, ...]
    try:
        if shape == V02:
            artifacts = (_final(item, url),)
        elif shape == V02_EARLY:
            artifacts = _early(item, name, url)
        else:
            artifacts = _files(item.get("files"), name, url, with_digest=False)
    except IndexFormatError as exc:
        return IndexEntry(name, description, refused=str(exc))
    return IndexEntry(name, description, artifacts)


def _digest(value: object, what: str) -> str:
    if not isinstance(value, str) or not DIGEST_RE.match(value.lower()):
        raise IndexFormatError(f"the index gives {what} no sha256 digest (sha256:<64 hex>)")
    return value.lower()


def _address(value: object, url: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise IndexFormatError(f"the index gives {what} no address")
    return urljoin(url, value.strip())


def _final(item: dict[str, object], url: str) -> Artifact:
    kind = item.get("type", "skill-md")
    address = _address(item.get("url"), url, "the skill")
    digest = _digest(item.get("digest"), "the skill")
    if kind == "skill-md":
        return Artifact(address, digest, "SKILL.md")
    if kind == "archive":
        archive = kind_of(address)
        if not archive:
            raise IndexFormatError(f"{address} is an archive neither .tar.gz nor .zip")
        return Artifact(address, digest, archive=archive)
    raise IndexFormatError(f"the skill's type {str(kind)[:40]!r} is neither skill-md nor archive")


def _early(item: dict[str, object], name: str, url: str) -> tuple[Artifact, ...]:
    package = item.get("package")
    if isinstance(package, dict):
        address = _address(package.get("url"), url, "the package")
        archive = kind_of(address)
        if not archive:
            raise IndexFormatError(f"{address} is a package neither .tar.gz nor .zip")
        return (Artifact(address, _digest(package.get("digest"), "the package"), archive=archive),)
    return _files(item.get("files"), name, url, with_digest=True)


def _files(raw: object, name: str, url: str, *, with_digest: bool) -> tuple[Artifact, ...]:
    if not isinstance(raw, list) or not raw:
        raise IndexFormatError("the index lists no files for it")
    if len(raw) > MAX_FILES_LISTED:
        raise IndexFormatError(f"the index lists {len(raw):,} files; at most {MAX_FILES_LISTED}")
    base = urljoin(url, f"{name}/")
    out: list[Artifact] = []
    for f in raw:
        path, digest = (f.get("path"), f.get("digest")) if isinstance(f, dict) else (f, None)
        if not isinstance(path, str):
            raise IndexFormatError("a file of it has no path")
        why = unsafe_name(path)
        if why or path.startswith("/"):
            raise IndexFormatError(f"a file's path is refused: {why or path}")
        clean = "/".join(p for p in path.split("/") if p not in ("", "."))
        digest_ok = _digest(digest, clean) if with_digest else ""
        out.append(Artifact(urljoin(base, quote(clean)), digest_ok, clean))
    if "SKILL.md" not in {a.path for a in out}:
        raise IndexFormatError("the index lists no SKILL.md for it")
    if len({a.path for a in out}) != len(out):
        raise IndexFormatError("the index lists a file of it twice")
    return tuple(out)

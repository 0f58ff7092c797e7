"""A scanned folder, turned into what a Skills-extension server publishes.

Each skill directory becomes ``skill://<skill-path>/`` where ``<skill-path>`` is the
directory's POSIX path relative to the served folder (a skill at the folder's root
takes the folder's own name, and then encloses the others, whose paths start with it).
The first segment is written as a URI authority (a reg-name). Entries carry the
frontmatter verbatim and the full manifest (``uri``, ``digest``, ``size``) the local
scanner computed. Invalid skills (no usable name or description) are left out, each
with a warning.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from desktop.core.approvals import MANIFEST_GAPS
from desktop.core.checks import check_name
from desktop.core.model import Skill
from desktop.core.states import Severity
from desktop.core.strict_clients import CHECK_CODES, entry_breaches, refusal_summary
from desktop.core.visible import visible
from desktop.serve.content import DIRECTORY, MARKDOWN, mime_type

SCHEME = "skill://"
# Problems of a published skill that other hosts read or refuse differently.
# (Metadata that is not text is said with the rules strict clients refuse a listing for.)
INTEROPERABILITY_CODES = frozenset({"frontmatter-yaml-versions"})
SKILL_MD = "SKILL.md"
# RFC 3986 pchar minus '%': segment characters kept as they are.
_SEGMENT_SAFE = "!$&'()*+,;=:@-._~"
# The first segment is the URI's authority, a reg-name: no ':' (a port) nor '@' (userinfo).
_AUTHORITY_SAFE = "!$&'()*+,;=-._~"


_PLAIN_PATH = re.compile(r"[A-Za-z0-9/!$&'()*+,;=._~-]*")


def quote_path(posix_path: str) -> str:
    """Percent-encode each segment of a POSIX path after ``skill://``: the first as a
    reg-name (the URI's authority), the others as path segments."""
    if _PLAIN_PATH.fullmatch(posix_path):
        return posix_path
    first, *rest = posix_path.split("/")
    return "/".join(
        [quote(first, safe=_AUTHORITY_SAFE), *(quote(part, safe=_SEGMENT_SAFE) for part in rest)]
    )


def skill_file_uri(skill_path: str, file_path: str) -> str:
    return f"{SCHEME}{quote_path(f'{skill_path}/{file_path}')}"


@dataclass(frozen=True, slots=True)
class PublishedFile:
    """One file a client may read: its URI, where it lies, and what was listed."""

    uri: str
    path: str
    digest: str
    size: int
    mime: str
    name: str
    # The folder it must still lie in when read: that of the innermost skill listing it.
    base: str = ""


@dataclass(slots=True)
class PublishedSkill:
    """One skill as served: its ``SKILL.md`` URI, directory and wire entry."""

    uri: str
    skill_path: str
    directory: str
    entry: dict[str, Any]
    files: tuple[PublishedFile, ...]


@dataclass(slots=True)
class Publication:
    """Everything served from one scan of the folder, sorted by URI."""

    root: Path
    skills: list[PublishedSkill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    left_out: int = 0  # skills found but not published (each with its warning)
    _by_uri: dict[str, PublishedSkill] = field(default_factory=dict)
    _files: dict[str, PublishedFile] = field(default_factory=dict)
    _directories: dict[str, list[dict[str, Any]]] | None = None
    _sorted_files: list[PublishedFile] | None = None

    def skill(self, uri: str) -> PublishedSkill | None:
        return self._by_uri.get(uri) or self._by_uri.get(_requote(uri))

    def file(self, uri: str) -> PublishedFile | None:
        return self._files.get(uri) or self._files.get(_requote(uri))

    @property
    def files(self) -> list[PublishedFile]:
        """Every served file, sorted by URI (computed once)."""
        if self._sorted_files is None:
            self._sorted_files = sorted(self._files.values(), key=lambda f: f.uri)
        return self._sorted_files

    def directory(self, uri: str) -> list[dict[str, Any]] | None:
        """The direct children of a directory resource, or ``None`` if it is not one.

        The directories served are those holding a served file, so that each appears in
        its parent's listing: a folder on disk that holds none (empty, or only what is
        not served, like ``.git``) is not part of any skill's namespace.
        """
        if self._directories is None:
            self._directories = _directory_index(self._files.values())
        uri = uri.rstrip("/") if uri != SCHEME else uri
        found = self._directories.get(uri)
        if found is None:
            found = self._directories.get(_requote(uri))
        return found


def _requote(uri: str) -> str:
    """A URI written with raw characters, in the encoded form we publish."""
    if not uri.startswith(SCHEME):
        return uri
    return SCHEME + quote_path(unquote(uri[len(SCHEME) :]))


def skill_path_of(skill: Skill, root: Path, *, root_is_skill: bool = False) -> str:
    """The ``<skill-path>`` of a local skill: its directory relative to the folder.

    A skill at the folder's root takes the folder's name; when there is one, every other
    skill lies inside it, and its path starts with that name too (the enclosing skill's
    path is part of a nested skill's prefix, and the file has one URI).
    """
    parent = skill.uri.rpartition("/")[0]
    own = root.resolve().name or "skill"
    if parent in ("", "."):
        return own
    return f"{own}/{parent}" if root_is_skill else parent


def _root_is_skill(skills: list[Skill]) -> bool:
    return any(s.uri.rpartition("/")[0] in ("", ".") for s in skills)


def publish(root: Path, skills: list[Skill], *, nonconforming: bool = False) -> Publication:
    """Build the publication for ``skills`` scanned from ``root``.

    An entry that breaks a rule strict clients hold entries to (they refuse the whole
    listing for it) is left out with a warning, or with ``nonconforming`` published
    with a warning that those clients will refuse the listing.
    """
    pub = Publication(root=root)
    at_root = _root_is_skill(skills)
    for skill in sorted(skills, key=lambda s: s.uri):
        skill_path = skill_path_of(skill, root, root_is_skill=at_root)
        reason = _unpublishable(skill, skill_path)
        if reason is not None:
            pub.warnings.append(f"skipped {skill.uri}: {reason}")
            pub.left_out += 1
            continue
        published = _published_skill(root, skill, skill_path)
        breaches = entry_breaches(published.entry)
        if breaches and not nonconforming:
            pub.warnings.append(
                f"left out {published.uri}: {refusal_summary(breaches)}. "
                "--publish-nonconforming serves it anyway"
            )
            pub.left_out += 1
            continue
        if breaches:
            pub.warnings.append(
                f"published {published.uri} as asked, and strict clients will refuse the whole "
                f"listing: {refusal_summary(breaches)}"
            )
        if published.uri in pub._by_uri:
            pub.warnings.append(f"skipped {skill.uri}: its URI {published.uri} is already served")
            pub.left_out += 1
            continue
        pub._by_uri[published.uri] = published
        pub.skills.append(published)
        for f in published.files:
            # A nested skill's file is listed by each skill enclosing it too: it is bound
            # by the innermost one, as the scan that listed it was.
            known = pub._files.get(f.uri)
            if known is None or len(f.base) > len(known.base):
                pub._files[f.uri] = f
        errors = [
            p.message
            for p in skill.problems
            if p.severity == Severity.ERROR and not (breaches and p.code in CHECK_CODES)
        ]
        if errors:
            pub.warnings.append(
                f"published {published.uri}, which strict hosts may refuse: {'; '.join(errors)}"
            )
        # Values other hosts read otherwise (YAML 1.2, strict metadata types): said before
        # any host lists them. The entry carries the values as YAML 1.1 reads the file,
        # which the file's own fields then confirm to a host reading it so.
        other = [p.message for p in skill.problems if p.code in INTEROPERABILITY_CODES]
        if other:
            pub.warnings.append(
                f"published {published.uri}, which some hosts read otherwise: {'; '.join(other)}"
            )
    pub.skills.sort(key=lambda s: s.uri)
    return pub


def _unpublishable(skill: Skill, skill_path: str) -> str | None:
    """Why a skill cannot be served as the Skills extension requires, or ``None``."""
    fm = skill.frontmatter
    if fm is None:
        invalid = [p.message for p in skill.problems if p.severity == Severity.INVALID]
        return invalid[0] if invalid else "no readable frontmatter"
    for key in ("name", "description"):
        value = fm.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"frontmatter has no usable '{key}'"
    if not isinstance(skill.resources, tuple) or skill.path is None:
        limits = [p.message for p in skill.problems if p.code.startswith("limit-")]
        return limits[0] if limits else "no file manifest"
    # A manifest must be complete: with a file or folder it could not read, a host would
    # take the files listed for all there is.
    gaps = [p.message for p in skill.problems if p.code in MANIFEST_GAPS]
    if gaps:
        return f"its file list would be incomplete: {gaps[0]}"
    # A URI carries UTF-8 only: a name of other bytes (read as lone surrogates) could be
    # neither published nor left out of a manifest that must be complete.
    if not _utf8(skill_path):
        return f"its folder name {visible(skill_path)} is not UTF-8, which no URI can carry"
    for f in skill.files:
        if not _utf8(f.uri):
            return f"its file name {visible(f.uri)} is not UTF-8, which no URI can carry"
    name = fm["name"]
    last_segment = skill_path.rpartition("/")[2]
    if name != last_segment:
        return (
            f"its name {name!r} differs from its directory {last_segment!r} "
            "(a skill's URI must end in its name)"
        )
    bad_name = check_name(name)
    if bad_name:
        return bad_name[0].message
    return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _published_skill(root: Path, skill: Skill, skill_path: str) -> PublishedSkill:
    directory = skill.path or str(root)
    files = tuple(
        PublishedFile(
            uri=skill_file_uri(skill_path, f.uri),
            path=os.path.join(directory, f.uri),
            digest=f.digest,
            size=f.size,
            mime=MARKDOWN if f.uri == SKILL_MD else mime_type(f.uri),
            name=f.uri.rpartition("/")[2],
            base=directory,
        )
        for f in skill.files
    )
    uri = skill_file_uri(skill_path, SKILL_MD)
    entry = {
        "uri": uri,
        "frontmatter": skill.frontmatter,
        "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in files],
    }
    return PublishedSkill(uri, skill_path, directory, entry, files)


def resource_entry(f: PublishedFile, entry: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `Resource` metadata of a file (for `resources/list` and directory reads)."""
    out: dict[str, Any] = {"uri": f.uri, "name": f.name, "mimeType": f.mime, "size": f.size}
    if entry is not None:
        fm = entry["frontmatter"]
        out["name"] = fm["name"]
        out["description"] = fm["description"]
    return out


def _directory_index(files: Any) -> dict[str, list[dict[str, Any]]]:
    """Map each directory URI (skill roots, subdirectories, prefixes) to its children."""
    children: dict[str, dict[str, dict[str, Any]]] = {}
    for f in files:
        rest = f.uri[len(SCHEME) :]
        parts = rest.split("/")
        for depth in range(1, len(parts)):
            parent = SCHEME + "/".join(parts[:depth])
            child_uri = SCHEME + "/".join(parts[: depth + 1])
            bucket = children.setdefault(parent, {})
            if depth == len(parts) - 1:
                bucket[child_uri] = {
                    "uri": f.uri,
                    "name": f.name,
                    "mimeType": f.mime,
                    "size": f.size,
                }
            elif child_uri not in bucket:
                bucket[child_uri] = {
                    "uri": child_uri,
                    "name": unquote(parts[depth]),
                    "mimeType": DIRECTORY,
                }
    return {uri: [kids[k] for k in sorted(kids)] for uri, kids in children.items()}

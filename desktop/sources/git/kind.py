"""The git kind as it registers: ``--git [LABEL=]URL[#REF]``, its saved form (kind and
transport ``git``, the endpoint ``URL`` or ``URL#REF``), and its sources.

A source lists the commit it is pinned to (:mod:`desktop.sources.git.pins`); the
first listing fetches REF and pins the commit it names, and only ``sources update``
(or *Check for updates* in the window) moves the pin. A read takes the blob at the
skill's commit and path (``git cat-file``) and verifies it against the listing
(:mod:`desktop.sources.reader`), as every kind's reads are.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from desktop.core.identity import LABEL_RE
from desktop.core.manifest import MAX_BYTES
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import KindInfo
from desktop.core.states import SourceState
from desktop.sources.base import BaseSource, Kind, SourceContext, SourceRead
from desktop.sources.git.remote import Remote, RemoteError, default_label, parse_remote

if TYPE_CHECKING:
    from pathlib import Path

    from desktop.core.verify import SkillVerification
    from desktop.sources.reader import ReadResult

GIT = KindInfo(
    name="git",
    transports=("git",),
    word="git repository",
    icon="git repository",
    pinned=True,
    icons={"git repository": ("folder-remote", "SP_DriveNetIcon")},
)


def remote_of(spec: SourceSpec) -> Remote:
    return parse_remote(spec.endpoint)


def pinned_commit(spec: SourceSpec) -> str:
    """The commit ``spec`` is pinned to; fetched and pinned first when it has none (or
    the cache lost it)."""
    from desktop.sources.git import pins, runner

    remote = remote_of(spec)
    repo = runner.repo_dir(remote)
    with runner.repo_lock(repo):
        commit = pins.pinned(spec)
        if commit is not None and runner.has_commit(repo, commit):
            return commit
        if commit is not None:
            # The cache was emptied: the pinned commit is fetched again, not a newer one.
            commit = runner.fetch(Remote(remote.url, commit), repo)
        else:
            commit = runner.fetch(remote, repo)
        runner.keep(repo, pins.pin_key(spec), commit)
        pins.pin(spec, commit)
        return commit


def list_at(spec: SourceSpec, commit: str) -> list[Skill]:
    from desktop.sources.git import listing, runner

    remote = remote_of(spec)
    return listing.list_commit(spec, remote, runner.repo_dir(remote), commit)


def scan_repository(spec: SourceSpec) -> SourceRead:
    """List the skills at ``spec``'s pinned commit; never raises (a failure is the state)."""
    from desktop.sources.git import listing, runner

    try:
        remote = remote_of(spec)
        commit = pinned_commit(spec)
        skills = list_at(spec, commit)
        status = listing.status_of(spec, remote, commit, skills)
        return with_plugins(runner.repo_dir(remote), commit, status, skills)
    except (RemoteError, runner.GitFailed, OSError) as exc:
        return SourceStatus(spec.origin, SourceState.FAILED, str(exc)), []


def with_plugins(repo: Path, commit: str, status: SourceStatus, skills: list[Skill]) -> SourceRead:
    """The skills of the commit grouped by the plugins it publishes (a marketplace or a
    root ``plugin.json``, read from the commit as a folder's are read)."""
    from desktop.sources import marketplace
    from desktop.sources.git import runner

    first_asked = (*marketplace.MARKETPLACES, *marketplace.ROOT_PLUGINS)
    limit = marketplace.MAX_MANIFEST_BYTES
    first = runner.cat_blobs(repo, [f"{commit}:{p}" for p in first_asked], limit)

    def read(rel: str) -> bytes | None:
        name = f"{commit}:{rel}"
        if rel in first_asked:
            return first.get(name)
        return runner.cat_blobs(repo, [name], limit).get(name)

    return marketplace.apply_plugins(read, status, skills)


class _BlobBytes:
    """The reader's byte source: the blob at the skill's commit and path."""

    def __init__(self, spec: SourceSpec, skill: Skill) -> None:
        self.spec = spec
        self.commit = skill.provenance.get("commit", "")

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes:
        import asyncio

        return await asyncio.to_thread(self._read, uri, limit or MAX_BYTES + 1)

    def _read(self, uri: str, limit: int) -> bytes:
        from desktop.sources.git import runner

        if len(self.commit) != 40 or "\n" in uri:
            raise FileNotFoundError("the skill names no commit of the repository")
        name = f"{self.commit}:{uri}"
        found = runner.cat_blobs(runner.repo_dir(remote_of(self.spec)), [name], limit)
        if name not in found:
            raise FileNotFoundError(f"{uri} is not a file of commit {self.commit[:7]}")
        return found[name]

    def mark_stale(self, uri: str) -> None:
        return None

    def describe_error(self, exc: BaseException) -> str:
        return f"cannot read it from the repository: {exc}"


class GitSource(BaseSource):
    """A git repository of skills, at its pinned commit."""

    failed = "fetching"

    async def _discover(self) -> SourceRead:
        import asyncio

        return await asyncio.to_thread(scan_repository, self.spec)

    async def read(self, skill: Skill, uri: str, *, refresh: bool = False) -> ReadResult:
        from desktop.sources.reader import read_file

        return await read_file(skill, uri, source=_BlobBytes(self.spec, skill))

    async def verify(self, skill: Skill) -> SkillVerification:
        from desktop.sources.reader import verify_skill

        return await verify_skill(skill, source=_BlobBytes(self.spec, skill))


def _from_fields(label: str, transport: str, where: str) -> SourceSpec:
    remote = parse_remote(where)
    label = label.strip() or default_label(remote)
    if not LABEL_RE.match(label):
        raise RemoteError(f"the label {label!r} may use letters, digits, '.', '_' and '-' only")
    return SourceSpec(label, GIT.name, "git", remote.endpoint)


def _parse(value: str) -> SourceSpec:
    label, sep, rest = value.partition("=")
    if not sep or not LABEL_RE.match(label) or os.sep in label or "/" in label:
        label, rest = "", value
    return _from_fields(label, "git", rest)


def _make(spec: SourceSpec, context: SourceContext) -> GitSource:
    return GitSource(spec, context)


KIND = Kind(
    GIT,
    _make,
    _from_fields,
    option="--git",
    metavar="[LABEL=]URL[#REF]",
    help="a git repository (https, ssh, git:// or a path), at a branch, tag or commit "
    "(default: its default branch), pinned to the commit first fetched",
    parse=_parse,
)

"""Verified reads of a skill's files, the one path for both origins.

Server skills: refuse unlisted files before fetching, serve from the private
cache when the cached copy still hashes to the entry, else ``resources/read``,
check size, digest and (for ``SKILL.md``) frontmatter, and cache only verified
bytes. Local skills: re-read the file from disk and verify it against the scanned
manifest, so a file changed since the scan is caught the same way.

Bytes leave this module only when they are usable: ``verified``, or ``dynamic`` (and
then marked as unverified). Hashing of large files runs in a worker thread.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from desktop.core.entry import skill_md_uri
from desktop.core.frontmatter import ParsedSkillMd
from desktop.core.model import Skill, SkillFile
from desktop.core.verify import (
    MISMATCHES,
    READ_ERROR,
    VERIFIED,
    FileVerification,
    SkillVerification,
    check_listed,
    measure,
    summarize,
    verify_file,
)
from desktop.sources.budgets import DEFAULT_BUDGETS
from desktop.sources.folder import read_local_file
from desktop.store.cache import SkillCache, StagedFile

if TYPE_CHECKING:
    import asyncio

THREAD_HASH_BYTES = 256 * 1024


class ByteSource(Protocol):
    """Where a server skill's bytes come from (an open connection or a worker)."""

    async def read_bytes(
        self, uri: str, *, refresh: bool = False, limit: int | None = None, expected_size: int = 0
    ) -> bytes: ...

    def mark_stale(self, uri: str) -> None: ...

    def describe_error(self, exc: BaseException) -> str:
        """A failed read in the user's words."""
        ...


@dataclass(slots=True)
class ReadResult:
    """One file read through verification. ``data`` is None unless the bytes are usable."""

    skill_id: str
    verification: FileVerification
    data: bytes | None = None
    parsed: ParsedSkillMd | None = None
    from_cache: bool = False

    @property
    def state(self) -> str:
        return self.verification.state

    @property
    def message(self) -> str:
        return self.verification.message

    @property
    def verified(self) -> bool:
        return self.verification.state == VERIFIED

    @property
    def refresh_offered(self) -> bool:
        """A mismatch: the entry may be stale; offer ``skills/get`` (server skills)."""
        return self.verification.state in MISMATCHES

    @property
    def text(self) -> str | None:
        if self.data is None:
            return None
        return self.data.decode("utf-8", "replace")


async def _verify(
    skill: Skill, uri: str, data: bytes
) -> tuple[FileVerification, ParsedSkillMd | None]:
    import asyncio

    if len(data) >= THREAD_HASH_BYTES:
        measured = await asyncio.to_thread(measure, data)
        return verify_file(skill, uri, data, measured)
    return verify_file(skill, uri, data)


async def read_file(
    skill: Skill,
    uri: str,
    *,
    source: ByteSource | None = None,
    cache: SkillCache | None = None,
    refresh: bool = False,
    max_read_bytes: int = 16 * 1024 * 1024,
) -> ReadResult:
    """Read one file of ``skill`` (``uri`` as listed in its manifest) and verify it.

    ``source`` is required for server skills. Never raises for bad content or a
    failed read: the state and message say what happened.
    """
    import asyncio

    refused = check_listed(skill, uri)
    if refused is not None:
        return ReadResult(skill.id, refused)
    if skill.origin.kind == "local":
        try:
            data = await asyncio.to_thread(read_local_file, skill, uri)
        except OSError as exc:
            return ReadResult(
                skill.id, FileVerification(uri, READ_ERROR, f"{uri}: cannot read: {exc}")
            )
        verification, parsed = await _verify(skill, uri, data)
        return _result(skill, verification, data, parsed)

    if source is None:
        return ReadResult(
            skill.id, FileVerification(uri, READ_ERROR, "not connected to the server")
        )
    expected = skill.file(uri)
    if cache is not None and expected is not None and not refresh:
        cached = await asyncio.to_thread(_get_quietly, cache, skill, uri, expected)
        if cached is not None:
            verification, parsed = await _verify(skill, uri, cached)
            if verification.state == VERIFIED:
                return ReadResult(skill.id, verification, cached, parsed, from_cache=True)
    limit = expected.size + 1 if expected is not None else max_read_bytes
    try:
        data = await source.read_bytes(
            uri,
            refresh=refresh,
            limit=max(limit, max_read_bytes),
            expected_size=expected.size if expected is not None else max_read_bytes,
        )
    except Exception as exc:  # noqa: BLE001 - a failed read is a state, not a crash
        return ReadResult(
            skill.id, FileVerification(uri, READ_ERROR, f"{uri}: {source.describe_error(exc)}")
        )
    if skill.is_dynamic and len(data) > max_read_bytes:
        return ReadResult(
            skill.id,
            FileVerification(uri, READ_ERROR, f"{uri}: over {max_read_bytes:,} bytes; not loaded"),
        )
    verification, parsed = await accept_bytes(skill, uri, data, cache=cache)
    if verification.state in MISMATCHES:
        source.mark_stale(uri)
        return ReadResult(skill.id, verification)
    return _result(skill, verification, data, parsed)


async def accept_bytes(
    skill: Skill, uri: str, data: bytes, *, cache: SkillCache | None
) -> tuple[FileVerification, ParsedSkillMd | None]:
    """Check bytes that arrived from a server for ``uri``; cache them once they pass.

    A large file is written to a private temporary file while its digest is computed
    (both run off the loop and release the GIL, so they share the cores), and renamed
    into the cache behind the caller's back only if the bytes matched: the verified
    bytes are shown at once, never waiting for the disk. Small files are checked, then
    written.
    """
    import asyncio

    expected = skill.file(uri)
    if cache is None or expected is None:
        return await _verify(skill, uri, data)
    if len(data) < THREAD_HASH_BYTES:
        verification, parsed = await _verify(skill, uri, data)
        if verification.state == VERIFIED:
            await asyncio.to_thread(_put_quietly, cache, skill, uri, expected, data)
        return verification, parsed
    staging = asyncio.ensure_future(
        asyncio.to_thread(_stage_quietly, cache, skill, uri, expected, data)
    )
    try:
        verification, parsed = await _verify(skill, uri, data)
    except BaseException:
        _behind(_settle(staging, False))
        raise
    _behind(_settle(staging, verification.state == VERIFIED))
    return verification, parsed


_pending_writes: set[asyncio.Task[None]] = set()


def _get_quietly(cache: SkillCache, skill: Skill, uri: str, expected: SkillFile) -> bytes | None:
    try:
        return cache.get(skill.origin, uri, expected)
    except OSError:
        return None  # a cache that cannot be read is a miss: the server is asked


def _put_quietly(
    cache: SkillCache, skill: Skill, uri: str, expected: SkillFile, data: bytes
) -> None:
    with contextlib.suppress(
        OSError
    ):  # a cache that cannot be written costs a re-read, nothing else
        cache.put(skill.origin, uri, expected, data, hashed=True)


def _stage_quietly(
    cache: SkillCache, skill: Skill, uri: str, expected: SkillFile, data: bytes
) -> StagedFile | None:
    try:
        return cache.stage(skill.origin, uri, expected, data)
    except OSError:
        return None


async def _settle(staging: asyncio.Future[StagedFile | None], verified: bool) -> None:
    """Commit a staged copy of bytes that matched; remove one of bytes that did not."""
    import asyncio

    staged = await staging
    if staged is None:
        return
    if verified:
        with contextlib.suppress(OSError):
            await asyncio.to_thread(staged.commit)
    else:
        await asyncio.to_thread(staged.discard)


def _behind(coro: Any) -> None:
    import asyncio

    task = asyncio.ensure_future(coro)
    _pending_writes.add(task)
    task.add_done_callback(_pending_writes.discard)


async def flush_cache_writes() -> None:
    """Wait for verified bytes still being written to the cache (on this loop)."""
    import asyncio

    loop = asyncio.get_running_loop()
    while mine := [t for t in _pending_writes if t.get_loop() is loop]:
        await asyncio.gather(*mine, return_exceptions=True)


def _result(
    skill: Skill, verification: FileVerification, data: bytes, parsed: ParsedSkillMd | None
) -> ReadResult:
    if verification.usable:
        return ReadResult(skill.id, verification, data, parsed)
    return ReadResult(skill.id, verification)


async def read_skill_md(
    skill: Skill,
    *,
    source: ByteSource | None = None,
    cache: SkillCache | None = None,
    refresh: bool = False,
) -> ReadResult:
    """Read a skill's own ``SKILL.md`` for the preview."""
    return await read_file(skill, skill_md_uri(skill), source=source, cache=cache, refresh=refresh)


async def verify_skill(
    skill: Skill,
    *,
    source: ByteSource | None = None,
    cache: SkillCache | None = None,
    refresh: bool = False,
    deadline: float = DEFAULT_BUDGETS.verify_timeout,
    concurrency: int = DEFAULT_BUDGETS.max_concurrent_reads,
) -> SkillVerification:
    """Fetch and verify every file of a skill (the ``verify`` command and the window).

    Up to ``concurrency`` reads are in flight at once, each within its own request
    timeout, and all of them within ``deadline`` seconds: ten files that never
    answered took 153 s one after the other, 512 of them would have taken two hours.
    A file still unread at the deadline is a read error that says so.
    """
    import asyncio

    if skill.state.is_problem:
        return summarize(skill, [])
    uris = [f.uri for f in skill.files] if not skill.is_dynamic else [skill_md_uri(skill)]
    results: dict[str, FileVerification] = {}

    async def one(uri: str) -> None:
        result = await read_file(skill, uri, source=source, cache=cache, refresh=refresh)
        results[uri] = result.verification

    async def all_of_them() -> None:
        # The first read goes alone: a server whose answers are not JSON-RPC cannot
        # say which request each answered, and only a read waiting alone ends at once
        # on such an answer (with several, each waits out its timeout). The others
        # then go several at a time, or one by one after such an answer.
        if not uris:
            return
        await one(uris[0])
        first = results[uris[0]]
        alone = first.state == READ_ERROR and "not valid JSON-RPC" in first.message
        slots = asyncio.Semaphore(1 if alone else max(1, concurrency))

        async def bounded(uri: str) -> None:
            async with slots:
                await one(uri)

        await asyncio.gather(*(bounded(uri) for uri in uris[1:]))

    task = asyncio.ensure_future(all_of_them())
    try:
        await asyncio.wait([task], timeout=deadline)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    tasks = [task]
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    unread = f"not read within the {deadline:g} s one skill's verification may take"
    ordered = [results.get(uri) or FileVerification(uri, READ_ERROR, unread) for uri in uris]
    return summarize(skill, ordered)

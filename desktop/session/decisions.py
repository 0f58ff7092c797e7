"""Decisions as the catalog session makes them: approve, reject, revoke, and the trust of
a project folder's servers.

One pipeline for the window and the commands: the record is written in the keyring
(:class:`ApprovalService`, in a worker thread), the verified copies it covers are kept
in the private cache or let go of, and the outcome comes back as a value that says what
was done and what went wrong, in words. The session turns it into notices for the
window; a command prints it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from desktop.core.model import Skill, SkillFile
from desktop.session.approval_service import ApprovalService
from desktop.sources.config.trust_store import TrustNotSaved as TrustNotSaved  # for callers

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalKey, ApprovalRecord
    from desktop.core.trust import ProjectServer
    from desktop.store.approvals_store import IndexEntry
    from desktop.store.cache import SkillCache


@dataclass(frozen=True, slots=True)
class Decision:
    """What an approval or a rejection did: the record stored, or why none was."""

    record: ApprovalRecord | None
    error: str = ""  # why nothing was stored
    notices: tuple[str, ...] = ()  # what the store did beyond what was asked
    copies: str = ""  # why the verified copies were not kept (or let go of)
    replaced: str = ""  # the stored decision this one replaced could not be used: why
    service: str = ""  # the keyring service it is stored under


@dataclass(frozen=True, slots=True)
class Revocation:
    """What a revocation removed, or why nothing was."""

    removed: tuple[IndexEntry, ...] = ()
    error: str = ""
    notices: tuple[str, ...] = ()
    damaged: Mapping[str, str] = field(default_factory=dict)  # storage name: why unusable
    copies: Mapping[str, str] = field(default_factory=dict)  # storage name: why copies stayed


async def keep_copies(
    cache: SkillCache, name: str, pairs: list[tuple[SkillFile, bytes]] | None
) -> str:
    """Keep a decision's verified copies (``None``: let go of earlier ones); why not, or ''."""
    import asyncio

    return await asyncio.to_thread(cache.keep_decision, name, pairs) or ""


async def approve(
    approvals: ApprovalService,
    cache: SkillCache,
    skill: Skill,
    *,
    grant_tools: Iterable[str] = (),
    allow_scripts: bool = False,
    pairs: list[tuple[SkillFile, bytes]] | None = None,
    despite_problems: bool = False,
) -> Decision:
    """Approve ``skill`` as given. ``pairs`` are every file with its verified bytes when
    they were all read (the record says so, and they are kept for as long as the
    approval exists, to show a later change); ``None`` when they were not."""
    from desktop.core.approvals import ApprovalError
    from desktop.store.approvals_store import KEYRING_FAILURES

    # Also lists again approvals an index deleted by hand lost.
    before = (await approvals.states([skill])).get(skill.id)
    try:
        record = await approvals.approve(
            skill,
            grant_tools=grant_tools,
            allow_scripts=allow_scripts,
            files_read=pairs is not None,
            despite_problems=despite_problems,
        )
    except ApprovalError as exc:
        return Decision(None, exc.message, tuple(approvals.take_notices()))
    notices = tuple(approvals.take_notices())
    copies = await keep_copies(cache, record.key.storage_name, pairs)
    replaced = ""
    if before is not None and before.problem and before.problem.code not in KEYRING_FAILURES:
        replaced = before.problem.message
    return Decision(record, "", notices, copies, replaced, approvals.service)


async def reject(
    approvals: ApprovalService,
    cache: SkillCache,
    skill: Skill,
    *,
    reason: str = "",
    files_read: bool = False,
) -> Decision:
    """Record a rejection of ``skill`` as given; it replaces an approval, whose copies go."""
    from desktop.core.approvals import ApprovalError

    try:
        record = await approvals.reject(skill, reason=reason, files_read=files_read)
    except ApprovalError as exc:
        return Decision(None, exc.message, tuple(approvals.take_notices()))
    notices = tuple(approvals.take_notices())
    # No approval: nothing to compare with later, so earlier copies are let go of.
    copies = await keep_copies(cache, record.key.storage_name, None)
    return Decision(record, "", notices, copies, "", approvals.service)


async def revoke(
    approvals: ApprovalService,
    cache: SkillCache,
    targets: Sequence[str],
    *,
    key: ApprovalKey | None = None,
) -> Revocation:
    """Remove the decisions matching the first of ``targets`` that matches any (a skill
    id, a storage name, a local skill's folder); with ``key`` that exact decision alone.
    The copies kept with each go too."""
    from desktop.core.approvals import ApprovalError

    damaged: dict[str, str] = {}
    gone: list[IndexEntry] = []
    try:
        for target in targets:
            gone = await approvals.revoke(target, key=key, damaged=damaged)
            if gone:
                break
    except ApprovalError as exc:
        return Revocation(error=exc.message, notices=tuple(approvals.take_notices()))
    notices = tuple(approvals.take_notices())
    copies = {}
    for entry in gone:
        why_not = await keep_copies(cache, entry.name, None)
        if why_not:
            copies[entry.name] = why_not
    return Revocation(tuple(gone), "", notices, MappingProxyType(damaged), MappingProxyType(copies))


async def trust(servers: Sequence[ProjectServer]) -> int:
    """Trust a project folder's ``servers`` as they are written now; how many were
    trusted. Raises ``TrustNotSaved`` or ``OSError`` when the trust file cannot be saved."""
    import asyncio

    from desktop.sources.config.trust_store import change_trust

    chosen = list(servers)
    return await asyncio.to_thread(change_trust, lambda store: store.trust(chosen))


async def untrust(project: str) -> int:
    """Withdraw the trust given to the servers of the project folder ``project``; how
    many lose it. Raises as :func:`trust` does."""
    import asyncio

    from desktop.sources.config.trust_store import change_trust

    return await asyncio.to_thread(change_trust, lambda store: store.untrust(project))

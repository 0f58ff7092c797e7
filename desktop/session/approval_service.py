"""Approvals for the catalog session: the keyring store's blocking calls, run in worker threads.

The keyring package is imported in the worker thread on first use, so the window opens
without waiting for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from desktop.core.model import Skill

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalKey, ApprovalRecord, ApprovalState
    from desktop.store.approvals_store import ApprovalStore, IndexEntry
    from desktop.store.approvals_store import StoredApproval as StoredApproval
    from desktop.store.cache import SkillCache

T = TypeVar("T")


def current_user() -> str:
    """Who decides: the name a decision is recorded under."""
    from desktop.store.approvals_store import current_user

    return current_user()


def now_utc() -> str:
    """The time a decision or an export is recorded at (UTC, ISO 8601)."""
    from desktop.store.approvals_store import now_utc

    return now_utc()


def _default_store(cache: SkillCache | None = None) -> ApprovalStore:
    from desktop.store.approvals_store import ApprovalStore

    return ApprovalStore(cache=cache)


class ApprovalService:
    """Async wrapper over :class:`ApprovalStore` (each call in its own thread)."""

    def __init__(
        self, store: ApprovalStore | None = None, *, cache: SkillCache | None = None
    ) -> None:
        self._store = store
        self._cache = cache  # the cache of the default store (approved copies moved there)

    @property
    def service(self) -> str:
        """The keyring service the decisions are stored under."""
        return self.store.service

    @property
    def store(self) -> ApprovalStore:
        if self._store is None:
            self._store = _default_store(self._cache)
        return self._store

    async def _run_with_store(self, fn: Callable[[ApprovalStore], T]) -> T:
        import asyncio

        if self._store is None:
            self._store = await asyncio.to_thread(_default_store, self._cache)
        return await asyncio.to_thread(fn, self._store)

    def take_notices(self) -> list[str]:
        """What the store did beyond what was asked (an index rebuilt), once each."""
        if self._store is None:
            return []
        notices, self._store.notices = self._store.notices, []
        return notices

    async def states(self, skills: Iterable[Skill]) -> dict[str, ApprovalState]:
        chosen = list(skills)
        return await self._run_with_store(lambda store: store.states(chosen))

    async def approve(
        self,
        skill: Skill,
        *,
        grant_tools: Iterable[str] = (),
        allow_scripts: bool = False,
        files_read: bool = False,
        despite_problems: bool = False,
    ) -> ApprovalRecord:
        tools = tuple(grant_tools)
        return await self._run_with_store(
            lambda store: store.approve(
                skill,
                grant_tools=tools,
                allow_scripts=allow_scripts,
                files_read=files_read,
                despite_problems=despite_problems,
            )
        )

    async def reject(
        self, skill: Skill, *, reason: str = "", files_read: bool = False
    ) -> ApprovalRecord:
        return await self._run_with_store(
            lambda store: store.reject(skill, reason=reason, files_read=files_read)
        )

    async def records(self) -> list[StoredApproval]:
        """Every stored decision (for the audit export and ``approvals``)."""
        return await self._run_with_store(lambda store: store.records())

    async def backend_name(self) -> str:
        """The name of the OS keyring backend in use (raises when there is none)."""
        return await self._run_with_store(lambda store: store.backend_name())

    async def revoke(
        self, target: str, *, key: ApprovalKey | None = None, damaged: dict[str, str] | None = None
    ) -> list[IndexEntry]:
        """The decisions matching ``target`` removed (see :meth:`ApprovalStore.revoke`)."""
        return await self._run_with_store(
            lambda store: store.revoke(target, key=key, damaged=damaged)
        )

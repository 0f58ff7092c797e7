"""Approvals from the window: the keyring store's blocking calls, run in worker threads."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from desktop.core.approvals import ApprovalRecord, ApprovalState
from desktop.core.model import Skill
from desktop.store.approvals_store import ApprovalStore, IndexEntry


class ApprovalService:
    """Async wrapper over :class:`ApprovalStore` (each call in its own thread)."""

    def __init__(self, store: ApprovalStore | None = None) -> None:
        self.store = store or ApprovalStore()

    async def states(self, skills: Iterable[Skill]) -> dict[str, ApprovalState]:
        return await asyncio.to_thread(self.store.states, list(skills))

    async def approve(
        self, skill: Skill, *, grant_tools: Iterable[str] = (), allow_scripts: bool = False
    ) -> ApprovalRecord:
        return await asyncio.to_thread(
            lambda: self.store.approve(
                skill, grant_tools=tuple(grant_tools), allow_scripts=allow_scripts
            )
        )

    async def revoke(self, skill: Skill) -> list[IndexEntry]:
        from desktop.core.approvals import ApprovalKey

        key = ApprovalKey.for_skill(skill)
        return await asyncio.to_thread(self.store.revoke, skill.id, key=key)

"""The three selection strategies over one set of skills, with scratch edits.

Built once for a catalog (the BM25 index, the host's listing); a prompt is then
ranked in milliseconds, and a scratch copy of one skill's description is scored in
place of its own without rebuilding the index (the term statistics are the
catalog's), so an author can watch its rank move as they type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from desktop.core.hosts import profile
from desktop.core.hosts.verdict import NO, ListedSkill, host_verdict, listing_plan
from desktop.core.model import Skill
from desktop.core.selection import (
    BM25,
    LISTING,
    TRIGGERS,
    Bm25Index,
    Doc,
    Ranked,
    doc_from_frontmatter,
    rank_listing,
    rank_triggers,
)

DEFAULT_HOST = "claude-code"
DEFAULT_CONTEXT = 200_000


class Selector:
    def __init__(
        self,
        skills: Sequence[Skill],
        host: str = DEFAULT_HOST,
        context: int | None = DEFAULT_CONTEXT,
    ) -> None:
        self.skills = list(skills)
        self.docs = [
            doc_from_frontmatter(s.id, s.name, s.description, s.frontmatter, s.loading.triggers)
            for s in self.skills
        ]
        self.position = {d.id: i for i, d in enumerate(self.docs)}
        self.index = Bm25Index(self.docs)
        self.host = profile(host)
        self.context = context
        self._loaded = [
            host_verdict(self.host, s.frontmatter, Path(s.path).name if s.path else None).loads
            != NO
            for s in self.skills
        ]
        self.scratch: dict[str, str] = {}  # skill id -> scratch description
        self.modes = self._modes()

    def _doc(self, i: int) -> Doc:
        doc = self.docs[i]
        text = self.scratch.get(doc.id)
        return doc if text is None else replace(doc, description=text)

    def _modes(self) -> list[str]:
        listed = [
            ListedSkill(d.name, d.description, d.when_to_use) if loaded else None
            for d, loaded in zip(
                (self._doc(i) for i in range(len(self.docs))), self._loaded, strict=True
            )
        ]
        return listing_plan(self.host, listed, self.context).listing

    def edit(self, skill_id: str, description: str | None) -> None:
        """Score ``skill_id`` with ``description`` in place of its own (None: its own)."""
        if description is None:
            self.scratch.pop(skill_id, None)
        else:
            self.scratch[skill_id] = description
        self.modes = self._modes()

    def bm25(self, prompt: str, top: int | None = None) -> list[Ranked]:
        replaced = {self.position[i]: self._doc(self.position[i]) for i in self.scratch}
        return [Ranked(d.id, d.name, s) for d, s in self.index.rank(prompt, top, replaced or None)]

    def triggers(self, prompt: str, top: int | None = None) -> list[Ranked]:
        return rank_triggers(self.docs, prompt, top)

    def listing(self, prompt: str, top: int | None = None) -> list[Ranked]:
        docs = [self._doc(i) for i in range(len(self.docs))]
        return rank_listing(docs, self.modes, prompt, top)

    def rankers(self, top: int | None = None) -> dict[str, Callable[[str], list[Ranked]]]:
        return {
            BM25: lambda q: self.bm25(q, top),
            TRIGGERS: lambda q: self.triggers(q, top),
            LISTING: lambda q: self.listing(q, top),
        }

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
from desktop.core.hosts.verdict import (
    DROPPED,
    NAME_ONLY,
    NO,
    ListedSkill,
    host_verdict,
    listing_plan,
)
from desktop.core.model import Skill
from desktop.core.selection import (
    BM25,
    LISTING,
    TRIGGERS,
    Bm25Index,
    Doc,
    Ranked,
    doc_from_frontmatter,
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
        self._listed = [
            ListedSkill(d.name, d.description, d.when_to_use) if loaded else None
            for d, loaded in zip(self.docs, self._loaded, strict=True)
        ]
        self.modes = self._modes()
        # The index of what the model reads, for the modes it was built for.
        self._seen_key: tuple[str, ...] | None = None
        self._seen = Bm25Index([])
        self._seen_pos: dict[str, int] = {}

    def _doc(self, i: int) -> Doc:
        doc = self.docs[i]
        text = self.scratch.get(doc.id)
        return doc if text is None else replace(doc, description=text)

    def _modes(self) -> list[str]:
        listed = list(self._listed)
        for skill_id in self.scratch:
            i = self.position[skill_id]
            if listed[i] is not None:
                doc = self._doc(i)
                listed[i] = ListedSkill(doc.name, doc.description, doc.when_to_use)
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

    def _seen_index(self) -> Bm25Index:
        key = tuple(self.modes)
        if key != self._seen_key:
            seen = [
                Doc(d.id, d.name, "") if mode == NAME_ONLY else d
                for d, mode in zip(self.docs, self.modes, strict=True)
                if mode != DROPPED
            ]
            self._seen = Bm25Index(seen)
            self._seen_pos = {d.id: j for j, d in enumerate(seen)}
            self._seen_key = key
        return self._seen

    def listing(self, prompt: str, top: int | None = None) -> list[Ranked]:
        """BM25 over what the model reads (as :func:`rank_listing`), its index kept
        while the listing is unchanged; a scratch description scored in its place."""
        index = self._seen_index()
        replaced = {
            self._seen_pos[skill_id]: self._doc(self.position[skill_id])
            for skill_id in self.scratch
            if skill_id in self._seen_pos and self.modes[self.position[skill_id]] != NAME_ONLY
        }
        mode_of = {d.id: m for d, m in zip(self.docs, self.modes, strict=True)}
        ranked = [
            Ranked(d.id, d.name, s, listing=mode_of[d.id])
            for d, s in index.rank(prompt, top, replaced or None)
        ]
        if top is not None and len(ranked) >= top:
            return ranked
        shown = {r.id for r in ranked}
        hidden = [
            Ranked(r.id, r.name, 0.0, _unseen(mode_of[r.id]), mode_of[r.id])
            for r in self.bm25(prompt)
            if r.id not in shown
        ]
        return (ranked + hidden)[:top]

    def rankers(self, top: int | None = None) -> dict[str, Callable[[str], list[Ranked]]]:
        return {
            BM25: lambda q: self.bm25(q, top),
            TRIGGERS: lambda q: self.triggers(q, top),
            LISTING: lambda q: self.listing(q, top),
        }


def _unseen(mode: str) -> str:
    return "the model sees only its name" if mode == NAME_ONLY else "the model cannot see it"

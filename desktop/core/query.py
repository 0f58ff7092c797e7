"""What a catalog filter matches: one rule, used by the window's table and testable alone.

A query is free text plus optional sets of sources, states and strategies. The text is
split into words; a skill matches when every word occurs (case-insensitively, after
NFKC normalisation) in its name, qualified name, description, origin (label and
address) or triggers. Sets restrict by source label, by state (the skill's listing
state, its verification state or its approval state, or ``problems``: what the
sidebar's Has problems counts) and by loading strategy; an
empty set restricts nothing. ``state_groups`` holds one set of states per kind of state
chosen (approval, checks, entry): a skill must be in one state of every group.

For large catalogs, :class:`SearchIndex` keeps each skill's folded text once, so a
keystroke costs one substring test per skill.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop.core.library import ALL, PROBLEMS, has_problems, in_view
from desktop.core.model import Skill


def fold_text(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True, slots=True)
class SkillQuery:
    """A filter: words that must all occur, and optional allowed sets."""

    text: str = ""
    sources: frozenset[str] = field(default_factory=frozenset)
    states: frozenset[str] = field(default_factory=frozenset)
    strategies: frozenset[str] = field(default_factory=frozenset)
    view: str = ""  # a Library view (desktop.core.library), "" for all
    problems: bool = False  # only skills with problems
    # One set per kind of state (approval, checks, entry): each must hold a skill's state.
    state_groups: tuple[frozenset[str], ...] = ()

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(fold_text(self.text).split())

    @property
    def empty(self) -> bool:
        return not (self.words or self.restricted)

    @property
    def restricted(self) -> bool:
        """Whether anything beyond the text restricts (a set, a view, problems)."""
        return bool(
            self.sources
            or self.states
            or self.state_groups
            or self.strategies
            or self.view not in ("", ALL)
            or self.problems
        )

    @property
    def needs_states(self) -> bool:
        """Whether the answer depends on verification or approval states."""
        return bool(self.states or self.state_groups) or self.view not in ("", ALL, PROBLEMS)

    def narrows(self, previous: SkillQuery) -> bool:
        """Whether every skill this query accepts was accepted by ``previous``.

        True when only the text grew (each old word is contained in a new word at the
        same position) and the sets are unchanged: a caller may then test only the
        skills the previous query accepted.
        """
        if (
            self.sources,
            self.states,
            self.state_groups,
            self.strategies,
            self.view,
            self.problems,
        ) != (
            previous.sources,
            previous.states,
            previous.state_groups,
            previous.strategies,
            previous.view,
            previous.problems,
        ):
            return False
        old, new = previous.words, self.words
        if len(new) < len(old):
            return False
        return all(o in n for o, n in zip(old, new, strict=False))


def search_text(skill: Skill) -> str:
    """The folded text a query's words are looked for in."""
    parts = [
        skill.name,
        skill.qualified_name,
        skill.description,
        skill.origin.label,
        skill.origin.shown_endpoint,
        # The words the Origin column shows beside the label.
        skill.origin.transport,
        "third-party" if skill.kind_info.third_party else "",
        "opened by URI" if skill.opened_by_uri else "",
        *skill.loading.triggers,
        # A published skill's plugin: typing its name finds the plugin's skills.
        skill.provenance.get("plugin", ""),
    ]
    return fold_text("\n".join(parts))


def skill_states(
    skill: Skill, verification: str | None = None, approval: str | None = None
) -> set[str]:
    """Every state name a state filter can select this skill by, and ``problems`` when
    the skill is one the sidebar's Has problems counts."""
    states: set[str] = {skill.state}
    if has_problems(skill):
        states.add(PROBLEMS)
    if verification:
        states.add(verification)
    if approval:
        states.add(approval)
    return states


def matches(
    skill: Skill,
    query: SkillQuery,
    *,
    verification: str | None = None,
    approval: str | None = None,
    text: str | None = None,
) -> bool:
    """Whether ``skill`` passes ``query``. ``text`` may pass a precomputed search text."""
    if query.sources and skill.origin.label not in query.sources:
        return False
    if query.strategies and skill.loading.strategy not in query.strategies:
        return False
    if query.states or query.state_groups:
        states = skill_states(skill, verification, approval)
        if query.states and not states & query.states:
            return False
        if not all(states & group for group in query.state_groups):
            return False
    if query.problems and not has_problems(skill):
        return False
    if not in_view(query.view, skill, approval):
        return False
    words = query.words
    if not words:
        return True
    haystack = text if text is not None else search_text(skill)
    return all(w in haystack for w in words)


class SearchIndex:
    """Folded search texts of a list of skills, and the last few answers.

    ``select_rows`` returns the rows (ascending) whose skill passes the query, in one
    pass: a substring test per word and candidate row. When a query only narrows the
    previous one (typing more letters), only previously accepted rows are tested again;
    a query asked again (deleting letters) is answered from the last few answers.
    """

    REMEMBERED = 4

    def __init__(self, skills: Sequence[Skill]) -> None:
        self.skills = list(skills)
        self.texts = [search_text(s) for s in self.skills]
        self.ids = [s.id for s in self.skills]
        self._last: tuple[SkillQuery, list[int]] | None = None
        self._answers: dict[SkillQuery, list[int]] = {}

    def select_rows(
        self,
        query: SkillQuery,
        verification: dict[str, str] | None = None,
        approval: dict[str, str] | None = None,
    ) -> list[int]:
        """The rows whose skill passes ``query``, ascending (a new list each call)."""
        remembered = self._answers.get(query)
        if remembered is not None:
            self._last = (query, remembered)
            return list(remembered)
        rows = self._compute(query, verification or {}, approval or {})
        self._last = (query, rows)
        if not (query.empty or query.needs_states):  # states may change unseen
            self._answers[query] = rows
            while len(self._answers) > self.REMEMBERED:
                del self._answers[next(iter(self._answers))]
        return list(rows)

    def _compute(
        self, query: SkillQuery, verification: dict[str, str], approval: dict[str, str]
    ) -> list[int]:
        n = len(self.skills)
        if query.empty:
            return list(range(n))
        candidates: list[int] | None = None
        if self._last is not None and not query.needs_states and query.narrows(self._last[0]):
            candidates = self._last[1]
        texts = self.texts
        if query.restricted:
            skills, ids = self.skills, self.ids
            text_of = texts.__getitem__
            return [
                i
                for i in (range(n) if candidates is None else candidates)
                if matches(
                    skills[i],
                    query,
                    verification=verification.get(ids[i]),
                    approval=approval.get(ids[i]),
                    text=text_of(i),
                )
            ]
        # The common case, typing: substring tests only, the longest word first.
        rows = candidates
        for word in sorted(query.words, key=len, reverse=True):
            if rows is None:
                rows = [i for i, text in enumerate(texts) if word in text]
            else:
                rows = [i for i in rows if word in texts[i]]
        return rows if rows is not None else list(range(n))

    def select(
        self,
        query: SkillQuery,
        verification: dict[str, str] | None = None,
        approval: dict[str, str] | None = None,
    ) -> bytearray:
        """Per row, 1 when the skill passes ``query`` and 0 when it does not."""
        out = bytearray(len(self.skills))
        for i in self.select_rows(query, verification, approval):
            out[i] = 1
        return out

    def replace(self, row: int, skill: Skill) -> None:
        """A new entry for the skill in ``row`` (read again): its text is taken anew."""
        self.skills[row] = skill
        self.texts[row] = search_text(skill)
        self.ids[row] = skill.id
        self._last = None
        self._answers.clear()

    def forget(self) -> None:
        """Drop the remembered answers (the states they depended on changed)."""
        self._last = None
        self._answers.clear()

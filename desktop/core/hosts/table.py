"""Per skill and host, the verdict and listing mode; per host, the listing budget,
for a set of skills (a folder, a catalog). Pure: the raw frontmatter texts, which
line readers need, are given by the caller."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from desktop.core.hosts import HostProfile, profiles
from desktop.core.hosts.verdict import Budget, HostVerdict, ListedSkill, host_verdict, listing_plan
from desktop.core.model import Skill


def _when_to_use(skill: Skill) -> str:
    value = (skill.frontmatter or {}).get("when_to_use", "")
    return value if isinstance(value, str) else ""


def host_table(
    skills: Sequence[Skill], context: int | None, raws: Sequence[str | None] | None = None
) -> tuple[list[dict[str, tuple[HostVerdict, str]]], dict[str, Budget], tuple[HostProfile, ...]]:
    """Per skill, per host: (verdict, listing mode); per host: the budget."""
    hosts = profiles()
    raws = list(raws) if raws is not None else [None] * len(skills)
    rows: list[dict[str, tuple[HostVerdict, str]]] = [{} for _ in skills]
    budgets: dict[str, Budget] = {}
    ordered = sorted(range(len(skills)), key=lambda i: skills[i].name)
    for host in hosts:
        verdicts = [
            host_verdict(host, s.frontmatter, Path(s.path).name if s.path else None, raws[i])
            for i, s in enumerate(skills)
        ]
        listed = [
            None
            if verdicts[i].loads == "no"
            else ListedSkill(skills[i].name, skills[i].description, _when_to_use(skills[i]))
            for i in ordered
        ]
        budget = listing_plan(host, listed, context)
        budgets[host.id] = budget
        for pos, i in enumerate(ordered):
            rows[i][host.id] = (verdicts[i], budget.listing[pos])
    return rows, budgets, hosts

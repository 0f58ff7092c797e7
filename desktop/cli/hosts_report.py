"""``lint --hosts``: per skill and host, loads or why not, and how it is listed; per
host, the listing budget against what the skills need. Also the descriptions close
enough to compete for the same prompts (every ``lint``)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.entry import SKILL_MD
from desktop.core.frontmatter import split_frontmatter
from desktop.core.hosts.table import host_table
from desktop.core.hosts.verdict import budget_sentence
from desktop.core.model import Skill
from desktop.core.selection import close_pairs, doc_from_frontmatter
from desktop.core.visible import one_line

# A SKILL.md read again for its raw frontmatter (line readers): at most this much.
_RAW_MAX = 256 * 1024


def raw_frontmatter(skill: Skill) -> str | None:
    """The frontmatter text of a local skill's SKILL.md, or None."""
    if not skill.path:
        return None
    with contextlib.suppress(OSError, UnicodeDecodeError):
        with open(Path(skill.path) / SKILL_MD, "rb") as f:
            data = f.read(_RAW_MAX).decode("utf-8").removeprefix("\ufeff")
        return split_frontmatter(data)[0]
    return None


def hosts_json(skills: Sequence[Skill], context: int | None) -> dict[str, Any]:
    rows, budgets, _hosts = host_table(skills, context, [raw_frontmatter(s) for s in skills])
    return {
        "context": context,
        "skills": [
            {
                "name": s.name,
                "path": s.path,
                "hosts": {
                    host: {"loads": v.loads, "listing": mode, "why": list(v.why)}
                    for host, (v, mode) in row.items()
                },
            }
            for s, row in zip(skills, rows, strict=True)
        ],
        "budgets": {host: b.to_json() for host, b in budgets.items()},
    }


def print_hosts(skills: Sequence[Skill], context: int | None) -> None:
    rows, budgets, hosts = host_table(skills, context, [raw_frontmatter(s) for s in skills])
    for skill, row in zip(skills, rows, strict=True):
        print(f"{one_line(skill.name)}  ({one_line(skill.path or '')})")
        for host in hosts:
            verdict, mode = row[host.id]
            loads = {"yes": "loads", "no": "does not load"}.get(verdict.loads, "loading unknown")
            print(f"  {host.id:<12} {loads}; listing {mode}")
            for why in verdict.why:
                print(f"    {one_line(why)}")
    print()
    for host in hosts:
        budget = budgets[host.id]
        if budget.limit is not None:
            print(budget_sentence(host, budget, context, len(skills)))


def competing(skills: Sequence[Skill]) -> list[tuple[str, str, float]]:
    """Pairs of skills whose descriptions are close enough to compete."""
    docs = [
        doc_from_frontmatter(s.path or s.name, s.name, s.description, s.frontmatter)
        for s in skills
        if s.description
    ]
    return [(a.name, b.name, c) for a, b, c in close_pairs(docs)]


def competing_lines(pairs: Sequence[tuple[str, str, float]]) -> list[str]:
    return [
        f"warning: {one_line(a)} and {one_line(b)} have descriptions so close "
        f"(similarity {c:.2f}) that they compete for the same prompts"
        for a, b, c in pairs
    ]

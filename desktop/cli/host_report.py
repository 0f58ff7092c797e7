"""``lint --hosts``: per skill and host, whether it loads and how it is listed, and each
host's listing budget against what the skills need (:mod:`desktop.core.hosts`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.cli.output import emit_json, table
from desktop.core.hosts import DEFAULT_CONTEXT, PROFILES, HostProfile, SkillText, judge, profile
from desktop.core.model import Skill
from desktop.core.visible import one_line

MAX_FRONTMATTER_READ = 256 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hosts",
        nargs="?",
        const="all",
        metavar="HOST,…",
        help="say per host whether each skill loads and how it is listed "
        f"(hosts: {', '.join(p.slug for p in PROFILES)}; default all)",
    )
    parser.add_argument(
        "--context",
        type=int,
        default=DEFAULT_CONTEXT,
        metavar="TOKENS",
        help=f"the model's context window, for listing budgets (default {DEFAULT_CONTEXT:,})",
    )


def chosen_hosts(value: str) -> list[HostProfile]:
    if value == "all":
        return list(PROFILES)
    return [profile(slug.strip()) for slug in value.split(",") if slug.strip()]


def skill_text(skill: Skill) -> SkillText:
    """A skill as a host meets it: its SKILL.md's frontmatter text, read from its folder."""
    from desktop.core.frontmatter import split_frontmatter

    folder = Path(skill.path or ".")
    text: str | None = None
    try:
        with open(folder / "SKILL.md", "rb") as f:
            raw = f.read(MAX_FRONTMATTER_READ).decode("utf-8", errors="replace")
        text = split_frontmatter(raw)[0]
    except OSError:
        text = None
    return SkillText(skill.name, skill.path or skill.uri, folder.name, text)


def report(
    skills: Sequence[Skill], hosts: Sequence[HostProfile], context: int, as_json: bool
) -> int:
    texts = [skill_text(s) for s in skills]
    verdicts, budgets = judge(texts, hosts, context)
    if as_json:
        data: dict[str, Any] = {
            "skills": [
                {
                    "name": t.name,
                    "path": t.path,
                    "hosts": {slug: v.to_json() for slug, v in per.items()},
                }
                for t, per in zip(texts, verdicts, strict=True)
            ],
            "budgets": {slug: b.to_json() for slug, b in budgets.items()},
            "context": context,
        }
        emit_json(data)
    else:
        rows = []
        for t, per in zip(texts, verdicts, strict=True):
            for p in hosts:
                v = per[p.slug]
                loads = "unknown" if v.loads is None else ("loads" if v.loads else "not loaded")
                rows.append([one_line(t.name), p.title, loads, v.listing or "", one_line(v.why)])
        print(table(rows, ["Skill", "Host", "Loads", "Listed", "Why"], [32, 22, 10, 9, 80]))
        print()
        for p in hosts:
            print(
                budgets[p.slug].sentence(p.title, sum(1 for per in verdicts if per[p.slug].loads))
            )
    refused = any(v.loads is False for per in verdicts for v in per.values())
    return 1 if refused else 0

"""``skill-catalog select "PROMPT"``: which skill a prompt would pick, under each strategy
hosts use (``bm25`` over names and descriptions, declared ``triggers``, and ``listing``:
what the model can see after a host's listing budget). ``--evals FILE`` runs an
``eval_queries.json`` (and each skill's ``evals/evals.json``) and reports recall and
precision per skill and strategy, and the prompts another skill steals.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from desktop.cli.output import CheckFailed, emit_json
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.hosts import DEFAULT_CONTEXT, PROFILES, SkillText, judge, profile
from desktop.core.model import Skill
from desktop.core.selection import (
    EvalError,
    EvalQuery,
    Index,
    Pick,
    doc_of,
    evaluate,
    parse_evals,
    select,
    split,
)
from desktop.core.visible import one_line

NAME = "select"
HELP = "rank the skills a prompt would pick, under each strategy hosts use"
EVAL_LIMIT = 8 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", nargs="?", metavar="PROMPT", help="what a person asks")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="picks per strategy")
    parser.add_argument(
        "--host",
        default="claude-code",
        choices=[p.slug for p in PROFILES],
        help="the host whose listing budget the listing strategy applies (default claude-code)",
    )
    parser.add_argument(
        "--context", type=int, default=DEFAULT_CONTEXT, metavar="TOKENS",
        help="the model's context window, for the listing budget",
    )  # fmt: skip
    parser.add_argument("--evals", metavar="FILE", help="an eval_queries.json to score")
    parser.add_argument(
        "--split", action="store_true", help="score a 60/40 train and validation split"
    )
    parser.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    if not args.prompt and not args.evals:
        raise CheckFailed("skill-catalog select: give a PROMPT, or --evals FILE")
    from desktop.cli import progress

    catalog = asyncio.run(progress.discover(resolve_specs(args), show=progress.wanted(args.json)))
    skills = list(catalog.skills)
    index = Index.build(doc_of(s) for s in skills)
    listings = host_listings(skills, args.host, args.context)
    if args.evals:
        return _evals(args, skills, index, listings)
    picks = select(index, args.prompt, args.top, listings)
    if args.json:
        emit_json(
            {
                "prompt": args.prompt,
                "host": args.host,
                "strategies": {k: [p.to_json() for p in v] for k, v in picks.items()},
            }
        )
        return 0
    print(f"Prompt: {one_line(args.prompt)}  ({len(skills):,} skills)")
    _print(
        "bm25 (words of the prompt in names, descriptions, when_to_use, keywords)", picks["bm25"]
    )
    _print("triggers (declared triggers, then keywords)", picks["triggers"])
    title = profile(args.host).title
    _print(f"listing (what the model sees in {title}'s listing)", picks["listing"])
    if not skills:
        print("No skill is in the sources read.")
    return 0


def _print(title: str, picks: list[Pick]) -> None:
    print(f"\n{title}:")
    if not picks:
        print("  no skill")
    for i, p in enumerate(picks, 1):
        extra = f"  ({one_line(p.why)})" if p.why else ""
        shown = f"  [{p.listing}]" if p.listing and p.listing != "full" else ""
        print(f"  {i}. {one_line(p.name)}  {p.score:.2f}{shown}{extra}")


def host_listings(skills: list[Skill], host: str, context: int) -> dict[str, str]:
    """How ``host`` lists each skill (by id) at ``context`` tokens."""
    from desktop.cli.host_report import skill_text

    texts = [
        skill_text(s)
        if s.kind_info.folder_on_disk and s.path
        else SkillText(s.name, s.uri, s.name, None, s.frontmatter or {})
        for s in skills
    ]
    verdicts, _ = judge(texts, [profile(host)], context)
    return {s.id: (v[host].listing or "full") for s, v in zip(skills, verdicts, strict=True)}


def _read_json(path: Path) -> Any:
    with open(path, "rb") as f:
        data = f.read(EVAL_LIMIT + 1)
    if len(data) > EVAL_LIMIT:
        raise EvalError(f"{path} is larger than {EVAL_LIMIT >> 20} MiB")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise EvalError(f"{path} is not JSON ({exc})") from exc


def _evals(
    args: argparse.Namespace, skills: list[Skill], index: Index, listings: dict[str, str]
) -> int:
    try:
        evals: list[EvalQuery] = parse_evals(_read_json(Path(args.evals)))
        for s in skills:
            own = Path(s.path) / "evals" / "evals.json" if s.path else None
            if own is not None and own.is_file():
                evals += parse_evals(_read_json(own), s.name)
    except (OSError, EvalError) as exc:
        raise CheckFailed(f"skill-catalog select: {exc}") from exc
    parts = dict(zip(("train", "validation"), split(evals, args.seed), strict=True))
    runs = parts if args.split else {"all": evals}
    reports = {name: evaluate(index, part, listings) for name, part in runs.items()}
    if args.json:
        out: dict[str, Any] = {"evals": len(evals), "host": args.host}
        if args.split:
            out["split"] = {n: {"evals": len(runs[n]), **r.to_json()} for n, r in reports.items()}
        else:
            out.update(reports["all"].to_json())
        emit_json(out)
        return 0
    for name, report in reports.items():
        head = f"{len(runs[name]):,} evals" + (f" ({name})" if args.split else "")
        print(head)
        for strategy, per in report.scores.items():
            print(f"  {strategy}:")
            for skill, score in sorted(per.items()):
                print(
                    f"    {one_line(skill):<32} recall {score.recall:.2f}  "
                    f"precision {score.precision:.2f}"
                )
        for stolen in report.stolen[:20]:
            print(
                f"  {one_line(stolen['chosen'])} takes {one_line(stolen['query'])!r} "
                f"from {one_line(stolen['expected'])}"
            )
    return 0

"""``skill-catalog select PROMPT``: which skill a prompt would pick, per strategy.

Strategies (:mod:`desktop.core.selection`): ``bm25`` over names, descriptions,
``when_to_use`` and keywords; ``triggers`` (NimbleBrain's rule); ``listing`` (BM25
over what the model can read after a host's listing budget). With ``--evals FILE``
the queries of an ``eval_queries.json`` (and each local skill's ``evals/evals.json``)
are run instead, and recall and precision per skill and strategy are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path

from desktop.cli.output import emit_json, fail_usage
from desktop.cli.sources_args import add_source_options, load_catalog
from desktop.core.hosts import host_ids
from desktop.core.model import Skill
from desktop.core.selection import STRATEGIES, EvalQuery, evaluate, read_eval_queries, split
from desktop.core.selector import Selector
from desktop.core.visible import one_line

NAME = "select"
HELP = "show which skill a prompt would pick, per selection strategy"

DEFAULT_CONTEXT = 200_000
# An evaluation file is read up to this size.
_EVALS_MAX = 8 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", metavar="PROMPT", nargs="?", help="the prompt a user would send")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="skills shown per strategy")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument(
        "--host",
        choices=host_ids(),
        default="claude-code",
        help="the host whose listing budget the listing strategy applies (default: claude-code)",
    )
    parser.add_argument(
        "--context",
        type=int,
        default=DEFAULT_CONTEXT,
        metavar="TOKENS",
        help="the model's context size for the listing budget (default: 200000)",
    )
    parser.add_argument(
        "--evals",
        metavar="FILE",
        help="run the queries of an eval_queries.json instead of one prompt",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="with --evals: report a 60/40 train and validation split separately",
    )
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.prompt is None and not args.evals:
        fail_usage("give a PROMPT, or --evals FILE")
    if args.top <= 0 or args.context <= 0:
        fail_usage("--top and --context must be positive")
    queries: list[EvalQuery] = []
    if args.evals:
        queries = _read_evals(Path(args.evals))
    catalog = asyncio.run(load_catalog(args))
    skills = [s for s in catalog.skills if s.loadable]
    selector = Selector(skills, args.host, args.context)
    if args.evals:
        return _run_evals(args, selector, skills, queries)
    rankers = selector.rankers(args.top)
    result = {name: rankers[name](args.prompt) for name in STRATEGIES}
    if args.json:
        emit_json(
            {
                "prompt": args.prompt,
                "host": args.host,
                "strategies": {k: [r.to_json() for r in v] for k, v in result.items()},
            }
        )
        return 0
    for name in STRATEGIES:
        print(f"{name}:")
        if not result[name]:
            print("  no skill matches")
        for pos, r in enumerate(result[name], 1):
            extra = "; ".join(x for x in (r.listing and f"listed {r.listing}", r.why) if x)
            print(
                f"  {pos}. {one_line(r.name)}  {r.score:.3f}"
                + (f"  ({one_line(extra)})" if extra else "")
            )
    return 0


def _read_evals(path: Path) -> list[EvalQuery]:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(_EVALS_MAX + 1)[: _EVALS_MAX + 1])
        return read_eval_queries(data)
    except (OSError, ValueError) as e:
        fail_usage(f"{path}: cannot read its queries ({e})")
    return []  # pragma: no cover - fail_usage raises


def _skill_evals(skills: Sequence[Skill]) -> list[EvalQuery]:
    """The queries of each local skill's ``evals/evals.json`` (expecting that skill)."""
    out: list[EvalQuery] = []
    for s in skills:
        if not s.path:
            continue
        path = Path(s.path) / "evals" / "evals.json"
        with contextlib.suppress(OSError, ValueError):
            if path.is_file() and path.stat().st_size <= _EVALS_MAX:
                out += read_eval_queries(json.loads(path.read_bytes()), s.name)
    return out


def _run_evals(
    args: argparse.Namespace, selector: Selector, skills: Sequence[Skill], queries: list[EvalQuery]
) -> int:
    queries = queries + _skill_evals(skills)
    names = [s.name for s in skills]
    rankers = selector.rankers(1)
    parts: dict[str, list[EvalQuery]] = {"all": queries}
    if args.split:
        train, validation = split(queries)
        parts = {"train": train, "validation": validation}
    reports = {k: evaluate(rankers, q, names).to_json() for k, q in parts.items()}
    if args.json:
        emit_json(
            {"queries": len(queries), **({"all": reports["all"]} if "all" in reports else reports)}
        )
        return 0
    for part, report in reports.items():
        print(f"{part} ({len(parts[part])} queries):")
        for strategy, per_skill in report["strategies"].items():
            print(f"  {strategy}:")
            for name, score in per_skill.items():
                print(
                    f"    {one_line(name)}: recall {score['recall']:.2f}, "
                    f"precision {score['precision']:.2f}"
                )
        for c in report["confusions"]:
            print(
                f"  {c['strategy']}: {one_line(c['query'])!r} expected "
                f"{one_line(c['expected'])}, chosen {one_line(c['chosen'])}"
            )
    return 0

"""BM25 selection: building the index of 100,000 generated skills and ranking prompts,
against ``bm25s`` on the same texts and the same tokens in the same run.

Figures: index build time (ours, bm25s, ratio) and per-query p50/p90 (ours over the
whole index, bm25s's ``retrieve`` of the top 10, ratio). Targets: build at most 2
times bm25s's, per-query p90 under 50 ms and at most 2 times bm25s's. ``bm25s`` is
not a dependency of the program: without it the script says how to install it and
prints our figures alone.

    python benchmarks/bench_select.py [--skills 100000] [--queries 200] [--vocabulary 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.selection import Bm25Index, Doc, tokens

WORDS = [
    "pdf",
    "form",
    "slide",
    "deck",
    "spreadsheet",
    "formula",
    "chart",
    "table",
    "report",
    "memo",
    "letter",
    "invoice",
    "deploy",
    "server",
    "database",
    "query",
    "schema",
    "migrate",
    "test",
    "browser",
    "screenshot",
    "image",
    "resize",
    "crop",
    "video",
    "audio",
    "transcribe",
    "translate",
    "summarize",
    "email",
    "calendar",
    "meeting",
    "note",
    "task",
    "ticket",
    "incident",
    "outage",
    "alert",
    "metric",
    "log",
    "trace",
    "review",
    "merge",
    "branch",
    "commit",
    "release",
    "docker",
    "kubernetes",
    "terraform",
    "cloud",
    "bucket",
    "secret",
    "token",
    "auth",
    "login",
    "payment",
    "refund",
    "customer",
    "order",
    "shipping",
    "stock",
    "price",
    "forecast",
    "budget",
    "tax",
    "payroll",
    "contract",
    "legal",
]


def vocabulary(size: int) -> tuple[list[str], list[float]]:
    """The theme words, then ``size`` more, drawn with Zipf weights (1 / rank) as the
    words of real descriptions are; ``size`` 0 draws the ~100 theme words alone,
    each then in about a fifth of all skills (the worst case for an inverted index)."""
    words = WORDS + [f"word{i}" for i in range(size)]
    return words, [1 / (rank + 1) for rank in range(len(words))]


def generate(n: int, size: int, seed: int = 7) -> list[Doc]:
    rng = random.Random(seed)
    words_of, weights = vocabulary(size)
    docs = []
    for i in range(n):
        words = rng.choices(words_of, weights, k=rng.randint(12, 40))
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"
        docs.append(Doc(str(i), name, "Use when " + " ".join(words) + "."))
    return docs


def prompts(k: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(2, 6))) for _ in range(k)]


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--vocabulary",
        type=int,
        default=0,
        help="words beyond the ~100 theme words, Zipf-distributed (default 0: worst case)",
    )
    args = parser.parse_args()
    docs = generate(args.skills, args.vocabulary)
    queries = prompts(args.queries)

    start = time.perf_counter()
    index = Bm25Index(docs)
    ours_build = time.perf_counter() - start
    ours_q = []
    for q in queries:
        t = time.perf_counter()
        index.rank(q, 10)
        ours_q.append(time.perf_counter() - t)
    print(f"skills {args.skills:,}, queries {args.queries}, extra vocabulary {args.vocabulary:,}")
    print(
        f"ours:  build {ours_build:.2f} s; per query "
        f"p50 {statistics.median(ours_q) * 1000:.1f} ms, "
        f"p90 {p(ours_q, 0.9) * 1000:.1f} ms"
    )

    try:
        import bm25s
    except ImportError:
        print("bm25s not installed: pip install bm25s (ratios skipped)")
        return 0
    corpus = [tokens(d.text) for d in docs]
    start = time.perf_counter()
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(w, len(vocab)) for w in doc] for doc in corpus]
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    theirs_build = time.perf_counter() - start
    theirs_q = []
    for q in queries:
        qids = [[vocab[w] for w in tokens(q) if w in vocab]]
        t = time.perf_counter()
        retriever.retrieve(
            bm25s.tokenization.Tokenized(ids=qids, vocab=vocab), k=10, show_progress=False
        )
        theirs_q.append(time.perf_counter() - t)
    print(
        f"bm25s: build {theirs_build:.2f} s; per query "
        f"p50 {statistics.median(theirs_q) * 1000:.1f} ms, "
        f"p90 {p(theirs_q, 0.9) * 1000:.1f} ms"
    )
    print(
        f"ratio (ours / bm25s): build {ours_build / theirs_build:.2f}x, "
        f"per-query p90 {p(ours_q, 0.9) / p(theirs_q, 0.9):.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Selection's BM25 index against bm25s on the same texts, in the same run.

Our figures: building the index of 100,000 generated skills (name, description,
when_to_use, keywords), and ranking 200 prompts (per-query p50 and p90). The baseline:
``bm25s`` (a maintained BM25 library, numpy and scipy under it) indexing the same texts
with the same tokens (made in its timed part too) and ranking the same prompts. Without
bm25s the script says how to get it and prints our figures alone.

    python benchmarks/bench_select.py [--skills 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.selection import Doc, Index, words

VOCAB = [
    "pdf",
    "form",
    "merge",
    "split",
    "rotate",
    "page",
    "slide",
    "deck",
    "presentation",
    "spreadsheet",
    "formula",
    "chart",
    "pivot",
    "table",
    "cell",
    "word",
    "document",
    "comment",
    "track",
    "change",
    "brand",
    "colour",
    "font",
    "design",
    "canvas",
    "poster",
    "image",
    "gif",
    "animation",
    "slack",
    "message",
    "email",
    "report",
    "summary",
    "meeting",
    "note",
    "calendar",
    "deploy",
    "azure",
    "aws",
    "cloud",
    "kubernetes",
    "docker",
    "container",
    "test",
    "browser",
    "playwright",
    "api",
    "sdk",
    "model",
    "prompt",
    "token",
    "cache",
    "database",
    "query",
    "index",
    "search",
    "log",
    "metric",
    "alert",
    "incident",
    "triage",
    "review",
    "commit",
    "branch",
    "merge",
    "release",
    "version",
    "changelog",
    "license",
    "audit",
    "secret",
]


def generate(n: int, seed: int = 1) -> list[Doc]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        desc = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(12, 40)))
        when = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(0, 10)))
        keys = tuple(rng.choice(VOCAB) for _ in range(rng.randint(0, 4)))
        docs.append(Doc(f"gen:{i}", f"skill-{i}-{rng.choice(VOCAB)}", desc, when, keys))
    return docs


def p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    docs = generate(args.skills)
    rng = random.Random(2)
    prompts = [
        " ".join(rng.choice(VOCAB) for _ in range(rng.randint(3, 8))) for _ in range(args.queries)
    ]

    start = time.perf_counter()
    index = Index.build(docs)
    ours_build = time.perf_counter() - start
    ours_q = []
    for prompt in prompts:
        t = time.perf_counter()
        index.rank(prompt, 10)
        ours_q.append(time.perf_counter() - t)
    print(
        f"ours:  build {ours_build:.2f} s for {len(docs):,} skills; per query "
        f"p50 {p(ours_q, 0.5) * 1000:.1f} ms, p90 {p(ours_q, 0.9) * 1000:.1f} ms"
    )
    try:
        import bm25s
    except ImportError:
        print("bm25s not installed: pip install bm25s (numpy, scipy) for the baseline")
        return
    start = time.perf_counter()
    corpus = [words(d.text) for d in docs]  # the same tokens, made from the same texts
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(corpus, show_progress=False)
    base_build = time.perf_counter() - start
    base_q = []
    for prompt in prompts:
        t = time.perf_counter()
        retriever.retrieve([words(prompt)], k=10, show_progress=False)
        base_q.append(time.perf_counter() - t)
    print(
        f"bm25s: build {base_build:.2f} s; per query p50 {p(base_q, 0.5) * 1000:.1f} ms, "
        f"p90 {p(base_q, 0.9) * 1000:.1f} ms"
    )
    print(
        f"ratios: build {ours_build / base_build:.2f} (target <= 2), "
        f"query p90 {p(ours_q, 0.9) / p(base_q, 0.9):.2f} (target <= 2, and p90 < 50 ms)"
    )


if __name__ == "__main__":
    main()

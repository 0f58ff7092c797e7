"""Reading a JSON-with-comments config (``.vscode/mcp.json``) against plain JSON.

The baseline is ``json.loads`` of the same text without its comments: the least any
reader must do. Our figure is ``parse_json`` of the text with comments (a failed plain
parse, the comment and trailing-comma passes, the parse). Shapes: many short strings
(a long argument list), one long string, and a comment on every line. Each is run
alternately several times and the medians are compared.

    python benchmarks/bench_config.py [--mib 4] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.sources.config.importers.common import parse_json


def shapes(mib: int) -> dict[str, tuple[str, str]]:
    """name -> (text with comments, the same JSON without them)."""
    size = mib * 1024 * 1024
    args = [f"a{i:07d}" for i in range(size // 11)]
    many = json.dumps({"servers": {"a": {"command": "x", "args": args}}})
    one = json.dumps({"servers": {"a": {"command": "x", "args": ["y" * size]}}})
    lines = "\n".join(f'    "k{i}": {i}, // note {i}' for i in range(size // 28))
    commented = "{\n" + lines + "\n}"
    plain = json.dumps({f"k{i}": i for i in range(size // 28)})
    return {
        "many strings": ("// servers\n" + many, many),
        "one long string": ("/* servers */\n" + one, one),
        "a comment per line": (commented, plain),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=7)
    opts = ap.parse_args()
    print(f"{opts.mib} MiB per shape, median of {opts.rounds} rounds")
    for name, (jsonc, plain) in shapes(opts.mib).items():
        ours, floor = [], []
        for _ in range(opts.rounds):
            t = time.perf_counter()
            parse_json(jsonc)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            json.loads(plain)
            floor.append(time.perf_counter() - t)
        o, f = statistics.median(ours), statistics.median(floor)
        print(
            f"  {name:20s} ours {o * 1000:8.1f} ms   json.loads {f * 1000:8.1f} ms   {o / f:5.1f}x"
        )


if __name__ == "__main__":
    main()

"""Reading SKILL.md files with and without the YAML 1.2 check, in the same run.

Every SKILL.md is read as YAML 1.1; a text that may hold a value YAML 1.2 reads
otherwise is read a second time (desktop.core.frontmatter_12). The baseline is the same
reading with that check turned off. Three kinds of files: plain ones (the common case),
ones whose description holds a word such as "no" (the check looks closer), and ones with
a value the two versions read differently (the second reading is made).

    python benchmarks/bench_frontmatter.py [--files 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core import frontmatter, frontmatter_12
from desktop.core.skill_md import parse_skill_md

KINDS = {
    "plain": "description: Fill and merge PDF forms, skill {i}.\n",
    "a word like no": "description: Use it when no form is open on screen, skill {i}.\n",
    "read otherwise": "description: Fill forms, skill {i}.\nbuild: 017\n",
}


def documents(kind: str, count: int) -> list[bytes]:
    return [
        (
            f"---\nname: skill-{i:05d}\n" + KINDS[kind].format(i=i) + "metadata:\n"
            f'  nimblebrain:\n    triggers: ["word{i}"]\n    priority: {i % 100}\n---\n\n# x\n'
        ).encode()
        for i in range(count)
    ]


def timed(docs: list[bytes]) -> float:
    start = time.perf_counter()
    for data in docs:
        parse_skill_md(data)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    check, flags = frontmatter_12.second_reading, frontmatter._FAST_READER.differs
    for kind in KINDS:
        docs = documents(kind, args.files)
        ours, base = [], []
        for _ in range(args.rounds):  # alternately, so both see the same machine
            frontmatter_12.second_reading = check
            frontmatter._FAST_READER.differs = flags
            ours.append(timed(docs))
            frontmatter_12.second_reading = lambda _text, _first, **_: (None, [])
            frontmatter._FAST_READER.differs = None
            base.append(timed(docs))
        frontmatter_12.second_reading = check
        frontmatter._FAST_READER.differs = flags
        o, b = statistics.median(ours), statistics.median(base)
        print(
            f"{kind:>15}: {args.files} SKILL.md in {o * 1000:.0f} ms with the YAML 1.2 check, "
            f"{b * 1000:.0f} ms without (x{o / b:.2f})"
        )


if __name__ == "__main__":
    main()

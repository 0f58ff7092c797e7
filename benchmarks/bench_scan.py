"""Listing a folder of 1,000 generated skills (3 files each) against the bare floor.

The floor is the least any scanner must do: walk the folder, read every file and hash
it with a plain loop. Our figure is ``skill-catalog list``'s work (scan, parse, check,
catalog, JSON) in the same process on the same files. Both are run alternately several
times and the medians are compared; the page cache is warm for both.

    python benchmarks/bench_scan.py [--skills 1000] [--rounds 21]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.cli.output import json_bytes
from desktop.core.catalog import build_catalog
from desktop.core.collector import collector_paused
from desktop.core.model import SourceSpec
from desktop.sources.folder import scan_folder


def generate(root: Path, count: int) -> None:
    for i in range(count):
        name = f"skill-{i:05d}"
        d = root / name
        (d / "references").mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Generated skill number {i} for the benchmark.\n"
            f'metadata:\n  nimblebrain:\n    triggers: ["word{i}"]\n    priority: {i % 100}\n'
            f"---\n\n# {name}\n\n" + "Some instructions.\n" * 40,
            encoding="utf-8",
        )
        (d / "references" / "GUIDE.md").write_text("A guide.\n" * 200, encoding="utf-8")
        (d / "template.txt").write_bytes(os.urandom(2048))


def floor(root: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                data = fh.read()
            hashlib.sha256(data).hexdigest()
            total += len(data)
    return total


def ours(root: Path) -> int:
    with collector_paused():  # as every one-shot command of the CLI runs
        return _list_json(root)


def _list_json(root: Path) -> int:
    status, skills = scan_folder(SourceSpec("bench", "local", "folder", str(root)))
    catalog = build_catalog([status], skills)
    return len(json_bytes(catalog.to_json()))  # what `list --json` prints


def timed(fn, root: Path) -> tuple[float, float]:
    """Wall time and CPU time of one call (CPU time is steadier on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    fn(root)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.skills)
        if hasattr(os, "sync"):
            os.sync()  # the new files' write-back must not land inside either measurement
        floor(root), ours(root)  # warm the page cache and imports
        f_times, o_times = [], []
        for _ in range(args.rounds):
            f_times.append(timed(floor, root))
            o_times.append(timed(ours, root))
        print(f"folder: {args.skills} skills x 3 files, {args.rounds} rounds, alternating")
        for i, kind in enumerate(("wall", "CPU")):
            for pick, how in ((statistics.median, "median"), (min, "best")):
                f = pick(t[i] for t in f_times)
                o = pick(t[i] for t in o_times)
                print(
                    f"  {kind:4s} {how:6s}: floor (walk + read + sha256, plain loop) "
                    f"{f * 1000:7.1f} ms;"
                    f" scan + checks + catalog + JSON {o * 1000:7.1f} ms; ratio {o / f:.2f}x"
                )
        print(
            "  target: <= 1.5x. On a shared machine the best rounds are the least disturbed ones."
        )


if __name__ == "__main__":
    main()

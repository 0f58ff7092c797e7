"""Watching a folder of 10,000 files: one listing, the pause it earns, and one skill read
again, each beside its floor measured in the same run.

- A listing (what the window and ``lint --watch`` take now and then) against the floor
  of walking the folder with ``os.walk`` and one ``os.lstat`` per entry.
- The pause until the next listing that its cost calls for, and the share of one
  processor watching then takes.
- Reading the one skill a change touches again (``scan_regions``) against scanning the
  whole folder again (``scan_folder``), which is what it spares.

    python benchmarks/bench_watch.py [--skills 1000] [--files 10] [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.folder_changes import pause
from desktop.core.model import SourceSpec
from desktop.sources.folder import scan_folder, scan_regions
from desktop.sources.folder_watch import list_folder


def generate(root: Path, skills: int, files: int) -> None:
    for i in range(skills):
        d = root / f"skill-{i:04d}"
        (d / "references").mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Skill {i}.\n---\n# Skill {i}\n",
            encoding="utf-8",
        )
        for j in range(files - 1):
            (d / "references" / f"note-{j}.md").write_text("A note.\n" * 20, encoding="utf-8")


def floor(root: Path) -> int:
    n = 0
    for dirpath, dirs, names in os.walk(root):
        for name in dirs + names:
            os.lstat(os.path.join(dirpath, name))
            n += 1
    return n


def median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--files", type=int, default=10, help="files per skill")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.skills, args.files)
        listing = list_folder(str(root))
        files = sum(1 for p in listing.entries if p not in listing.directories)
        spec = SourceSpec("bench", "local", "folder", str(root))
        ours = median_ms(lambda: list_folder(str(root)), args.rounds)
        bare = median_ms(lambda: floor(root), args.rounds)
        wait = pause(False, ours / 1000)
        print(f"folder: {files:,} files in {len(listing.directories):,} folders")
        print(f"one listing:        {ours:8.1f} ms   (floor, os.walk + lstat: {bare:.1f} ms)")
        print(
            f"next listing after: {wait * 1000:8.0f} ms   "
            f"(watching takes {ours / (ours + wait * 1000):.0%} of one processor)"
        )
        one = median_ms(lambda: scan_regions(spec, {"skill-0500"}), args.rounds)
        whole = median_ms(lambda: scan_folder(spec), max(3, args.rounds // 5))
        print(f"one skill again:    {one:8.1f} ms   (the whole folder again: {whole:.0f} ms)")


if __name__ == "__main__":
    main()

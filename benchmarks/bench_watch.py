"""Watching a folder of 10,000 files: one listing, the pause it earns, and one skill read
again, each beside its floor measured in the same run.

- A listing (what the window and ``lint --watch`` take now and then) against the floor
  of walking the folder with ``os.walk`` and one ``os.lstat`` per entry.
- The pause until the next listing that its cost calls for, and the share of one
  processor watching then takes.
- Reading the one skill a change touches again (``scan_regions``) against scanning the
  whole folder again (``scan_folder``), which is what it spares.
- With ``--window``: the window (offscreen) on that folder, its longest event-loop
  stall over a few seconds of watching (a 10 ms ``QTimer`` heartbeat) next to the same
  window not watching; and the time from a saved description to its row showing it.

    python benchmarks/bench_watch.py [--skills 1000] [--files 10] [--rounds 15] [--window]
"""

from __future__ import annotations

import argparse
import asyncio
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


async def heartbeat(seconds: float) -> float:
    """The longest gap beyond 10 ms between ticks of a 10 ms timer, in ms."""
    from PySide6.QtCore import QElapsedTimer, QTimer

    clock = QElapsedTimer()
    clock.start()
    gaps: list[int] = []
    last = [clock.elapsed()]

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    await asyncio.sleep(seconds)
    timer.stop()
    return max(0, max(gaps, default=0) - 10)


async def until(done: Callable[[], bool], timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not done() and time.monotonic() < end:
        await asyncio.sleep(0.001)


async def window_figures(root: Path, seconds: float) -> None:
    from PySide6.QtCore import QSettings

    from desktop.ui.app import build_window
    from desktop.ui.library.skill_table_model import COL_DESCRIPTION

    spec = SourceSpec("bench", "local", "folder", str(root))
    stalls = {}
    for watch in (False, True):
        settings = QSettings(str(root.parent / f"w{watch}.ini"), QSettings.Format.IniFormat)
        w = build_window([spec], settings=settings, watch=watch)
        w.resize(1280, 800)
        w.show()
        w.start()
        c = w.controller
        await until(lambda c=c: not c.busy and bool(c.catalog.skills))  # type: ignore[misc]
        if w.watcher is not None:
            await until(lambda w=w: w.watcher.ready)  # type: ignore[misc]
        stalls[watch] = await heartbeat(seconds)
        if watch:
            target = root / "skill-0500" / "SKILL.md"
            row = w.table_model.row_of("bench:skill-0500/SKILL.md")
            start = time.monotonic()
            target.write_text("---\nname: skill-0500\ndescription: Edited.\n---\n# Edited\n")
            cell = w.table_model.index(row or 0, COL_DESCRIPTION)
            await until(lambda cell=cell: cell.data() == "Edited.", 10)  # type: ignore[misc]
            shown = (time.monotonic() - start) * 1000
            print(f"saved to shown:     {shown:8.0f} ms   (a description edited on disk)")
        w.close()
        await c.reader.close()
        await asyncio.sleep(0.1)
    print(
        f"longest stall:      {stalls[True]:8.0f} ms   watching "
        f"(not watching: {stalls[False]:.0f} ms; 10 ms heartbeat, {seconds:g} s)"
    )


def run_window(root: Path, seconds: float) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    app.setQuitOnLastWindowClosed(False)  # the second window follows the first
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(window_figures(root, seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--files", type=int, default=10, help="files per skill")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--window", action="store_true", help="the window's figures too")
    parser.add_argument("--seconds", type=float, default=5.0, help="heartbeat per window")
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
        if args.window:
            run_window(root, args.seconds)


if __name__ == "__main__":
    main()

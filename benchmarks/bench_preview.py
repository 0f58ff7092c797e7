"""The longest event-loop stall while the preview shows hostile bodies.

Each body is a ``SKILL.md`` (at most 120 KB, and one line of 2 MB) that Qt is slow
to lay out (list items, tables that skip a line-based table count, many lines). The
window previews it as a user would (select, Preview), and a 10 ms ``QTimer``
heartbeat records the longest gap until the preview settled; next to the same
heartbeat on an idle loop and on a small body. Target: every gap under 200 ms. Runs
offscreen by default (``QT_QPA_PLATFORM``):

    python benchmarks/bench_preview.py [--only list-20000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def bodies() -> dict[str, str]:
    row = "x | y\n"
    return {
        "small": "# Small\n\nA paragraph and [a link](references/a.md).\n",
        "list-20000": "".join(f"- {i % 100}\n" for i in range(20_000)),
        "list-30000": "- x\n" * 30_000,
        "list-8000": "- x\n" * 8_000,
        "table-no-pipes": "a | b\n--|--\n" + row * 3_000,
        "table-in-quote": "> | a | b |\n> |---|---|\n" + "> | x | y |\n" * 3_000,
        "table-in-list": "- a\n\n    | a | b |\n    |---|---|\n" + "    | x | y |\n" * 3_000,
        "code-lines": "```\n" + "x\n" * 60_000 + "```\n",
        "headings": "# h\n" * 30_000,
        "one-line-2mb": "A" * 2_000_000 + "\n",
    }


def heartbeat(app: object, run: Callable[[], None]) -> tuple[float, float]:
    from PySide6.QtCore import QElapsedTimer, QTimer

    clock = QElapsedTimer()
    clock.start()
    gaps: list[int] = []
    last = [clock.elapsed()]

    def beat() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(beat)
    timer.start()
    t0 = time.perf_counter()
    run()
    now = clock.elapsed()
    gaps.append(now - last[0])
    timer.stop()
    return max(gaps) - 10, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(bodies()))
    args = parser.parse_args()
    import qasync
    from PySide6.QtCore import QSettings, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from desktop.core.model import SourceSpec
    from desktop.ui.app import build_window

    qInstallMessageHandler(lambda *_: None)
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app, already_running=True)
    asyncio.set_event_loop(loop)
    chosen = {k: v for k, v in bodies().items() if args.only in (None, k, "small")}
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        folder = Path(tmp) / "skills"
        for name, body in chosen.items():
            (folder / name).mkdir(parents=True)
            (folder / name / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: {name}.\n---\n{body}", encoding="utf-8"
            )
        settings = QSettings(os.path.join(tmp, "s.ini"), QSettings.Format.IniFormat)
        w = build_window([SourceSpec("bench", "local", "folder", str(folder))], settings=settings)
        w.resize(1400, 860)
        w.show()

        def until(done: Callable[[], bool], limit: float = 600) -> None:
            end = time.perf_counter() + limit
            while not done() and time.perf_counter() < end:
                app.processEvents()
                time.sleep(0.001)

        w.start()
        until(lambda: not w.controller.busy)

        def idle() -> None:
            end = time.perf_counter() + 1
            until(lambda: time.perf_counter() > end)

        base, _ = heartbeat(app, idle)
        print(f"bench_preview: Qt platform {os.environ['QT_QPA_PLATFORM']}, {os.cpu_count()} CPUs")
        print(f"idle loop: longest extra gap {base:.0f} ms")
        for name, body in chosen.items():
            assert w.select_skill(f"bench:{name}/SKILL.md"), name

            def preview() -> None:
                w.preview.fetch()
                until(lambda: not w.controller.busy)
                app.processEvents()

            stall, took = heartbeat(app, preview)
            shown = w.preview.rendered.toPlainText()
            outcome = "not rendered" if shown.startswith("Not rendered") else "rendered"
            print(
                f"{name:15} {len(body.encode()) / 1024:6.0f} KiB: {outcome:12} in {took:5.1f} s, "
                f"longest extra gap {stall:6.0f} ms (target < 200 ms)",
                flush=True,
            )
        w.close()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()

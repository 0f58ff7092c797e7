"""Progress on the terminal while the command line waits for sources and reads.

One line on standard error, redrawn in place, as pip and uv show theirs: which sources
are still being read (and what a package runner may be doing), or how many skills are
verified of the total. It is drawn only when standard error is a terminal and the
output is not ``--json``; otherwise nothing extra is written. The line is cleared
before the command prints its result.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import time
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from desktop.core.model import SourceSpec
from desktop.core.visible import visible

if TYPE_CHECKING:
    from desktop.core.catalog import Catalog
    from desktop.session.catalog_session import CatalogSession

T = TypeVar("T")
TICK = 0.1
_SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def wanted(as_json: bool = False, stream: TextIO | None = None) -> bool:
    """Whether to show progress: stderr is a terminal and the output is for people."""
    out = stream if stream is not None else sys.__stderr__
    return not as_json and out is not None and out.isatty()


class Line:
    """One status line on a terminal, redrawn in place and cleared at the end."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.__stderr__
        self.started = time.monotonic()
        self._frame = 0
        self._shown = False

    def draw(self, text: str) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self._frame = (self._frame + 1) % len(_SPIN)
        elapsed = time.monotonic() - self.started
        line = visible(f"{_SPIN[self._frame]} {text} ({elapsed:.0f} s)")
        if len(line) > width:
            line = line[: max(0, width - 1)] + "…"
        with contextlib.suppress(OSError, ValueError):
            assert self.stream is not None
            self.stream.write("\r\x1b[K" + line)
            self.stream.flush()
            self._shown = True

    def clear(self) -> None:
        if self._shown:
            with contextlib.suppress(OSError, ValueError):
                assert self.stream is not None
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            self._shown = False


class SourcesProgress:
    """ "reading sources: 2 of 5 · waiting for docs (starting (npx may be installing the
    package)), wiki"."""

    def __init__(self, specs: Sequence[SourceSpec], line: Line | None = None) -> None:
        from desktop.sources.launchers import spec_runner, starting_message

        self.line = line or Line()
        self.specs = [s for s in specs if s.enabled]
        self.waiting = {s.label: s for s in self.specs}
        self._why = {s.label: starting_message(s) for s in self.specs if spec_runner(s) is not None}

    def done(self, status: Any, _skills: Any = None) -> None:
        self.waiting.pop(status.origin.label, None)
        self.draw()

    def draw(self) -> None:
        total = len(self.specs)
        finished = total - len(self.waiting)
        names = [
            f"{label} ({self._why[label]})" if label in self._why else label
            for label in self.waiting
        ]
        text = f"reading sources: {finished} of {total} done"
        if names:
            text += " · waiting for " + ", ".join(names)
        self.line.draw(text)


class CountProgress:
    """ "verifying: 12 of 40 skills"."""

    def __init__(self, what: str, total: int, line: Line | None = None) -> None:
        self.line = line or Line()
        self.what = what
        self.total = total
        self.finished = 0

    def step(self) -> None:
        self.finished += 1
        self.draw()

    def draw(self) -> None:
        self.line.draw(f"{self.what}: {self.finished} of {self.total}")


async def while_showing(progress: Any, work: Awaitable[T]) -> T:
    """Await ``work``, redrawing ``progress`` every tick; the line is cleared after."""

    async def tick() -> None:
        while True:
            progress.draw()
            await asyncio.sleep(TICK)

    ticker = asyncio.ensure_future(tick())
    try:
        return await work
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        progress.line.clear()


async def discover(
    specs: Sequence[SourceSpec],
    *,
    show: bool,
    budgets: Any = None,
    session: CatalogSession | None = None,
) -> Catalog:
    """The catalog of ``specs``, read by the catalog session (``session``, the command's,
    whose connections stay open for the reads that follow; else one of its own), with
    the sources' progress when ``show``."""
    from desktop.cli.command_session import new_session

    own = session is None
    if session is None:
        session = new_session(specs, budgets=budgets)
    try:
        if not show:
            return await session.read_catalog()
        progress = SourcesProgress(specs)
        return await while_showing(progress, session.read_catalog(on_source=progress.done))
    finally:
        if own:
            await session.reader.close()

"""The review's diffs of a file changed since approval, made off the GUI thread.

A line diff of two large files with many changes takes time that grows with the square
of their size (8-16 s for 200 KB changed on every other line): on the GUI thread it
froze the window. Here each diff runs on a worker thread, bounded in time
(:data:`~desktop.core.review.DIFF_SECONDS`), and its page is made there too; the
view shows "Comparing…" meanwhile and the result when it is ready, kept by the
file's URI and both digests so that showing it again costs nothing. Past the bound
the page says there are too many changes to show line by line, with both sizes, and
both versions are shown side by side as they are (:class:`SideBySide`, plain text
panes that lay out only what is on screen).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from desktop.core.model import SkillFile
from desktop.core.review import DIFF_SECONDS, TooManyChanges, text_diff
from desktop.core.visible import visible
from desktop.ui.review.review_html import (
    dark_background,
    diff_html,
    esc,
    line_styles,
    script_banner,
)

# Characters of each version the side-by-side view shows (a file may be far larger).
RAW_LIMIT = 512 * 1024


@dataclass(frozen=True, slots=True)
class DiffPage:
    """What the view shows for one changed file: its page, and, when there were too many
    changes to show line by line, both versions as text (approved, now)."""

    html: str
    raw: tuple[str, str] | None = None


def comparing_html(f: SkillFile, old: SkillFile) -> str:
    return (
        f"<p><code>{esc(f.uri)}</code> — changed since approval "
        f"({old.size:,} → {f.size:,} bytes).</p><p>Comparing with the approved version…</p>"
    )


def too_many_html(
    f: SkillFile, old: SkillFile, seconds: float, *, script: bool, banner: str = ""
) -> str:
    banner = (banner or script_banner()) if script else ""
    return (
        f"<p><code>{esc(f.uri)}</code> — changed since approval: <b>too many changes to "
        f"show line by line</b> (the approved version is {old.size:,} bytes, it is "
        f"{f.size:,} bytes now; the comparison was stopped after {seconds:g} s).</p>"
        + banner
        + "<p>Both versions are shown side by side below, as they are.</p>"
    )


def _raw(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + f"\n… (only the first {RAW_LIMIT // 1024} KiB are shown)"
    return visible(text)


def diff_page(
    f: SkillFile,
    old: SkillFile,
    before: bytes,
    data: bytes,
    *,
    script: bool,
    seconds: float = DIFF_SECONDS,
    styles: dict[str, str] | None = None,
    banner: str = "",
) -> DiffPage:
    """The page of ``f`` changed from ``old`` (``before`` → ``data``): blocking, bounded
    by ``seconds``; run it on a worker thread, with ``styles`` and ``banner`` made on
    the GUI thread (they follow the palette)."""
    try:
        lines = text_diff(before, data, seconds=seconds)
    except TooManyChanges as exc:
        return DiffPage(
            too_many_html(f, old, exc.seconds, script=script, banner=banner),
            (_raw(before), _raw(data)),
        )
    return DiffPage(diff_html(f, old, lines, script=script, styles=styles, banner=banner))


class Diffs:
    """The diffs of the review: made on a worker thread, one per file version and
    palette (light or dark), kept until the window closes. ``spawn`` runs a coroutine
    (the view's task runner); ``ready`` is called with the key of each diff done."""

    def __init__(
        self,
        spawn: Callable[[Any, str], Any],
        ready: Callable[[tuple[str, str, str]], None],
    ) -> None:
        self._spawn = spawn
        self._ready = ready
        self._done: dict[tuple[str, str, str, bool], DiffPage] = {}
        self._pending: set[tuple[str, str, str, bool]] = set()
        self.closed = False  # the view is gone: a diff finishing later is dropped
        self.seconds = DIFF_SECONDS  # how long one diff may take

    def page(
        self, f: SkillFile, old: SkillFile, before: bytes, data: bytes, *, script: bool
    ) -> DiffPage:
        """The page of this change when its diff is done; else "Comparing…", and the
        diff is started (once)."""
        dark = dark_background()
        key = (f.uri, old.digest, f.digest, dark)
        done = self._done.get(key)
        if done is not None:
            return done
        if key not in self._pending:
            self._pending.add(key)
            self._spawn(self._make(key, f, old, before, data, script), "comparing versions")
        return DiffPage(comparing_html(f, old))

    async def _make(
        self,
        key: tuple[str, str, str, bool],
        f: SkillFile,
        old: SkillFile,
        before: bytes,
        data: bytes,
        script: bool,
    ) -> None:
        try:
            page = await asyncio.to_thread(
                diff_page,
                f,
                old,
                before,
                data,
                script=script,
                seconds=self.seconds,
                styles=line_styles(key[3]),
                banner=script_banner(),
            )
        except Exception as exc:  # noqa: BLE001 - said in place of the diff
            page = DiffPage(
                f"<p><code>{esc(f.uri)}</code> — changed since approval; the versions could "
                f"not be compared ({esc(type(exc).__name__)}).</p>"
            )
        finally:
            self._pending.discard(key)
        if not self.closed:
            self._done[key] = page
            self._ready(key[:3])


class SideBySide(QWidget):
    """Two versions of a file as plain text, side by side, scrolling together."""

    NAMES = ("Approved version", "Now")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: tuple[str, str, str] | None = None
        self.setObjectName("sideBySide")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        layout.addWidget(split)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.labels: list[QLabel] = []
        self.panes: list[QPlainTextEdit] = []
        for name in self.NAMES:
            column = QWidget(split)
            column_layout = QVBoxLayout(column)
            column_layout.setContentsMargins(0, 0, 0, 0)
            label = QLabel(name, column)
            label.setTextFormat(Qt.TextFormat.PlainText)
            pane = QPlainTextEdit(column)
            pane.setReadOnly(True)
            pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            pane.setFont(mono)
            pane.setAccessibleName(name)
            column_layout.addWidget(label)
            column_layout.addWidget(pane, 1)
            split.addWidget(column)
            self.labels.append(label)
            self.panes.append(pane)
        left, right = (p.verticalScrollBar() for p in self.panes)
        left.valueChanged.connect(right.setValue)
        right.valueChanged.connect(left.setValue)
        self.hide()

    def show_pair(self, old: SkillFile, new: SkillFile, texts: tuple[str, str]) -> None:
        """Show ``texts`` (approved, now) of the file ``new`` changed from ``old``."""
        key = (new.uri, old.digest, new.digest)
        if key != self._shown:
            self._shown = key
            pairs = zip(self.labels, self.panes, (old, new), texts, self.NAMES, strict=True)
            for label, pane, f, text, name in pairs:
                label.setText(f"{name}: {f.size:,} bytes")
                pane.setPlainText(text)
        self.show()

    def clear_pair(self) -> None:
        if self._shown is not None:
            self._shown = None
            for pane in self.panes:
                pane.clear()
        self.hide()

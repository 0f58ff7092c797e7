"""The one place where the window tells the user what went wrong (or right).

Every failure a user should see — a source that could not be read, a file whose bytes
did not match, a keyring that is locked — goes through :class:`Notifier`. The main
window shows the latest message in the status bar and keeps every message in the
Messages panel; no widget opens an error dialog of its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from desktop.core.states import Severity, member
from desktop.core.visible import visible

LEVELS = ("error", "warning", "info")
BRIEF = 120  # characters of a notice the status bar shows
LONG_WORD = 36  # a longer word (a path) is shown by its ends there


@dataclass(frozen=True, slots=True)
class Notice:
    level: str
    text: str
    when: float

    @property
    def word(self) -> str:
        """The level as people read it beside a problem: Error, Warning, Note."""
        level = member(Severity, self.level)
        return level.label if level is not None else self.level

    def shown(self) -> str:
        """The notice as the status bar shows it."""
        return f"{self.word}: {self.text}"

    def brief(self) -> str:
        """The notice in one short line for the status bar (the Activity view keeps it
        whole): a long one is cut at a word, with an ellipsis."""
        text = self.shown()
        if len(text) <= BRIEF:
            return text
        # A long path or address keeps its ends: "/tmp/skill…/no-such-folder".
        text = " ".join(
            f"{w[: LONG_WORD // 3]}…{w[-LONG_WORD // 2 :]}" if len(w) > LONG_WORD else w
            for w in text.split(" ")
        )
        if len(text) > BRIEF:
            text = text[:BRIEF].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return f"{text} (View ▸ Activity)"

    def line(self) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(self.when))
        return f"{stamp}  {self.shown()}"


class Notifier(QObject):
    """Collects notices and announces each one."""

    noticed = Signal(object)  # Notice

    def __init__(self, parent: QObject | None = None, *, keep: int = 500) -> None:
        super().__init__(parent)
        self.notices: list[Notice] = []
        self._keep = keep

    def notify(self, level: str, text: str) -> Notice:
        # Notices quote servers and skills: their control and bidirectional characters
        # show as codes in the status bar and the Messages panel.
        text = visible(" ".join(text.split()))
        notice = Notice(level if level in LEVELS else "info", text, time.time())
        self.notices.append(notice)
        del self.notices[: -self._keep]
        self.noticed.emit(notice)
        return notice

    def error(self, text: str) -> Notice:
        return self.notify("error", text)

    def warning(self, text: str) -> Notice:
        return self.notify("warning", text)

    def info(self, text: str) -> Notice:
        return self.notify("info", text)

    def last(self, level: str | None = None) -> Notice | None:
        for notice in reversed(self.notices):
            if level is None or notice.level == level:
                return notice
        return None

"""The window's first look at its sources, taken before its event loop runs tasks.

At start-up the sources in use and the enabled local folders are read in a worker
thread while the window is shown, and the folders' skills go into the list as a partial
catalog. Nothing here needs asyncio, so the list fills before asyncio (with its
sockets, subprocesses and TLS) is even loaded. The catalog session's first reading of
the sources then takes these folders over rather than read them again, and reads the
servers as always.
"""

from __future__ import annotations

import contextlib
import threading

from PySide6.QtCore import QObject, Signal

from desktop.sources.gather import SourceRead, read_folder
from desktop.ui.sources.sources_service import SourcesService, SourcesSnapshot


class FirstLook(QObject):
    """One look at the sources, in a worker thread; ``finished`` is emitted on the
    window's thread once it is over, whether or not it went well."""

    finished = Signal()

    def __init__(self, sources: SourcesService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sources = sources
        # The sources in use, or None when they could not be read here (the session's
        # own reading then says why).
        self.snapshot: SourcesSnapshot | None = None
        self.read: dict[str, SourceRead] = {}  # folders, by label
        self.shown = False  # its folders' skills are in the list
        self.taken = False  # the session has taken its results over
        self._over = threading.Event()

    @property
    def over(self) -> bool:
        return self._over.is_set()

    def start(self) -> None:
        threading.Thread(target=self._run, name="first look", daemon=True).start()

    def wait(self) -> None:
        """Block until the look is over (from a worker thread, never the window's)."""
        self._over.wait()

    def _run(self) -> None:
        try:
            snapshot = self.sources.snapshot()
            self.read = {
                spec.label: read_folder(spec)
                for spec in snapshot.specs
                if spec.enabled and spec.kind_info.folder_on_disk and not spec.untrusted
            }
            self.snapshot = snapshot
        except Exception:  # noqa: BLE001 - the session reads again, and says what went wrong
            self.snapshot = None
            self.read = {}
        finally:
            self._over.set()
            with contextlib.suppress(RuntimeError):  # the window was closed meanwhile
                self.finished.emit()

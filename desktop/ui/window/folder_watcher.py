"""The local folder sources, watched while the window is open.

A timer lists each folder now and then on a worker thread (names, types, sizes and
modification times, never a file's bytes: :mod:`desktop.sources.folder_watch`) and
compares the listing with the last one. What changed is held until the folder is quiet
(a burst of saves is one change), then the controller reads again only the skills
it touches (:meth:`CatalogController.reread_folder`). A folder that is gone or cannot
be read is said in plain words, and read again when it is back.

The pause between listings follows their cost (:func:`desktop.core.folder_changes.pause`):
a quarter of a second, or ten times what the last listing took, so watching never
takes more than about a tenth of one processor (a folder of 10,000 files is listed
in a few tens of milliseconds). While changes are held the next listing comes
sooner, to tell when the burst is over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from desktop.core.folder_changes import Coalescer, Seen, changed_paths, pause
from desktop.core.model import SourceSpec
from desktop.sources.folder_watch import GONE, OK, TOO_LARGE, FolderListing, list_folder
from desktop.ui.catalog_controller import CatalogController

if TYPE_CHECKING:
    import asyncio

    from desktop.session.catalog_session import CatalogChange


@dataclass
class _Folder:
    spec: SourceSpec
    entries: dict[str, Seen] | None = None  # None: no listing yet
    directories: set[str] = field(default_factory=set)
    held_directories: set[str] = field(default_factory=set)  # among the held changes
    trouble: str = ""  # why the folder cannot be watched, as last said
    too_large: bool = False
    seen: bool = False  # listed once: if it goes, it is no longer there
    coalescer: Coalescer = field(default_factory=Coalescer)


def _look(folder: _Folder) -> tuple[FolderListing, set[str], set[str]]:
    """A new listing, the paths changed since the last and which of them are folders
    (on a worker thread: a listing of a large folder is thousands of entries)."""
    listing = list_folder(folder.spec.endpoint, seen=folder.seen)
    if listing.state != OK or folder.entries is None:
        return listing, set(), set()
    changed = changed_paths(folder.entries, listing.entries)
    folders = {p for p in changed if p in listing.directories or p in folder.directories}
    return listing, changed, folders


class FolderWatcher(QObject):
    def __init__(self, controller: CatalogController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.notifier = controller.notifier
        self.folders: dict[str, _Folder] = {}
        self.listing_seconds = 0.0  # what the last round of listings took
        self._task: asyncio.Task[Any] | None = None
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._tick)
        controller.catalogChanged.connect(self.follow)

    @property
    def ready(self) -> bool:
        """Whether every watched folder has been listed once (changes from then on show)."""
        return all(f.entries is not None or f.trouble for f in self.folders.values())

    def follow(self, change: CatalogChange) -> None:
        """Watch the enabled local folders of the catalog just built (not of a partial
        one: the sources still reading may change what is watched)."""
        c = self.controller
        if change.interim or self._stopped:
            return
        wanted = {s.label: s for s in c.specs if s.enabled and s.kind == "local"}
        for label in list(self.folders):
            spec = wanted.get(label)
            if spec is None or spec.endpoint != self.folders[label].spec.endpoint:
                del self.folders[label]
        for label, spec in wanted.items():
            self.folders.setdefault(label, _Folder(spec))
        if self.folders and self._task is None and not self._timer.isActive():
            self._timer.start(0)

    def stop(self) -> None:
        self._stopped = True
        self._timer.stop()
        if self._task is not None:
            self._task.cancel()

    def _tick(self) -> None:
        import asyncio

        if self._stopped or self.controller.closing or not self.folders:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # the window is closing: its loop has stopped
        self._task = asyncio.ensure_future(self._round())
        self._task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._task = None
        if task.cancelled() or self._stopped:
            return
        exc = task.exception()
        if exc is not None:  # said, and watching goes on
            self.notifier.error(f"watching the folders failed: {exc}")
        waiting = any(f.coalescer.waiting for f in self.folders.values())
        self._timer.start(int(pause(waiting, self.listing_seconds) * 1000))

    async def _round(self) -> None:
        import asyncio

        took = 0.0
        for label, folder in list(self.folders.items()):
            start = time.perf_counter()
            listing, changed, folders = await asyncio.to_thread(_look, folder)
            took += time.perf_counter() - start
            if self.folders.get(label) is folder and not self.controller.closing:
                await self._compare(label, folder, listing, changed, folders)
        self.listing_seconds = took

    async def _compare(
        self,
        label: str,
        folder: _Folder,
        listing: FolderListing,
        changed: set[str],
        folders: set[str],
    ) -> None:
        c = self.controller
        if listing.state != GONE:
            folder.seen = True  # it is there, if perhaps not readable
        if listing.state != OK:
            if folder.trouble == listing.message:
                return
            folder.trouble, folder.entries = listing.message, None
            folder.too_large = listing.state == TOO_LARGE
            folder.coalescer = Coalescer()
            if folder.too_large:
                self.notifier.warning(
                    f"{label}: {listing.message}; press F5 (Refresh sources) to see changes"
                )
                return
            self.notifier.warning(f"{label}: {listing.message}; its skills are not shown")
            await c.reread_folder(label, trouble=listing.message)
            return
        if folder.trouble:
            folder.trouble = ""
            folder.entries, folder.directories = listing.entries, listing.directories
            if not folder.too_large:
                self.notifier.info(f"{label}: the folder can be read again")
            await c.reread_folder(label, whole=True)
            return
        first = folder.entries is None
        folder.entries, folder.directories = listing.entries, listing.directories
        if first:
            return
        folder.held_directories |= folders
        batch = folder.coalescer.observe(changed, time.monotonic())
        if batch:
            held, folder.held_directories = folder.held_directories, set()
            await c.reread_folder(label, batch, held & batch)

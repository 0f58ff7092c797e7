"""The served folder over time: re-scanned when its tree changes.

The folder is scanned once at start. Before a request that must see the current
folder (the first page of a listing, `skills/get`, a directory read, a read that
misses) the tree's stat signature is taken (names, sizes, modification times);
only when it differs is the folder scanned again. Each scan is a numbered
generation, and a listing cursor names its generation, so one listing walk sees
one consistent snapshot even if the folder changes half way through.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from desktop.core.model import Skill, SourceSpec
from desktop.serve.publish import Publication, publish
from desktop.sources.folder import SKIPPED_DIRS, scan_folder

# How many past generations stay available to cursors of walks in progress.
KEPT_GENERATIONS = 4

Scanner = Callable[[Path], list[Skill]]


def scan_with_folder_scanner(root: Path) -> list[Skill]:
    """Scan ``root`` with the catalog's own local-folder scanner."""
    spec = SourceSpec(label="serve", kind="local", transport="folder", endpoint=str(root))
    _status, skills = scan_folder(spec)
    return skills


def tree_signature(root: Path) -> bytes:
    """A digest of every entry's path, type, size and mtime under ``root``.

    Symbolic links are recorded, not followed, so a link loop cannot trap the walk.
    """
    h = hashlib.blake2b(digest_size=16)
    stack = [str(root)]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            h.update(f"!{top}:{exc.errno}\n".encode("utf-8", "surrogateescape"))
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            h.update(
                f"{entry.path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\n".encode(
                    "utf-8", "surrogateescape"
                )
            )
            if entry.is_dir(follow_symlinks=False) and entry.name not in SKIPPED_DIRS:
                stack.append(entry.path)
    return h.digest()


class PublishedFolder:
    """The current publication of a folder, plus a few recent generations."""

    def __init__(
        self,
        root: Path,
        scanner: Scanner = scan_with_folder_scanner,
        *,
        nonconforming: bool = False,
    ) -> None:
        self.root = root
        self._nonconforming = nonconforming
        self._scanner = scanner
        self._lock = threading.Lock()
        self._generations: OrderedDict[int, Publication] = OrderedDict()
        self._signature = b""
        # (generation, publication) of the last scan, replaced in one assignment: read
        # without the lock, it is never half of one scan and half of the next.
        self._latest: tuple[int, Publication] | None = None
        self.on_warning: Callable[[str], None] | None = None
        self.scans = 0

    @property
    def generation(self) -> int:
        latest = self._latest
        return 0 if latest is None else latest[0]

    def current(self) -> tuple[int, Publication]:
        """The latest (generation, publication), scanning the folder the first time.

        Once a scan has been made this never waits, not even for a re-scan running in
        another thread (a read served meanwhile gets the publication before it)."""
        latest = self._latest
        if latest is not None:
            return latest
        with self._lock:
            return self._latest or self._rescan(tree_signature(self.root))

    def refresh(self) -> tuple[int, Publication]:
        """Re-scan if the folder changed since the last scan; return the latest."""
        with self._lock:
            signature = tree_signature(self.root)
            if signature != self._signature or self._latest is None:
                return self._rescan(signature)
            return self._latest

    def snapshot(self, generation: int) -> Publication | None:
        # Never waits for a re-scan: the mapping is replaced whole, never changed.
        return self._generations.get(generation)

    def _rescan(self, signature: bytes) -> tuple[int, Publication]:
        publication = publish(
            self.root, self._scanner(self.root), nonconforming=self._nonconforming
        )
        self.scans += 1
        self._signature = signature
        generation = self.generation + 1
        kept = OrderedDict(self._generations)
        kept[generation] = publication
        while len(kept) > KEPT_GENERATIONS:
            kept.popitem(last=False)
        self._generations = kept
        self._latest = (generation, publication)
        if self.on_warning is not None:
            for warning in publication.warnings:
                self.on_warning(warning)
        return self._latest

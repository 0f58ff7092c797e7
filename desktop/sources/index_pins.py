"""The digests the catalog pins for an index that vouches for none (a v0.1 index).

The first time a file of such an index is read, its SHA-256 is kept here, in the
catalog's private cache (one small JSON file per index, mode 0600 in a 0700 folder);
every later listing is held to it. A file that changed since is listed with the pinned
digest, so its new bytes fail verification and are never shown.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

MAX_PINS_BYTES = 4 * 1024 * 1024


def pins_root(cache_root: Path | None) -> Path:
    """Where pins are kept: beside the cache of verified bytes."""
    if cache_root is not None:
        return cache_root.parent / "index-pins"
    from desktop.store.cache import default_cache_root

    return default_cache_root().parent / "index-pins"


class Pins:
    """The pinned digests of one index, by file URI."""

    def __init__(self, root: Path, index_url: str) -> None:
        name = hashlib.sha256(index_url.encode("utf-8")).hexdigest()[:32]
        self.path = root / f"{name}.json"
        self.index_url = index_url
        self.digests: dict[str, str] = {}
        self.changed = False

    def load(self) -> Pins:
        with contextlib.suppress(OSError, ValueError):
            if self.path.stat().st_size <= MAX_PINS_BYTES:
                doc = json.loads(self.path.read_bytes())
                files = doc.get("files") if isinstance(doc, dict) else None
                if isinstance(files, dict) and doc.get("index") == self.index_url:
                    self.digests = {str(k): str(v) for k, v in files.items() if isinstance(v, str)}
        return self

    def pin(self, uri: str, digest: str) -> str:
        """The digest ``uri`` is held to: the pinned one, or ``digest`` pinned now."""
        held = self.digests.get(uri)
        if held is None:
            self.digests[uri] = digest
            self.changed = True
            return digest
        return held

    def save(self) -> None:
        """Write the pins when they changed (quietly: a cache that cannot be written
        pins nothing, and the next listing pins again)."""
        if not self.changed:
            return
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".pins-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump({"index": self.index_url, "files": self.digests}, out)
                os.replace(tmp, self.path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            self.changed = False

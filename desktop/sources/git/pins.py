"""The commit each git source is pinned to: what it shows until the person updates.

Kept in ``git-pins.json`` in the user state folder (platformdirs'), keyed by the
source's label and its address (``URL#REF``), changed under a lock like the settings
files, so two programs at once lose nothing. The pinned commit is also kept in the
cached repository under a ref of its own (:func:`desktop.sources.git.runner.keep`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from desktop.core.model import SourceSpec

MAX_FILE_BYTES = 4 * 1024 * 1024


def pins_path() -> Path:
    import platformdirs

    return platformdirs.user_state_path("skill-catalog", appauthor=False) / "git-pins.json"


def pin_key(spec: SourceSpec) -> str:
    return f"{spec.label} {spec.endpoint}"


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = json.loads(fh.read(MAX_FILE_BYTES))
    except (OSError, ValueError):
        return {}
    pins = data.get("pins") if isinstance(data, dict) else None
    return pins if isinstance(pins, dict) else {}


def pinned(spec: SourceSpec) -> str | None:
    """The commit ``spec`` is pinned to, or None before its first fetch."""
    found = _read(pins_path()).get(pin_key(spec))
    commit = found.get("commit") if isinstance(found, dict) else None
    if isinstance(commit, str) and len(commit) == 40:
        return commit
    return None


def pin(spec: SourceSpec, commit: str) -> None:
    """Pin ``spec`` to ``commit``."""
    from desktop.sources.config.settings_file import locked, write_json

    path = pins_path()
    with locked(path):
        pins = _read(path)
        pins[pin_key(spec)] = {"commit": commit, "pinned_at": int(time.time())}
        write_json(path, {"version": 1, "pins": pins})

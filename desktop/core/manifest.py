"""Digests, sizes and the per-skill limits (D9)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from desktop.core.model import Problem, SkillFile

MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024  # 16 MiB
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}\Z")  # \Z: $ would allow a final line feed


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def check_limits(files: Iterable[SkillFile]) -> list[Problem]:
    """Check the 512-file and 16 MiB limits from the manifest alone."""
    files = list(files)
    problems: list[Problem] = []
    if len(files) > MAX_FILES:
        problems.append(
            Problem(
                "limit-files",
                f"the skill has {len(files)} files; hosts only need to accept {MAX_FILES}",
            )
        )
    total = sum(f.size for f in files if isinstance(f.size, int))
    if total > MAX_BYTES:
        problems.append(
            Problem(
                "limit-bytes",
                f"the skill's files add up to {total:,} bytes; hosts only need to accept "
                f"{MAX_BYTES:,} (16 MiB)",
            )
        )
    return problems


def format_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"

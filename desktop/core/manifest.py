"""Digests, sizes and the per-skill limits."""

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
    total = sum(f.size for f in files if isinstance(f.size, int))
    return limit_problems(len(files), total)


def limit_problems(files: int, total: int, *, unread: bool = False) -> list[Problem]:
    """The 512-file and 16 MiB limits, from a count of files and of their bytes.

    ``unread``: the skill's files were not read for it (a local skill whose sizes
    are known from its folder's listing), which the message says.
    """
    problems: list[Problem] = []
    tail = "; its files were not read and its manifest not built" if unread else ""
    if files > MAX_FILES:
        problems.append(
            Problem(
                "limit-files",
                f"the skill has {files:,} files; hosts only need to accept {MAX_FILES}{tail}",
            )
        )
        tail = ""
    if total > MAX_BYTES:
        problems.append(
            Problem(
                "limit-bytes",
                f"the skill's files add up to {total:,} bytes; hosts only need to accept "
                f"{MAX_BYTES:,} (16 MiB){tail}",
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

"""Counted nouns in messages people read: "1 file", "2 files", "1,024 skills"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with ``noun``, plural unless ``n`` is one (``plural`` where not noun + "s")."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"

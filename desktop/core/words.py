"""Counted nouns in messages people read: "1 file", "2 files", "1,024 skills"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with ``noun``, plural unless ``n`` is one (``plural`` where not noun + "s")."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def budget(length: int, limit: int, noun: str = "character") -> str:
    """``length`` against a host's ``limit``: "1,980 of 2,048 characters", and how far
    over when it is: "2,480 of 2,048 characters, 432 over"."""
    text = f"{length:,} of {count(limit, noun)}"
    if length > limit:
        text += f", {length - limit:,} over"
    return text


def moment(stamp: str) -> str:
    """An ISO 8601 time as people read it, in local time: "2 Dec 2026, 15:58". A text
    that is no such time (a record written by hand) is given back as it is."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return stamp
    if when.tzinfo is not None:
        when = when.astimezone()
    return f"{when.day} {when:%b %Y, %H:%M}"

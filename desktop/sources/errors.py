"""The failure every source reports: its message is shown as the source's status."""

from __future__ import annotations


class SourceError(Exception):
    """A failure to show the user as the server's status message (never a traceback)."""

"""Folders the scanner cannot read, made without changing permissions (the tests may
run as root, which reads everything)."""

from __future__ import annotations

import os

import pytest


def refuse_to_list(monkeypatch: pytest.MonkeyPatch, folder_name: str) -> None:
    """Make the folder scanner's ``os.scandir`` fail with "Permission denied" for every
    folder called ``folder_name``."""
    from desktop.sources import folder

    real = os.scandir

    def refuse(path: str) -> object:
        if str(path).endswith(os.sep + folder_name):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(folder.os, "scandir", refuse)

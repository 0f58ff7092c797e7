"""Words in messages people read: counts, budgets, times."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from desktop.core.words import moment


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_recorded_time_reads_as_a_date_and_a_time(utc: None) -> None:
    assert os.environ["TZ"] == "UTC"
    assert moment("2026-12-02T15:58:23+00:00") == "2 Dec 2026, 15:58"
    assert moment("2026-12-02T16:58:23+01:00") == "2 Dec 2026, 15:58"  # in local time
    assert moment("2026-01-09T08:05:00") == "9 Jan 2026, 08:05"  # no zone: as written


def test_what_is_no_time_is_given_back_as_it_is() -> None:
    assert moment("yesterday, roughly") == "yesterday, roughly"
    assert moment("") == ""

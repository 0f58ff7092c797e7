"""The collector pause: overlapping pauses in two threads keep it off until both end."""

from __future__ import annotations

import gc
import threading

from desktop.core.collector import collector_paused


def test_overlapping_pauses_end_with_the_last_one() -> None:
    assert gc.isenabled()
    first_in = threading.Event()
    second_in = threading.Event()
    first_out = threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    worker = threading.Thread(target=first)
    worker.start()
    first_in.wait(10)
    with collector_paused():
        second_in.set()
        first_out.wait(10)
        # The first pause ended while this one runs: the collector must stay off.
        seen["during"] = gc.isenabled()
    worker.join(10)
    seen["after"] = gc.isenabled()
    assert seen == {"during": False, "after": True}


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()

"""Renewals racing on one rotating refresh token: several processes, and several
connections of one process (tasks on one event loop and another thread's loop), all
needing a renewal at once. The authorization server here rotates refresh tokens and
treats a spent one presented again as stolen (every token of the client revoked), as
real servers do: two renewals sent with one refresh token would sign everyone out.
One renewal happens; every other connection uses its result; the newest refresh
token is the one kept."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from tests.signin.signin_helpers import Protected, login

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

PROCESSES = 4
TASKS = 4


def spec_of(server: Protected) -> SourceSpec:
    return SourceSpec(server.label, "mcp", "http", server.url)


def stored_record(server: Protected) -> dict[str, Any]:
    from desktop.sources.mcp import signin

    raw = signin._keyring_get(signin.entry_name(spec_of(server)))
    assert raw is not None
    return dict(json.loads(raw))


def make_due(server: Protected) -> None:
    """Age the stored sign-in in the keyring: its token is past its renewal time."""
    from desktop.sources.mcp import signin

    record = stored_record(server)
    record["expires_at"] = time.time() - 120
    assert signin._keyring_set(signin.entry_name(spec_of(server)), json.dumps(record)) == ""


def newest_refresh_token(server: Protected) -> str:
    return [t for t in server.stats()["tokens"] if t.startswith("rt-")][-1]


def test_processes_renewing_at_once_all_stay_signed_in(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    assert login("vault", "--server", protected.option).returncode == 0
    make_due(protected)
    # A slow token endpoint: every process reads the due token while the first renewal
    # is still under way.
    protected.control("/test/refresh-delay?seconds=2")
    argv = [sys.executable, "-m", "desktop", "list", "--json", "--server", protected.option]
    runs = [
        subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=dict(os.environ),
        )
        for _ in range(PROCESSES)
    ]
    for run in runs:
        out, errors = run.communicate(timeout=120)
        assert run.returncode == 0, errors
        (source,) = json.loads(out)["sources"]
        assert source["status"] == "ok", source.get("message")
        assert source["sign_in"] == "signed-in"
        assert "Sign in" not in (source.get("message") or "")
    stats = protected.stats()
    assert stats["reused"] == 0 and stats["refused"] == 0
    assert stats["refresh"] == 1  # one renewal; every other process used its result
    assert stats["code"] == 1  # nobody was sent back to sign in
    assert stored_record(protected)["tokens"]["refresh_token"] == newest_refresh_token(protected)


async def _connect(server: Protected, stops: list[Exception]) -> int:
    import httpx2

    from desktop.sources.mcp.signin import _PROBE, connection_auth

    auth = connection_auth(spec_of(server), server.url, dict(os.environ), stops.append)
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(auth=auth, headers=headers, timeout=30) as http:
        response = await http.post(server.url, json=_PROBE)
        return response.status_code


def test_connections_of_one_process_renewing_at_once_all_stay_signed_in(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    assert login("vault", "--server", protected.option).returncode == 0
    make_due(protected)
    stops: list[Exception] = []

    async def many() -> list[int]:
        return list(await asyncio.gather(*(_connect(protected, stops) for _ in range(TASKS))))

    # Tasks on this thread's event loop and on another thread's, at once.
    elsewhere: list[int] = []
    other = threading.Thread(target=lambda: elsewhere.extend(asyncio.run(many())))
    other.start()
    here = asyncio.run(many())
    other.join(120)
    assert not other.is_alive()
    assert here + elsewhere == [200] * (2 * TASKS), stops
    assert stops == []
    stats = protected.stats()
    assert stats["reused"] == 0 and stats["refused"] == 0
    assert stats["refresh"] == 1 and stats["code"] == 1
    assert stored_record(protected)["tokens"]["refresh_token"] == newest_refresh_token(protected)

    # And a later renewal starts from the newest token kept.
    make_due(protected)
    assert asyncio.run(_connect(protected, stops)) == 200 and stops == []
    assert protected.stats()["refresh"] == 2 and protected.stats()["reused"] == 0

"""Listing a server behind a sign-in against listing the same skills with none.

Our figure: ``discover_server`` of a protected Skills-extension server (the test
authorization server and ``serve``'s server behind bearer auth, tests/signin), signed
in, so each connection loads the stored sign-in and sends its token. The baseline: the
same folder served by ``skill-catalog serve --http`` with no auth, in the same run.
Also the time of one sign-in (discovery, registration, the browser step played by an
HTTP client, the token exchange). Medians of several rounds.

The sign-in is kept in the OS keyring when one answers, else for this process (as
without a keyring):

    python benchmarks/bench_signin.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "signin"))

from helpers.serve import serve_http  # noqa: E402
from signin_browser import consent  # noqa: E402
from signin_helpers import start, stop, write_skills  # noqa: E402

from desktop.core.model import SourceSpec  # noqa: E402
from desktop.sources import signin  # noqa: E402
from desktop.sources.mcp.source import discover_server  # noqa: E402


async def browser(url: str) -> None:
    await asyncio.to_thread(consent, url)


async def timed_list(spec: SourceSpec) -> float:
    began = time.perf_counter()
    status, skills = await discover_server(spec)
    assert status.status == "ok" and len(skills) == 2, status.message
    return time.perf_counter() - began


async def bench(protected_url: str, plain_url: str, rounds: int) -> None:
    spec = SourceSpec("bench", "mcp", "http", protected_url)
    plain = SourceSpec("plain", "mcp", "http", plain_url)
    began = time.perf_counter()
    done = await signin.sign_in(spec, browser)
    sign_in = time.perf_counter() - began
    ours, base = [], []
    for _ in range(rounds):
        ours.append(await timed_list(spec))
        base.append(await timed_list(plain))
    signin.sign_out(spec)
    a, b = statistics.median(ours), statistics.median(base)
    where = "OS keyring" if done.remembered else "this process only"
    print(f"sign-in (browser played, tokens in {where}): {sign_in * 1000:.0f} ms")
    print(f"list, signed in:          {a * 1000:.0f} ms (median of {rounds})")
    print(f"list, no sign-in (base):  {b * 1000:.0f} ms")
    print(f"ratio signed-in/base:     {a / b:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_skills(Path(tmp) / "published")
        protected = start(folder)
        try:
            with serve_http(folder) as plain:
                asyncio.run(bench(protected.url, plain.url, args.rounds))
        finally:
            stop(protected)


if __name__ == "__main__":
    main()

"""Reading a web index of 1,000 ``skill-md`` entries against fetching the same files.

A v0.2 discovery index of generated skills is served on 127.0.0.1 by Python's own
``http.server`` in a process of its own. The floor is the least any client must do:
fetch the index and every ``SKILL.md`` it names with plain ``httpx`` (the same number
of requests at once as the catalog makes). Our figure is the web index kind's listing:
the same requests, each answer bounded and checked against its digest, every
``SKILL.md`` parsed and checked, the entries made. Both run alternately several times
in the same process, and the medians are compared.

    python benchmarks/bench_sources_index.py [--skills 1000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.collector import collector_paused
from desktop.sources.base import SourceContext
from desktop.sources.web_fetch import PARALLEL
from desktop.sources.web_index import KIND, IndexSource


def generate(root: Path, count: int) -> None:
    folder = root / ".well-known" / "agent-skills"
    skills = []
    for i in range(count):
        name = f"skill-{i:05d}"
        data = (
            f"---\nname: {name}\ndescription: Generated skill number {i} for the benchmark.\n"
            f"---\n\n# {name}\n\n" + "Some instructions.\n" * 40
        ).encode()
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_bytes(data)
        skills.append(
            {
                "name": name,
                "type": "skill-md",
                "description": f"Generated skill number {i}.",
                "url": f"{name}/SKILL.md",
                "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
            }
        )
    index = {"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json"}
    index["skills"] = skills  # type: ignore[assignment]
    (folder / "index.json").write_text(json.dumps(index))


async def floor(url: str) -> int:
    import httpx2

    index_url = f"{url}/.well-known/agent-skills/index.json"
    slots = asyncio.Semaphore(PARALLEL)
    limits = httpx2.Limits(max_connections=PARALLEL)
    async with httpx2.AsyncClient(limits=limits) as client:
        index = (await client.get(index_url)).json()

        async def one(entry: dict[str, str]) -> int:
            async with slots:
                answer = await client.get(f"{url}/.well-known/agent-skills/{entry['url']}")
                return len(answer.content)

        return sum(await asyncio.gather(*(one(e) for e in index["skills"])))


async def ours(url: str) -> int:
    source = IndexSource(KIND.parse(f"bench={url}"), SourceContext())  # type: ignore[misc]
    with collector_paused():  # as every one-shot command of the CLI runs
        status, skills = await source.discover()
    assert status.status == "ok", status.message
    await source.close()
    return len(skills)


def timed(fn, url: str) -> tuple[float, float]:
    """Wall time and CPU time of one run (CPU time is steadier on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    asyncio.run(fn(url))
    return time.perf_counter() - start, time.process_time() - cpu


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the HTTP server did not start")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.skills)
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait(port)
            url = f"http://127.0.0.1:{port}"
            timed(floor, url), timed(ours, url)  # warm imports and the server
            f_times, o_times = [], []
            for _ in range(args.rounds):
                f_times.append(timed(floor, url))
                o_times.append(timed(ours, url))
        finally:
            server.terminate()
            server.wait()
    print(
        f"web index: {args.skills} skill-md entries on 127.0.0.1, {args.rounds} rounds, alternating"
    )
    for i, kind in enumerate(("wall", "CPU")):
        for pick, how in ((statistics.median, "median"), (min, "best")):
            f = pick(t[i] for t in f_times)
            o = pick(t[i] for t in o_times)
            print(
                f"  {kind:4s} {how:6s}: plain httpx (index + every SKILL.md) {f * 1000:7.1f} ms;"
                f" index kind (fetch + digests + checks) {o * 1000:7.1f} ms; ratio {o / f:.2f}x"
            )
    print("  target: <= 1.5x (wall, median). The server is a separate process on this machine.")


if __name__ == "__main__":
    main()

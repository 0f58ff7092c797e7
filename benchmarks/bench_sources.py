"""Published sources against the plain way of reading the same skills.

Git: the time to the first listing of a git source holding 417 skills (as many as
github/awesome-copilot publishes), a repository generated here and served by a real
``git daemon`` on 127.0.0.1, read with ``skill-catalog list --git`` from an empty
cache, against ``git clone --depth 1`` of the same repository plus
``skill-catalog list --folder`` on the clone. Target: at most 1.3 times. Medians of
several rounds, each from an empty cache and an empty clone folder.

    python benchmarks/bench_sources.py [--rounds 3] [--skills 417]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIT_TARGET = 1.3
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def run(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed: {done.stderr[-2000:]}")


def make_repository(work: Path, skills: int) -> None:
    """``skills`` skill folders under ``skills/``, each a SKILL.md, a reference and a
    script, committed once."""
    env = {**os.environ, **GIT_ENV}
    run(["git", "init", "--quiet", "--initial-branch=main", str(work)], env)
    for i in range(skills):
        folder = work / "skills" / f"skill-{i:03}"
        (folder / "references").mkdir(parents=True)
        body = "\n".join(f"Step {n}: do the thing number {n} with care." for n in range(30))
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:03}\ndescription: Skill number {i}, for the benchmark.\n"
            f"---\n\n# Skill {i}\n\n{body}\n"
        )
        (folder / "references" / "guide.md").write_text(body * 3)
        (folder / "run.sh").write_text(f"#!/bin/sh\necho {i}\n")
    run(["git", "add", "--all"], env, work)
    run(["git", "commit", "--quiet", "-m", "skills"], env, work)


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = ["git", "daemon", "--export-all", f"--base-path={base}", f"--port={port}"]
    proc = subprocess.Popen(
        [*argv, "--listen=127.0.0.1", "--reuseaddr", str(base)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline:
                raise SystemExit("git daemon did not answer")
            time.sleep(0.02)
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait()


def catalog(args: list[str], home: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
    }
    run([sys.executable, "-m", "desktop", "list", *args], env, ROOT)


def median_of(rounds: int, fn: Callable[[Path], None]) -> float:
    times = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="bench-sources-") as tmp:
            start = time.perf_counter()
            fn(Path(tmp))
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_git(rounds: int, skills: int) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-git-") as tmp:
        base = Path(tmp) / "served"
        work = Path(tmp) / "work"
        make_repository(work, skills)
        base.mkdir()
        run(["git", "clone", "--quiet", "--bare", str(work), str(base / "skills.git")])
        with git_daemon(base) as address:
            url = f"{address}/skills.git"

            def ours(tmp_dir: Path) -> None:
                catalog(["--git", f"bench={url}"], tmp_dir)

            def plain(tmp_dir: Path) -> None:
                clone = tmp_dir / "clone"
                run(["git", "clone", "--quiet", "--depth", "1", url, str(clone)])
                catalog(["--folder", f"bench={clone}"], tmp_dir)

            ours(Path(tmp) / "warm")  # the interpreter's files read once, for both
            ours_s = median_of(rounds, ours)
            plain_s = median_of(rounds, plain)
    ratio = ours_s / plain_s
    verdict = "meets" if ratio <= GIT_TARGET else "misses"
    print(f"git source of {skills} skills, first listing (median of {rounds}):")
    print(f"  skill-catalog list --git                     {ours_s * 1000:8.0f} ms")
    print(f"  git clone --depth 1 + skill-catalog --folder {plain_s * 1000:8.0f} ms")
    print(f"  ratio {ratio:.2f} ({verdict} the target of at most {GIT_TARGET})")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skills", type=int, default=417)
    args = parser.parse_args()
    bench_git(args.rounds, args.skills)


if __name__ == "__main__":
    main()

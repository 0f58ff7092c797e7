"""Approvals in the Secret Service against the bare floor of the same keyring.

Our figures: approving a 512-file skill (the record is split into Windows-sized chunks),
reading its state back, and the approval states of 50 approved 3-file skills (what
``list --json`` adds). The floor: the same number of keyring values written and read one
after another with plain ``keyring.set_password`` / ``get_password`` calls, which is what
any store over the keyring package must at least do. Medians of several rounds.

Needs a Secret Service. Without one (no D-Bus session) the script runs itself again
inside ``dbus-run-session`` with a throw-away, unlocked gnome-keyring:

    python benchmarks/bench_approvals.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import keyring

from desktop.core.entry import parse_entry
from desktop.core.model import Origin, Skill
from desktop.store.approvals_store import ApprovalStore

ORIGIN = Origin("bench", "mcp", "stdio", "python -m bench_server")


def skill(name: str, files: int) -> Skill:
    resources = []
    for i in range(files):
        data = f"{name} file {i}".encode()
        uri = f"skill://{name}/SKILL.md" if i == 0 else f"skill://{name}/refs/f{i:03}.md"
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        resources.append({"uri": uri, "digest": digest, "size": len(data)})
    entry = {
        "uri": f"skill://{name}/SKILL.md",
        "frontmatter": {"name": name, "description": "bench"},
        "resources": resources,
    }
    return parse_entry(entry, ORIGIN)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def floor(service: str, writes: int, reads: int) -> tuple[float, float]:
    value = "x" * 1000
    w = timed(lambda: [keyring.set_password(service, f"k{i}", value) for i in range(writes)])
    r = timed(lambda: [keyring.get_password(service, f"k{i % writes}") for i in range(reads)])
    return w, r


def run(rounds: int) -> None:
    backend = keyring.get_keyring()
    print(f"keyring backend: {backend.__class__.__module__}.{backend.__class__.__name__}")
    big = skill("big", 512)
    small = [skill(f"s{i:02}", 3) for i in range(50)]
    rows: dict[str, list[float]] = {
        k: [] for k in ("approve", "state", "states50", "floor_w", "floor_r", "floor_r50")
    }
    for _ in range(rounds):
        store = ApprovalStore(f"bench-{uuid.uuid4().hex[:8]}", timeout=120)
        rows["approve"].append(timed(lambda s=store: s.approve(big)))
        rows["state"].append(timed(lambda s=store: s.state(big)))
        for s_ in small:
            store.approve(s_)
        rows["states50"].append(timed(lambda s=store: s.states(small)))
        service = f"floor-{uuid.uuid4().hex[:8]}"
        w, r = floor(service, 35, 35)
        rows["floor_w"].append(w)
        rows["floor_r"].append(r)
        rows["floor_r50"].append(
            timed(lambda sv=service: [keyring.get_password(sv, f"k{i % 35}") for i in range(52)])
        )
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"rounds: {rounds} (medians)")
    print(
        f"approve a 512-file skill (35 values)   ours {med['approve']:.2f} s   "
        f"floor: 35 plain writes {med['floor_w']:.2f} s"
    )
    print(
        f"state of that skill (34 values read)   ours {med['state']:.2f} s   "
        f"floor: 35 plain reads  {med['floor_r']:.2f} s"
    )
    print(
        f"states of 50 approved 3-file skills    ours {med['states50']:.2f} s   "
        f"floor: 52 plain reads  {med['floor_r50']:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    name = f"{keyring.get_keyring().__class__.__module__}"
    if name.endswith("SecretService") or os.environ.get("BENCH_IN_SESSION"):
        run(args.rounds)
        return 0
    data = tempfile.mkdtemp(prefix="bench-keyring-")
    inner = shlex.join([sys.executable, *sys.argv])
    script = (
        "printf %s bench | gnome-keyring-daemon --unlock --components=secrets >/dev/null;"
        f" exec {inner}"
    )
    env = {**os.environ, "XDG_DATA_HOME": data, "BENCH_IN_SESSION": "1"}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    return subprocess.call(["dbus-run-session", "--", "sh", "-c", script], env=env)


if __name__ == "__main__":
    raise SystemExit(main())

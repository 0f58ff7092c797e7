"""``skill-catalog audit`` against the bare floor of the same work done by hand.

A throw-away repository with 1,000 skills in ``.claude/skills`` (2 files each) and
2,000 signed review records (two reviewers approve every skill, real ed25519 keys,
signed by ``ssh-keygen``). Our figure: ``skill-catalog audit DIR --json`` run as the
program, start-up included. The floor, in one shell batch: ``sha256sum`` of the same
2,000 files plus ``ssh-keygen -Y verify`` of the same 2,000 records one after another
(their signatures and signed bytes written to files beforehand, not timed). Both
must spawn one ``ssh-keygen`` per record: OpenSSH verifies one signature per run.
``audit`` runs several at once (twice the CPU count, at most 8): the floor is timed
both in sequence, as a shell loop runs it, and with as many at a time. Medians of
several rounds.

    python benchmarks/bench_audit.py [--skills 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.review_record import (
    PAYLOAD_TYPE,
    ReviewStatement,
    envelope_text,
    pae,
    set_digest,
    signature_info,
)
from desktop.sources.team_reviews import write_record
from desktop.store.review_signing import sign, signing_key

SKILL_MD = "---\nname: {name}\ndescription: Bench skill {name}\n---\n# {name}\n"


def build(root: Path, skills: int) -> list[tuple[str, Path, Path]]:
    """The repository; (principal, signature file, signed bytes file) per record."""
    import hashlib

    keys = root / "keys"
    keys.mkdir()
    people = []
    for who in ("alice", "bob"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / who)], check=True
        )
        public = " ".join((keys / f"{who}.pub").read_text().split()[:2])
        people.append((f"{who}@example.com", keys / who, public))
    repo = root / "repo"
    (repo / ".skill-reviews").mkdir(parents=True)
    signers = "".join(f"{email} {public}\n" for email, _, public in people)
    (repo / ".skill-reviews/allowed_signers").write_text(signers)
    jobs = []
    for i in range(skills):
        name = f"skill-{i:04}"
        folder = repo / ".claude/skills" / name
        (folder / "scripts").mkdir(parents=True)
        files = {"SKILL.md": SKILL_MD.format(name=name), "scripts/run.sh": f"echo {i}\n"}
        pairs = []
        for rel, text in files.items():
            (folder / rel).write_text(text)
            pairs.append((rel, hashlib.sha256(text.encode()).hexdigest()))
        for email, key, _ in people:
            jobs.append((name, tuple(sorted(pairs)), email, key))
    batch = root / "batch"
    batch.mkdir()
    temp = root / "temp"
    temp.mkdir()

    def one(n: int) -> tuple[str, Path, Path]:
        name, pairs, email, key = jobs[n]
        st = ReviewStatement(
            name=name, files=pairs, decision="approved", reviewer=email, time="2026-12-02T10:00"
        )
        assert st.digest == set_digest(pairs)
        data = pae(PAYLOAD_TYPE, st.payload())
        sig = sign(signing_key(str(key), temp), data)
        keyid = signature_info(sig).fingerprint
        write_record(repo, st, keyid, envelope_text(st.payload(), keyid, sig))
        (batch / f"{n}.sig").write_text(sig)
        (batch / f"{n}.dat").write_bytes(data)
        return email, batch / f"{n}.sig", batch / f"{n}.dat"

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, range(len(jobs))))


def floor_script(repo: Path, records: list[tuple[str, Path, Path]], at_once: int = 1) -> str:
    """The floor as a bash script: ``at_once`` verifications running at a time."""
    signers = shlex.quote(str(repo / ".skill-reviews/allowed_signers"))
    lines = [
        "set -e",
        f"cd {shlex.quote(str(repo))}",
        "find .claude/skills -type f -print0 | xargs -0 sha256sum > /dev/null",
        "n=0",
    ]
    for principal, sig, data in records:
        command = (
            f"ssh-keygen -Y verify -n skill-review -f {signers} -I {shlex.quote(principal)} "
            f"-s {shlex.quote(str(sig))} < {shlex.quote(str(data))} > /dev/null"
        )
        if at_once == 1:
            lines.append(command)
        else:
            lines.append(
                f"{command} & n=$((n+1)); if [ $n -ge {at_once} ]; then wait -n; n=$((n-1)); fi"
            )
    lines.append("wait")
    return "\n".join(lines) + "\n"


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    return time.perf_counter() - start, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as temp:
        root = Path(temp)
        start = time.perf_counter()
        records = build(root, args.skills)
        repo = root / "repo"
        print(
            f"built {args.skills:,} skills and {len(records):,} signed records "
            f"in {time.perf_counter() - start:.1f} s"
        )
        workers = min(8, (os.cpu_count() or 2) * 2)  # as verify_many runs them
        script = root / "floor.sh"
        script.write_text(floor_script(repo, records))
        parallel = root / "floor-parallel.sh"
        parallel.write_text(floor_script(repo, records, workers))
        ours, floor, floor_parallel = [], [], []
        for _ in range(args.rounds):
            took, done = timed([sys.executable, "-m", "desktop", "audit", str(repo), "--json"])
            report = json.loads(done.stdout)
            assert done.returncode == 0 and len(report["skills"]) == args.skills, done.stderr
            ours.append(took)
            for target, times in ((script, floor), (parallel, floor_parallel)):
                took, done = timed(["bash", str(target)])
                assert done.returncode == 0, done.stderr
                times.append(took)
        a, b = statistics.median(ours), statistics.median(floor)
        c = statistics.median(floor_parallel)
        print(f"audit ({args.skills:,} skills, {len(records):,} records):        {a:7.2f} s")
        print(f"sha256sum + ssh-keygen -Y verify, one batch in sequence: {b:7.2f} s")
        print(f"the same batch, {workers} verifications at a time:        {c:7.2f} s")
        print(f"ratio to the batch in sequence: {a / b:.2f} (target at most 1.5)")
        print(
            f"ratio to the batch {workers} at a time:    {a / c:.2f} (CPUs here: {os.cpu_count()})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

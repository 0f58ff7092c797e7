"""Installing approved skills and checking installed ones, against plain copying and hashing.

Our figures: installing 100 approved skills of 5 files each (the bytes in hand, as the
approval's kept copies give them: each skill written to a temporary folder, flushed,
renamed into place, and recorded in the lock under its file lock), and ``installed``'s
check of 1,000 installed skills (every file hashed and compared with the lock, the state
of each decided). The baseline, in the same run: ``shutil.copytree`` of the same skill
folders, and ``hashlib.sha256`` over the same 5,000 installed files. Medians of rounds.

    python benchmarks/bench_install.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop.core.approval_states import APPROVED
from desktop.core.approvals import ApprovalState, make_record
from desktop.core.install import LockEntry, LockFile, sha256_hex
from desktop.core.model import SourceSpec
from desktop.session.installer import Approvals, Place, Prepared, install, installed_in
from desktop.sources.folder import scan_folder
from desktop.store.installs import FileToWrite, update_lock, write_skill

FILES = ("SKILL.md", "reference.md", "forms.md", "scripts/fill.py", "scripts/check.py")


def files_of(name: str) -> list[FileToWrite]:
    head = f"---\nname: {name}\ndescription: Bench skill {name}\n---\n"
    return [
        FileToWrite(p, ((head if p == "SKILL.md" else "") + f"{name} {p}\n" * 200).encode())
        for p in FILES
    ]


def entry_of(name: str, folder: Path, files: list[FileToWrite]) -> LockEntry:
    return LockEntry(
        name=name,
        agent="claude-code",
        folder=str(folder),
        source={"label": "bench", "approval": f"k-{name}"},
        uri=f"{name}/SKILL.md",
        files=tuple(LockFile(f.path, len(f.data), sha256_hex(f.data)) for f in files),
        set_hash=f"sha256:{name}",
    )


def timed(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-install-"))
    os.environ["XDG_STATE_HOME"] = str(scratch / "state")
    try:
        src = scratch / "src"
        skills = {f"skill-{i:04}": files_of(f"skill-{i:04}") for i in range(1000)}
        for name, files in list(skills.items())[:100]:
            for f in files:
                (src / name / f.path).parent.mkdir(parents=True, exist_ok=True)
                (src / name / f.path).write_bytes(f.data)
        round_no = [0]

        _, scanned = scan_folder(SourceSpec("bench", "local", "folder", str(src)))
        batch = []
        for skill in scanned:
            record = make_record(skill, approved_at="2026-12-04T00:00:00Z", approved_by="bench")
            by_path = {f.path: f for f in skills[skill.name]}
            ordered = tuple(by_path[f.uri] for f in sorted(skill.files, key=lambda f: f.uri))
            batch.append(Prepared(skill, ApprovalState(APPROVED, record=record), ordered))

        def ours_install() -> None:
            round_no[0] += 1
            folder = scratch / f"ours-{round_no[0]}"
            done = install(batch, [Place(folder, ("claude-code",))], at="now")
            assert len(done.written) == 100 and not done.failed, done.failed[:1]

        def base_install() -> None:
            round_no[0] += 1
            folder = scratch / f"base-{round_no[0]}"
            for name in list(skills)[:100]:
                shutil.copytree(src / name, folder / name)

        install_ours = timed(ours_install, args.rounds)
        install_base = timed(base_install, args.rounds)

        big = scratch / "installed"
        entries = []
        for name, files in skills.items():
            write_skill(big, name, files)
            entries.append(entry_of(name, big, files))
        big_lock = scratch / "state/skill-catalog/installed.json"
        update_lock(big_lock, lambda _: entries)
        approvals = Approvals({f"k-{n}": (True, f"sha256:{n}") for n in skills})

        def ours_check() -> None:
            found = installed_in([(big, ("claude-code",), None)], approvals, {}, {})
            assert len(found) == 1000 and all(s.state.ok for s in found), found[:1]

        def base_check() -> None:
            for name in skills:
                for p in FILES:
                    hashlib.sha256((big / name / p).read_bytes()).hexdigest()

        check_ours = timed(ours_check, args.rounds)
        check_base = timed(base_check, args.rounds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"install 100 skills x 5 files: ours {install_ours:.3f} s, "
        f"shutil.copytree {install_base:.3f} s, ratio {install_ours / install_base:.2f} "
        "(target <= 1.5)"
    )
    print(
        f"installed over 1,000 skills: ours {check_ours:.3f} s, "
        f"hashlib {check_base:.3f} s, ratio {check_ours / check_base:.2f} (target <= 1.3)"
    )


if __name__ == "__main__":
    main()

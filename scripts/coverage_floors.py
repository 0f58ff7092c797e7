"""Branch coverage per package against the floors in ``scripts/coverage-floors.txt``.

    python scripts/coverage_floors.py COVERAGE_JSON [--raise]

``COVERAGE_JSON`` is ``coverage json``'s report of a run. Each package of ``desktop/``
named in the floors file must be covered at least as much as its floor (whole percents of
statements and branches together, as coverage.py counts them); a package below fails the
check. A floor can only rise: when a package is covered a whole percent or more above its
floor this says so, and ``--raise`` writes the new floors (never lower ones) to the file.
Exit status: 0 when no package is below its floor, else 1.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

FLOORS = Path(__file__).resolve().parent / "coverage-floors.txt"


def read_floors(path: Path) -> dict[str, int]:
    floors: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            package, floor = line.split()
            floors[package] = int(floor)
    return floors


def measure(report: dict[str, object]) -> dict[str, float]:
    """Percent of statements and branches run, per package folder of ``desktop/``."""
    hit: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    files = report["files"]
    assert isinstance(files, dict)
    for name, data in files.items():
        parts = Path(name).parts
        if len(parts) < 3 or parts[0] != "desktop":
            continue
        package = "/".join(parts[:2])
        summary = data["summary"]
        hit[package] += summary["covered_lines"] + summary.get("covered_branches", 0)
        total[package] += summary["num_statements"] + summary.get("num_branches", 0)
    return {p: 100.0 * hit[p] / total[p] for p in total if total[p]}


def main(argv: list[str]) -> int:
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    raise_floors = "--raise" in argv[1:]
    floors = read_floors(FLOORS)
    measured = measure(report)
    below: list[str] = []
    raised = dict(floors)
    for package, floor in floors.items():
        percent = measured.get(package, 0.0)
        line = f"{package:<18} {percent:6.2f}%  floor {floor}%"
        if percent < floor:
            below.append(package)
            line += "  BELOW THE FLOOR"
        elif math.floor(percent) > floor:
            raised[package] = math.floor(percent)
            line += f"  (the floor can be raised to {math.floor(percent)}%)"
        print(line, file=sys.stderr)
    if raise_floors and raised != floors:
        text = FLOORS.read_text(encoding="utf-8")
        lines = [
            f"{line.split()[0]} {raised[line.split()[0]]}"
            if line.strip() and not line.startswith("#")
            else line
            for line in text.splitlines()
        ]
        FLOORS.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"coverage floors raised in {FLOORS.name}", file=sys.stderr)
    if below:
        print(
            f"branch coverage fell below the floor of: {', '.join(below)} "
            "(add tests for the code that lost them)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

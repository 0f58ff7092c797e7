"""Comments the gates read: every ``noqa`` names a rule ruff knows.

``ruff check`` (RUF100) fails on a ``noqa`` that silences nothing, but it lets one naming a
code it has never heard of pass silently; this test refuses those.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("desktop", "tests", "benchmarks")
NOQA = re.compile(r"#\s*noqa:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")


def _sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))


def test_every_noqa_names_a_rule_ruff_knows() -> None:
    ruff = Path(sys.executable).parent / "ruff"
    listing = subprocess.run(
        [str(ruff), "rule", "--all", "--output-format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    known = {rule["code"] for rule in json.loads(listing)}
    unknown = [
        f"{path.relative_to(ROOT)}:{number}: {code}"
        for path in _sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in NOQA.finditer(line)
        for code in re.split(r"\s*,\s*", match.group(1))
        if code not in known
    ]
    assert unknown == []

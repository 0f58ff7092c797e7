"""A module over 600 lines says at its top why it is kept whole; the others are split
before they grow that far."""

from __future__ import annotations

import ast
from pathlib import Path

DESKTOP = Path(__file__).resolve().parent.parent / "desktop"
LIMIT = 600
REASON = "Kept as one module:"


def oversized_without_reason(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if REASON not in doc:
            found.append(f"{path.relative_to(root.parent)}: {text.count(chr(10))} lines")
    return found


def test_every_module_over_600_lines_says_why_it_is_kept_whole() -> None:
    assert oversized_without_reason(DESKTOP) == []


def test_the_check_finds_a_long_module_without_a_reason(tmp_path: Path) -> None:
    pkg = tmp_path / "desktop"
    pkg.mkdir()
    (pkg / "long.py").write_text('"""A long module."""\n' + "x = 1\n" * (LIMIT + 1))
    (pkg / "kept.py").write_text(f'"""Long.\n\n{REASON} why.\n"""\n' + "x = 1\n" * (LIMIT + 1))
    (pkg / "short.py").write_text('"""Short."""\nx = 1\n')
    assert oversized_without_reason(pkg) == [f"desktop/long.py: {LIMIT + 2} lines"]

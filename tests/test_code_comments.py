"""Comments in the code: every ``noqa`` names a rule ruff knows, and no comment cites a
requirement by a bare code.

``ruff check`` (RUF100) fails on a ``noqa`` that silences nothing, but it lets one naming a
code it has never heard of pass silently; this test refuses those.

The requirements the program meets are written out in ``docs/conformance.md``, each with
the test that holds it; a code such as ``(D7)`` or ``(V2)`` in a comment of ``desktop/``
points at no text a reader has, so none may come back.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("desktop", "tests", "benchmarks")
# A requirement code as the comments used to cite them: a letter of the requirement's group
# and its number, alone or in a range ("V1-V5", "D2/D3"). F, C and X are left out: F1 is a
# key, C1 a set of control characters, X11 a display.
REQUIREMENT_CODE = re.compile(r"\b[ADILPV][0-9]{1,2}\b")
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


def _comments_and_strings(path: Path) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [
        (token.start[0], token.string)
        for token in tokens
        if token.type in (tokenize.COMMENT, tokenize.STRING)
    ]


def test_no_comment_or_docstring_of_the_program_cites_a_requirement_code() -> None:
    cited = [
        f"{path.relative_to(ROOT)}:{line}: {match.group(0)}"
        for path in sorted((ROOT / "desktop").rglob("*.py"))
        for line, text in _comments_and_strings(path)
        for match in REQUIREMENT_CODE.finditer(text)
    ]
    assert cited == []

"""Third-party text never steers a terminal or reorders what is shown.

The rule (``desktop.core.visible``), the command line printing a hostile skill, and
``show`` keeping the verified bytes exact for a pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from desktop.core.visible import visible

REPO = Path(__file__).resolve().parents[2]
HOSTILE_DESCRIPTION = (
    "Looks fine \x1b[2J\x1b]0;pwned\x07 \x9b31m and \u202etxt.exe \u2066x\u2069 \u2028end"
)


def test_controls_and_bidi_formatting_become_their_codes() -> None:
    assert visible(HOSTILE_DESCRIPTION) == (
        "Looks fine \\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m and \\u202etxt.exe "
        "\\u2066x\\u2069 \\u2028end"
    )


def test_ordinary_text_is_left_as_it_is() -> None:
    for text in ("line one\n\tindented", "مرحبا بالعالم", "日本語のスキル", "café ✓ 🚀", ""):
        assert visible(text) == text


def test_a_crlf_line_end_is_a_line_end_but_a_lone_carriage_return_is_shown() -> None:
    """Windows line ends are line ends; a carriage return alone would, in a terminal,
    send the cursor back over what was printed (text hidden behind other text)."""
    assert visible("one\r\ntwo\r\n") == "one\r\ntwo\r\n"
    assert visible("rm -rf ~\rls") == "rm -rf ~\\u000dls"
    assert visible("end\r") == "end\\u000d"


def test_a_name_of_bytes_that_are_not_utf8_is_shown_as_codes() -> None:
    """Python reads such a file name with lone surrogates, which a print would turn
    back into the raw bytes: output that is not UTF-8."""
    assert visible("n\udcffx.md") == "n\\udcffx.md"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_the_command_line_prints_hostile_text_as_codes(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "evil"
    skill.mkdir(parents=True)
    front = {"name": "evil", "description": HOSTILE_DESCRIPTION}
    (skill / "SKILL.md").write_text(f"---\n{json.dumps(front)}\n---\nbody\x1b[31m\n")
    short = tmp_path / "skills" / "evil-short"  # the long description is cut in the table
    short.mkdir()
    (short / "SKILL.md").write_text('---\nname: evil-short\ndescription: "\u202etxt.exe"\n---\n')
    listed = run("list", "--folder", str(tmp_path / "skills"))
    assert listed.returncode == 0, listed.stderr
    assert "\\u001b[2J" in listed.stdout and "\\u202e" in listed.stdout
    for raw in ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2028"):
        assert raw not in listed.stdout + listed.stderr
    # JSON keeps the value itself (its own escaping covers the controls).
    data = json.loads(run("list", "--folder", str(tmp_path / "skills"), "--json").stdout)
    descriptions = {s["name"]: s["description"] for s in data["skills"]}
    assert descriptions["evil"] == HOSTILE_DESCRIPTION
    # show into a pipe: the verified bytes, exactly.
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop",
            "show",
            "skills:evil/SKILL.md",
            "--folder",
            str(tmp_path / "skills"),
        ],
        capture_output=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (skill / "SKILL.md").read_bytes()


def test_table_columns_stay_aligned_whatever_the_cells_hold() -> None:
    """Widths are counted on what the terminal will show: controls as their codes,
    wide characters as two columns, combining marks and zero-width ones as none."""
    import unicodedata

    from desktop.cli.output import table

    def columns(text: str) -> int:  # how a terminal advances over ``text``
        return sum(
            0
            if unicodedata.category(c) in ("Mn", "Me", "Cf")
            else 2
            if unicodedata.east_asian_width(c) in "WF"
            else 1
            for c in text
        )

    rows = [
        ["plain", "x"],
        ["esc \x1b[2J and \u202eover", "x"],
        ["日本語", "x"],
        ["cafe\u0301\u200b", "x"],
        ["a\x1fb", "x"],
    ]
    lines = visible(table(rows, ["Name", "Col"])).splitlines()
    starts = {columns(line[: line.rindex(line.split()[-1])]) for line in lines}
    assert len(starts) == 1, lines
    assert "\x1b" not in "".join(lines) and "\\u001b[2J" in lines[2]
    assert "a\\u001fb" in lines[5]  # shown as its code, not taken for a space
    cut = table([["see \u202eover and more"]], ["Name"], [9])
    assert cut.splitlines()[1] == "see …"  # never half a code


def test_quoted_cuts_a_third_partys_words_and_says_how_long_they_were() -> None:
    from desktop.core.visible import quoted

    assert quoted("short\n  message") == "short message"
    long = quoted("no " * 1000, 10)
    assert long == "no no no n… (3,000 characters in all)"


def test_json_output_escapes_c1_controls_and_keeps_the_value(tmp_path: Path) -> None:
    """orjson writes U+0080-U+009F as they are; a terminal showing the JSON would take
    U+009B for the start of an escape sequence (CSI). They are written as ``\\u009b``."""
    skill = tmp_path / "skills" / "c1"
    skill.mkdir(parents=True)
    description = "Looks fine \x9b2J\x9b]0;pwned\x9c and \x85 next"
    front = {"name": "c1", "description": description}
    (skill / "SKILL.md").write_text(f"---\n{json.dumps(front)}\n---\nbody\n")
    listed = subprocess.run(
        [sys.executable, "-m", "desktop", "list", "--folder", str(tmp_path / "skills"), "--json"],
        capture_output=True,
        timeout=120,
        cwd=REPO,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert listed.returncode == 0, listed.stderr
    out = listed.stdout
    for code in range(0x80, 0xA0):
        assert chr(code).encode() not in out, hex(code)
    assert b"Looks fine \\u009b2J\\u009b]0;pwned\\u009c and \\u0085 next" in out
    (entry,) = json.loads(out)["skills"]
    assert entry["description"] == description

"""A folder of skills with files that are easy to get wrong (CRLF, a byte order mark,
binary, large, nested, prefixed, odd names), and what is on disk there."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

from helpers.serve import write_skill

CRLF_TEXT = b"line one\r\nline two\r\n\r\nlast line without newline"
BOM_TEXT = b"\xef\xbb\xbf# Notes with a byte order mark\n\nUnicode: \xc3\xa9\xe2\x82\xac\n"
LINE_SEPARATOR_TEXT = "before\u2028after\u0085end\n".encode()
LONE_CR_TEXT = b"old mac\rline endings\r"


def _binary() -> bytes:
    rng = random.Random(2640)
    return bytes(rng.randrange(256) for _ in range(4096)) + b"\x00\xff\xfe"


def _large_text() -> bytes:
    line = b"a line of a large reference file, plain ASCII text\n"
    return line * (300 * 1024 // len(line) + 1)  # just over 300 KiB


SKILL_COUNT = 7  # valid skills in the folder below


def build_skills_folder(root: Path) -> Path:
    """Seven valid skills (one nested, one under a prefix), one invalid, one misnamed."""
    write_skill(root, "alpha")
    write_skill(
        root,
        "byte-exact",
        description="Files whose bytes must arrive unchanged.",
        files={
            "crlf.txt": CRLF_TEXT,
            "notes/bom.md": BOM_TEXT,
            "assets/blob.bin": _binary(),
            "references/large.txt": _large_text(),
            "odd/separators.txt": LINE_SEPARATOR_TEXT,
            "odd/lone-cr.txt": LONE_CR_TEXT,
            "odd/with space.md": b"a file name with a space\n",
            "empty.txt": b"",
        },
    )
    write_skill(root, "gamma", extra_frontmatter='license: Apache-2.0\nmetadata:\n  a: "1"\n')
    write_skill(root, "gamma/inner", description="A skill nested in gamma.")
    write_skill(root, "acme/billing/refunds", description="Refunds, under a prefix.")
    write_skill(root, "delta")
    write_skill(root, "epsilon")
    # Not published: no description.
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_bytes(b"---\nname: broken\n---\nbody\n")
    # Not published: the name differs from the directory.
    write_skill(root, "misnamed")
    (root / "misnamed" / "SKILL.md").write_bytes(
        b"---\nname: other-name\ndescription: Named unlike its folder.\n---\n"
    )
    return root


def files_on_disk(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its POSIX path relative to ``root``."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            full = Path(dirpath) / name
            out[full.relative_to(root).as_posix()] = full.read_bytes()
    return out


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()

"""The fast reader for simple frontmatter must agree with the YAML path wherever it answers.

It may decline anything (the YAML path then decides); it may never read a text
differently. Values are compared with their types and key order, so ``True`` and
``1`` or ``"1"`` and ``1`` never pass for each other.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from desktop.core import frontmatter
from desktop.core.frontmatter import MAX_DEPTH, MAX_NODES, parse_frontmatter_text
from desktop.core.frontmatter_fast import simple_mapping
from desktop.core.skill_md import parse_skill_md

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def typed(value: Any) -> Any:
    """A value with every type spelled out and key order kept."""
    if isinstance(value, dict):
        return ("map", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [typed(v) for v in value])
    return (type(value).__name__, value)


def fast(text: str) -> dict[str, Any] | None:
    return simple_mapping(text, frontmatter._FAST_READER, MAX_DEPTH, MAX_NODES)


def slow(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    with monkeypatch.context() as m:
        m.setattr(frontmatter, "FAST_PATH", False)
        value, problems = parse_frontmatter_text(text)
    return value, [p.code for p in problems]


def assert_agrees(text: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    """True when the fast reader answered (and agreed), False when it declined."""
    answer = fast(text)
    if answer is None:
        return False
    value, problems = slow(text, monkeypatch)
    assert problems == [], f"fast path accepted what YAML refuses: {text!r} -> {problems}"
    assert typed(answer) == typed(value), f"paths disagree on {text!r}"
    return True


COMMON = [
    "name: pdf-tools\ndescription: Fill and merge PDF forms.\n",
    "name: a\ndescription: Use when the user asks for X, Y, or Z [beta] (see docs).\n",
    'name: a\ndescription: "Quoted: with a colon"\nlicense: MIT\n',
    'name: a\ndescription: It\'s "fine" here\nallowed-tools: Bash(git:*) Read\n',
    (
        "name: a\ndescription: d\nmetadata:\n  author: me\n  version: 1.0\n  nimblebrain:\n"
        "    loading-strategy: eager\n    priority: 10\n    triggers: [pdf, 'form', \"merge\"]\n"
        "    tool-affinity:\n      - files_*\n      - pdf_read\n"
    ),
    "name: a\ndescription: d\ntags:\n- one\n- two\nnext: 3\n",
    "name: a\r\ndescription: CRLF lines\r\nmetadata:\r\n  k: v\r\n",
    "# a comment\nname: a\n\ndescription: after a blank line\n",
    "name: a\ndescription: résumé 中文 🙂\n",
    "name: a\ndescription: url http://example.com/x?y=1 and C# and a:b\n",
    "name: a\ndescription: d\nuser-invocable: false\nargument-hint: '[file]'\n",
    "name: a  \ndescription: d \ntags:\n  - one  \n  - 'two' \n  - \"three\"   \nnext: [x, y]   \n",
    "",
]

DECLINED = [
    "description: >-\n  folded\n  text\n",
    "description: |\n  literal\n",
    "description: first line\n  continues here\n",
    "description: with a # comment\n",
    'description: "escaped \\" quote"\n',
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: {b: 1}\n",
    "a:\tb\n",
    "? complex\n: key\n",
    "yes: 1\n",
    "- a\n- b\n",
    "  indented: root\n",
    "a: 1\n  b: 2\n",
    "<<: {a: 1}\n",
    "a: [b, [c]]\n",
    "a: [b,]\n",
    "a: b: c\n",
    "a: x\u00a0y\n",
    "a: x\u2028y\n",
    "---\na: 1\n",
    "a: 1\n...\n",
    "a: 1\r",
    "tags:\n  - a: 1\n",
    "a: -1\n",
    "a: =\n",
]


@pytest.mark.parametrize("text", COMMON)
def test_common_frontmatter_takes_the_fast_path_and_agrees(text, monkeypatch) -> None:
    assert assert_agrees(text, monkeypatch), f"declined a common shape: {text!r}"


@pytest.mark.parametrize("text", DECLINED)
def test_shapes_outside_the_simple_one_are_left_to_yaml(text) -> None:
    assert fast(text) is None


def test_sample_skills_read_the_same_on_both_paths(monkeypatch) -> None:
    docs = sorted(RESOURCES.rglob("SKILL.md"))
    assert docs
    for doc in docs:
        data = doc.read_bytes()
        quick = parse_skill_md(data)
        with monkeypatch.context() as m:
            m.setattr(frontmatter, "FAST_PATH", False)
            full = parse_skill_md(data)
        assert typed(quick.frontmatter) == typed(full.frontmatter), doc
        assert [p.code for p in quick.problems] == [p.code for p in full.problems], doc
        assert quick.body == full.body


KEYS = [
    "name",
    "description",
    "a",
    "b-c",
    "d_e",
    "f.g",
    "n",
    "y",
    "yes",
    "No",
    "on",
    "null",
    "true",
    "x1",
    "Off",
    "NULL",
    "nan",
    "inf",
]
SCALARS = [
    "1",
    "0",
    "-1",
    "+1",
    "010",
    "0o17",
    "0x1F",
    "0b101",
    "1_000",
    "1:20",
    "190:20:30",
    "1.5",
    "1e3",
    "1.0e+3",
    "6.8523015e+5",
    ".5",
    ".inf",
    "-.inf",
    ".NaN",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "TRUE",
    "yes",
    "Yes",
    "no",
    "on",
    "OFF",
    "y",
    "n",
    "2024-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "plain words",
    "a  b",
    "a:b",
    "a: b",
    "a #b",
    "a#b",
    "C#",
    "http://x.y/z",
    "it's",
    'say "hi"',
    "[x]",
    "[]",
    "[ ]",
    "[a, b]",
    "[a,b]",
    "[a b, c]",
    "[1, true, null, ~, 0x10]",
    "[\"q\", 's', p]",
    "[a,]",
    "[,a]",
    "[a, [b]]",
    '["a,b"]',
    "{}",
    "{a: 1}",
    "|",
    ">-",
    "&a x",
    "*a",
    "!!str 1",
    "!x y",
    "@x",
    "%x",
    "`x`",
    "=",
    "<<",
    "-x",
    "- x",
    "-",
    "?x",
    "? x",
    ":x",
    ",x",
    "é",
    "中文",
    "🙂",
    "x\u00a0y",
    "'q'",
    "'it''s'",
    "''",
    '""',
    '"a\\nb"',
    "'unclosed",
    '"unclosed',
    "a'",
    'a"',
    "a:",
    "x ",
    "#x",
    ".",
    "..",
    "...",
    "0.",
    "._",
    "1__0",
    "+.inf",
    "0x",
    "0b",
    "1e",
    "١٢",
    "Ⅻ",
    "ｆｕｌｌ",
]
INDENTS = [0, 1, 2, 3, 4]


def _scalar(rng: random.Random) -> str:
    # Half from the values the fast reader takes on their own, so that whole
    # documents of them (where disagreements would hide) come up often.
    pool = TAKEN if rng.random() < 0.6 else SCALARS
    return rng.choice(pool)


def _random_doc(rng: random.Random) -> str:
    lines: list[str] = []
    depth_indent = [0]
    for _ in range(rng.randint(1, 9)):
        roll = rng.random()
        indent = depth_indent[-1]
        if roll < 0.1 and len(depth_indent) > 1:
            depth_indent.pop()
            indent = depth_indent[-1]
        if roll < 0.05:
            indent = rng.choice(INDENTS)  # a stray indentation
        key = rng.choice(KEYS)
        if roll < 0.25:
            lines.append(" " * indent + f"{key}:")
            step = rng.choice([0, 1, 2, 2, 4])
            if rng.random() < 0.35:
                for _ in range(rng.randint(0, 3)):
                    item_trail = rng.choice(["", "", " ", "  "])
                    lines.append(" " * (indent + step) + "- " + _scalar(rng) + item_trail)
            else:
                depth_indent.append(indent + max(step, 1))
            continue
        if roll < 0.3:
            lines.append(rng.choice(["", "   ", "# note", "  # indented note"]))
            continue
        spaces = rng.choice([" ", " ", " ", "  ", ""])
        trail = rng.choice(["", "", "", " ", "  "])
        lines.append(" " * indent + f"{key}:{spaces}{_scalar(rng)}{trail}")
    end = rng.choice(["\n", "\n", "\r\n"])
    return end.join(lines) + rng.choice(["", end])


def test_generated_frontmatter_never_reads_differently(monkeypatch) -> None:
    rng = random.Random(20261130)
    answered = 0
    for _ in range(10000):
        if assert_agrees(_random_doc(rng), monkeypatch):
            answered += 1
    # The generator mostly writes the simple shape; a reader that declines
    # everything would agree trivially, so it must answer for a good share.
    assert answered > 600, answered


TAKEN = [s for s in SCALARS if fast(f"k: {s}\n") is not None]


def test_limits_are_counted_as_the_yaml_path_counts_them(monkeypatch) -> None:
    many = "".join(f"k{i}: 1\n" for i in range(MAX_NODES // 2))  # one node over with the root
    assert fast(many) is None
    assert slow(many, monkeypatch)[1] == ["frontmatter-too-large"]
    deep = "".join(" " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 2))
    assert fast(deep) is None
    wide = "k: [" + ", ".join("1" for _ in range(MAX_NODES)) + "]\n"
    assert fast(wide) is None
    assert slow(wide, monkeypatch)[1] == ["frontmatter-too-large"]

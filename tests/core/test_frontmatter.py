"""Frontmatter splitting and safe parsing of hostile SKILL.md files."""

from __future__ import annotations

import json

import pytest

from desktop.core.frontmatter import MAX_FRONTMATTER_BYTES, parse_frontmatter_text
from desktop.core.skill_md import parse_skill_md


def codes(parsed) -> set[str]:
    return {p.code for p in parsed.problems}


def test_plain_frontmatter_and_body() -> None:
    parsed = parse_skill_md(b"---\nname: a\ndescription: d\n---\n# Body\n")
    assert parsed.frontmatter == {"name": "a", "description": "d"}
    assert parsed.body == "# Body\n"
    assert parsed.problems == []


def test_bom_and_crlf() -> None:
    data = "\ufeff---\r\nname: a\r\ndescription: with CRLF\r\n---\r\nbody\r\n".encode()
    parsed = parse_skill_md(data)
    assert parsed.frontmatter == {"name": "a", "description": "with CRLF"}
    assert parsed.body == "body\r\n"


def test_dashes_inside_a_yaml_string_do_not_close() -> None:
    data = b'---\nname: a\ndescription: "x\n  ---\n  y"\n---\nbody\n'
    parsed = parse_skill_md(data)
    assert parsed.frontmatter is not None
    assert parsed.frontmatter["description"] == "x --- y"
    assert parsed.body == "body\n"


def test_block_scalar_with_dashes_line_closes_only_at_column_zero() -> None:
    data = b"---\nname: a\ndescription: |\n  first\n  ---\n  last\n---\nbody\n"
    parsed = parse_skill_md(data)
    assert parsed.frontmatter["description"] == "first\n---\nlast\n"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "skill-md-empty"),
        (b"# Just a body\n", "frontmatter-missing"),
        (b"---\nname: a\n", "frontmatter-missing"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "skill-md-binary"),
        (b"---\nname: \xff\xfe\n---\n", "skill-md-encoding"),
        (b"---\n- a\n- b\n---\n", "frontmatter-not-mapping"),
        (b"---\njust a string\n---\n", "frontmatter-not-mapping"),
        (b"---\nname: [unclosed\n---\n", "frontmatter-yaml"),
        (b"---\n!!python/object:os.system {}\n---\n", "frontmatter-yaml"),
    ],
)
def test_bad_input_is_a_problem_not_a_crash(data: bytes, code: str) -> None:
    parsed = parse_skill_md(data)
    assert parsed.frontmatter is None
    assert code in codes(parsed)
    assert all(p.severity == "invalid" for p in parsed.problems)


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    parsed = parse_skill_md(b"---\n---\nbody")
    assert parsed.frontmatter == {}


def test_oversized_frontmatter_is_refused() -> None:
    big = "x" * (MAX_FRONTMATTER_BYTES + 10)
    parsed = parse_skill_md(f"---\nname: a\ndescription: {big}\n---\n".encode())
    assert parsed.frontmatter is None
    assert "frontmatter-too-large" in codes(parsed)


def billion_laughs(levels: int = 9) -> bytes:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    body = "\n".join(lines)
    return f"---\nname: bomb\ndescription: d\n{body}\n---\n".encode()


def test_alias_bomb_is_refused_and_stays_small() -> None:
    parsed = parse_skill_md(billion_laughs())
    assert parsed.frontmatter is None
    assert "frontmatter-alias" in codes(parsed)
    # Nothing expanded: the problem list serialises to a few hundred bytes.
    assert len(json.dumps([p.to_json() for p in parsed.problems])) < 1000


def test_a_single_harmless_anchor_is_refused_too() -> None:
    parsed = parse_skill_md(b"---\nname: &n a\ndescription: *n\n---\n")
    assert "frontmatter-alias" in codes(parsed)


def test_deep_nesting_is_refused() -> None:
    deep = "[" * 500 + "]" * 500
    parsed = parse_skill_md(f"---\nname: a\ndescription: d\nx: {deep}\n---\n".encode())
    assert parsed.frontmatter is None
    assert "frontmatter-too-deep" in codes(parsed)


def test_values_are_json_compatible() -> None:
    data = b"---\nname: a\ndescription: d\ndate: 2024-01-02\n1: one\nnull: x\nf: .inf\n---\n"
    parsed = parse_skill_md(data)
    fm = parsed.frontmatter
    assert fm["date"] == "2024-01-02"
    assert fm["1"] == "one"
    assert fm["null"] == "x"
    json.dumps(fm)  # must not raise


def test_a_key_given_twice_is_a_warning_naming_it() -> None:
    """YAML keys are unique; readers differ on which of two values wins (an error, the
    first, the last), so a host may read another skill than the one shown. Said, not
    silently resolved (F3)."""
    text = (
        "name: good\ndescription: first\ndescription: second\n"
        "metadata:\n  nimblebrain:\n    loading-strategy: dynamic\n    loading-strategy: always\n"
    )
    value, problems = parse_frontmatter_text(text)
    assert value is not None and value["description"] == "second"
    assert [p.code for p in problems] == ["frontmatter-duplicate-key"] * 2
    assert "'description' is given more than once" in problems[0].message
    assert problems[0].severity == "warning"
    assert parse_frontmatter_text("name: a\ndescription: b\n") == (
        {"name": "a", "description": "b"},
        [],
    )

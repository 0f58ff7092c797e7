"""Frontmatter shapes a reader meets in hostile or unusual SKILL.md files: what is
read, and the problem a user sees when it is refused."""

from __future__ import annotations

from desktop.core.frontmatter import json_depth_ok, parse_frontmatter_text
from desktop.core.skill_md import parse_skill_md


def test_an_opening_line_that_is_not_exactly_three_dashes_is_no_frontmatter() -> None:
    parsed = parse_skill_md(b"---x\nname: a\n---\nbody")
    assert parsed.frontmatter is None
    assert [(p.code, p.severity) for p in parsed.problems] == [("frontmatter-missing", "invalid")]


def test_more_than_one_yaml_document_is_refused() -> None:
    fields, problems = parse_frontmatter_text("a: 1\n---\nb: 2")
    assert fields is None
    assert [(p.code, p.message) for p in problems] == [
        ("frontmatter-yaml", "frontmatter holds more than one YAML document")
    ]


def test_a_merge_key_fills_in_what_the_mapping_does_not_say() -> None:
    fields, problems = parse_frontmatter_text("m:\n  <<: {a: 1}\n  c: 2")
    assert fields == {"m": {"a": 1, "c": 2}} and problems == []


def test_a_key_overriding_a_merged_one_is_no_duplicate_but_a_key_written_twice_is() -> None:
    """YAML's merge: a key written in the mapping wins over the merged one, and is not
    a duplicate; the same key written twice in the mapping still is."""
    fields, problems = parse_frontmatter_text("m: {<<: {a: 1, c: 9}, c: 2}")
    assert fields == {"m": {"a": 1, "c": 2}} and problems == []
    fields, problems = parse_frontmatter_text("m: {c: 2, <<: {a: 1, c: 9}}")
    assert fields == {"m": {"a": 1, "c": 2}} and problems == []
    fields, problems = parse_frontmatter_text("m: {<<: {c: 9}, c: 2, c: 3}")
    assert fields == {"m": {"c": 3}}
    assert [p.code for p in problems] == ["frontmatter-duplicate-key"]
    assert "c" in problems[0].message


def test_values_json_cannot_hold_are_read_as_text() -> None:
    fields, problems = parse_frontmatter_text("a: .inf\nb: !!binary aGVsbG8=\nc: [1, {d: 2}]")
    assert fields == {"a": "inf", "b": "hello", "c": [1, {"d": 2}]} and problems == []


def test_a_servers_frontmatter_is_bounded_in_depth_and_size() -> None:
    assert json_depth_ok({"a": [1, {"b": 2}]})
    assert not json_depth_ok([[[1]]], limit=1)
    assert not json_depth_ok(list(range(10)), budget=5)

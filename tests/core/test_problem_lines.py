"""A problem is placed on the line of the field it is about, found in the SKILL.md text
(F3's field rules, the loading values of L1-L6, a YAML error's own line)."""

from __future__ import annotations

from desktop.core.checks import check_frontmatter
from desktop.core.loading import read_loading
from desktop.core.model import Problem
from desktop.core.problem_lines import frontmatter_lines, key_lines, problem_lines
from desktop.core.skill_md import parse_skill_md


def _problems(text: str, folder: str = "tool") -> list[Problem]:
    parsed = parse_skill_md(text.encode("utf-8"))
    problems = list(parsed.problems)
    if parsed.frontmatter is not None:
        problems += check_frontmatter(parsed.frontmatter, folder)
        problems += read_loading(parsed.frontmatter, None)[1]
    return problems


def _placed(text: str, folder: str = "tool") -> list[tuple[int, str]]:
    return [(line, p.code) for line, p in problem_lines(text, _problems(text, folder))]


def test_field_problems_are_placed_on_their_fields_line() -> None:
    text = (
        "---\n"
        "name: Not_Tool\n"
        "# a comment\n"
        "description: '" + "d" * 1100 + "'\n"
        "license: 3\n"
        "homepage: x\n"
        "metadata:\n"
        "  owner: 7\n"
        "  nimblebrain:\n"
        "    priority: 500\n"
        "    loading-strategy: sometimes\n"
        "---\n"
        "# Body\n"
        "name: not a field, in the body\n"
    )
    assert _placed(text) == [
        (2, "name-pattern"),
        (2, "name-mismatch"),
        (4, "description-too-long"),
        (5, "license-type"),
        (6, "unknown-fields"),
        (8, "metadata-not-text"),
        (9, "metadata-not-text"),  # nimblebrain is a mapping, not text
        (10, "priority-dropped"),
        (11, "loading-strategy-dropped"),
    ]


def test_a_yaml_error_is_placed_on_the_line_it_names() -> None:
    text = "---\nname: tool\ndescription: x: y\n---\nbody\n"
    assert _placed(text) == [(3, "frontmatter-yaml")]


def test_a_repeated_key_is_placed_on_its_repeats() -> None:
    text = "---\nname: tool\n'name': tool\ndescription: x\n\"name\" : tool\n---\n"
    assert _placed(text) == [(3, "frontmatter-duplicate-key"), (5, "frontmatter-duplicate-key")]


def test_a_value_yaml_versions_read_apart_is_placed_on_its_key() -> None:
    text = "---\nname: tool\ndescription: x\nmetadata:\n  build: 0o17\n---\n"
    assert _placed(text) == [(5, "frontmatter-yaml-versions")]


def test_a_loading_block_that_is_not_a_mapping_is_placed_on_it() -> None:
    text = "---\nname: tool\ndescription: x\nmetadata:\n  nimblebrain: yes\n---\n"
    assert (5, "loading-block-type") in _placed(text)


def test_a_problem_whose_place_is_unknown_is_not_placed() -> None:
    text = "---\nname: tool\ndescription: x\nmetadata: {nimblebrain: {priority: 900}}\n---\n"
    placed = _placed(text)
    # The flow mapping holds the key on its parent's line: the parent is marked.
    assert placed == [(4, "metadata-not-text"), (4, "priority-dropped")]
    odd = [
        Problem("entry-repeated", "repeated"),
        Problem("frontmatter-yaml", "frontmatter is not valid YAML: somewhere"),
        Problem("metadata-not-text", "3 more metadata values are not text"),
        Problem("frontmatter-duplicate-key", "the key 'x' is given more than once"),
        Problem("frontmatter-duplicate-key", r"the key '\N' is given more than once"),
        Problem("frontmatter-yaml-versions", "more values than these 20 are read differently"),
        Problem("unknown-fields", "something else"),
    ]
    assert problem_lines(text, odd) == []


def test_no_frontmatter_places_nothing_but_yaml_lines() -> None:
    assert frontmatter_lines("no frontmatter\n") == []
    assert frontmatter_lines("---\nname: x\n") == []  # never closed
    assert frontmatter_lines("") == []
    assert frontmatter_lines("\ufeff---\nname: x\n---\n") == ["name: x"]
    problems = [Problem("name-pattern", "bad"), Problem("frontmatter-yaml", "at line 4")]
    assert [line for line, _ in problem_lines("body only\n", problems)] == [5]


def test_key_lines_stay_inside_their_parent_block() -> None:
    lines = ["a:", "  b: 1", "c:", "  b: 2", "  d:", "    b: 3"]
    assert key_lines(lines, ["c", "b"]) == [3]
    assert key_lines(lines, ["c", "d", "b"]) == [5]
    assert key_lines(lines, ["a", "d"]) == [0]  # the deepest parent found
    assert key_lines(lines, ["x"]) == []

"""A YAML error in the frontmatter reads as a plain sentence on the file's own line."""

from __future__ import annotations

import pytest

from desktop.core.frontmatter import parse_frontmatter_text, yaml_sentence
from desktop.core.frontmatter_12 import parse_frontmatter_text_12
from desktop.core.model import Problem
from desktop.core.problem_lines import problem_lines


def _message(frontmatter: str, yaml_12: bool) -> str:
    read = parse_frontmatter_text_12 if yaml_12 else parse_frontmatter_text
    fields, problems = read(frontmatter)
    assert fields is None
    assert [p.code for p in problems] == ["frontmatter-yaml"]
    return problems[0].message


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ("name: a\ndescription: b\ntags: [a, b\n", "Line 4: a `[` is never closed"),
        ("name: a\nmeta: {a: 1\n", "Line 3: a `{` is never closed"),
        ('name: "abc\ndescription: x\n', "Line 2: a quote is never closed"),
        (
            "name: a\n\tdescription: b\n",
            "Line 3: a tab is used for indentation; indent with spaces",
        ),
        (
            "name: a\ndescription: see: this\n",
            "Line 3: a `:` in a value that is not quoted; put the value in quotes",
        ),
        (
            "name: a\nmeta:\n    x: 1\n  y: 2\n",
            "Line 5: the indentation does not line up with the lines above",
        ),
        ("a: b\n- c\n", "Line 3: the indentation does not line up with the lines above"),
    ],
)
@pytest.mark.parametrize("yaml_12", [False, True], ids=["yaml-1.1", "yaml-1.2"])
def test_each_common_error_is_a_plain_sentence_on_the_file_line(
    frontmatter: str, message: str, yaml_12: bool
) -> None:
    said = _message(frontmatter, yaml_12)
    assert said == message
    assert "<unicode string>" not in said
    text = f"---\n{frontmatter}---\nbody\n"
    line = int(said.split(":")[0].split(",")[0].removeprefix("Line "))
    placed = problem_lines(text, [Problem("frontmatter-yaml", said, "invalid")])
    assert placed == [(line, Problem("frontmatter-yaml", said, "invalid"))]


@pytest.mark.parametrize(
    ("yaml_12", "message"),
    [
        (False, "Line 3, column 4: found character that cannot start any token"),
        (True, "Line 3, column 4: found character '@' that cannot start any token"),
    ],
)
def test_another_error_names_line_and_column_in_the_reader_words(
    yaml_12: bool, message: str
) -> None:
    said = _message("a: b\nc: @x\n", yaml_12)
    assert said == message
    assert "<unicode string>" not in said


def test_an_error_without_a_place_keeps_the_reader_words() -> None:
    assert yaml_sentence(ValueError("odd")) == "frontmatter is not valid YAML: odd"

"""The frontmatter field rules (F3) and loading metadata (L1-L6) a user meets in lint
and in a skill's page: each problem's code, severity and message."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.checks import check_frontmatter, display_text
from desktop.core.loading import affinity_report, loaded_always, read_loading
from desktop.core.model import LoadingConfig, Origin, Problem, Skill

BASE: dict[str, Any] = {"name": "pdf", "description": "Read PDF files"}


def problem(frontmatter: dict[str, Any], code: str) -> Problem:
    found = [p for p in check_frontmatter({**BASE, **frontmatter}, "pdf") if p.code == code]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("value", "kind"),
    [(True, "a boolean"), (42, "a number"), (["a"], "a list"), ({"a": 1}, "a mapping")],
)
def test_a_required_field_yaml_reads_as_another_type_says_to_quote_it(
    value: Any, kind: str
) -> None:
    found = problem({"description": value}, "description-type")
    assert found.severity == "invalid"
    assert found.message == (
        f"'description' must be text, but YAML reads this value as {kind}: put it in quotes"
    )


def test_compatibility_must_be_a_non_blank_string() -> None:
    found = problem({"compatibility": 3}, "compatibility-type")
    assert (found.message, found.severity) == ("compatibility must be a string", "error")
    found = problem({"compatibility": "  "}, "compatibility-empty")
    assert found.message == "compatibility is empty; when given it holds 1-500 characters"
    assert check_frontmatter({**BASE, "compatibility": "Python 3.11"}, "pdf") == []


def test_license_and_allowed_tools_of_the_wrong_type_are_warnings() -> None:
    found = problem({"license": 1}, "license-type")
    assert (found.message, found.severity) == ("license must be a string", "warning")
    found = problem({"allowed-tools": {"Bash": True}}, "allowed-tools-type")
    assert found.message == "allowed-tools must be a string or a list"
    assert found.severity == "warning"
    fine = {**BASE, "license": "MIT", "allowed-tools": ["Read"], "metadata": {"a": "b"}}
    assert check_frontmatter(fine, "pdf") == []


def test_unknown_fields_are_listed_up_to_twenty() -> None:
    many = {f"x-{i:02}": 1 for i in range(25)}
    found = problem(many, "unknown-fields")
    assert found.severity == "info"
    assert found.message.endswith("x-18, x-19 ...")
    assert "x-20" not in found.message
    few = problem({"x-a": 1}, "unknown-fields")
    assert few.message == "fields outside the Agent Skills specification (passed through): x-a"


def test_a_field_value_is_shown_as_one_bounded_string() -> None:
    assert display_text("Read PDF files") == "Read PDF files"
    assert display_text(None) == ""
    assert display_text(42) == "42"
    assert display_text("x" * 10, limit=5) == "xxxx…"


def nb(block: Any) -> dict[str, Any]:
    return {**BASE, "metadata": {"nimblebrain": block}}


def test_a_loading_block_that_is_not_a_mapping_is_said_and_defaults_apply() -> None:
    config, problems = read_loading(nb(["always"]), None)
    assert config == LoadingConfig()
    assert [(p.code, p.message, p.severity) for p in problems] == [
        (
            "loading-block-type",
            "metadata.nimblebrain is not a mapping; loading defaults apply",
            "info",
        )
    ]
    assert read_loading({**BASE, "metadata": {"other": 1}}, None) == (LoadingConfig(), [])
    assert read_loading(None, None) == (LoadingConfig(), [])


def test_a_dropped_value_is_shown_shortened() -> None:
    _, problems = read_loading(nb({"loading-strategy": "s" * 100}), None)
    assert problems[0].code == "loading-strategy-dropped"
    assert problems[0].message == (
        f"loading-strategy '{'s' * 56}... ignored: only 'always' or 'dynamic'"
    )


def test_a_blank_tool_affinity_pattern_is_dropped() -> None:
    config, problems = read_loading(nb({"tool-affinity": ["search", " ", 3]}), "srv")
    assert config.tool_affinity == ("srv__search",) and config.tool_affinity_declared
    assert [p.message for p in problems] == [
        "tool-affinity ' ' ignored: only tool names or globs",
        "tool-affinity 3 ignored: only tool names or globs",
    ]
    config, _ = read_loading(nb({"tool-affinity": "search"}), None)
    assert config.tool_affinity == ("search",)


def skill(kind: str, strategy: str, problems: list[Problem] | None = None) -> Skill:
    origin = (
        Origin("srv", "mcp", "stdio", "serve")
        if kind == "mcp"
        else Origin("mine", "local", "folder", "/skills")
    )
    return Skill(
        origin=origin,
        uri="skill://pdf/SKILL.md",
        name="pdf",
        description="d",
        frontmatter=dict(BASE),
        resources=(),
        loading=LoadingConfig(strategy=strategy, tool_affinity=("srv__search",)),
        problems=problems or [],
    )


def test_only_a_loadable_local_skill_declaring_always_is_loaded_always() -> None:
    assert loaded_always(skill("local", "always"))
    assert not loaded_always(skill("local", "dynamic"))
    assert not loaded_always(skill("mcp", "always"))  # a server's say alone (L6)
    broken = skill("local", "always", [Problem("name-missing", "no name", "invalid")])
    assert not loaded_always(broken)


def test_affinity_of_a_local_skill_or_unknown_tools_is_reported_without_matching() -> None:
    rows, problems = affinity_report(skill("local", "dynamic"), ["search"])
    assert [(r.pattern, r.tools) for r in rows] == [("srv__search", ())] and problems == []
    rows, problems = affinity_report(skill("mcp", "dynamic"), None)
    assert [(r.pattern, r.tools) for r in rows] == [("srv__search", ())] and problems == []


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"a": 1}, "a mapping, not text: the Agent Skills specification makes metadata a map"),
        (["a"], "a list, not text"),
        (True, "a boolean, not text"),
        (None, "empty (null), not text"),
        (3, "a number, not text"),
    ],
)
def test_a_metadata_value_that_is_not_text_is_a_warning_saying_what_to_do(
    value: Any, said: str
) -> None:
    found = problem({"metadata": {"version": value, "fine": "text"}}, "metadata-not-text")
    assert found.severity == "warning"
    assert found.message.startswith(f"metadata.version is {said}")
    fix = (
        "keep it only for hosts that read it"
        if isinstance(value, dict | list)
        else "put it in quotes"
    )
    assert found.message.endswith(f"value); {fix}")


def test_metadata_values_not_text_are_reported_up_to_twenty() -> None:
    metadata = {f"k{i:02}": i for i in range(23)}
    found = [
        p.message
        for p in check_frontmatter({**BASE, "metadata": metadata}, "pdf")
        if p.code == "metadata-not-text"
    ]
    assert len(found) == 21 and found[0].startswith("metadata.k00 is a number")
    assert found[-1] == "3 more metadata values are not text"

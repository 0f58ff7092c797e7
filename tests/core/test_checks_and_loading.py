"""Agent Skills checks (F3) and lenient loading metadata (L1-L6)."""

from __future__ import annotations

import pytest

from desktop.core.checks import check_frontmatter
from desktop.core.loading import ToolIndex, affinity_report, match_triggers, read_loading
from desktop.core.model import LoadingConfig, Origin, Skill


def codes(problems) -> set[str]:
    return {p.code for p in problems}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Upper", "name-pattern"),
        ("-lead", "name-pattern"),
        ("trail-", "name-pattern"),
        ("dou--ble", "name-pattern"),
        ("under_score", "name-pattern"),
        ("a" * 65, "name-too-long"),
    ],
)
def test_name_rules(name: str, code: str) -> None:
    problems = check_frontmatter({"name": name, "description": "d"}, name)
    assert code in codes(problems)
    assert all(p.severity == "error" for p in problems if p.code == code)


def test_valid_name_has_no_problem() -> None:
    assert check_frontmatter({"name": "a1-b2", "description": "d"}, "a1-b2") == []


def test_name_must_equal_directory() -> None:
    problems = check_frontmatter({"name": "alpha", "description": "d"}, "beta")
    assert "name-mismatch" in codes(problems)


def test_missing_name_or_description_is_invalid() -> None:
    problems = check_frontmatter({"description": "d"}, "x")
    assert {p.severity for p in problems if p.code == "name-missing"} == {"invalid"}
    problems = check_frontmatter({"name": "x", "description": "  "}, "x")
    assert {p.severity for p in problems if p.code == "description-missing"} == {"invalid"}


def test_lengths_metadata_and_unknown_fields() -> None:
    fm = {
        "name": "x",
        "description": "d" * 1025,
        "compatibility": "c" * 501,
        "metadata": ["not", "a", "map"],
        "argument-hint": "[file]",
        "user-invocable": True,
    }
    problems = check_frontmatter(fm, "x")
    assert {"description-too-long", "compatibility-too-long", "metadata-type"} <= codes(problems)
    unknown = [p for p in problems if p.code == "unknown-fields"]
    assert unknown and unknown[0].severity == "info"
    assert "argument-hint" in unknown[0].message and "user-invocable" in unknown[0].message


def test_limits_at_the_boundary_pass() -> None:
    fm = {"name": "x", "description": "d" * 1024, "compatibility": "c" * 500}
    assert check_frontmatter(fm, "x") == []


def nb(block) -> dict:
    return {"name": "x", "description": "d", "metadata": {"nimblebrain": block}}


def test_defaults_when_nothing_declared() -> None:
    config, problems = read_loading({"name": "x", "description": "d"}, None)
    assert config == LoadingConfig()
    assert config.strategy == "dynamic" and not config.strategy_declared
    assert problems == []


@pytest.mark.parametrize("value", ["always", "dynamic"])
def test_l1_strategy_accepted(value: str) -> None:
    config, _ = read_loading(nb({"loading-strategy": value}), None)
    assert config.strategy == value and config.strategy_declared


@pytest.mark.parametrize("value", ["sometimes", "ALWAYS", 1, None, ["always"]])
def test_l1_strategy_otherwise_default(value) -> None:
    config, problems = read_loading(nb({"loading-strategy": value}), None)
    assert config.strategy == "dynamic" and not config.strategy_declared
    assert "loading-strategy-dropped" in codes(problems)


@pytest.mark.parametrize("value", [0, 50, 100, 12.5])
def test_l2_priority_accepted(value) -> None:
    config, _ = read_loading(nb({"priority": value}), None)
    assert config.priority == value and config.priority_declared


@pytest.mark.parametrize("value", [-1, 101, "10", True, float("nan"), None])
def test_l2_priority_dropped(value) -> None:
    config, problems = read_loading(nb({"priority": value}), None)
    assert config.priority is None and not config.priority_declared
    assert "priority-dropped" in codes(problems)


def test_l3_blank_and_non_string_triggers_dropped() -> None:
    config, problems = read_loading(
        nb({"triggers": ["deploy", "  ", "", 3, None, " ship it "]}), None
    )
    assert config.triggers == ("deploy", "ship it")
    assert config.triggers_declared
    assert len([p for p in problems if p.code == "trigger-dropped"]) == 4


def test_l3_only_blank_triggers_is_not_declared() -> None:
    config, _ = read_loading(nb({"triggers": ["   "]}), None)
    assert config.triggers == () and not config.triggers_declared


def test_l4_server_affinity_is_prefixed_and_defaults_to_server_namespace() -> None:
    config, _ = read_loading(nb({"tool-affinity": ["search_*", "get_doc"]}), "docs")
    assert config.tool_affinity == ("docs__search_*", "docs__get_doc")
    assert config.tool_affinity_declared
    config, _ = read_loading(nb({}), "docs")
    assert config.tool_affinity == ("docs__*",) and not config.tool_affinity_declared


@pytest.mark.parametrize("block", ["not a map", ["list"], 42])
def test_l5_malformed_block_never_rejects(block) -> None:
    config, problems = read_loading(nb(block), None)
    assert config == LoadingConfig()
    assert all(p.severity == "info" for p in problems)


def test_l5_malformed_metadata_never_rejects() -> None:
    config, _ = read_loading({"name": "x", "description": "d", "metadata": "oops"}, "s")
    assert config.strategy == "dynamic"


def make_skill(name: str, triggers=(), kind="local", label="here", affinity=()) -> Skill:
    transport = "folder" if kind == "local" else "stdio"
    return Skill(
        origin=Origin(label, kind, transport, "/x"),
        uri=f"{name}/SKILL.md",
        name=name,
        description="d",
        frontmatter={"name": name, "description": "d"},
        resources=(),
        loading=LoadingConfig(triggers=tuple(triggers), tool_affinity=tuple(affinity)),
    )


def test_trigger_matching_is_case_insensitive_substring() -> None:
    skills = [make_skill("a", ["Deploy"]), make_skill("b", ["rollback"]), make_skill("c")]
    matches = match_triggers(skills, "Please DEPLOYMENT now")
    assert [m.skill.name for m in matches] == ["a"]
    assert matches[0].trigger == "Deploy"
    assert match_triggers(skills, "nothing here") == []


def test_affinity_report_against_real_tool_names() -> None:
    skill = make_skill("s", kind="mcp", label="docs", affinity=("docs__search_*", "docs__nope"))
    rows, problems = affinity_report(skill, ["search_pages", "search_people", "get_doc"])
    assert rows[0].tools == ("docs__search_pages", "docs__search_people")
    assert rows[1].tools == ()
    assert [p.code for p in problems] == ["affinity-no-match"]
    assert "docs__nope" in problems[0].message


def test_affinity_is_anchored_to_the_server() -> None:
    # A pattern cannot reach another server's tools: it is matched over label__tool.
    skill = make_skill("s", kind="mcp", label="docs", affinity=("docs__other__*",))
    rows, problems = affinity_report(skill, ["search"])
    assert rows[0].tools == ()
    assert problems


def test_a_tool_index_answers_as_matching_each_skill_alone() -> None:
    tools = ["search_pages", "search_people", "get_doc", "a[b]", "x?y"]
    patterns = (
        "docs__search_*",
        "docs__get_doc",
        "docs__nope",
        "docs__*",
        "docs__a[b]",
        "docs__[gs]*",
        "docs__x?y",
        "docs__get_do?",
        "other__*",
    )
    index = ToolIndex("docs", tools)
    for pattern in patterns * 2:  # the second pass answers from the index's memory
        skill = make_skill("s", kind="mcp", label="docs", affinity=(pattern,))
        assert affinity_report(skill, index) == affinity_report(skill, tools), pattern
    # An index of another server's tools is not taken for this one's.
    elsewhere = make_skill("s", kind="mcp", label="wiki", affinity=("wiki__get_doc",))
    rows, _ = affinity_report(elsewhere, index)
    assert rows[0].tools == ("wiki__get_doc",)


def test_affinity_server_without_tools_is_visible() -> None:
    from dataclasses import replace

    skill = make_skill("s", kind="mcp", label="docs", affinity=("docs__search",))
    declared = replace(skill, loading=replace(skill.loading, tool_affinity_declared=True))
    _, problems = affinity_report(declared, [])
    assert [p.code for p in problems] == ["affinity-no-tools"]
    # The default affinity a skill never declared is the source's note, not each skill's.
    _, problems = affinity_report(skill, [])
    assert problems == []


@pytest.mark.parametrize(
    ("raw", "tools"),
    [
        (
            "Bash(kubectl get:*) Bash(kubectl logs:*)",
            ["Bash(kubectl get:*)", "Bash(kubectl logs:*)"],
        ),
        ("Read, Write  Grep", ["Read", "Write", "Grep"]),
        (["Read", " ", "Bash(git diff:*)"], ["Read", "Bash(git diff:*)"]),
        ("", []),
        (42, []),
    ],
)
def test_allowed_tools_split_outside_parentheses(raw, tools) -> None:
    skill = make_skill("s")
    skill.frontmatter = {"name": "s", "description": "d", "allowed-tools": raw}
    assert skill.allowed_tools() == tools


def test_a_name_yaml_reads_as_another_type_is_named_as_such() -> None:
    """`name: yes` is there, read as a boolean: the author is told to quote it."""
    problems = check_frontmatter({"name": True, "description": 42}, "yes")
    by_code = {p.code: p for p in problems}
    assert "name-missing" not in by_code and "description-missing" not in by_code
    assert by_code["name-type"].severity == "invalid"
    assert "as a boolean: put it in quotes" in by_code["name-type"].message
    assert "as a number" in by_code["description-type"].message
    assert check_frontmatter({"name": "x", "description": "  "}, "x")[0].code == (
        "description-missing"
    )


def test_an_empty_compatibility_is_a_problem() -> None:
    problems = check_frontmatter({"name": "x", "description": "d", "compatibility": ""}, "x")
    assert [p.code for p in problems] == ["compatibility-empty"]


@pytest.mark.parametrize("name", ["pdf\n", "pdf-forms\n"])
def test_a_name_ending_in_a_line_feed_breaks_the_pattern(name: str) -> None:
    """``$`` matches before a final line feed: such a name read as ``pdf`` in a list."""
    problems = check_frontmatter({"name": name, "description": "d"}, name)
    assert "name-pattern" in codes(problems)


def test_labels_ids_and_digests_ending_in_a_line_feed_are_refused() -> None:
    from desktop.core.identity import LABEL_RE, Identity
    from desktop.core.manifest import DIGEST_RE

    assert LABEL_RE.match("docs") and not LABEL_RE.match("docs\n")
    digest = "sha256:" + "0" * 64
    assert DIGEST_RE.match(digest) and not DIGEST_RE.match(digest + "\n")
    with pytest.raises(ValueError):
        Identity.parse("docs\n:alpha/SKILL.md")

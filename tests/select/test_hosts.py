"""Each host profile rule, with a skill it accepts and one it refuses, checked against the
YAML readers the hosts use (PyYAML for 1.1, ruamel.yaml for 1.2)."""

from __future__ import annotations

import io

import pytest
import yaml
from ruamel.yaml import YAML

from desktop.core.hosts import (
    PROFILES,
    HostProfile,
    SkillText,
    judge,
    load_problems,
    profile,
    read_as,
    unknown_words,
)


def skill(frontmatter: str | None, folder: str = "pdf") -> SkillText:
    return SkillText(folder, f"/skills/{folder}", folder, frontmatter)


GOOD = "name: pdf\ndescription: Fill in PDF forms\n"


def test_every_profile_rule_names_its_source_and_unknowns_are_said() -> None:
    assert {p.slug for p in PROFILES} == {
        "claude-code", "codex", "copilot", "cursor", "gemini", "skills-cli", "gh-skill",
        "mcp-ts-sdk", "fastmcp",
    }  # fmt: skip
    for p in PROFILES:
        assert p.rules, p.slug
        assert all(r.source and r.says for r in p.rules), p.slug
    assert "its listing budget" in unknown_words(profile("codex"))
    assert unknown_words(profile("copilot"))[0] == "its YAML reader"
    with pytest.raises(KeyError, match="known are claude-code"):
        profile("vim")


def test_yaml_readers_agree_with_the_libraries_hosts_use() -> None:
    text = "name: no\ndescription: 017\n"
    one_one = yaml.safe_load(text)
    one_two = YAML(typ="safe", pure=True).load(io.StringIO(text))  # ruamel: YAML 1.2
    ours_11, _ = read_as("yaml-1.1", text)
    ours_12, _ = read_as("yaml-1.2", text)
    assert ours_11 == one_one == {"name": False, "description": 15}
    assert ours_12 == {"name": "no", "description": 17}
    assert one_two["name"] == "no"


@pytest.mark.parametrize(
    ("host", "bad", "why"),
    [
        ("codex", "name: pdf\ndescription: 1.5\n", "description is a number"),
        ("codex", f"name: {'x' * 65}\ndescription: d\n", "over 64"),
        ("codex", "name: pdf\ndescription: " + "d" * 1025 + "\n", "over 1,024"),
        ("codex", "name: [pdf\n", "does not parse"),
        ("mcp-ts-sdk", "name: Pdf\ndescription: d\n", "not lowercase"),
        ("mcp-ts-sdk", "name: pdf-forms\ndescription: d\n", "not its folder's name"),
        ("mcp-ts-sdk", "name: pdf\n", "no description"),
        ("mcp-ts-sdk", "name: pdf\ndescription: d\nmetadata:\n  n: 1\n", "metadata"),
        ("fastmcp", "name: pdf\ndescription: d\nmetadata: 3\n", "metadata"),
        ("skills-cli", "name: pdf\ndescription: d\nmetadata:\n  a: b\n", "holds a mapping"),
    ],
)
def test_each_rule_refuses_what_it_should_and_accepts_the_plain_skill(
    host: str, bad: str, why: str
) -> None:
    p = profile(host)
    assert load_problems(p, skill(GOOD)) == []
    problems = load_problems(p, skill(bad))
    assert problems and why in "; ".join(problems)


def test_a_skill_without_frontmatter_loads_nowhere() -> None:
    for p in PROFILES:
        assert load_problems(p, skill(None)) == ["it has no frontmatter"]


def test_a_strict_client_refuses_the_whole_listing() -> None:
    skills = [skill(GOOD), skill("name: Bad\ndescription: d\n", "bad")]
    verdicts, _ = judge(skills, [profile("mcp-ts-sdk"), profile("codex")])
    assert verdicts[1]["mcp-ts-sdk"].loads is False
    assert verdicts[0]["mcp-ts-sdk"].loads is False
    assert "whole listing is refused for bad" in verdicts[0]["mcp-ts-sdk"].why
    assert verdicts[0]["codex"].loads is True and verdicts[1]["codex"].loads is True


def test_a_rule_whose_consequence_is_unknown_says_so() -> None:
    verdicts, _ = judge([skill("name: Bad_Name\ndescription: d\n", "Bad_Name")], PROFILES)
    claude = verdicts[0]["claude-code"]
    assert claude.loads is None and "what Claude Code does then is unknown" in claude.why
    assert verdicts[0]["copilot"].loads is None  # nothing known of its rules


def test_two_hundred_skills_overflow_the_claude_code_budget() -> None:
    skills = [
        skill(
            f"name: skill-{i:03}\ndescription: {'Handles a task of kind ' * 8}{i}\n",
            f"skill-{i:03}",
        )
        for i in range(200)
    ]
    verdicts, budgets = judge(skills, [profile("claude-code")], 200_000)
    budget = budgets["claude-code"]
    assert budget.limit == 8000 and budget.used > 30_000
    names_only = [v for v in verdicts if v["claude-code"].listing == "name-only"]
    assert budget.cut == len(names_only) > 100
    assert verdicts[0]["claude-code"].listing == "full"  # the first listed keep theirs
    sentence = budget.sentence("Claude Code", 200)
    assert sentence.startswith("Claude Code at 200K context: about 8,000 characters")
    assert f"{budget.cut} lose their descriptions" in sentence
    _, wide = judge(skills, [profile("claude-code")], 2_000_000)
    assert wide["claude-code"].cut == 0 and "all fit" in wide["claude-code"].sentence("C", 200)
    _, unknown = judge(skills, [profile("claude-code")], None)
    assert unknown["claude-code"].limit == 8000  # the fallback


def test_a_long_listing_is_cut_for_claude_code() -> None:
    long = "name: pdf\ndescription: " + "x" * 2000 + "\n"
    verdicts, _ = judge([skill(long)], [profile("claude-code")])
    v = verdicts[0]["claude-code"]
    assert v.listing == "cut" and v.length == 1536 and "1,536" in v.why
    assert v.to_json() == {"loads": True, "listing": "cut", "why": "cut at 1,536 characters"}


def test_budget_without_a_share_is_unknown() -> None:
    p: HostProfile = profile("codex")
    assert p.budget(200_000) is None
    _, budgets = judge([skill(GOOD)], [p])
    assert "no listing budget is known" in budgets["codex"].sentence("Codex", 1)

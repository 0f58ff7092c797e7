"""Host profiles: each rule with a fixture it accepts and one it rejects, frontmatter
read by the real YAML readers (PyYAML, and ruamel.yaml for YAML 1.2 where installed);
a folder of 200 skills overflowing Claude Code's listing budget."""

from __future__ import annotations

import pytest
import yaml

from desktop.core.hosts import UNKNOWN, host_ids, profile, profiles
from desktop.core.hosts.verdict import (
    CUT,
    DROPPED,
    FULL,
    NAME_ONLY,
    ListedSkill,
    budget_limit,
    budget_sentence,
    host_verdict,
    line_reader_misreads,
    listing_plan,
)


def readers(text: str) -> list[dict]:
    """The frontmatter as each real reader here reads it."""
    out = [yaml.safe_load(text)]
    try:
        from ruamel.yaml import YAML
    except ImportError:  # pragma: no cover - depends on the environment
        return out
    out.append(dict(YAML(typ="safe", pure=True).load(text)))
    return out


def loads(host: str, text: str, folder: str | None = None) -> set[str]:
    return {host_verdict(profile(host), fm, folder, text).loads for fm in readers(text)}


def test_every_host_of_the_issue_has_a_profile_and_every_rule_a_source() -> None:
    assert set(host_ids()) == {
        "claude-code",
        "codex",
        "copilot",
        "cursor",
        "gemini",
        "skills-cli",
        "gh-skill",
        "mcp-ts-sdk",
        "fastmcp",
    }
    for p in profiles():
        assert p.rules
        for rule in p.rules:
            assert rule.source == UNKNOWN or "/" in rule.source or "." in rule.source
            assert (
                rule.source != UNKNOWN
                or "unknown" in rule.text
                or "not known" in rule.text
                or "only to the host" in rule.text
            )


GOOD = "name: report\ndescription: Writes reports.\n"


@pytest.mark.parametrize(
    ("host", "bad", "why"),
    [
        ("codex", "name: report\ndescription: '" + "x" * 1025 + "'\n", "over 1,024"),
        ("codex", "name: report\ndescription: '   '\n", "no description"),
        ("codex", "name: " + "a" * 65 + "\ndescription: d\n", "over 64"),
        (
            "codex",
            "name: report\ndescription: d\nmetadata:\n  short-description: '" + "s" * 501 + "'\n",
            "short-description",
        ),
        ("mcp-ts-sdk", "name: Report\ndescription: d\n", "lowercase"),
        ("mcp-ts-sdk", "name: report\ndescription: d\ncompatibility: 3\n", "compatibility"),
        (
            "mcp-ts-sdk",
            "name: report\ndescription: d\ncompatibility: '" + "c" * 501 + "'\n",
            "over 500",
        ),
        ("mcp-ts-sdk", "name: report\ndescription: d\nmetadata:\n  retries: 3\n", "retries"),
        ("mcp-ts-sdk", "name: report\ndescription: d\nmetadata: [a]\n", "not a mapping"),
        ("fastmcp", "name: report\ndescription: d\nmetadata:\n  retries: 3\n", "not all text"),
        ("claude-code", "name: Report Writer\ndescription: d\n", "lowercase"),
    ],
)
def test_each_rule_accepts_one_fixture_and_rejects_another(host: str, bad: str, why: str) -> None:
    assert loads(host, GOOD, "report") == {"yes"}
    verdicts = {host_verdict(profile(host), fm, "report", bad) for fm in readers(bad)}
    expected = "unknown" if profile(host).failure == UNKNOWN else "no"
    assert {v.loads for v in verdicts} == {expected}
    assert all(any(why in w for w in v.why) for v in verdicts)


def test_the_typescript_client_refuses_the_whole_listing_for_a_name_unlike_its_folder() -> None:
    verdict = host_verdict(profile("mcp-ts-sdk"), yaml.safe_load(GOOD), "reports")
    assert verdict.loads == "no"
    assert "whole listing" in verdict.why[0] and "'reports'" in verdict.why[0]
    # Codex has no folder rule: the same skill loads.
    assert host_verdict(profile("codex"), yaml.safe_load(GOOD), "reports").loads == "yes"


def test_unreadable_frontmatter() -> None:
    assert host_verdict(profile("codex"), None, "x").loads == "no"
    assert host_verdict(profile("cursor"), None, "x").loads == "unknown"


def test_hosts_whose_rules_are_unknown_say_so() -> None:
    verdict = host_verdict(profile("copilot"), yaml.safe_load(GOOD), "report")
    assert verdict.loads == "unknown" and "not known" in verdict.why[0]


def test_the_skills_cli_line_reader_misreads_block_values_long_lines_and_deep_nesting() -> None:
    text = (
        "name: report\n"
        "description: >-\n  Writes reports.\n"
        "license: MIT and\n  more words\n"
        "metadata:\n  nimblebrain:\n    triggers: [a, b]\n"
        "# a comment\n\n"
        "tags:\n  - a\n"
    )
    assert yaml.safe_load(text)["description"] == "Writes reports."
    misreads = line_reader_misreads(text)
    assert misreads == [
        "description: its block value is read as '>-'",
        "license: only its first line is read",
        "metadata: its mappings nested two levels deep are flattened",
    ]
    assert line_reader_misreads(text + "odd line without a key\n") == misreads
    verdict = host_verdict(profile("skills-cli"), yaml.safe_load(text), "report", text)
    assert verdict.loads == "yes" and len(verdict.why) == 3
    assert host_verdict(profile("skills-cli"), yaml.safe_load(GOOD), "report", GOOD).why == ()


def test_claude_code_budget_scales_with_context_and_falls_back_to_8000() -> None:
    cc = profile("claude-code")
    assert budget_limit(cc, 200_000) == 8000
    assert budget_limit(cc, 1_000_000) == 40_000
    assert budget_limit(cc, None) == 8000
    assert budget_limit(profile("codex"), 200_000) is None


def test_a_long_description_is_cut_at_1536_characters() -> None:
    plan = listing_plan(profile("claude-code"), [ListedSkill("long", "d" * 2000)], 1_000_000)
    assert plan.listing == [CUT]
    assert plan.need == 1537


def test_two_hundred_skills_overflow_claude_codes_budget() -> None:
    skills = [ListedSkill(f"skill-{i:03}", f"Does task number {i} well. " * 8) for i in range(200)]
    cc = profile("claude-code")
    plan = listing_plan(cc, skills, 200_000)
    assert plan.limit == 8000 and plan.need > 40_000
    assert plan.used <= plan.limit
    assert plan.listing[0] == FULL and plan.listing[-1] == NAME_ONLY
    assert plan.cut == plan.listing.count(NAME_ONLY) > 150
    sentence = budget_sentence(cc, plan, 200_000, 200)
    assert sentence.startswith(
        f"Claude Code at 200K context: about 8,000 characters for skill listings; "
        f"these 200 skills need {plan.need:,}; {plan.cut} lose their descriptions"
    )
    tiny = listing_plan(cc, skills, 10_000)  # 400 characters: even the names overflow
    assert DROPPED in tiny.listing and tiny.used <= 400
    assert "fit" in budget_sentence(cc, listing_plan(cc, skills[:1], 200_000), None, 1)
    one = listing_plan(cc, [ListedSkill("a", "d" * 1500)], 3_000)
    assert budget_sentence(cc, one, 3_000, 1).endswith(
        "this skill needs 1,506; 1 loses its description"
    )


def test_skills_a_host_does_not_load_are_dropped_and_unknown_listings_say_so() -> None:
    plan = listing_plan(profile("claude-code"), [None, ListedSkill("a", "b")], None)
    assert plan.listing == [DROPPED, FULL]
    unknown = listing_plan(profile("cursor"), [None, ListedSkill("a", "b")], None)
    assert unknown.listing == [DROPPED, UNKNOWN]
    assert budget_sentence(profile("cursor"), unknown, None, 2) == "Cursor: listing budget unknown"
    assert unknown.to_json() == {"limit": None, "need": 0, "used": 0, "cut": 0}


def test_an_unknown_host_id() -> None:
    with pytest.raises(KeyError):
        profile("nope")


def test_yaml_11_and_12_readers_differ_on_metadata_and_the_verdict_follows_the_reader() -> None:
    text = "name: report\ndescription: d\nmetadata:\n  on: yes\n"
    verdicts = {host_verdict(profile("fastmcp"), fm, "report").loads for fm in readers(text)}
    # PyYAML (YAML 1.1) reads a true/false pair; YAML 1.2 reads two words.
    assert "no" in verdicts


def test_docs_hosts_lists_every_rule_with_its_source() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "hosts.md").read_text("utf-8")
    for p in profiles():
        assert f"## {p.id}: {p.title}" in text
        for rule in p.rules:
            assert f"| {rule.text} | {rule.kind} |" in text
            assert rule.source in text

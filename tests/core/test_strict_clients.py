"""The rules strict clients refuse a whole `skills/list` result for, as the official
MCP TypeScript SDK client 2.4 checks them (characters counted as code points, an empty
string refused, a blank one not), and loading values written as text metadata."""

from __future__ import annotations

from typing import Any

from desktop.core.loading import read_loading
from desktop.core.strict_clients import (
    FASTMCP_CLIENT,
    TYPESCRIPT_CLIENT,
    entry_breaches,
    frontmatter_breaches,
    refusal_summary,
)


def rules(frontmatter: dict[str, Any], folder: str | None = "pdf") -> list[str]:
    return [b.rule for b in frontmatter_breaches(frontmatter, folder)]


GOOD = {"name": "pdf", "description": "Fill PDF forms."}


def test_a_conforming_skill_breaks_nothing() -> None:
    assert rules({**GOOD, "metadata": {"a": "1"}, "compatibility": "Needs git."}) == []
    assert rules({**GOOD, "description": "😀" * 1024}) == []  # characters, not UTF-16 units
    assert rules({**GOOD, "compatibility": "   "}) == []  # blank but not empty: accepted


def test_each_rule() -> None:
    assert rules({**GOOD, "name": "Pdf"}, "Pdf") == ["name"]
    assert rules({**GOOD, "name": "a" * 65}, "a" * 65) == ["name"]
    assert rules({**GOOD, "name": "pdf-forms"}) == ["name"]  # not its folder's name
    assert rules({**GOOD, "description": "d" * 1025}) == ["description"]
    assert rules({**GOOD, "description": ""}) == ["description"]
    assert rules({**GOOD, "compatibility": ""}) == ["compatibility"]
    assert rules({**GOOD, "compatibility": 3}) == ["compatibility"]
    assert rules({**GOOD, "compatibility": "c" * 501}) == ["compatibility"]
    assert rules({**GOOD, "metadata": None}) == ["metadata"]
    assert rules({**GOOD, "metadata": ["a"]}) == ["metadata"]
    assert rules({**GOOD, "metadata": {"n": 1}}) == ["metadata"]
    assert rules({**GOOD, "__proto__": "x"}) == ["frontmatter"]


def test_metadata_names_both_clients_and_the_text_form() -> None:
    (breach,) = frontmatter_breaches({**GOOD, "metadata": {"nimblebrain": {"priority": 5}}}, "pdf")
    assert breach.clients == (TYPESCRIPT_CLIENT, FASTMCP_CLIENT)
    assert "nimblebrain is a mapping" in breach.message
    assert "nimblebrain.triggers" in breach.message
    said = refusal_summary([breach])
    assert said.startswith(TYPESCRIPT_CLIENT + " refuses a server's whole skill listing")
    assert FASTMCP_CLIENT + " likewise" in said
    (long,) = frontmatter_breaches({**GOOD, "description": "d" * 1100}, "pdf")
    assert FASTMCP_CLIENT not in refusal_summary([long])


def test_entries_and_their_files() -> None:
    def entry(*uris: str, uri: str = "skill://a/pdf/SKILL.md") -> dict[str, Any]:
        digest = "sha256:" + "0" * 64
        return {
            "uri": uri,
            "frontmatter": GOOD,
            "resources": [{"uri": u, "digest": digest, "size": 1} for u in uris],
        }

    assert entry_breaches(entry("skill://a/pdf/SKILL.md", "skill://a/pdf/x.md")) == []
    assert entry_breaches(entry("skill://pdf/SKILL.md", uri="skill://pdf/SKILL.md")) == []
    found = entry_breaches(entry("skill://a/pdf/SKILL.md", "skill://a/other/x.md"))
    assert [b.message for b in found] == [
        "its file skill://a/other/x.md lies outside the skill's folder"
    ]
    assert (
        "listed twice"
        in entry_breaches(
            entry("skill://a/pdf/SKILL.md", "skill://a/pdf/x.md", "skill://a/pdf/x.md")
        )[0].message
    )
    assert "SKILL.md is not listed" in entry_breaches(entry("skill://a/pdf/x.md"))[0].message
    misnamed = {**entry("skill://a/pdf/SKILL.md"), "frontmatter": {**GOOD, "name": "x"}}
    assert [b.rule for b in entry_breaches(misnamed)] == ["name"]  # the URI's last folder


def test_loading_values_written_as_text_are_read_as_the_mapping_is() -> None:
    as_text = {
        "metadata": {
            "nimblebrain.loading-strategy": "always",
            "nimblebrain.priority": "20",
            "nimblebrain.triggers": "incident, outage,, pager",
            "nimblebrain.tool-affinity": "search_*, get_doc",
        }
    }
    config, problems = read_loading(as_text, "docs")
    assert (config.strategy, config.strategy_declared) == ("always", True)
    assert (config.priority, config.priority_declared) == (20, True)
    assert config.triggers == ("incident", "outage", "pager")
    assert config.tool_affinity == ("docs__search_*", "docs__get_doc")
    assert [p.code for p in problems] == ["trigger-dropped"]  # the empty one between commas
    as_mapping = {
        "metadata": {
            "nimblebrain": {
                "loading-strategy": "always",
                "priority": 20,
                "triggers": ["incident", "outage", "pager"],
                "tool-affinity": ["search_*", "get_doc"],
            }
        }
    }
    assert read_loading(as_mapping, "docs")[0] == config


def test_the_mapping_wins_and_text_that_is_no_value_is_dropped() -> None:
    both = {"metadata": {"nimblebrain": {"priority": 7}, "nimblebrain.priority": "9"}}
    assert read_loading(both, None)[0].priority == 7
    odd = {"metadata": {"nimblebrain.priority": "high", "nimblebrain.loading-strategy": "x"}}
    config, problems = read_loading(odd, None)
    assert config.priority is None and config.strategy == "dynamic"
    assert {p.code for p in problems} == {"priority-dropped", "loading-strategy-dropped"}
    assert read_loading({"metadata": {"nimblebrain.priority": "1e3"}}, None)[0].priority is None

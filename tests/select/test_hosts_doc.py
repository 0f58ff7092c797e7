"""docs/hosts.md lists every rule of every host profile, with its source."""

from __future__ import annotations

from pathlib import Path

from desktop.core.hosts import PROFILES

DOC = Path(__file__).resolve().parents[2] / "docs" / "hosts.md"


def test_every_profile_rule_is_in_the_docs_with_its_source() -> None:
    text = DOC.read_text()
    for p in PROFILES:
        assert f"(`{p.slug}`)" in text
        for rule in p.rules:
            assert f"**{rule.topic}**: {rule.says}. Source: {rule.source}." in text, rule

"""Frontmatter read as YAML 1.2 beside YAML 1.1: the values they disagree on, found within
the same limits, and verification accepting an entry built by either reading."""

from __future__ import annotations

import itertools
import resource

import pytest

from desktop.core import frontmatter
from desktop.core.frontmatter import parse_frontmatter_text
from desktop.core.frontmatter_12 import may_differ, parse_frontmatter_text_12
from desktop.core.model import Origin, Skill, SkillFile
from desktop.core.skill_md import parse_skill_md
from desktop.core.verify import FRONTMATTER_MISMATCH, VERIFIED, measure, verify_file

from .test_frontmatter_fast import KEYS, SCALARS, typed

ISSUE = "name: x\ndescription: d\nbuild: 017\nenabled: yes\nratio: 1:30\nversion: 1.0e3\n"


def test_the_two_readings_of_the_values_publishers_disagree_on() -> None:
    v11, p11 = parse_frontmatter_text(ISSUE)
    v12, p12 = parse_frontmatter_text_12(ISSUE)
    assert p11 == p12 == []
    assert v11 is not None and v12 is not None
    assert (v11["build"], v11["enabled"], v11["ratio"], v11["version"]) == (15, True, 90, "1.0e3")
    assert (v12["build"], v12["enabled"], v12["ratio"], v12["version"]) == (17, "yes", "1:30", 1e3)


def test_quoted_values_read_alike_and_carry_no_warning() -> None:
    text = 'name: x\ndescription: d\nbuild: "017"\nenabled: "yes"\nratio: "1:30"\n'
    parsed = parse_skill_md(f"---\n{text}---\nbody\n".encode())
    assert parsed.frontmatter_12 is None
    assert not [p for p in parsed.problems if p.code == "frontmatter-yaml-versions"]


def test_lint_warning_names_each_value_and_says_to_quote_it() -> None:
    text = ISSUE + "metadata:\n  build: 017\n  owner: me\n"
    parsed = parse_skill_md(f"---\n{text}---\nbody\n".encode())
    found = [p for p in parsed.problems if p.code == "frontmatter-yaml-versions"]
    said = " ".join(p.message for p in found)
    assert {p.severity for p in found} == {"warning"}
    for shown in (
        "'build' is 15 in YAML 1.1, 17 in 1.2",
        "'metadata.build'",
        "'enabled'",
        "'ratio'",
        "'version'",
    ):
        assert shown in said
    assert "owner" not in said
    assert all("quotes" in p.message for p in found)


@pytest.mark.parametrize("fast", [True, False])
def test_the_second_reading_keeps_the_limits(fast, monkeypatch) -> None:
    monkeypatch.setattr(frontmatter, "FAST_PATH", fast)
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b, *b]\n"
    value, problems = parse_frontmatter_text_12(bomb)
    assert value is None and problems[0].code == "frontmatter-alias"
    deep = "a: " + "[" * 40 + "]" * 40 + "\n"
    value, problems = parse_frontmatter_text_12(deep)
    assert value is None and problems[0].code == "frontmatter-too-deep"
    many = "a: [" + ", ".join(["1"] * 30_000) + "]\n"
    value, problems = parse_frontmatter_text_12(many)
    assert value is None and problems[0].code == "frontmatter-too-large"
    value, problems = parse_frontmatter_text_12("a: !!python/object:os.system x\n")
    assert value is None and problems[0].code == "frontmatter-yaml"


def test_a_hostile_frontmatter_costs_bounded_memory() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, hard))
    try:
        text = "a: 017\n" + "b: [" + ", ".join(["017"] * 12_000) + "]\n"
        parsed = parse_skill_md(f"---\n{text}---\n".encode())
        versions = [p for p in parsed.problems if p.code == "frontmatter-yaml-versions"]
        assert 1 <= len(versions) <= 21
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def generated() -> list[str]:
    texts = [f"{k}: {v}\n" for k, v in itertools.product(KEYS, SCALARS)]
    texts += [f"a:\n  - {v}\n  - [{v}]\n" for v in SCALARS]
    texts += [f"{v}: 1\n" for v in SCALARS]
    return texts


def test_texts_the_prefilter_passes_over_read_alike() -> None:
    """Where ``may_differ`` says no, the second reading is skipped: it must be right."""
    skipped = 0
    for text in generated():
        if may_differ(text):
            continue
        skipped += 1
        v11, p11 = parse_frontmatter_text(text)
        v12, p12 = parse_frontmatter_text_12(text)
        if v11 is None or v12 is None:
            continue  # not YAML for one of them: no reading to compare
        assert typed(v11) == typed(v12), f"readings differ on {text!r}: {v11} / {v12}"
    assert skipped > 500


def test_the_fast_reader_agrees_with_the_full_yaml_12_path(monkeypatch) -> None:
    for text in generated():
        quick = parse_frontmatter_text_12(text)
        with monkeypatch.context() as m:
            m.setattr(frontmatter, "FAST_PATH", False)
            full = parse_frontmatter_text_12(text)
        if quick[0] is not None and full[0] is not None:
            assert typed(quick[0]) == typed(full[0]), text


# -- verification --------------------------------------------------------------------------


def skill_for(data: bytes, fm: dict) -> Skill:
    m = measure(data)
    uri = "skill://x/SKILL.md"
    return Skill(
        origin=Origin("y", "mcp", "stdio", "pub"),
        uri=uri,
        name="x",
        description="d",
        frontmatter=fm,
        resources=(SkillFile(uri, m.digest, m.size),),
    )


DATA = f"---\n{ISSUE}metadata:\n  build: 017\n---\nbody\n".encode()
AS_12 = {
    "name": "x",
    "description": "d",
    "build": 17,
    "enabled": "yes",
    "ratio": "1:30",
    "version": 1000.0,
    "metadata": {"build": 17},
}
AS_11 = {
    "name": "x",
    "description": "d",
    "build": 15,
    "enabled": True,
    "ratio": 90,
    "version": "1.0e3",
    "metadata": {"build": 15},
}


def test_an_entry_built_by_a_yaml_12_reader_verifies_with_a_note_per_field() -> None:
    result, parsed = verify_file(skill_for(DATA, AS_12), "skill://x/SKILL.md", DATA)
    assert result.state == VERIFIED, result.message
    assert parsed is not None and parsed.body == "body\n"
    notes = " | ".join(result.notes)
    for shown in (
        "'build'",
        "17 (YAML 1.1 reads 15)",
        "'metadata.build'",
        "'enabled'",
        "'ratio'",
        "'version'",
    ):
        assert shown in notes
    assert "'name'" not in notes


def test_an_entry_built_by_a_yaml_11_reader_verifies_without_notes() -> None:
    result, _ = verify_file(skill_for(DATA, AS_11), "skill://x/SKILL.md", DATA)
    assert result.state == VERIFIED and result.notes == ()


def test_a_mismatch_names_every_field_neither_reading_gives() -> None:
    fm = {**AS_12, "build": 16, "description": "other", "ratio": 90, "extra": 1}
    result, parsed = verify_file(skill_for(DATA, fm), "skill://x/SKILL.md", DATA)
    assert result.state == FRONTMATTER_MISMATCH and parsed is None
    assert result.fields == ("build", "description", "extra")
    assert "the entry has 16, the SKILL.md has 15 (as YAML 1.1 reads it) or 17" in result.message
    assert "'extra': the entry has 1, the SKILL.md has absent" in result.message
    assert "3 fields differ" in result.message


def test_a_skill_md_said_to_read_alike_reads_alike(monkeypatch) -> None:
    """The YAML 1.1 reader flags, as it reads, the scalars YAML 1.2 reads otherwise; where
    it flags none (and the text-level check passes over it), the two readings agree."""
    found = 0
    for text in generated():
        parsed = parse_skill_md(f"---\n{text}---\n".encode())
        if parsed.frontmatter is None:
            continue
        v12, _ = parse_frontmatter_text_12(text)
        if v12 is None:
            continue
        if parsed.frontmatter_12 is None:
            assert typed(parsed.frontmatter) == typed(v12), text
        else:
            found += 1
            assert typed(parsed.frontmatter_12) == typed(v12), text
    assert found > 50
    # The same texts again: remembered scalars are flagged as the first time.
    again = sum(
        parse_skill_md(f"---\n{t}---\n".encode()).frontmatter_12 is not None for t in generated()
    )
    assert again == found

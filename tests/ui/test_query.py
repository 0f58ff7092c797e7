"""The filter rule of the catalog table (desktop.core.query), without Qt."""

from __future__ import annotations

from desktop.core.loading import read_loading
from desktop.core.model import Origin, Skill, SkillFile
from desktop.core.query import SearchIndex, SkillQuery, matches


def skill(name: str, label: str = "local", kind: str = "local", **fm: object) -> Skill:
    origin = Origin(label, kind, "folder" if kind == "local" else "stdio", f"/srv/{label}")  # type: ignore[arg-type]
    frontmatter = {"name": name, "description": f"about {name}", **fm}
    loading, _ = read_loading(frontmatter, label if kind == "mcp" else None)
    return Skill(
        origin,
        f"{name}/SKILL.md",
        name,
        str(frontmatter["description"]),
        frontmatter,
        (SkillFile("SKILL.md", "sha256:" + "0" * 64, 1),),
        loading=loading,
        qualified_name=f"{label}:{name}" if kind == "mcp" else name,
    )


def test_every_word_must_match_somewhere() -> None:
    s = skill("refunds", metadata={"nimblebrain": {"triggers": ["money back"]}})
    assert matches(s, SkillQuery("REFUNDS"))
    assert matches(s, SkillQuery("money refunds"))
    assert not matches(s, SkillQuery("money invoices"))


def test_origin_and_triggers_are_searched() -> None:
    s = skill("refunds", "billing", "mcp", metadata={"nimblebrain": {"triggers": ["chargeback"]}})
    assert matches(s, SkillQuery("billing"))
    assert matches(s, SkillQuery("chargeback"))
    assert matches(s, SkillQuery("/srv/billing"))


def test_unicode_is_normalised() -> None:
    s = skill("cafe", description="Ｆｕｌｌｗｉｄｔｈ text")
    assert matches(s, SkillQuery("fullwidth"))


def test_sets_restrict_by_source_state_and_strategy() -> None:
    s = skill("a", metadata={"nimblebrain": {"loading-strategy": "always"}})
    assert matches(s, SkillQuery(sources=frozenset({"local"})))
    assert not matches(s, SkillQuery(sources=frozenset({"other"})))
    assert matches(s, SkillQuery(strategies=frozenset({"always"})))
    assert not matches(s, SkillQuery(strategies=frozenset({"dynamic"})))
    assert matches(s, SkillQuery(states=frozenset({"approved"})), approval="approved")
    assert not matches(s, SkillQuery(states=frozenset({"approved"})), approval="changed")
    assert matches(s, SkillQuery(states=frozenset({"listed"})))


def test_state_groups_must_each_hold_a_state_of_the_skill() -> None:
    s = skill("a")
    both = SkillQuery(state_groups=(frozenset({"approved"}), frozenset({"verified"})))
    assert matches(s, both, verification="verified", approval="approved")
    assert not matches(s, both, verification="verified", approval="changed")
    assert not matches(s, both, verification="partial", approval="approved")
    either = SkillQuery(state_groups=(frozenset({"not-approved", "changed"}),))
    assert matches(s, either, approval="changed")
    assert either.needs_states and either.restricted


def test_index_narrowing_gives_the_same_answer_as_a_full_pass() -> None:
    skills = [
        skill(f"skill-{i}", description=f"item {i} {'even' if i % 2 else 'odd'}")
        for i in range(200)
    ]
    index = SearchIndex(skills)
    for text in ("s", "sk", "skill-1", "skill-19", "skill-1", "even", "even skill-3"):
        got = index.select(SkillQuery(text))
        want = [matches(s, SkillQuery(text)) for s in skills]
        assert [bool(x) for x in got] == want, text


def test_narrows() -> None:
    assert SkillQuery("ab").narrows(SkillQuery("a"))
    assert SkillQuery("a b").narrows(SkillQuery("a"))
    assert not SkillQuery("b").narrows(SkillQuery("ab"))
    assert not SkillQuery("ab", sources=frozenset({"x"})).narrows(SkillQuery("a"))

"""Identity and qualified names (I1-I3) over local and server-shaped skills."""

from __future__ import annotations

import pytest

from desktop.core.catalog import build_catalog
from desktop.core.checks import NAME_RE
from desktop.core.identity import QUALIFIER, Identity
from desktop.core.model import LoadingConfig, Origin, Skill, SourceStatus


def skill(label: str, kind: str, uri: str, name: str) -> Skill:
    transport = "folder" if kind == "local" else "http"
    return Skill(
        origin=Origin(label, kind, transport, "x"),
        uri=uri,
        name=name,
        description="d",
        frontmatter={"name": name, "description": "d"},
        resources=(),
        loading=LoadingConfig(),
    )


def test_identity_round_trip_and_refusal() -> None:
    ident = Identity("docs", "skill://refunds/SKILL.md")
    assert Identity.parse(ident.id) == ident
    for bad in ["no-separator", ":skill://x", "bad label:x", "docs:"]:
        with pytest.raises(ValueError):
            Identity.parse(bad)


def test_a_skill_id_is_its_identity_written_out() -> None:
    s = skill("docs", "mcp", "skill://refunds/SKILL.md", "refunds")
    assert s.id == s.identity.id == "docs:skill://refunds/SKILL.md"
    assert Identity.parse(s.id) == s.identity


def test_qualifier_can_never_be_in_a_skill_name() -> None:
    assert not NAME_RE.match(f"docs{QUALIFIER}refunds")


def test_server_skills_are_namespaced_and_in_listing_duplicates_use_paths() -> None:
    skills = [
        skill("docs", "mcp", "skill://acme/billing/refunds/SKILL.md", "refunds"),
        skill("docs", "mcp", "skill://acme/support/refunds/SKILL.md", "refunds"),
        skill("other", "mcp", "skill://refunds/SKILL.md", "refunds"),
        skill("local", "local", "refunds/SKILL.md", "refunds"),
    ]
    statuses = [SourceStatus(s.origin) for s in skills[1:]]
    catalog = build_catalog(statuses, skills)
    names = [s.qualified_name for s in catalog.skills]
    assert names == [
        "docs:acme/billing/refunds",
        "docs:acme/support/refunds",
        "other:refunds",
        "refunds",
    ]
    assert len(set(names)) == 4
    # the local skill's name is never shadowed by a server's
    assert catalog.get("local:refunds/SKILL.md").qualified_name == "refunds"
    (same,) = [c for c in catalog.collisions if c.kind == "same-name"]
    assert len(same.ids) == 4


def test_same_uri_on_two_servers_are_two_skills() -> None:
    a = skill("a", "mcp", "skill://x/SKILL.md", "x")
    b = skill("b", "mcp", "skill://x/SKILL.md", "x")
    catalog = build_catalog([], [a, b])
    assert catalog.get("a:skill://x/SKILL.md").origin is a.origin
    assert catalog.get("b:skill://x/SKILL.md").origin is b.origin


def test_server_nesting_by_uri_prefix() -> None:
    outer = skill("s", "mcp", "skill://tools/SKILL.md", "tools")
    inner = skill("s", "mcp", "skill://tools/extra/inner/SKILL.md", "inner")
    other = skill("t", "mcp", "skill://tools/extra/inner2/SKILL.md", "inner2")
    catalog = build_catalog([], [outer, inner, other])
    assert catalog.get(inner.id).nested_in == outer.id
    # another server's skill never nests in this one
    assert catalog.get(other.id).nested_in is None


def test_building_a_catalog_changes_none_of_its_inputs() -> None:
    """The catalog's names, nesting, collision notes and counts are its own: the
    skills and statuses it was built from are left as they were, and building again
    from a catalog's own skills gives the same catalog (no note is added twice)."""
    outer = skill("s", "mcp", "skill://tools/SKILL.md", "tools")
    inner = skill("s", "mcp", "skill://tools/extra/inner/SKILL.md", "inner")
    twin = skill("t", "mcp", "skill://tools/SKILL.md", "tools")
    status = SourceStatus(outer.origin)
    inputs = [outer, inner, twin]
    before = [(s.qualified_name, s.nested_in, list(s.problems)) for s in inputs]
    catalog = build_catalog([status], inputs)
    assert [(s.qualified_name, s.nested_in, list(s.problems)) for s in inputs] == before
    assert status.skill_count == 0
    assert catalog.sources[0].skill_count == 2
    assert [p.code for p in catalog.get(outer.id).problems] == ["collision-same-name"]
    again = build_catalog(catalog.sources, catalog.skills)
    assert [(s.qualified_name, s.nested_in, s.problems) for s in again.skills] == [
        (s.qualified_name, s.nested_in, s.problems) for s in catalog.skills
    ]
    # A server skill whose parent went away no longer nests in it.
    alone = build_catalog([], [s for s in catalog.skills if s.id != outer.id])
    assert alone.get(inner.id).nested_in is None


def test_a_local_name_holding_the_qualifier_never_reads_as_a_server_skill() -> None:
    """A local folder named `srv:refunds` showed as a second `srv:refunds`, beside the
    server's, with no collision: the qualifier is the catalog's mark of a server (I2)."""
    local = skill("L", "local", "srv:refunds/SKILL.md", "srv:refunds")
    served = skill("srv", "mcp", "skill://refunds/SKILL.md", "refunds")
    catalog = build_catalog([], [local, served])
    names = {s.origin.label: s.qualified_name for s in catalog.skills}
    assert names == {"L": "srv\\u003arefunds", "srv": "srv:refunds"}


def test_no_two_skills_share_a_qualified_name() -> None:
    """The same path under two schemes, or a local name holding a "/" that reads as
    another's path, gave two different skills one shown name in the table, queue and
    CLI. A name stays as written (the detail pane shows it so) unless it meets another."""
    served = [
        skill("srv", "mcp", "skill://a/payments/SKILL.md", "payments"),
        skill("srv", "mcp", "skill://b/payments/SKILL.md", "payments"),
        skill("srv", "mcp", "evil://a/payments/SKILL.md", "payments"),
    ]
    local = [
        skill("h10", "local", "a/payments/SKILL.md", "payments"),
        skill("h10", "local", "b/payments/SKILL.md", "payments"),
        skill("h10", "local", "zz/SKILL.md", "a/payments"),
    ]
    cat = build_catalog([SourceStatus(s.origin) for s in (served[0], local[0])], served + local)
    names = [s.qualified_name for s in cat.skills]
    assert len(set(names)) == len(names), names
    assert sorted(names) == sorted(
        [
            "srv:skill://a/payments",
            "srv:b/payments",
            "srv:evil://a/payments",
            "a/payments/SKILL.md",
            "b/payments",
            "zz/SKILL.md",
        ]
    )


def test_a_broken_entry_named_like_another_skills_path_does_not_take_its_name() -> None:
    """One invalid entry (at y/, named x, beside another x) took the shown name of the
    valid skill named y, which no command could then name alone."""
    entries = [
        skill("docs", "mcp", "skill://y/SKILL.md", "x"),
        skill("docs", "mcp", "skill://x/SKILL.md", "x"),
        skill("docs", "mcp", "skill://z/y/SKILL.md", "y"),
        skill("docs", "mcp", "skill://a/b/SKILL.md", "a/b"),
        skill("docs", "mcp", "skill://c/SKILL.md", "a\\u002fb"),
    ]
    cat = build_catalog([SourceStatus(entries[0].origin)], entries)
    names = [s.qualified_name for s in cat.skills]
    assert len(set(names)) == len(names), names
    assert all(len(cat.named(n)) == 1 for n in names)

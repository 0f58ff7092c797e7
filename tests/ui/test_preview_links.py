"""What a link in a preview targets (pure rules, no Qt)."""

from __future__ import annotations

from desktop.core.catalog import build_catalog
from desktop.core.model import Origin, Skill, SkillFile, SourceStatus
from desktop.ui.page.preview_links import FILE, SHOWN, SKILL, resolve_link

DIGEST = "sha256:" + "a" * 64


def server_skill(label: str, path: str, *extra: str) -> Skill:
    uri = f"skill://{path}/SKILL.md"
    files = (
        SkillFile(uri, DIGEST, 1),
        *(SkillFile(f"skill://{path}/{e}", DIGEST, 1) for e in extra),
    )
    name = path.rsplit("/", 1)[-1]
    return Skill(
        Origin(label, "mcp", "stdio", f"serve {label}"), uri, name, "d", {"name": name}, files
    )


def catalog(*skills: Skill):
    labels = {s.origin.label: s.origin for s in skills}
    return build_catalog([SourceStatus(o) for o in labels.values()], list(skills))


def test_relative_link_to_a_listed_file() -> None:
    a = server_skill("docs", "acme/refunds", "examples/email.md")
    t = resolve_link(a, "examples/email.md", catalog(a))
    assert (t.kind, t.uri) == (FILE, "skill://acme/refunds/examples/email.md")


def test_relative_link_to_an_unlisted_or_outside_file_is_shown_only() -> None:
    a = server_skill("docs", "acme/refunds")
    assert resolve_link(a, "secret.md", catalog(a)).kind == SHOWN
    assert resolve_link(a, "../../etc/passwd", catalog(a)).kind == SHOWN
    assert resolve_link(a, "https://example.com", catalog(a)).kind == SHOWN
    assert resolve_link(a, "mailto:x@example.com", catalog(a)).kind == SHOWN


def test_link_to_another_servers_skill_names_that_server() -> None:
    a = server_skill("docs", "acme/refunds")
    b = server_skill("billing", "acme/invoices")
    t = resolve_link(a, "skill://acme/invoices/SKILL.md", catalog(a, b))
    assert t.kind == SKILL and t.uri == b.id and t.other_server == "billing"


def test_link_to_a_skill_of_the_same_server_needs_no_confirmation() -> None:
    a = server_skill("docs", "acme/refunds")
    b = server_skill("docs", "acme/invoices")
    t = resolve_link(a, "skill://acme/invoices/SKILL.md", catalog(a, b))
    assert t.kind == SKILL and t.other_server is None


def test_unlisted_skill_uri_is_not_fetched() -> None:
    a = server_skill("docs", "acme/refunds")
    assert resolve_link(a, "skill://nowhere/x/SKILL.md", catalog(a)).kind == SHOWN


def test_a_skill_uri_served_by_two_servers_means_the_linking_skills_own() -> None:
    """URIs are scoped to their server: the first server in the catalog serving the URI
    was taken, and a skill's link to its own sibling asked to fetch from another."""
    first_linky = server_skill("s1", "linky")
    first_other = server_skill("s1", "other")
    linky = server_skill("s2", "linky")
    other = server_skill("s2", "other")
    cat = catalog(first_linky, first_other, linky, other)
    t = resolve_link(linky, "skill://other/SKILL.md", cat)
    assert t.kind == SKILL and t.uri == other.id and t.other_server is None
    t = resolve_link(linky, "skill://linky/SKILL.md", cat)
    assert t.kind == FILE and t.uri == linky.uri


def test_a_relative_link_resolves_against_the_skill_root_then_the_files_own_folder() -> None:
    """The specification resolves a relative reference against the skill's root, so
    ``scripts/x.py`` in ``references/a.md`` is the skill's ``scripts/x.py``; a link written
    against the file's own folder still opens when the root names no listed file."""
    a = server_skill("docs", "s", "references/a.md", "references/b.md", "scripts/x.py")
    cat = catalog(a)
    here = "skill://s/references/a.md"
    t = resolve_link(a, "scripts/x.py", cat, here)
    assert (t.kind, t.uri) == (FILE, "skill://s/scripts/x.py")
    t = resolve_link(a, "../scripts/x.py", cat, here)
    assert (t.kind, t.uri) == (FILE, "skill://s/scripts/x.py")
    t = resolve_link(a, "b.md", cat, here)
    assert (t.kind, t.uri) == (FILE, "skill://s/references/b.md")
    t = resolve_link(a, "../../x/SKILL.md", cat, here)
    assert t.kind == SHOWN and "outside" in t.reason


def test_a_nested_skills_links_resolve_against_its_own_root() -> None:
    outer = server_skill(
        "docs", "s", "inner/SKILL.md", "inner/guide.md", "inner/notes/n.md", "guide.md"
    )
    cat = catalog(outer)
    t = resolve_link(outer, "guide.md", cat, "skill://s/inner/SKILL.md")
    assert (t.kind, t.uri) == (FILE, "skill://s/inner/guide.md")
    t = resolve_link(outer, "guide.md", cat, "skill://s/inner/notes/n.md")
    assert (t.kind, t.uri) == (FILE, "skill://s/inner/guide.md")
    t = resolve_link(outer, "guide.md", cat, "skill://s/SKILL.md")
    assert (t.kind, t.uri) == (FILE, "skill://s/guide.md")


def test_a_link_opens_a_file_whose_listed_uri_is_percent_encoded() -> None:
    a = server_skill("docs", "s", "templates/a%20b.md")
    cat = catalog(a)
    for href in ("templates/a%20b.md", "templates/a b.md"):
        t = resolve_link(a, href, cat)
        assert (t.kind, t.uri) == (FILE, "skill://s/templates/a%20b.md"), href


def test_local_skill_links_resolve_the_same_way() -> None:
    files = tuple(SkillFile(u, DIGEST, 1) for u in ("SKILL.md", "references/a.md", "scripts/x.py"))
    local = Skill(Origin("mine", "local", "", "/skills"), "/skills/s", "s", "d", {}, files)
    cat = catalog(local)
    t = resolve_link(local, "scripts/x.py", cat, "references/a.md")
    assert (t.kind, t.uri) == (FILE, "scripts/x.py")
    assert resolve_link(local, "../etc/passwd", cat, "references/a.md").kind == SHOWN

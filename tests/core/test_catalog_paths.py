"""Paths and collisions as users see them: a server skill under a deeper path than its
name's folder shows that path; each colliding copy is listed by qualified name and id."""

from __future__ import annotations

from desktop.cli.cmd_list import render
from desktop.core.catalog import build_catalog
from desktop.core.model import SourceStatus

from .test_catalog_names import skill


def test_a_deeper_path_is_shown_and_the_default_one_is_not() -> None:
    deep = skill("docs", "mcp", "skill://documents/pdf/SKILL.md", "pdf")
    plain = skill("docs", "mcp", "skill://forms/SKILL.md", "forms")
    catalog = build_catalog([SourceStatus(deep.origin)], [deep, plain])
    assert catalog.get(deep.id).qualified_name == "docs:documents/pdf"
    assert catalog.get(plain.id).qualified_name == "docs:forms"
    assert catalog.named("docs:documents/pdf") == [catalog.get(deep.id)]


def test_collisions_list_each_copy_by_qualified_name_and_id() -> None:
    a = skill("one", "mcp", "skill://pdf/SKILL.md", "pdf")
    b = skill("two", "mcp", "skill://documents/pdf/SKILL.md", "pdf")
    c = skill("mine", "local", "pdf/SKILL.md", "pdf")
    catalog = build_catalog([SourceStatus(s.origin) for s in (a, b, c)], [a, b, c])
    (same,) = [x for x in catalog.collisions if x.kind == "same-name"]
    assert same.to_json()["skills"] == [
        {"qualified_name": "one:pdf", "id": "one:skill://pdf/SKILL.md"},
        {"qualified_name": "two:documents/pdf", "id": "two:skill://documents/pdf/SKILL.md"},
        {"qualified_name": "pdf", "id": "mine:pdf/SKILL.md"},
    ]
    shown = render(catalog)
    assert (
        "one:pdf (one:skill://pdf/SKILL.md), two:documents/pdf "
        "(two:skill://documents/pdf/SKILL.md), pdf (mine:pdf/SKILL.md)" in shown
    )
    assert "take a NAME as shown" in shown

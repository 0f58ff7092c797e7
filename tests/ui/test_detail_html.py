"""The detail page's text for what a server skill's tool affinity governs."""

from __future__ import annotations

from typing import Any

from desktop.core.catalog import build_catalog
from desktop.core.entry import parse_entry
from desktop.core.model import Origin
from desktop.ui.page.detail_html import detail_html


def test_a_pattern_governing_thousands_of_tools_names_the_first_few() -> None:
    origin = Origin("big", "mcp", "http", "http://127.0.0.1:1/mcp")
    entry = {
        "uri": "skill://s/SKILL.md",
        "name": "s",
        "description": "d",
        "resources": [{"uri": "skill://s/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}],
    }
    skill = parse_entry(entry, origin)
    catalog = build_catalog([], [skill])
    tools = [f"tool{i:04d}" for i in range(3000)]
    page = detail_html(skill, catalog, approval=None, files={}, tools=tools)
    assert "big__* → big__tool0000, big__tool0001," in page
    assert "big__tool0011 and 2,988 more" in page
    assert "big__tool0012" not in page


def test_labels_showing_third_party_text_never_read_it_as_markup(qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from desktop.ui.widgets.plain_label import PlainLabel

    label = PlainLabel("")
    qtbot.addWidget(label)
    label.setText("Link not opened: <img src='/etc/passwd'><b>fake</b> \u202etxt.exe")
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert label.text() == "Link not opened: <img src='/etc/passwd'><b>fake</b> \\u202etxt.exe"


def test_a_refused_frontmatter_is_said_unread_not_empty() -> None:
    """An entry whose frontmatter nests too deep is invalid; its description is not
    "none" (the server sent one), it was never read."""
    origin = Origin("h", "mcp", "stdio", "hostile")
    deep: Any = "x"
    for _ in range(40):
        deep = {"k": deep}
    entry = {
        "uri": "skill://deep/SKILL.md",
        "frontmatter": {"name": "deep", "description": "Too deep", "metadata": deep},
        "resources": "dynamic",
    }
    skill = parse_entry(entry, origin)
    assert skill.state == "invalid"
    page = detail_html(skill, build_catalog([], [skill]), approval=None, files={})
    assert "not read: the frontmatter was refused" in page
    assert "<i>none</i></td>" not in page.split("Description", 1)[1].split("</tr>", 1)[0]


def test_a_loading_value_declared_but_ignored_is_shown_with_its_default() -> None:
    """L1-L6: priority 900 is out of range and ignored; the page still says priority,
    with the default it leaves, while an undeclared triggers is left out."""
    origin = Origin("big", "mcp", "http", "http://127.0.0.1:1/mcp")
    entry = {
        "uri": "skill://s/SKILL.md",
        "frontmatter": {
            "name": "s",
            "description": "d",
            "metadata": {"nimblebrain": {"priority": 900}},
        },
        "resources": [{"uri": "skill://s/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}],
    }
    skill = parse_entry(entry, origin)
    catalog = build_catalog([], [skill])
    page = detail_html(skill, catalog, approval=None, files={}, show_all=False)
    assert "<th align='left' valign='top'>Priority</th><td>none <i>(default)</i>" in page
    assert "Triggers</th>" not in page
    assert "default applies: identity, state, loading strategy, triggers," in page
    full = detail_html(skill, catalog, approval=None, files={})
    assert "Triggers</th>" in full and "Show all" not in full


def test_details_say_each_problem_in_words_with_its_code_after() -> None:
    origin = Origin("h", "mcp", "stdio", "demo")
    entry = {
        "uri": "skill://Bad_Name/SKILL.md",
        "name": "Bad_Name",
        "description": "d",
        "resources": [
            {"uri": "skill://Bad_Name/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}
        ],
    }
    skill = parse_entry(entry, origin)
    problem = skill.problems[0]
    word = {"invalid": "Invalid", "error": "Error", "warning": "Warning"}[problem.severity]
    page = detail_html(skill, build_catalog([], [skill]), approval=None, files={})
    shown = page.split("<h3>Problems</h3>", 1)[1]
    assert f"<b>{word}:</b> {problem.message}" in shown.replace("&#x27;", "'")
    assert f"<small>({problem.code})</small>" in shown

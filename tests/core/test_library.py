"""The Library's views, their counts and the words said of a source (no Qt)."""

from __future__ import annotations

from typing import Any

from desktop.core.catalog_summary import summarize
from desktop.core.library import (
    ALL,
    APPROVED,
    CHANGED,
    PROBLEMS,
    TO_REVIEW,
    source_words,
    view_counts,
)
from desktop.core.loading import read_loading
from desktop.core.model import Origin, Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.query import SearchIndex, SkillQuery
from desktop.core.states import SourceState


def _skill(name: str, label: str = "local", problems: list[Problem] | None = None) -> Skill:
    origin = Origin(label, "local", "folder", f"/srv/{label}")
    fm = {"name": name, "description": f"about {name}"}
    loading, _ = read_loading(fm, None)
    return Skill(
        origin,
        f"{name}/SKILL.md",
        name,
        fm["description"],
        fm,
        (SkillFile("SKILL.md", "sha256:" + "0" * 64, 1),),
        loading=loading,
        problems=problems or [],
        qualified_name=name,
    )


BROKEN = Problem("name-mismatch", "the name is not the folder's", "error")
NOTE = Problem("note", "a note", "warning")


def _catalog() -> tuple[list[Skill], dict[str, str]]:
    skills = [
        _skill("a"),
        _skill("b", problems=[BROKEN]),
        _skill("c", "other", problems=[NOTE]),
        _skill("d", "other"),
    ]
    approvals = {
        skills[0].id: "approved",
        skills[1].id: "not-approved",
        skills[2].id: "changed",
        skills[3].id: "unapprovable",
    }
    return skills, approvals


def test_views_count_what_the_list_then_shows() -> None:
    skills, approvals = _catalog()
    counts = view_counts(skills, approvals)
    assert counts == {ALL: 4, TO_REVIEW: 2, CHANGED: 1, PROBLEMS: 1, APPROVED: 1}
    index = SearchIndex(skills)
    for view, n in counts.items():
        shown = index.select(SkillQuery(view=view), approval=approvals)
        assert sum(shown) == n, view
    assert summarize([], {}, skills).per_source == {"local": 2, "other": 2}


def test_a_view_combines_with_the_text_and_a_source() -> None:
    skills, approvals = _catalog()
    index = SearchIndex(skills)

    def names(q: SkillQuery) -> list[str]:
        shown = index.select(q, approval=approvals)
        return [s.name for s, on in zip(skills, shown, strict=True) if on]

    assert names(SkillQuery("about", view=TO_REVIEW)) == ["b", "c"]
    assert names(SkillQuery("about", view=TO_REVIEW, sources=frozenset({"other"}))) == ["c"]
    assert names(SkillQuery("about b", view=PROBLEMS)) == ["b"]
    # Typing more after a view was chosen: approvals changed meanwhile are asked again.
    approvals[skills[3].id] = "changed"
    assert names(SkillQuery("about", view=TO_REVIEW, sources=frozenset({"other"}))) == ["c", "d"]


def test_a_source_says_its_state_in_a_word_and_the_rest_in_detail() -> None:
    folder = SourceSpec("docs", "local", "folder", "/srv/docs")
    server = SourceSpec("srv", "mcp", "stdio", "srv", command=("srv",))
    web = SourceSpec("web", "mcp", "http", "https://example.com/mcp", enabled=False)
    assert source_words(folder, None).status == "Reading…"
    ok = source_words(folder, SourceStatus(folder.origin, skill_count=3))
    assert (ok.kind, ok.status, ok.detail, ok.ready) == ("folder", "Ready", "3 skills", True)
    assert ok.mark == SourceState.OK.icon
    # A message that starts with the count is not said after the count again.
    paged = SourceStatus(server.origin, skill_count=3, message="3 skills in 2 pages")
    assert source_words(server, paged).detail == "3 skills in 2 pages"
    noted = SourceStatus(server.origin, skill_count=1, message="1 invalid")
    assert source_words(server, noted).detail == "1 skill; 1 invalid"
    failed = SourceStatus(server.origin, status="error", message="could not connect")
    words = source_words(server, failed)
    assert (words.kind, words.status, words.ready) == ("local process", "Failed", False)
    assert words.mark == SourceState.FAILED.icon == "dialog-error"
    assert words.detail == "could not connect"
    off = source_words(web, None)
    assert (off.kind, off.status) == ("remote server", "Off")
    statuses = {"srv": failed, "docs": SourceStatus(folder.origin)}
    assert summarize([folder, server, web], statuses, []).failed_labels == ["srv"]


def test_row_marks_say_each_state_in_a_word() -> None:
    from desktop.core.library import origin_chip, row_marks, verification_words

    skills, approvals = _catalog()

    def words(s: Any, v: Any = None) -> list[str]:
        return [m.word for m in row_marks(s, approvals.get(s.id), v)]

    assert words(skills[0]) == ["Approved"]
    assert words(skills[1]) == ["1 problem", "To review"]
    assert words(skills[2]) == ["Changed"]
    assert words(skills[3], "digest-mismatch") == ["Files differ", "Cannot approve"]
    assert verification_words(skills[0], None)[0] == "Not read yet"
    word, tip = verification_words(skills[0], "verified")
    assert word == "Checked" and "integrity, not safety" in tip
    assert origin_chip(skills[0]) == ("local", False)


def test_empty_states_name_the_cause_and_one_action() -> None:
    from desktop.core.library import empty_state

    folder = SourceSpec("docs", "local", "folder", "/srv/docs")
    base = dict(view="", others=False, total=3, source=None, status=None, sources=1)
    assert empty_state(text="x", **base).action == "clear"  # type: ignore[arg-type]
    failed = SourceStatus(folder.origin, status="error", message="not a folder")
    state = empty_state(text="", **{**base, "source": folder, "status": failed})  # type: ignore[arg-type]
    assert (state.title, state.detail, state.action) == (
        "docs could not be read",
        "not a folder",
        "retry",
    )
    none = SourceStatus(folder.origin, status="no-skills")
    state = empty_state(text="", **{**base, "source": folder, "status": none})  # type: ignore[arg-type]
    assert state.title == "This folder holds no skills" and state.action == "explain"
    state = empty_state(text="", **{**base, "view": TO_REVIEW})  # type: ignore[arg-type]
    assert state.title == "Nothing to review" and state.action == ""
    state = empty_state(text="", **{**base, "total": 0, "sources": 0})  # type: ignore[arg-type]
    assert state.action == "add"


def test_a_server_is_named_in_a_sentence_by_its_program_and_last_folders() -> None:
    from desktop.core.library import brief_endpoint, brief_path

    long = "/home/ada/.venv/bin/python -m desktop serve /home/ada/work/resources/sample-server"
    assert brief_endpoint("stdio", long) == "python -m desktop serve …/sample-server"
    assert brief_endpoint("stdio", "npx -y @acme/skills-server") == "npx -y @acme/skills-server"
    assert brief_endpoint("stdio", "uvx --from ./tools srv") == "uvx --from …/tools srv"
    assert brief_endpoint("stdio", "srv --root=/srv/team/") == "srv --root=…/team"
    assert brief_endpoint("http", "https://mcp.example.com/mcp?token=***") == "mcp.example.com/mcp"
    assert brief_endpoint("http", "http://127.0.0.1:8931/") == "127.0.0.1:8931"
    huge = "srv " + "x" * 500
    assert len(brief_endpoint("stdio", huge)) < 100  # cut, saying how long it was
    assert brief_path("/home/ada/skills/pdf", home="/home/ada") == "~/skills/pdf"
    assert brief_path("/home/adam/skills", home="/home/ada") == "/home/adam/skills"
    assert brief_path("/srv/skills", home="/") == "/srv/skills"


def test_a_server_heading_names_the_source_and_briefly_the_server() -> None:
    from desktop.core.library import server_line

    stdio = Origin("docs", "mcp", "stdio", "/opt/tools/bin/skills-server --root /srv/skills/team")
    assert server_line(stdio) == "docs (a local process: skills-server --root …/team)"
    http = Origin("team", "mcp", "http", "https://mcp.example.com/mcp?token=abc123")
    assert server_line(http) == "team (a remote server: mcp.example.com/mcp)"
    assert server_line(Origin("mine", "local", "folder", "/srv/mine")) == "mine (folder /srv/mine)"


def test_the_origin_line_of_a_server_skill_names_its_program_not_its_whole_command() -> None:
    from dataclasses import replace

    from desktop.core.library import origin_line

    origin = Origin("docs", "mcp", "stdio", "/opt/tools/bin/skills-server --root /srv/skills/team")
    line = origin_line(replace(_skill("a"), origin=origin))
    assert line.startswith("Third-party · from the server docs (a local process: ")
    assert "skills-server --root …/team" in line
    assert "/opt/tools" not in line


def test_the_filters_has_problems_and_to_review_find_what_the_views_count() -> None:
    """The Filters menu's "Has problems" selects by the state ``problems`` and "To review"
    by the approval states needing a decision: each finds what the sidebar counts."""
    from desktop.core.query import matches
    from desktop.core.states import Approval

    skills, approvals = _catalog()
    counts = view_counts(skills, approvals)
    problems = SkillQuery(state_groups=(frozenset({PROBLEMS}),))
    found = [s for s in skills if matches(s, problems, approval=approvals.get(s.id))]
    assert [s.name for s in found] == ["b"] and len(found) == counts[PROBLEMS]
    waiting = frozenset(a for a in Approval if a.needs_decision)
    review = SkillQuery(state_groups=(waiting,))
    found = [s for s in skills if matches(s, review, approval=approvals.get(s.id))]
    assert len(found) == counts[TO_REVIEW] == 2

"""The catalog's one summary (sources read, failed, reading; skills shown) and the words
every part of the window says from it (no Qt)."""

from __future__ import annotations

from desktop.core.catalog_summary import (
    CatalogSummary,
    gone_words,
    retry_words,
    summarize,
)
from desktop.core.library import empty_state
from desktop.core.loading import read_loading
from desktop.core.model import Origin, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.states import SourceState


def _spec(label: str, kind: str = "local", transport: str = "folder") -> SourceSpec:
    return SourceSpec(label, kind, transport, f"/srv/{label}")


def _skill(name: str, label: str, kind: str = "local", transport: str = "folder") -> Skill:
    origin = Origin(label, kind, transport, f"/srv/{label}")
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
        qualified_name=name,
    )


def _status(spec: SourceSpec, state: str, message: str = "") -> SourceStatus:
    return SourceStatus(spec.origin, state, message)


def test_every_source_is_counted_by_what_reading_it_came_to() -> None:
    ok, empty, bad, reading, unknown, stopped, waiting = (
        _spec(x) for x in ("ok", "empty", "bad", "reading", "odd", "stopped", "waiting")
    )
    off = SourceSpec("off", "local", "folder", "/srv/off", enabled=False)
    statuses = {
        "ok": _status(ok, SourceState.OK),
        "empty": _status(empty, SourceState.NO_SKILLS),
        "bad": _status(bad, SourceState.FAILED, "the folder is no longer there"),
        "reading": _status(reading, SourceState.PENDING),
        "odd": _status(unknown, "a-word-no-state-has"),
        "stopped": _status(stopped, SourceState.CANCELLED),
        "off": _status(off, SourceState.FAILED, "said before it was turned off"),
    }
    skills = [_skill("a", "ok"), _skill("b", "ok"), _skill("c", "odd")]
    summary = summarize([ok, empty, bad, reading, unknown, stopped, waiting, off], statuses, skills)
    assert summary.read == ("ok", "empty", "odd")
    assert summary.failed == (("bad", "the folder is no longer there"),)
    assert summary.failed_labels == ["bad"]
    assert summary.waiting == ("reading", "waiting")  # no status yet: waiting
    assert summary.unread == ("stopped",)
    assert summary.off == ("off",)  # off: never counted as failed
    assert summary.sources == 7
    assert summary.skills == 3 and summary.per_source == {"ok": 2, "odd": 1}


def test_the_status_bar_and_the_message_bar_say_the_same_counts() -> None:
    assert CatalogSummary().status_text() == "0 skills"
    assert CatalogSummary().failed_sentence() == ""
    one = CatalogSummary(read=("a",), skills=1, per_source={"a": 1})
    assert one.status_text() == "1 skill from 1 source"
    failed = CatalogSummary(failed=(("mine", "gone"),))
    assert failed.status_text() == "0 skills; 1 failed"
    assert failed.failed_sentence() == "1 source could not be read (mine)"
    many = CatalogSummary(
        read=("a", "b"),
        failed=tuple((x, "why") for x in ("p", "q", "r", "s")),
        waiting=("w",),
        unread=("u",),
        skills=1200,
    )
    assert many.status_text() == "1,200 skills from 2 sources; 4 failed; 1 reading…; 1 not read"
    assert many.failed_sentence() == "4 sources could not be read (p, q, r…)"


def test_the_empty_list_never_says_the_sources_hold_nothing_when_one_failed() -> None:
    common = {"text": "", "view": "all", "others": False, "total": 0, "source": None}
    common["status"] = None
    state = empty_state(**common, sources=2, failed=[("mine", "the folder is no longer there")])
    assert state.title == "1 source could not be read"
    assert state.detail == "mine: the folder is no longer there"
    assert (state.action, state.action_text) == ("retry", "Retry")
    state = empty_state(**common, sources=2, failed=[("mine", "")])
    assert state.detail == "mine: no reason given"
    state = empty_state(**common, sources=2, failed=[("mine", "why " * 200)])
    assert len(state.detail) < 400
    four = [(x, "why") for x in ("a", "b", "c", "d")]
    state = empty_state(**common, sources=5, failed=four)
    assert state.title == "4 sources could not be read"
    assert state.detail == "a, b, c…: choose one among the sources to read why."
    state = empty_state(**common, sources=2, waiting=1)
    assert state.title == "Reading the sources…" and state.action == ""
    state = empty_state(**common, sources=2, unread=1)
    assert state.title == "No skills shown: 1 source was not read"
    assert (state.action, state.action_text) == ("refresh", "Read again")
    state = empty_state(**common, sources=2, unread=2)
    assert state.title == "No skills shown: 2 sources were not read"
    state = empty_state(**common, sources=2)
    assert state.detail == "The sources are read and hold no skills."


def test_a_gone_skill_is_said_by_name_in_its_kind_of_words() -> None:
    assert gone_words(_skill("my-helper", "mine")) == (
        "my-helper",
        "This skill is no longer in its folder.",
    )
    served = _skill("deploy", "srv", "mcp", "stdio")
    assert gone_words(served) == ("deploy", "This skill is no longer listed by srv.")


def test_a_retry_ends_in_a_sentence_either_way() -> None:
    spec = _spec("mine")
    assert retry_words("mine", _status(spec, SourceState.OK), 3) == (
        True,
        "Read 3 skills from mine",
    )
    assert retry_words("mine", _status(spec, SourceState.NO_SKILLS), 0) == (
        True,
        "Read 0 skills from mine",
    )
    failed = _status(spec, SourceState.FAILED, "the folder does not exist")
    assert retry_words("mine", failed, 0) == (
        False,
        "mine still fails: the folder does not exist",
    )
    assert retry_words("mine", _status(spec, SourceState.FAILED), 0) == (
        False,
        "mine still fails: it could not be read",
    )
    untrusted = _status(spec, SourceState.UNTRUSTED, "trust it first")
    assert retry_words("mine", untrusted, 0) == (False, "mine: Not trusted: trust it first")
    assert retry_words("mine", _status(spec, "odd"), 0) == (False, "mine: odd")

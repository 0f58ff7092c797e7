"""Ranking skills for a prompt: BM25 over the anthropics/skills kind of descriptions,
NimbleBrain triggers, the listing a host's budget leaves, and evals' recall."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.selection import (
    Doc,
    EvalError,
    EvalQuery,
    Index,
    by_triggers,
    close_pairs,
    evaluate,
    parse_evals,
    select,
    split,
    words,
)

# Descriptions in the style the public collections use (our words).
SKILLS = {
    "pdf": "Read, fill in and merge PDF documents: extract text and tables, fill PDF forms, "
    "split or rotate pages, add watermarks.",
    "pptx": "Create and edit PowerPoint presentations: slide decks, speaker notes, layouts "
    "and templates for talks.",
    "xlsx": "Work with Excel spreadsheets: formulas, charts, pivot tables and formatting of "
    "cells and sheets.",
    "docx": "Create and edit Word documents with tracked changes, comments and formatting.",
    "brand-guidelines": "Apply a company's brand colours and typography to artifacts.",
}


def index() -> Index:
    return Index.build(Doc(f"a:{n}", n, d) for n, d in SKILLS.items())


@pytest.mark.parametrize(
    ("prompt", "first"),
    [
        ("fill in a PDF form", "pdf"),
        ("make a slide deck for my talk", "pptx"),
        ("a spreadsheet with formulas", "xlsx"),
        ("track changes in a Word document", "docx"),
    ],
)
def test_plain_prompts_rank_the_right_skill_first(prompt: str, first: str) -> None:
    picks = select(index(), prompt)["bm25"]
    assert picks[0].name == first
    assert all(a.score >= b.score for a, b in zip(picks, picks[1:], strict=False))


def test_a_prompt_sharing_no_word_picks_nothing() -> None:
    assert select(index(), "deploy my app to azure")["bm25"] == []
    assert words("Deploy the forms, please") == ["deploy", "form"]


def test_triggers_first_hit_wins_then_keywords_twice() -> None:
    docs = [
        Doc("a:x", "x", triggers=("deploy",)),
        Doc("a:y", "y", triggers=("deploy app",)),
        Doc("a:z", "z", keywords=("azure", "app")),
        Doc("a:w", "w", keywords=("azure", "gcp")),
    ]
    assert [(d.name, why) for d, why in by_triggers(docs, "Deploy app")] == [
        ("x", "trigger 'deploy'")
    ]
    assert [d.name for d, _ in by_triggers(docs, "my app on azure")] == ["z"]


def test_listing_marks_what_the_model_cannot_read() -> None:
    listings = {"a:pdf": "name-only", "a:pptx": "dropped"}
    picks = select(index(), "fill in a PDF form; slide deck", listings=listings)
    names = {p.name: p for p in picks["listing"]}
    assert "pptx" not in names
    assert names["pdf"].listing == "name-only"
    assert names["pdf"].score < select(index(), "fill in a PDF form")["bm25"][0].score


def test_evals_give_recall_precision_and_what_is_stolen() -> None:
    evals = [
        EvalQuery("fill in a PDF form", True, "pdf"),
        EvalQuery("merge two PDF documents", True, "pdf"),
        EvalQuery("format cells in Word documents", True, "xlsx"),  # docx steals it
        EvalQuery("what is the weather", False, ""),
    ]
    report = evaluate(index(), evals)
    bm25 = report.scores["bm25"]
    assert bm25["pdf"].recall == 1.0 and bm25["pdf"].precision == 1.0
    assert bm25["xlsx"].recall == 0.0
    assert bm25["docx"].precision == 0.0 and bm25["docx"].fp == 1
    assert report.stolen == [
        {"query": "format cells in Word documents", "expected": "xlsx", "chosen": "docx"}
    ]
    data = report.to_json()
    assert 0 <= data["strategies"]["bm25"]["pdf"]["recall"] <= 1


def test_eval_files_and_the_split() -> None:
    evals = parse_evals([{"query": f"q{i}", "should_trigger": True} for i in range(10)], "pdf")
    assert evals[0].expected == "pdf"
    assert len(parse_evals({"evals": [{"query": "x"}]})) == 1
    train, validation = split(evals, seed=3)
    assert len(train) == 6 and len(validation) == 4
    assert split(evals, seed=3) == (train, validation)  # stable
    for bad, why in ((3, "a list"), ([{"q": 1}], "no query"),
                     ([{"query": "x", "should_trigger": "yes"}], "true or false")):  # fmt: skip
        with pytest.raises(EvalError, match=why):
            parse_evals(bad)


def test_close_descriptions_are_named_as_competing() -> None:
    docs = [
        Doc("a:1", "pdf-a", "Fill in PDF forms and merge PDF documents"),
        Doc("a:2", "pdf-b", "Fill in PDF forms and merge PDF files"),
        Doc("a:3", "xlsx", "Spreadsheets with formulas"),
    ]
    pairs = close_pairs(docs)
    assert [(a.name, b.name) for a, b, _ in pairs] == [("pdf-a", "pdf-b")]


def write(root: Path, name: str, description: str, extra: str = "") -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(description)}\n{extra}---\nbody\n"
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, description in SKILLS.items():
        write(root, name, description)
    return root


def test_select_command(
    folder: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    proc = run_cli("select", "fill in a PDF form", "--folder", f"mine={folder}", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["prompt"] == "fill in a PDF form"
    assert data["strategies"]["bm25"][0]["name"] == "pdf"
    assert data["strategies"]["bm25"][0]["id"] == "mine:pdf/SKILL.md"
    assert data["strategies"]["listing"][0]["name"] == "pdf"
    assert data["strategies"]["triggers"] == []
    text = run_cli("select", "make a slide deck", "--folder", f"mine={folder}").stdout
    assert "1. pptx" in text
    none = run_cli("select", "--folder", f"mine={folder}")
    assert none.returncode == 1 and "give a PROMPT" in none.stderr


def test_select_evals_command(
    folder: Path, tmp_path: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    (folder / "pdf/evals").mkdir()
    (folder / "pdf/evals/evals.json").write_text(
        json.dumps([{"query": "rotate the pages of a PDF", "should_trigger": True}])
    )
    evals = tmp_path / "eval_queries.json"
    evals.write_text(
        json.dumps(
            [
                {"query": "fill in a PDF form", "should_trigger": True, "expected_skill": "pdf"},
                {"query": "a deck of slides", "should_trigger": True, "expected_skill": "pptx"},
            ]
        )
    )
    proc = run_cli("select", "--evals", evals, "--folder", f"mine={folder}", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["evals"] == 3
    assert data["strategies"]["bm25"]["pdf"]["recall"] == 1.0
    split_run = run_cli("select", "--evals", evals, "--split", "--folder", f"mine={folder}")
    assert "(train)" in split_run.stdout and "(validation)" in split_run.stdout
    evals.write_text("{")
    bad = run_cli("select", "--evals", evals, "--folder", f"mine={folder}")
    assert bad.returncode == 1 and "is not JSON" in bad.stderr


def test_lint_hosts_command(
    folder: Path, run_cli: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    proc = run_cli("lint", folder, "--hosts", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    pdf = next(s for s in data["skills"] if s["name"] == "pdf")
    assert pdf["hosts"]["codex"] == {"loads": True, "listing": "full", "why": ""}
    assert data["budgets"]["claude-code"]["limit"] == 8000
    (folder / "Bad_Name").mkdir()
    (folder / "Bad_Name/SKILL.md").write_text("---\nname: Bad_Name\ndescription: 12\n---\n")
    refused = run_cli("lint", folder, "--hosts", "codex,mcp-ts-sdk")
    assert refused.returncode == 1
    assert "its description is a number, not text" in refused.stdout
    assert "the whole listing is refused for Bad_Name" in refused.stdout
    unknown = run_cli("lint", folder, "--hosts", "emacs")
    assert unknown.returncode == 2 and "unknown host 'emacs'" in unknown.stderr

"""Which skill a prompt picks: BM25 on skills shaped like anthropics/skills, NimbleBrain
triggers, the listing after Claude Code's budget, evaluations with known recall, the
seeded split, competing descriptions; and the `select` and `lint --hosts` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.cli.main import main
from desktop.core.selection import (
    Bm25Index,
    Doc,
    EvalQuery,
    close_pairs,
    doc_from_frontmatter,
    evaluate,
    rank_bm25,
    rank_listing,
    rank_triggers,
    read_eval_queries,
    split,
    tokens,
)
from tests.selection.anthropic_like import SKILLS, write, write_all

DOCS = [Doc(name, name, description) for name, description in SKILLS.items()]


@pytest.mark.parametrize(
    ("prompt", "first"),
    [
        ("fill in a PDF form", "pdf"),
        ("make a slide deck", "pptx"),
        ("spreadsheet with formulas", "xlsx"),
        ("write a memo as a Word document", "docx"),
    ],
)
def test_bm25_ranks_the_right_skill_first(prompt: str, first: str) -> None:
    ranked = rank_bm25(Bm25Index(DOCS), prompt)
    assert ranked[0].name == first
    assert ranked[0].score > (ranked[1].score if len(ranked) > 1 else 0)


def test_bm25_of_nothing() -> None:
    assert rank_bm25(Bm25Index([]), "anything") == []
    assert tokens("The PDFs and forms") == ["pdf", "form"]


def test_triggers_first_hit_wins_then_two_keyword_hits() -> None:
    docs = [
        Doc("a", "incident", "d", triggers=("outage", "incident")),
        Doc("b", "pager", "d", keywords=("pager", "on-call", "rota")),
        Doc("c", "one-word", "d", keywords=("pager", "x")),
    ]
    ranked = rank_triggers(docs, "We have an OUTAGE, page the on-call pager rota")
    assert [r.name for r in ranked] == ["incident", "pager"]
    assert ranked[0].why == "trigger 'outage'"
    assert ranked[1].why == "keywords pager, on-call, rota"
    assert rank_triggers(docs, "nothing here") == []


def test_listing_marks_what_the_model_cannot_see() -> None:
    modes = ["full", "name-only", "dropped"] + ["full"] * (len(DOCS) - 3)
    ranked = rank_listing(DOCS, modes, "make a slide deck with pdf forms and a spreadsheet")
    by_name = {r.name: r for r in ranked}
    assert by_name["pdf"].listing == "full" and by_name["pdf"].score > 0
    assert by_name["xlsx"].score == 0 and by_name["xlsx"].why == "the model cannot see it"
    assert by_name["pptx"].listing == "name-only"
    assert by_name["pptx"].why == "the model sees only its name"
    assert by_name["xlsx"].to_json() == {
        "id": "xlsx",
        "name": "xlsx",
        "score": 0.0,
        "why": "the model cannot see it",
        "listing": "dropped",
    }


def test_doc_from_frontmatter_reads_when_to_use_and_keywords() -> None:
    doc = doc_from_frontmatter(
        "id", "n", "d", {"when_to_use": "w", "metadata": {"keywords": "k1, k2"}}, ["t", " "]
    )
    assert (doc.when_to_use, doc.keywords, doc.triggers) == ("w", ("k1", "k2"), ("t",))
    assert doc_from_frontmatter("i", "n", "d", {"keywords": ["a"], "when_to_use": 3}).keywords == (
        "a",
    )
    assert doc_from_frontmatter("i", "n", "d", None).when_to_use == ""


QUERIES = [
    EvalQuery("fill in a PDF form", True, "pdf"),
    EvalQuery("merge two PDFs", True, "pdf"),
    EvalQuery("make a slide deck", True, "pptx"),
    EvalQuery("a memo with tracked changes for the board", True, "docx"),
    EvalQuery("extract text from the presentation slides into a pdf", True, "pdf"),
    EvalQuery("what is the weather", False),
    EvalQuery("design a landing page", False, "pdf"),
]


def test_evaluate_gives_known_recall_precision_and_confusions() -> None:
    index = Bm25Index(DOCS)
    report = evaluate({"bm25": lambda q: rank_bm25(index, q, 1)}, QUERIES, SKILLS)
    pdf = report.per_skill["bm25"]["pdf"]
    assert (pdf.tp, pdf.fn) == (2, 1)  # the presentation prompt goes to pptx
    assert pdf.recall == pytest.approx(2 / 3)
    assert pdf.precision == 1.0
    assert report.per_skill["bm25"]["pptx"].precision == 0.5
    assert report.per_skill["bm25"]["frontend-design"].fp == 1  # the landing page
    out = report.to_json()
    assert out["strategies"]["bm25"]["pdf"]["recall"] == pytest.approx(0.6667)
    assert {
        "strategy": "bm25",
        "query": QUERIES[4].query,
        "expected": "pdf",
        "chosen": "pptx",
    } in out["confusions"]
    assert report.per_skill["bm25"]["webapp-testing"].recall == 0.0
    assert report.per_skill["bm25"]["webapp-testing"].precision == 0.0


def test_read_eval_queries_shapes() -> None:
    data = [{"query": "q", "should_trigger": False}, {"query": " "}, 3, {"prompt": "p"}]
    assert read_eval_queries(data, "s") == [EvalQuery("q", False, "s"), EvalQuery("p", True, "s")]
    assert read_eval_queries({"evals": [{"query": "x", "expected_skill": "y"}]}) == [
        EvalQuery("x", True, "y")
    ]
    with pytest.raises(ValueError):
        read_eval_queries("nope")


def test_split_is_sixty_forty_and_stable() -> None:
    queries = [EvalQuery(f"q{i}", True, "s") for i in range(10)]
    train, validation = split(queries)
    assert (len(train), len(validation)) == (6, 4)
    assert split(list(reversed(queries))) == (train, validation)
    assert split(queries, seed=1) != (train, validation)


def test_close_descriptions_compete() -> None:
    docs = DOCS + [Doc("pdf2", "pdf-tools", SKILLS["pdf"] + " Also PDF forms.")]
    pairs = close_pairs(docs)
    assert [(a.name, b.name) for a, b, _ in pairs] == [("pdf", "pdf-tools")]
    assert close_pairs(DOCS) == []


def test_select_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_all(tmp_path / "skills")
    code = main(["select", "fill in a PDF form", "--folder", str(root), "--json", "--top", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["prompt"] == "fill in a PDF form"
    assert out["strategies"]["bm25"][0]["name"] == "pdf"
    assert len(out["strategies"]["bm25"]) <= 3
    assert out["strategies"]["triggers"] == []
    assert out["strategies"]["listing"][0]["listing"] == "full"


def test_select_command_text_and_small_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_all(tmp_path / "skills")
    write(root, "paged", "Pages people.", "metadata:\n  nimblebrain.triggers: 'slide deck'\n")
    code = main(["select", "make a slide deck", "--folder", str(root), "--context", "5000"])
    out = capsys.readouterr().out
    assert code == 0
    assert "bm25:\n  1. pptx" in out
    assert "triggers:\n  1. paged" in out and "trigger 'slide deck'" in out
    assert "listing:\n  1. pptx  0.000  (listed name-only; the model sees only its name)" in out
    assert main(["select", "zzz", "--folder", str(root)]) == 0
    assert "no skill matches" in capsys.readouterr().out


def test_select_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["select", "--folder", str(tmp_path)]) == 2
    assert main(["select", "x", "--top", "0", "--folder", str(tmp_path)]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["select", "--evals", str(bad), "--folder", str(tmp_path)]) == 2
    assert "cannot read its queries" in capsys.readouterr().err


def test_select_evals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_all(tmp_path / "skills")
    (root / "pdf" / "evals").mkdir()
    (root / "pdf" / "evals" / "evals.json").write_text(
        json.dumps({"evals": [{"query": "merge two PDFs"}]}), encoding="utf-8"
    )
    evals = tmp_path / "eval_queries.json"
    evals.write_text(
        json.dumps(
            [
                {
                    "query": q.query,
                    "should_trigger": q.should_trigger,
                    **({"expected_skill": q.expected_skill} if q.expected_skill else {}),
                }
                for q in QUERIES
            ]
        ),
        encoding="utf-8",
    )
    assert main(["select", "--evals", str(evals), "--folder", str(root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["queries"] == len(QUERIES) + 1
    assert out["all"]["strategies"]["bm25"]["pdf"]["recall"] == pytest.approx(0.75)
    for strategy in ("bm25", "triggers", "listing"):
        for score in out["all"]["strategies"][strategy].values():
            assert 0 <= score["recall"] <= 1 and 0 <= score["precision"] <= 1
    assert main(["select", "--evals", str(evals), "--folder", str(root), "--split"]) == 0
    text = capsys.readouterr().out
    assert "train (5 queries):" in text and "validation (3 queries):" in text
    assert "recall" in text


def test_lint_hosts_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_all(tmp_path / "skills")
    write(root, "wrong-folder", "Says hello.", "")
    (root / "wrong-folder" / "SKILL.md").write_text(
        "---\nname: other-name\ndescription: >-\n  Says hello.\n---\n", encoding="utf-8"
    )
    write(root, "pdf-copy", SKILLS["pdf"])
    code = main(["lint", str(root), "--hosts", "--json", "--context", "20000"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1  # the name differs from the folder's: an error for lint
    by_name = {s["name"]: s for s in out["skills"]}
    other = by_name["other-name"]["hosts"]
    assert other["mcp-ts-sdk"]["loads"] == "no" and other["mcp-ts-sdk"]["listing"] == "dropped"
    assert other["codex"]["loads"] == "yes"
    assert other["skills-cli"]["why"] == [
        "read differently: description: its block value is read as '>-'"
    ]
    assert other["cursor"]["loads"] == "unknown"
    assert out["budgets"]["claude-code"]["limit"] == 800
    assert out["budgets"]["claude-code"]["cut"] > 0
    assert {"skills": ["pdf", "pdf-copy"], "similarity": 1.0} in out["competing"]
    code = main(["lint", str(root), "--hosts"])
    text = capsys.readouterr().out
    assert (
        "Claude Code at 200K context: about 8,000 characters for skill listings; "
        "these 10 skills need" in text
    )
    assert "warning: pdf and pdf-copy have descriptions so close" in text
    assert "  mcp-ts-sdk   does not load; listing dropped" in text
    assert main(["lint", str(root), "--hosts", "--context", "0"]) == 2

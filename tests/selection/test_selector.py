"""A scratch copy of a description moves its skill's rank without rebuilding the index,
and the listing follows the edit."""

from __future__ import annotations

from pathlib import Path

from desktop.core.model import Skill, SourceSpec
from desktop.core.selector import Selector
from desktop.sources.folder import scan_folder
from tests.selection.anthropic_like import write_all


def skills(root: Path) -> list[Skill]:
    write_all(root)
    return scan_folder(SourceSpec("skills", "local", "folder", str(root)))[1]


def test_editing_a_scratch_description_moves_the_rank(tmp_path: Path) -> None:
    selector = Selector(skills(tmp_path / "s"))
    prompt = "make a slide deck"
    assert selector.bm25(prompt)[0].name == "pptx"
    art = next(s.id for s in selector.skills if s.name == "algorithmic-art")
    assert art not in {r.id for r in selector.bm25(prompt)}
    selector.edit(art, "Make a slide deck of generative art: slide deck, slides, deck.")
    assert selector.bm25(prompt)[0].name == "algorithmic-art"
    selector.edit(art, "nothing relevant")
    assert art not in {r.id for r in selector.bm25(prompt)}
    selector.edit(art, None)
    assert selector.scratch == {}
    assert [r.name for r in selector.bm25(prompt, 1)] == ["pptx"]


def test_a_long_scratch_description_loses_the_listing(tmp_path: Path) -> None:
    selector = Selector(skills(tmp_path / "s"), context=1_000_000)  # 40,000 characters
    pdf = next(s.id for s in selector.skills if s.name == "pdf")
    assert selector.listing("fill a pdf form")[0].listing == "full"
    selector.edit(pdf, "pdf form " * 300)
    ranked = {r.name: r for r in selector.listing("fill a pdf form")}
    assert ranked["pdf"].listing == "cut"
    assert selector.triggers("fill a pdf form") == []
    assert set(selector.rankers(2)) == {"bm25", "triggers", "listing"}

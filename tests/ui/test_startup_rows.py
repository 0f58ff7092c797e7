"""From the window's opening to its settled list, the list never drops rows it shows
again, and the skill page only ever shows a skill the list holds (first look at the
folders, then the session reading the folders and a server)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from desktop.session import catalog_session

from .conftest import folder_spec, wait_idle

pytestmark = pytest.mark.slow


def _skills(folder: Path, *names: str) -> Path:
    for name in names:
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n"
        )
    return folder


def test_the_start_up_list_only_grows_and_the_page_shows_a_listed_skill(
    make_window: Any, tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every source's arrival shows a partial list: the strictest case.
    monkeypatch.setattr(catalog_session, "INTERIM_EVERY", 0.0)
    many = _skills(tmp_path / "many", "alpha", "beta", "gamma")
    one = _skills(tmp_path / "one", "delta")
    served = _skills(tmp_path / "served", "echo", "foxtrot")
    argv = (sys.executable, "-m", "desktop", "serve", str(served))
    specs = [
        folder_spec(many, "many"),
        folder_spec(one, "one"),
        SourceSpec("srv", "mcp", "stdio", " ".join(argv), argv),
    ]
    window = make_window(specs, start=False)
    model = window.table_model
    counts: list[int] = []
    strays: list[str] = []

    def seen(*_: Any) -> None:
        counts.append(model.rowCount())
        page = window._page
        if page is not None and page.skill is not None and model.row_of(page.skill.id) is None:
            strays.append(page.skill.id)

    for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved, model.layoutChanged):
        signal.connect(seen)
    look = window.look_first()
    qtbot.waitUntil(lambda: look.over and look.shown, timeout=20000)
    window.start(look)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window._page is not None, timeout=20000)
    seen()
    assert counts[-1] == 6, counts
    assert counts == sorted(counts), f"the list dropped rows while starting: {counts}"
    assert len(set(counts)) > 1, counts  # the list did fill in steps
    assert not strays, strays
    shown = window.page.skill
    assert shown is not None and model.row_of(shown.id) is not None

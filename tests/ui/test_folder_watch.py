"""Authors see their edits: a local folder is watched while the window is open, and a
saved change shows in the list, on the page and in the preview, where the reader was."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from desktop.ui.library.skill_table_model import COL_DESCRIPTION, SKILL_ID_ROLE

from .conftest import click_sidebar, folder_spec, wait_idle, write_skill

BETA = "local:beta-tools/SKILL.md"
AGAIN = "read again after a change on disk"

# How long a test waits for a change to show: a condition waited for, never a promise of
# speed (the changes show within a second on an idle machine; benchmarks measure it).
WAIT_MS = 15_000


def _watched(make_window: Any, qtbot: Any, root: Path) -> Any:
    window = make_window([folder_spec(root)], watch=True)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    return window


def _row_description(window: Any, skill_id: str) -> str:
    proxy = window.proxy
    for row in range(proxy.rowCount()):
        if proxy.index(row, 0).data(SKILL_ID_ROLE) == skill_id:
            return str(proxy.index(row, COL_DESCRIPTION).data())
    return ""


def _activity(window: Any, words: str) -> list[str]:
    return [line for line in window.messages.toPlainText().splitlines() if words in line]


def _current_id(window: Any) -> str | None:
    index = window.table.currentIndex()
    return window.proxy.data(index, SKILL_ID_ROLE) if index.isValid() else None


def _many(root: Path, n: int = 60) -> None:
    for i in range(n):
        write_skill(root, f"skill-{i:02d}")


def test_a_saved_description_shows_in_the_row_and_page(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    _many(skills_folder)
    window = _watched(make_window, qtbot, skills_folder)
    assert window.select_skill(BETA)
    wait_idle(qtbot, window)  # the automatic read of a local skill
    bar = window.list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum() // 2)
    scroll = bar.value()
    skill_md = skills_folder / "beta-tools" / "SKILL.md"
    text = skill_md.read_text().replace("The beta-tools skill.", "Freshly edited words.")
    text = text.replace("# Beta", "# Beta edited")
    skill_md.write_text(text)
    qtbot.waitUntil(
        lambda: _row_description(window, BETA) == "Freshly edited words.", timeout=WAIT_MS
    )
    qtbot.waitUntil(lambda: "Freshly edited words." in window.detail.text(), timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: "Beta edited" in window.preview.rendered.toPlainText(),
        timeout=WAIT_MS,
    )
    assert _current_id(window) == BETA
    assert window.table.selectionModel().isRowSelected(window.table.currentIndex().row())
    assert bar.value() == scroll
    assert window.page.verification_pill.text() == "Checked"
    assert len(_activity(window, AGAIN)) == 1
    assert "beta-tools " + AGAIN in _activity(window, AGAIN)[0]


def test_a_burst_of_saves_is_read_once(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    window = _watched(make_window, qtbot, skills_folder)
    skill_md = skills_folder / "alpha-notes" / "SKILL.md"
    base = skill_md.read_text()
    for i in range(20):  # 20 saves within 200 ms
        skill_md.write_text(base + f"\nSaved {i}.\n" + "x" * i)
        time.sleep(0.01)
    qtbot.waitUntil(lambda: bool(_activity(window, AGAIN)), timeout=WAIT_MS)
    qtbot.wait(600)  # time for any second read to show
    wait_idle(qtbot, window)
    assert len(_activity(window, AGAIN)) == 1
    skill = window.controller.catalog.get("local:alpha-notes/SKILL.md")
    assert (
        skill is not None and skill.file("SKILL.md").size == len(base) + len("\nSaved 19.\n") + 19
    )


def test_problems_follow_the_saved_file(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    window = _watched(make_window, qtbot, skills_folder)
    assert window.select_skill(BETA)
    assert window.tabs.tabText(4) == "Pro&blems"
    skill_md = skills_folder / "beta-tools" / "SKILL.md"
    skill_md.write_text("---\nname: other-name\ndescription: x\n---\nbody\n")
    qtbot.waitUntil(lambda: window.tabs.tabText(4) == "Pro&blems (1)", timeout=WAIT_MS)
    assert "other-name" in window.page.problems.item(0).text()
    assert _current_id(window) == BETA


def test_skill_folders_added_and_removed_come_and_go(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    _many(skills_folder)
    window = _watched(make_window, qtbot, skills_folder)
    assert window.select_skill(BETA)
    bar = window.list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum() // 3)
    scroll = bar.value()
    write_skill(skills_folder, "delta-new")
    qtbot.waitUntil(
        lambda: window.controller.catalog.get("local:delta-new/SKILL.md") is not None,
        timeout=WAIT_MS,
    )
    qtbot.waitUntil(lambda: _row_description(window, "local:delta-new/SKILL.md") != "")
    assert _current_id(window) == BETA
    assert bar.value() == scroll
    assert _activity(window, "delta-new found")
    shutil.rmtree(skills_folder / "gamma-release")
    qtbot.waitUntil(
        lambda: window.controller.catalog.get("local:gamma-release/SKILL.md") is None,
        timeout=WAIT_MS,
    )
    assert _row_description(window, "local:gamma-release/SKILL.md") == ""
    assert _activity(window, "gamma-release no longer there")
    assert _current_id(window) == BETA
    assert bar.value() == scroll


def test_a_watched_folder_removed_says_so_and_comes_back(
    make_window: Any, skills_folder: Path, tmp_path: Path, qtbot: Any
) -> None:
    window = _watched(make_window, qtbot, skills_folder)
    away = tmp_path / "away"
    skills_folder.rename(away)
    qtbot.waitUntil(lambda: not window.controller.catalog.skills, timeout=WAIT_MS)
    warning = window.notifier.last("warning")
    assert warning is not None
    assert warning.text == (
        f"local: the folder {skills_folder.resolve()} is no longer there; its skills are not shown"
    )
    status = window.sources_model.statuses["local"]
    assert status.status == "error" and "is no longer there" in status.message
    assert window.message_bar.isVisible()
    assert "could not be read (local)" in window.message_bar.text.text()
    away.rename(skills_folder)
    qtbot.waitUntil(lambda: len(window.controller.catalog.skills) == 3, timeout=WAIT_MS)
    assert window.sources_model.statuses["local"].status == "ok"
    assert _activity(window, "Note: local: the folder can be read again")
    assert _activity(window, "Note: local: alpha-notes, beta-tools, gamma-release found")


def test_the_preview_is_read_again_where_the_reader_was(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    root = tmp_path / "skills"
    body = "# Long\n\n" + "\n\n".join(f"Paragraph {i} of the body." for i in range(300))
    write_skill(root, "long-one", body)
    window = _watched(make_window, qtbot, root)
    assert window.select_skill("local:long-one/SKILL.md")
    rendered = window.preview.rendered
    qtbot.waitUntil(lambda: "Paragraph 299" in rendered.toPlainText(), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    bar = rendered.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum() // 2)
    place = bar.value()
    skill_md = root / "long-one" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("Paragraph 0 of", "Paragraph zero of"))
    qtbot.waitUntil(lambda: "Paragraph zero" in rendered.toPlainText(), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert bar.value() == place


def test_a_watched_folder_that_never_was_says_it_does_not_exist(
    make_window: Any, tmp_path: Path, qtbot: Any
) -> None:
    missing = tmp_path / "never"
    window = make_window([folder_spec(missing, "later")], watch=True)
    qtbot.waitUntil(lambda: window.watcher.ready, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    said = f"the folder {missing.resolve()} does not exist"
    status = window.sources_model.statuses["later"]
    assert status.status == "error" and said in status.message
    assert "no longer there" not in window.messages.toPlainText()
    click_sidebar(qtbot, window, window.sidebar.source_items["later"])
    line = window.sidebar.status_line
    assert line.isVisible() and "does not exist" in line.text(), line.text()
    assert "no longer there" not in line.text() + line.toolTip()
    assert window.skill_list.empty.detail.text().endswith("does not exist")
    # Made, then removed while watched: now it is no longer there.
    write_skill(missing, "arrived")
    qtbot.waitUntil(lambda: len(window.controller.catalog.skills) == 1, timeout=WAIT_MS)
    shutil.rmtree(missing)
    qtbot.waitUntil(lambda: not window.controller.catalog.skills, timeout=WAIT_MS)
    status = window.sources_model.statuses["later"]
    assert f"the folder {missing.resolve()} is no longer there" in status.message
    assert "no longer there" in line.text()

"""An author's SKILL.md whose frontmatter does not parse: the page shows the file as text,
the error marked on the file's own line with a plain sentence, the folder's files, and a
problem leads to its line. A server's bytes are never shown unchecked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import folder_spec, wait_idle

BROKEN = {
    "typo": ("---\nname: typo\ndescription: [unclosed\n---\n# Body\n", 3, "a `[` is never closed"),
    "tab": ("---\nname: tab\n\tdescription: x\n---\nbody\n", 3, "a tab is used for indentation"),
    "indent": (
        "---\nname: indent\ndescription: a\n  bad: indent\n---\n",
        4,
        "a `:` in a value that is not quoted",
    ),
}


@pytest.fixture
def window(make_window: Any, tmp_path: Path) -> Any:
    root = tmp_path / "skills"
    for name, (text, _, _) in BROKEN.items():
        (root / name / "scripts").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
        (root / name / "scripts" / "run.sh").write_text("echo hi\n")
    (root / "long").mkdir()
    (root / "long" / "SKILL.md").write_text(
        f"---\nname: long\ndescription: {json.dumps('d' * 1100)}\n---\nbody\n"
    )
    return make_window([folder_spec(root, "mine")])


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_frontmatter_shows_the_file_with_its_line_marked(
    window: Any, qtbot: Any, name: str
) -> None:
    text, line, sentence = BROKEN[name]
    assert window.select_skill(f"mine:{name}/SKILL.md")
    wait_idle(qtbot, window)
    preview, page = window.preview, window.page
    qtbot.waitUntil(lambda: bool(preview.raw.toPlainText()), timeout=10000)
    assert preview.raw.toPlainText() == text, repr(preview.raw.toPlainText())
    assert list(preview.raw.marks) == [line]
    assert f"Line {line}: {sentence}" in preview.raw.marks[line]
    assert not preview.raw_note.isHidden() and f"line {line}" in preview.raw_note.text()
    status = preview.status.text()
    assert f"Line {line}: {sentence}" in status
    assert "not checked against a listing" in status
    assert "<unicode string>" not in status and "column" not in status
    assert "cannot be loaded" in preview.rendered.toPlainText()
    files = [page.files.topLevelItem(i).text(0) for i in range(page.files.topLevelItemCount())]
    assert files == ["SKILL.md", "scripts/run.sh"]
    assert page.files.topLevelItem(0).text(2) == "not checked"


def test_enter_on_a_problem_selects_its_line_in_source(window: Any, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    assert window.select_skill("mine:typo/SKILL.md")
    wait_idle(qtbot, window)
    page = window.page
    qtbot.waitUntil(lambda: bool(window.preview.raw.toPlainText()), timeout=10000)
    page.tabs.setCurrentWidget(page.problems)
    page.problems.setCurrentRow(0)
    page.problems.setFocus()
    qtbot.keyClick(page.problems, Qt.Key.Key_Return)
    assert page.tabs.currentWidget() is page.source
    cursor = window.preview.raw.textCursor()
    assert cursor.blockNumber() == 2  # line 3
    assert cursor.selectedText() == "description: [unclosed"


def test_a_problem_of_a_skill_not_read_yet_is_selected_once_read(window: Any, qtbot: Any) -> None:
    assert window.select_skill("mine:long/SKILL.md")
    wait_idle(qtbot, window)
    page, preview = window.page, window.preview
    preview.show_skill(preview.skill)  # nothing read: the text is not shown
    assert preview.raw.toPlainText() == ""
    item = next(
        page.problems.item(i)
        for i in range(page.problems.count())
        if "description" in page.problems.item(i).text()
    )
    page.problems.itemActivated.emit(item)
    assert page.tabs.currentWidget() is page.source
    qtbot.waitUntil(lambda: preview.raw.textCursor().hasSelection(), timeout=10000)
    assert preview.raw.textCursor().blockNumber() == 2
    wait_idle(qtbot, window)

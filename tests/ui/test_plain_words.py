"""Plain words on the window's main paths: the Filters menu speaks the sidebar's words
and finds what the sidebar counts; pills, status lines and the Overview say no machine
words (the precise terms are in tooltips)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QLabel,
    QListView,
    QTreeWidget,
    QWidget,
)

from .conftest import folder_spec, wait_idle
from .test_servers_ui import serve_spec

# Words of the protocol, of the code or of the state machine that a person should not
# have to read on the main paths (a tooltip may hold them). Matched as written: "Warning:"
# is a plain word, the code's level "warning:" is not.
FORBIDDEN = (
    "ok:",
    "no-skills",
    "info:",
    "warning:",
    "sha256:",
    "skills/get",
    "Invalid entry",
    "SecretService",
    "Will fetch",
    "(stdio",
    "in 1 page",
    "needs a decision",
    "bytes match",
    "unapprovable",
    "Partly verified",
)


def _model_texts(view: QAbstractItemView) -> list[str]:
    model = view.model()
    if model is None:
        return []
    out: list[str] = []
    if isinstance(view, QListView):
        columns = [view.modelColumn()]
    else:
        hidden = getattr(view, "isColumnHidden", lambda _c: False)
        columns = [c for c in range(model.columnCount()) if not hidden(c)]

    def walk(parent: QModelIndex) -> None:
        for row in range(min(model.rowCount(parent), 200)):
            for col in columns:
                index = model.index(row, col, parent)
                value = index.data(Qt.ItemDataRole.DisplayRole)
                if isinstance(value, str):
                    out.append(value)
                if col == 0 and model.rowCount(index) > 0:
                    walk(index)

    walk(QModelIndex())
    return out


def visible_texts(window: Any) -> list[str]:
    """Every text the window shows as it is: labels, buttons, rows, tabs, the status bar."""
    texts: list[str] = [window.statusBar().currentMessage()]
    for widget in window.findChildren(QWidget):
        if not widget.isVisible():
            continue
        if isinstance(widget, QLabel | QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QTreeWidget | QAbstractItemView):
            texts.extend(_model_texts(widget))
        if hasattr(widget, "tabText") and hasattr(widget, "count"):
            texts.extend(widget.tabText(i) for i in range(widget.count()))
    return [t for t in texts if t]


def _broken(root: Path) -> None:
    """A skill whose frontmatter cannot be parsed: it can never be loaded."""
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: [broken\n---\n# Broken\n")


def machine_words(texts: list[str]) -> list[tuple[str, str]]:
    return sorted({(w, t) for t in texts for w in FORBIDDEN if w in t})


def _menu_texts(window: Any) -> list[str]:
    fb = window.filter_bar
    fb._fill_menu()
    out = []
    for action in fb.filters_menu.actions():
        out.append(action.text())
        if action.menu() is not None:
            out.extend(a.text() for a in action.menu().actions())
    return out


@pytest.mark.slow
def test_the_main_paths_say_no_machine_words(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """A folder with a broken skill and a server over stdio: every skill opened, the
    server's read; the list, the page, the pills, the sidebar and its status line, the
    status bar and the Filters menu say what they say in plain words."""
    _broken(skills_folder)
    spec = serve_spec(skills_folder, "srv")
    window = make_window([folder_spec(skills_folder), spec])
    texts = visible_texts(window) + _menu_texts(window)
    server_pending = []
    for skill in window.controller.catalog.skills:
        assert window.select_skill(skill.id)
        wait_idle(qtbot, window)
        texts += visible_texts(window)
        if skill.kind_info.runs_code and skill.loadable:
            server_pending.append(window.preview.status.text())
            window.preview.fetch()
            wait_idle(qtbot, window)
            texts += visible_texts(window)
    for label in ("local", "srv"):
        window.sidebar.select_source(label)
        texts.append(window.sidebar.status_line.text())
    window.notifier.info("local: the folder can be read again")
    texts.append(window.statusBar().currentMessage())
    assert not machine_words(texts)
    # A server skill's Overview says what happens in a sentence; the details are in
    # its tooltip.
    assert server_pending and all(
        t == "Read from the server and checked before it is shown: press Read from server "
        "to see it."
        for t in server_pending
    )
    srv_line = window.sidebar.status_line.text()
    assert srv_line.startswith("srv (local process): Ready — 3 skills"), srv_line
    # The words the window says, and the precise ones in tooltips.
    said = " ".join(texts)
    assert "Checked" in said and "Cannot be loaded" in said
    broken = next(s for s in window.controller.catalog.skills if s.name == "broken")
    window.select_skill(broken.id)
    assert "Invalid entry" in window.page.verification_pill.toolTip()


def test_a_local_skill_is_checked_or_not_all_files_checked(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """SKILL.md read, its other files not yet: "Not all files checked", never "Partly
    verified" (which stays in the tooltip, the precise term)."""
    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill("local:alpha-notes/SKILL.md")
    wait_idle(qtbot, window)
    pill = window.page.verification_pill
    assert pill.text() == "Not all files checked"
    assert pill.toolTip().startswith("Partly verified")
    assert window.select_skill("local:beta-tools/SKILL.md")  # one file: all of it checked
    wait_idle(qtbot, window)
    assert pill.text() == "Checked" and "SHA-256" in pill.toolTip()


# -- the Filters menu finds what the sidebar counts ----------------------------------


def _choose(window: Any, text: str) -> None:
    fb = window.filter_bar
    fb._fill_menu()
    [action] = [a for a in fb.filters_menu.actions() if a.text() == text]
    action.trigger()


def _sidebar_count(window: Any, key: str) -> int:
    return int(window.sidebar.view_items[key].text(1) or 0)


@pytest.mark.keyring
def test_each_filter_finds_what_the_sidebar_counts(
    secret_service: Any, make_window: Any, skills_folder: Path, qtbot: Any, approval_service: Any
) -> None:
    # A problem of the format (a name unlike its folder's) that still loads, one that
    # cannot be loaded at all, an approved skill and one changed since its approval.
    (skills_folder / "misnamed").mkdir()
    (skills_folder / "misnamed" / "SKILL.md").write_text(
        "---\nname: other-name\ndescription: Named unlike its folder.\n---\n# M\n"
    )
    _broken(skills_folder)
    window = make_window([folder_spec(skills_folder)])
    catalog = window.controller.catalog
    for name in ("alpha-notes", "beta-tools"):
        approval_service.store.approve(catalog.get(f"local:{name}/SKILL.md"))
    (skills_folder / "beta-tools" / "SKILL.md").write_text(
        "---\nname: beta-tools\ndescription: changed\n---\n# Beta, changed\n"
    )
    window.actions_.refresh()
    wait_idle(qtbot, window)
    fb = window.filter_bar
    menu = _menu_texts(window)
    for word in ("To review", "Changed since approval", "Approved", "Has problems"):
        assert word in menu, menu
    for machine in ("needs a decision", "invalid", "listed", "bytes match", "unapprovable"):
        assert machine not in menu
    pairs = (
        ("To review", "to-review"),
        ("Changed since approval", "changed"),
        ("Approved", "approved"),
        ("Has problems", "problems"),
    )
    for word, view in pairs:
        fb.restore("", "", "", "")
        _choose(window, word)
        counted = _sidebar_count(window, view)
        assert counted > 0, view
        assert window.proxy.rowCount() == counted, (word, counted)
        assert fb.chip_texts() == [word]
    # The precise meaning is in each choice's tooltip.
    fb._fill_menu()
    tips = {a.text(): a.toolTip() for a in fb.filters_menu.actions()}
    assert "not-approved or changed" in tips["To review"]
    assert "invalid" in tips["Cannot be loaded"]
    assert fb.filters_menu.toolTipsVisible()


def test_a_stacked_list_of_one_skill_leaves_the_height_to_the_page(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    window.resize(760, 680)  # narrow: the list above the page
    qtbot.waitUntil(lambda: window.right_splitter.orientation() == Qt.Orientation.Vertical)
    split = window.right_splitter
    total = sum(split.sizes())
    window.filter_bar.text.setText("gamma")
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 1)
    qtbot.waitUntil(lambda: split.sizes()[0] < total // 4)
    one = split.sizes()[0]
    view = window.skill_list.list
    assert view.viewport().height() >= view.sizeHintForRow(0)  # the one row is whole
    # All three back: the list grows to hold them (up to two fifths of the height).
    window.filter_bar.text.setText("")
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 3)
    qtbot.waitUntil(lambda: split.sizes()[0] > one)
    assert view.viewport().height() >= 3 * view.sizeHintForRow(0)
    assert split.sizes()[0] <= total * 2 // 5


def test_a_checked_skill_keeps_the_tick(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    from PySide6.QtWidgets import QStyle

    window = make_window([folder_spec(skills_folder)])
    assert window.select_skill("local:beta-tools/SKILL.md")
    wait_idle(qtbot, window)
    pill = window.page.verification_pill
    assert pill.text() == "Checked"
    tick = pill.style().standardIcon(QStyle.StandardPixmap.SP_DialogApplyButton)
    assert pill.icon().pixmap(16).toImage() == tick.pixmap(16).toImage()


def test_the_status_bar_gives_a_long_notice_in_brief(make_window: Any, skills_folder: Path) -> None:
    window = make_window([folder_spec(skills_folder)])
    long = "local: " + "the folder could not be watched, " * 12 + "the end"
    window.notifier.warning(long)
    shown = window.statusBar().currentMessage()
    assert shown.startswith("Warning: local: the folder could not be watched")
    assert shown.endswith("… (View ▸ Activity)") and len(shown) < 150
    assert window.messages.toPlainText().rstrip().endswith("the end")  # kept whole there
    # A long path keeps its ends, and the words after it stay.
    window.notifier.warning(f"local: the folder {'/deep' * 30}/gone is no longer there")
    shown = window.statusBar().currentMessage()
    assert "…" in shown and "/gone is no longer there" in shown and len(shown) < 150
    window.notifier.info("local: read again")
    assert window.statusBar().currentMessage() == "Note: local: read again"

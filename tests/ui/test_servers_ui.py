"""The window against a real MCP server: `skill-catalog serve` over stdio."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import serving_pids
from PySide6.QtCore import Qt

from desktop.core.model import SourceSpec
from desktop.ui.dialogs.compare_dialog import CompareDialog
from desktop.ui.dialogs.host_view_dialog import ModelViewDialog
from desktop.ui.dialogs.instructions_dialog import CUT_MARK, InstructionsDialog, instructions_html
from desktop.ui.dialogs.open_uri_dialog import OpenUriDialog
from desktop.ui.dialogs.trigger_tester_dialog import TriggerTesterDialog
from desktop.ui.library.skill_table_model import COL_ORIGIN, COL_VERIFICATION

from .conftest import folder_spec, table_names, to_review_count, wait_idle, write_skill
from .test_preview_links import catalog, server_skill

pytestmark = pytest.mark.slow
HOSTILE = Path(__file__).resolve().parent.parent / "mcp" / "servers" / "hostile.py"


def serve_spec(folder: Path, label: str = "srv", *options: str) -> SourceSpec:
    # the fixture keeps loading values in a mapping, which strict clients refuse
    argv = (
        sys.executable,
        "-m",
        "desktop",
        "serve",
        str(folder),
        *options,
        "--publish-nonconforming",
    )
    return SourceSpec(label, "mcp", "stdio", shlex.join(argv), command=argv)


def hostile_spec(scenario: str, label: str = "h") -> SourceSpec:
    """One of the hostile fixture servers of the MCP tests, over stdio."""
    argv = (sys.executable, str(HOSTILE), scenario)
    return SourceSpec(label, "mcp", "stdio", shlex.join(argv), command=argv)


@pytest.fixture
def long_instructions(tmp_path: Path) -> Path:
    text = "Use these skills for billing. " * 80 + "\nSee skill://alpha-notes/SKILL.md too.\n"
    path = tmp_path / "instructions.txt"
    path.write_text(text)
    return path


@pytest.fixture
def window(make_window: Any, skills_folder: Path, long_instructions: Path) -> Any:
    spec = serve_spec(skills_folder, "srv", "--instructions-file", str(long_instructions))
    return make_window([folder_spec(skills_folder), spec])


def test_server_skills_are_listed_as_third_party(window: Any) -> None:
    names = table_names(window)
    assert "srv:alpha-notes" in names and "alpha-notes" in names
    row = window.table_model.row_of(
        next(
            s.id for s in window.controller.catalog.skills if s.qualified_name == "srv:alpha-notes"
        )
    )
    assert window.table_model.index(row, COL_ORIGIN).data() == "srv · stdio · third-party"
    srv_row = [s.label for s in window.sources_model.specs].index("srv")
    assert window.sources_model.index(srv_row, 3).data()  # the protocol era
    assert window.sources_model.index(srv_row, 5).data() == "3"
    skill = next(
        s for s in window.controller.catalog.skills if s.qualified_name == "srv:beta-tools"
    )
    window.select_skill(skill.id)
    text = window.detail.text()
    assert "Third-party content: published by the server srv" in text
    assert "a request for power" in text


def test_server_skill_preview_is_verified(window: Any, qtbot: Any) -> None:
    skill = next(
        s for s in window.controller.catalog.skills if s.qualified_name == "srv:alpha-notes"
    )
    window.select_skill(skill.id)
    window.actions_.preview_current()
    status = window.preview.status
    assert "from srv (stdio" in status.toolTip() or window.controller.busy
    wait_idle(qtbot, window)
    assert "Checked: matches what the source listed" in window.preview.status.text()
    assert "Alpha" in window.preview.rendered.toPlainText()


def test_instructions_show_the_2048_cut(window: Any, long_instructions: Path) -> None:
    window.sidebar.select_source("srv")
    window.actions_.show_instructions("srv")
    dialog = window.actions_.dialog
    assert isinstance(dialog, InstructionsDialog)
    assert "longer than the cut" in dialog.summary.text()
    text = dialog.browser.toPlainText()
    assert CUT_MARK in text
    assert text.index(CUT_MARK) > 2000
    assert "skill://alpha-notes/SKILL.md" in text and "check with the server" in text


def test_instructions_mention_is_confirmed_with_skills_get(window: Any, qtbot: Any) -> None:
    uri = next(
        s.uri for s in window.controller.catalog.skills if s.qualified_name == "srv:alpha-notes"
    )
    window.actions_.show_instructions("srv")
    dialog = window.actions_.dialog
    assert uri in dialog.browser.toPlainText()
    with qtbot.waitSignal(dialog.skillOpened, timeout=30000) as opened:
        dialog.confirm(uri)
    assert opened.args == [f"srv:{uri}"]
    wait_idle(qtbot, window)
    assert window.current_skill().id == f"srv:{uri}"


def test_open_by_uri_dialog(window: Any, qtbot: Any) -> None:
    uri = next(
        s.uri for s in window.controller.catalog.skills if s.qualified_name == "srv:beta-tools"
    )
    window.actions_.open_uri_action.trigger()
    dialog = window.actions_.dialog
    assert isinstance(dialog, OpenUriDialog)
    assert dialog.server.currentData() == "srv"
    qtbot.keyClicks(dialog.uri, uri)
    dialog.open_button.click()
    wait_idle(qtbot, window)
    assert dialog.message.text() == "Opened srv:beta-tools."
    assert window.current_skill().qualified_name == "srv:beta-tools"
    dialog.uri.setText("skill://missing/SKILL.md")
    dialog.open_button.click()
    wait_idle(qtbot, window)
    assert "no skill at skill://missing/SKILL.md" in dialog.message.text()
    # A reason of two or three lines is shown whole, not cut to one line's height.
    assert dialog.message.height() >= 3 * dialog.message.fontMetrics().lineSpacing()


def test_instructions_html_marks_nothing_when_short() -> None:
    assert "cut here" not in instructions_html("short")


def test_open_by_uri_confirms_with_skills_get(window: Any, qtbot: Any) -> None:
    c = window.controller
    uri = next(s.uri for s in c.catalog.skills if s.qualified_name == "srv:gamma-release")
    task = c.spawn(c.open_uri("srv", uri), "open")
    wait_idle(qtbot, window)
    assert task.result() is not None and task.result().qualified_name == "srv:gamma-release"
    missing = c.spawn(c.open_uri("srv", "skill://nope/SKILL.md"), "open")
    wait_idle(qtbot, window)
    assert missing.result() is None
    assert "no skill at skill://nope/SKILL.md" in window.notifier.last("error").text


def test_model_view_trigger_tester_and_compare(window: Any, qtbot: Any) -> None:
    window.actions_.model_view()
    view = window.actions_.dialog
    assert isinstance(view, ModelViewDialog)
    registry = view.text.toPlainText()
    assert "- srv:alpha-notes [third-party, from server srv]: The alpha-notes skill." in registry
    assert "- alpha-notes [local, folder local]" in registry
    assert "srv:" in view.servers.text() and "lose" in view.servers.text()

    window.actions_.trigger_tester()
    tester = window.actions_.dialog
    assert isinstance(tester, TriggerTesterDialog)
    qtbot.keyClicks(tester.message, "please write the alpha report")
    assert tester.summary.text() == "2 skills match"
    # Both declare loading-strategy always: only the local one is loaded always (L6).
    shown = tester.results.toPlainText()
    always, _, declared = shown.partition("Declaring always, not loaded on that alone")
    assert "alpha-notes (local)" in always.split("Loaded always")[1]
    assert "srv:alpha-notes" not in always.split("Loaded always")[1]
    assert "srv:alpha-notes (srv)" in declared

    local = window.controller.catalog.get("local:alpha-notes/SKILL.md")
    window.select_skill(local.id)
    window.actions_.compare()
    compare = window.actions_.dialog
    assert isinstance(compare, CompareDialog)
    a, b = compare.pair()
    assert a.id == local.id and b.qualified_name == "srv:alpha-notes"
    assert "Files: no change" in compare.fields.toPlainText()
    wait_idle(qtbot, window)  # opened, it reads both (the server's through the reader)
    assert "identical" in compare.diff.toPlainText()


def test_cross_server_link_asks_naming_both_servers(make_window: Any, qtbot: Any) -> None:
    window = make_window([], start=False)
    a = server_skill("docs", "acme/refunds")
    b = server_skill("billing", "acme/invoices")
    window.controller.catalog = catalog(a, b)
    asked: list[str] = []
    window.preview.confirm = lambda q: asked.append(q) or False
    window.preview.show_skill(a)
    with qtbot.assertNotEmitted(window.preview.skillRequested):
        window.preview.follow_link("skill://acme/invoices/SKILL.md")
    assert "docs" in asked[0] and "billing" in asked[0]
    assert "Not opened" in window.preview.link_note.text()
    window.preview.confirm = lambda q: True
    with qtbot.waitSignal(window.preview.skillRequested) as sig:
        window.preview.follow_link("skill://acme/invoices/SKILL.md")
    assert sig.args == [b.id]


def test_cancel_stops_a_hanging_discovery(make_window: Any, qtbot: Any, tmp_path: Path) -> None:
    argv = (sys.executable, "-c", "import time; time.sleep(120)")
    hanging = SourceSpec("slow", "mcp", "stdio", shlex.join(argv), command=argv)
    window = make_window([hanging], start=False)
    window.start()
    qtbot.waitUntil(lambda: window.controller.busy and window.progress.cancel_button.isVisible())

    def started() -> bool:  # the server's process is running
        handle = window.controller.reader.pool._handles.get("slow")
        return handle is not None and handle._worker is not None

    qtbot.waitUntil(started)
    window.progress.cancel_button.click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=15000)
    assert any("cancelled" in n.text for n in window.notifier.notices)
    assert not window.progress.cancel_button.isVisible()


def _source_tooltip(window: Any, label: str) -> str:
    row = [s.label for s in window.sources_model.specs].index(label)
    return str(window.sources_model.index(row, 4).data(Qt.ItemDataRole.ToolTipRole))


def test_a_server_is_listed_again_when_its_ttl_is_up(
    make_window: Any, qtbot: Any, skills_folder: Path, run_async: Any
) -> None:
    """D5: with no action from the user, the window asks again once ttlMs is up, shows
    what changed, and forgets what was verified against an entry that changed."""
    window = make_window([serve_spec(skills_folder, "srv", "--ttl-ms", "500")], start=False)
    c = window.controller
    c.relist_floor = 1.0  # a minute in the product; a second here
    window.start()
    wait_idle(qtbot, window)
    assert 0 < c.relist_due()["srv"] <= 1.0
    assert "ttlMs 500" in _source_tooltip(window, "srv")
    alpha = next(s for s in c.catalog.skills if s.name == "alpha-notes")
    old_digest = alpha.files[0].digest
    assert run_async(c.read(alpha, alpha.uri)).verification.state == "verified"

    write_skill(skills_folder, "delta-new")
    with (skills_folder / "alpha-notes" / "SKILL.md").open("a", encoding="utf-8") as fh:
        fh.write("\nOne more step.\n")
    qtbot.waitUntil(lambda: "srv:delta-new" in table_names(window), timeout=30000)
    wait_idle(qtbot, window)

    fresh = c.catalog.get(alpha.id)
    assert fresh is not None and fresh.files[0].digest != old_digest
    assert c.file_state(alpha.id, alpha.uri) is None  # read against the old manifest
    # The first read of the changed file gets its new bytes (no copy of the old ones).
    assert run_async(c.read(fresh, fresh.uri)).verification.state == "verified"
    assert "srv: listed again, 1 added, 1 changed, 0 removed" in [
        n.text for n in window.notifier.notices
    ]
    assert "listing again at" in _source_tooltip(window, "srv")
    assert "srv" in c.relist_due()  # and again after the next ttl


def test_a_failed_relisting_keeps_the_earlier_listing(
    make_window: Any, skills_folder: Path, run_async: Any
) -> None:
    window = make_window([serve_spec(skills_folder, "srv", "--ttl-ms", "500")])
    c = window.controller
    before = sorted(s.id for s in c.catalog.skills)
    assert len(before) == 3
    gone = SourceSpec(
        "srv", "mcp", "stdio", "/nonexistent/server", command=("/nonexistent/server",)
    )
    c.set_specs([gone])  # the server can no longer be started
    run_async(c.relist("srv"))
    assert sorted(s.id for s in c.catalog.skills) == before
    assert window.notifier.last("warning").text.startswith("srv: listing again failed")
    assert "the earlier listing is kept" in _source_tooltip(window, "srv")
    assert "srv" in c.relist_due()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server in /proc")
def test_the_server_that_answered_the_listing_serves_the_reads(
    make_window: Any, qtbot: Any, skills_folder: Path, tmp_path: Path, run_async: Any
) -> None:
    """One server process per source: discovery's connection stays open for previews,
    survives an unrelated change of sources, and is replaced when the server's own
    configuration changes."""
    spec = serve_spec(skills_folder, "srv")
    window = make_window([spec])
    c = window.controller
    (pid,) = serving_pids(skills_folder)
    skill = next(s for s in c.catalog.skills if s.name == "alpha-notes")
    assert run_async(c.read(skill, skill.uri)).verification.state == "verified"
    assert serving_pids(skills_folder) == [pid]  # the first preview started nothing

    other = tmp_path / "more"
    write_skill(other, "delta-more")
    c.set_specs([spec, folder_spec(other, "more")])
    c.refresh()
    wait_idle(qtbot, window)
    assert "delta-more" in table_names(window)
    assert serving_pids(skills_folder) == [pid]  # kept: its configuration did not change

    changed = serve_spec(skills_folder, "srv", "--page-size", "1")
    c.set_specs([changed])
    c.refresh()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: pid not in serving_pids(skills_folder), timeout=20000)
    assert len(serving_pids(skills_folder)) == 1
    assert len([s for s in c.catalog.skills if s.origin.label == "srv"]) == 3


def test_a_skill_opened_by_uri_is_asked_for_again_when_its_server_is_listed_again(
    make_window: Any, qtbot: Any, run_async: Any
) -> None:
    """D5 and D7: a skill known from skills/get alone is in no listing, so each time its
    server is listed again it is asked for again: a new entry replaces the old one
    (and what was verified against the old one is forgotten), and a skill the server
    no longer serves leaves the catalog with a note saying so."""
    window = make_window([hostile_spec("moving-hidden")], start=False)
    c = window.controller
    c.relist_floor = 1.0  # a minute in the product; a second here
    window.start()
    wait_idle(qtbot, window)
    assert "h:hidden" not in table_names(window)

    uri = "skill://hidden/SKILL.md"
    skill = run_async(c.open_uri("h", uri))
    assert skill.description == "Not in the listing, version 1"
    origin = window.table_model.index(window.table_model.row_of(skill.id), COL_ORIGIN)
    assert origin.data() == "h · stdio · third-party · opened by URI"
    assert "opened by URI" in origin.data(Qt.ItemDataRole.ToolTipRole)  # when the cell is cut
    window.filter_bar.text.setText("opened by uri")
    qtbot.waitUntil(lambda: table_names(window) == ["h:hidden"])
    window.filter_bar.text.setText("")
    assert run_async(c.read(skill, uri)).verification.state == "verified"

    def entry() -> Any:
        return c.catalog.get(skill.id)

    qtbot.waitUntil(
        lambda: entry() is not None and entry().description.endswith("version 2"), timeout=30000
    )
    assert c.file_state(skill.id, uri) is None  # verified against the old entry
    assert any(p.code == "opened-by-uri" for p in entry().problems)
    assert "h:hidden" in table_names(window)

    qtbot.waitUntil(lambda: entry() is None, timeout=30000)
    wait_idle(qtbot, window)
    assert "h:hidden" not in table_names(window)
    assert "h:hidden (opened by URI) is no longer served" in _source_tooltip(window, "h")
    assert "h:demo" in table_names(window)  # the listed skill stays


def test_a_server_sending_megabytes_where_a_line_is_expected(
    make_window: Any, qtbot: Any, run_async: Any
) -> None:
    """2 MB of instructions naming 60,000 skill URIs took Qt over 30 s to lay out; a
    4 MB error message and a tool named with a megabyte were shown whole. Now each
    shows a bounded part, says how much more there is, and the rest is one click away."""
    window = make_window([hostile_spec("huge-text")])
    c = window.controller
    status = c.catalog.source("h")
    assert status is not None and len(status.instructions or "") > 2_000_000

    window.actions_.show_instructions("h")
    dialog = window.actions_.dialog
    assert isinstance(dialog, InstructionsDialog)
    text = dialog.browser.toPlainText()
    assert len(text) < 120_000
    assert CUT_MARK in text and "more characters are not shown here" in text
    assert "The first 100,000 are shown" in dialog.summary.text()
    assert text.count("check with the server") == 50 and "and 59,950 more" in text
    dialog.show_all()
    assert len(dialog.browser.toPlainText()) > 2_000_000

    globber = next(s for s in c.catalog.skills if s.name == "globber")
    window.select_skill(globber.id)
    detail = window.detail.text()
    assert "h__search* → h__search, h__search-x-x" in detail
    assert "(1,000,009 characters in all)" in detail
    assert len(detail) < 20_000

    result = run_async(c.read(globber, globber.uri))
    assert result.verification.state == "read-error" and result.data is None
    message = window.notifier.last("warning").text
    assert "(4,200,000 characters in all)" in message and len(message) < 1000


def test_a_refreshed_skill_opened_by_uri_stays_opened_by_uri(
    make_window: Any, run_async: Any
) -> None:
    """Refreshing the entry (V2) of a skill known from skills/get alone keeps it marked
    so: unmarked, the next listing, which does not carry it, would drop it."""
    window = make_window([hostile_spec("moving-hidden")])
    c = window.controller
    uri = "skill://hidden/SKILL.md"
    first = run_async(c.open_uri("h", uri))
    assert run_async(c.read(first, uri)).verification.state == "verified"
    fresh = run_async(c.open_uri("h", uri, refresh=True))
    assert fresh.description.endswith("version 2")
    assert any(p.code == "opened-by-uri" for p in fresh.problems)
    assert c.file_state(fresh.id, uri) is None


def test_opening_a_listed_skill_by_uri_forgets_reads_against_the_entry_it_replaces(
    make_window: Any, run_async: Any
) -> None:
    """The listing's entry no longer describes the guide the server serves; skills/get's
    does. Once that entry is held, a mismatch found against the old one is not shown."""
    window = make_window([hostile_spec("stale")])
    c = window.controller
    listed = next(s for s in c.catalog.skills if s.name == "demo")
    guide = "skill://demo/references/guide.md"
    assert run_async(c.read(listed, guide)).verification.state == "size-mismatch"
    opened = run_async(c.open_uri("h", listed.uri))
    assert opened.id == listed.id and c.catalog.get(listed.id) is opened
    assert not any(p.code == "opened-by-uri" for p in opened.problems)  # it is listed
    assert c.file_state(listed.id, guide) is None
    assert run_async(c.read(opened, guide)).verification.state == "verified"


def test_a_server_flooding_its_kept_connection_is_cut_off_and_the_window_says_so(
    make_window: Any, qtbot: Any, run_async: Any, tmp_path: Path
) -> None:
    """Once listed, the server sends notifications without end: the window's loop was
    kept at 100 % of a core for as long as the window stayed open. Past the budget
    they are dropped, and a flood without pause (three windows in a row, here of 1 s) is
    cut off."""
    from desktop.session.content_reader import ContentReader
    from desktop.sources.budgets import Budgets
    from desktop.store.cache import SkillCache

    reader = ContentReader(
        cache=SkillCache(tmp_path / "cache"), budgets=Budgets(notification_window=1.0)
    )
    window = make_window([hostile_spec("notify-flood")], reader=reader)
    c = window.controller

    def status_cell() -> str:
        row = [s.label for s in window.sources_model.specs].index("h")
        return str(window.sources_model.index(row, 4).data())

    qtbot.waitUntil(lambda: "connection lost" in status_cell(), timeout=30000)
    assert "notifications or requests unasked" in status_cell()
    assert "unasked within 1 s" in window.notifier.last("warning").text
    skill = next(s for s in c.catalog.skills if s.name == "demo")
    assert run_async(c.read(skill, skill.uri)).verification.state == "verified"


def test_the_detail_pane_lists_a_folder_as_the_server_does(
    make_window: Any, qtbot: Any, run_async: Any
) -> None:
    """D10 in the window: only where directoryRead is declared; each file marked in or
    out of the held entry, and a new entry makes an old listing go away."""
    from urllib.parse import quote

    window = make_window([hostile_spec("directory"), hostile_spec("ok", "plain")])
    c = window.controller
    demo = next(s for s in c.catalog.skills if s.id == "h:skill://demo/SKILL.md")
    window.select_skill(demo.id)
    assert "Folder as the server lists it" in window.detail.text()
    assert "List skill://demo" in window.detail.text()
    window.detail._on_link("dir:" + quote("skill://demo/references", safe=""))
    wait_idle(qtbot, window)
    text = window.detail.text()
    assert "skill://demo/references: 2 entries" in text
    assert "added-later.md\tnot part of the skill you hold" in text.replace("\n", "\t")
    assert "guide.md\tin the skill you hold" in text.replace("\n", "\t")
    fresh = run_async(c.open_uri("h", demo.uri, refresh=True))
    window.select_skill(fresh.id)
    assert "skill://demo/references: 2 entries" not in window.detail.text()

    plain = next(s for s in c.catalog.skills if s.id == "plain:skill://demo/SKILL.md")
    window.select_skill(plain.id)
    assert "Folder as the server lists it" not in window.detail.text()


def test_refresh_entry_in_the_preview_verifies_against_the_new_entry(
    make_window: Any, qtbot: Any
) -> None:
    """After a mismatch the Files tab offers a refresh (V2): once skills/get has answered,
    the file shown is read again against the entry the server gave, not the old one."""
    window = make_window([hostile_spec("stale")])
    c = window.controller
    listed = next(s for s in c.catalog.skills if s.name == "demo")
    guide = "skill://demo/references/guide.md"
    window.select_skill(listed.id)
    window._open_file(listed.id, guide)  # a link to the guide: the Files tab reads it
    wait_idle(qtbot, window)
    preview = window.page.file_view
    assert preview.status.text().startswith("Not shown: ")
    assert preview.refresh_button.isVisibleTo(preview)
    preview.refresh_button.click()
    qtbot.waitUntil(lambda: c.catalog.get(listed.id) is not listed, timeout=30000)
    row = window.table_model.row_of(listed.id)
    cell = window.table_model.index(row, COL_VERIFICATION)
    qtbot.waitUntil(lambda: cell.data() != "size-mismatch", timeout=30000)
    wait_idle(qtbot, window)
    assert window.table_model.index(row, COL_VERIFICATION).data() == "1 of 2 files verified"
    assert preview.skill is c.catalog.get(listed.id)
    assert preview.uri == guide
    assert "Checked: matches what the source listed" in preview.status.text(), preview.status.text()
    assert "a newer guide" in preview.text.toPlainText()
    assert not preview.refresh_button.isVisibleTo(preview)


def test_bytes_that_match_on_a_second_fetch_take_the_refresh_offer_away(
    make_window: Any, qtbot: Any
) -> None:
    """The first read is tampered with, the second is not: once the bytes match, the
    preview no longer offers to refresh the entry (nothing about it was stale)."""
    window = make_window([hostile_spec("flip")])
    c = window.controller
    demo = next(s for s in c.catalog.skills if s.name == "demo")
    window.select_skill(demo.id)
    window._open_file(demo.id, "skill://demo/references/guide.md")
    wait_idle(qtbot, window)
    preview = window.page.file_view
    assert preview.status.text().startswith("Not shown: ")
    assert preview.refresh_button.isVisibleTo(preview)
    preview.read_button.click()
    wait_idle(qtbot, window)
    assert "Checked: matches what the source listed" in preview.status.text(), preview.status.text()
    assert not preview.refresh_button.isVisibleTo(preview)


def test_the_overview_offers_a_refresh_when_skill_md_did_not_match(
    make_window: Any, qtbot: Any
) -> None:
    """The first read of SKILL.md is tampered with: the Overview shows nothing of it and
    offers Ask the server again; once a read matches, the offer goes."""
    window = make_window([hostile_spec("flip")])
    demo = next(s for s in window.controller.catalog.skills if s.name == "demo")
    window.select_skill(demo.id)
    preview = window.preview
    preview.fetch()
    wait_idle(qtbot, window)
    assert preview.status.text().startswith("Not shown: ")
    assert "tampered" not in preview.raw.toPlainText() + preview.rendered.toPlainText()
    assert preview.refresh_button.isVisibleTo(preview)
    preview.fetch_button.click()
    wait_idle(qtbot, window)
    assert "Checked: matches what the source listed" in preview.status.text(), preview.status.text()
    assert not preview.refresh_button.isVisibleTo(preview)


def test_cancelling_the_first_read_says_which_sources_were_cut_short(
    make_window: Any, qtbot: Any, caplog: Any
) -> None:
    """Esc while a server hangs in its listing: the sources that answered keep their
    skills, the one cut short says so (not "reading…" for ever), and no stray error
    of the abandoned connection reaches the log."""
    import gc
    import logging

    caplog.set_level(logging.ERROR, logger="asyncio")
    specs = [hostile_spec("hang-list", "stuck"), hostile_spec("ok", "good")]
    window = make_window(specs, start=False)
    window.start()

    def status_cell(label: str) -> str:
        labels = [s.label for s in window.sources_model.specs]
        if label not in labels:
            return ""
        return str(window.sources_model.index(labels.index(label), 4).data())

    qtbot.waitUntil(lambda: status_cell("good").startswith("ok"), timeout=30000)
    window.actions_.cancel_action.trigger()
    wait_idle(qtbot, window)
    assert status_cell("stuck").startswith("cancelled"), status_cell("stuck")
    assert "F5" in status_cell("stuck")
    assert status_cell("good").startswith("ok")
    assert "good:demo" in table_names(window)
    # The skills that arrived have approval states: the queue lists them.
    assert to_review_count(window) == 1
    qtbot.wait(200)
    gc.collect()
    qtbot.wait(50)
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


def test_cancelling_while_servers_start_leaves_no_stray_error(
    make_window: Any, qtbot: Any, caplog: Any
) -> None:
    """Esc before a server has even answered its handshake: every source says it was
    cancelled, and the abandoned connections' failures are not logged as unretrieved."""
    import gc
    import logging

    caplog.set_level(logging.ERROR, logger="asyncio")
    window = make_window([hostile_spec("hang-list", "stuck")], start=False)
    window.start()

    def starting() -> bool:
        handle = window.controller.reader.pool._handles.get("stuck")
        return handle is not None and handle._worker is not None

    qtbot.waitUntil(starting)
    window.actions_.cancel_action.trigger()
    wait_idle(qtbot, window)
    row = [s.label for s in window.sources_model.specs].index("stuck")
    assert str(window.sources_model.index(row, 4).data()).startswith("cancelled")
    window.actions_.refresh()  # a new connection: the abandoned one is let go
    qtbot.waitUntil(starting)
    window.actions_.cancel_action.trigger()
    wait_idle(qtbot, window)
    qtbot.wait(300)
    gc.collect()
    qtbot.wait(50)
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


def test_cancelling_a_preview_says_so_and_nothing_is_shown(make_window: Any, qtbot: Any) -> None:
    """Esc while a file is being fetched from a server that never answers the read: the
    preview says it was cancelled (not "Fetching…" for good) and Fetch can be pressed."""
    window = make_window([hostile_spec("hang-read", "stuck")])
    skill = next(s for s in window.controller.catalog.skills if s.origin.label == "stuck")
    window.select_skill(skill.id)
    window.actions_.preview_current()
    p = window.preview
    qtbot.waitUntil(lambda: p.status.text().startswith("Reading from the server"))
    qtbot.wait(200)
    window.actions_.cancel_action.trigger()
    wait_idle(qtbot, window)
    assert p.status.text().startswith("Cancelled: nothing read of ")
    assert p.raw.toPlainText() == "" and p.rendered.toPlainText() == ""
    assert p.fetch_button.isEnabled()


def test_refresh_keeps_a_skill_of_a_slower_source_selected(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """F5 shows the folder's skills before the slower server answers: the server skill
    that was selected is selected again when it arrives, not the first row."""
    window = make_window([folder_spec(skills_folder), hostile_spec("slow", "late")])
    skill = next(s for s in window.controller.catalog.skills if s.origin.label == "late")
    first = window.proxy.index(0, 0)
    assert window.select_skill(skill.id) and window.table.currentIndex() != first
    for _ in range(2):
        window.actions_.refresh()
        wait_idle(qtbot, window)
        assert window.current_skill() is not None
        assert window.current_skill().id == skill.id

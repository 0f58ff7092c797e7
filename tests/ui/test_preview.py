"""The preview (P3): nothing shown before verification; Markdown without raw HTML;
nothing loaded; links never followed by the view."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextDocument, QTextOption

from desktop.ui.library.skill_table_model import COL_VERIFICATION
from desktop.ui.page.markdown_render import render_markdown
from desktop.ui.page.safe_browser import SafeTextBrowser

from .conftest import folder_spec, wait_idle

ALPHA = "local:alpha-notes/SKILL.md"


def _open_alpha(window: Any) -> None:
    assert window.select_skill(ALPHA)
    window.tabs.setCurrentWidget(window.preview)


def _verification_cell(window: Any, skill_id: str) -> str:
    row = window.table_model.row_of(skill_id)
    return window.table_model.index(row, COL_VERIFICATION).data()


def test_nothing_is_shown_before_verification(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)], start=False)
    # What the pane shows before any read: the automatic read of the selected local
    # skill is held off for this test, however long loading the sources takes.
    window.auto_read.setInterval(3_600_000)
    window.start()
    wait_idle(qtbot, window)
    _open_alpha(window)
    p = window.preview
    assert p.status.text() == "Read from its folder and checked before it is shown."
    # The precise words are in the tooltip: the file, its size and digest, where from.
    tip = p.status.toolTip()
    assert tip.startswith("SKILL.md\n") and "sha256:" in tip and "from local (folder" in tip
    assert p.rendered.toPlainText() == "" and p.raw.toPlainText() == ""
    assert p.fetch_button.isEnabled()
    assert _verification_cell(window, ALPHA) == "not read yet"


def test_fetch_shows_rendered_and_raw_with_html_escaped(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    _open_alpha(window)
    p = window.preview
    qtbot.mouseClick(p.fetch_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert "Checked: matches what the source listed" in p.status.text()
    rendered = p.rendered.toPlainText()
    assert "Alpha" in rendered
    assert "<script>alert('x')</script>" in rendered  # shown as text, not interpreted
    assert "<b>raw</b>" in rendered
    assert "[image not loaded: logo → logo.png]" in rendered
    assert "name: alpha-notes" in p.raw.toPlainText()  # the raw view has the whole file
    assert p.rendered.requested == []  # nothing was asked to load
    assert _verification_cell(window, ALPHA) == "1 of 3 files verified"


def test_links_open_listed_files_verified_and_show_the_rest(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    window = make_window([folder_spec(skills_folder)])
    _open_alpha(window)
    p = window.preview
    p.follow_link("https://example.com/x")
    assert "Link not opened: https://example.com/x" in p.link_note.text()
    p.follow_link("../beta-tools/SKILL.md")
    assert "outside the skill" in p.link_note.text()
    assert p.uri == "SKILL.md"
    # A listed file opens in the Files tab, read and checked there.
    files = window.page.file_view
    p.follow_link("references/guide.md")
    wait_idle(qtbot, window)
    assert window.tabs.currentWidget() is window.page.files_tab
    assert files.uri == "references/guide.md"
    assert window.page.files.currentItem().text(0) == "guide.md"
    assert "Checked: matches what the source listed" in files.status.text()
    assert "Step one." in files.text.toPlainText()
    assert p.uri == "SKILL.md"  # the Overview keeps the skill's body
    p.show_skill(p.skill, "references/guide.md")
    p.follow_link("../logo.png")  # relative to references/guide.md
    wait_idle(qtbot, window)
    assert files.uri == "logo.png"
    assert "binary file" in files.text.toPlainText()


def test_changed_bytes_are_not_shown(make_window: Any, skills_folder: Path, qtbot: Any) -> None:
    window = make_window([folder_spec(skills_folder)])
    skill_md = skills_folder / "alpha-notes" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nInjected line after the listing.\n")
    _open_alpha(window)
    window.preview.fetch()
    wait_idle(qtbot, window)
    p = window.preview
    assert p.status.text().startswith("Not shown:")
    assert (
        p.status.text()
        == "Not shown: SKILL.md differs from what the source listed; point here for how."
    )
    assert "expected" in p.status.toolTip()  # the precise words: sizes and digests
    assert "Injected" not in p.raw.toPlainText() + p.rendered.toPlainText()
    assert window.notifier.last("error") is not None
    assert _verification_cell(window, ALPHA) == "size-mismatch"


def test_safe_browser_loads_nothing(qtbot: Any, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n")
    browser = SafeTextBrowser()
    qtbot.addWidget(browser)
    url = QUrl.fromLocalFile(str(secret))
    answer = browser.loadResource(QTextDocument.ResourceType.ImageResource.value, url)
    assert answer.width() == 1 and answer.height() == 1  # a blank pixel, not the file
    with qtbot.assertNotEmitted(browser.sourceChanged):
        browser.setSource(url)
    assert browser.source().isEmpty()
    assert browser.openLinks() is False and browser.openExternalLinks() is False


def test_markdown_escapes_raw_html() -> None:
    html = render_markdown('<iframe src="https://e.com"></iframe>\n\n<img src=x onerror=y>')
    assert "<iframe" not in html and "&lt;iframe" in html
    assert "<img" not in html


def test_markdown_drops_titles_and_shows_referenced_controls_as_codes() -> None:
    """A link title becomes a rich-text tooltip Qt renders (loading images); a character
    reference reaches Qt as the character itself, after the escaping of bidi controls."""
    html = render_markdown(
        "[hover](http://e.com \"<img src='file:///x.png'> <b>BIG</b>\") "
        "&#x202E;gnp.exe &#27;[31m &rlm;x &amp; &lt;b&gt; &eacute;"
    )
    assert "title" not in html and "BIG" not in html
    assert "\\u202egnp.exe" in html and "\\u001b[31m" in html and "\\u200fx" in html
    assert "&amp; &lt;b&gt; &eacute;" in html


def _preview_text(make_window: Any, qtbot: Any, folder: Path, body: str) -> Any:
    skill = folder / "hostile"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: hostile\ndescription: Hostile body.\n---\n{body}", encoding="utf-8"
    )
    window = make_window([folder_spec(folder)])
    assert window.select_skill("local:hostile/SKILL.md")
    window.tabs.setCurrentWidget(window.preview)
    qtbot.mouseClick(window.preview.fetch_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    return window.preview


def test_bodies_too_costly_to_render_show_their_raw_text_at_once(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    """A 12 KB body of nested brackets held the window for 14 s, a 5 MB line for ever,
    300 nested lists gave an empty pane and an error: each shows the raw text with the
    reason, and a long unbroken run is wrapped anywhere (word-boundary wrapping of a
    long run takes seconds)."""
    cases = {
        "brackets": ("[" * 6000 + "x" + "]" * 6000, "brackets nested 6,000 deep"),
        "lists": ("".join("\t" * i + "- x\n" for i in range(300)), "nested too deeply"),
        "table": ("| a | b |\n|---|---|\n" + "| x | y |\n" * 3000, "3,002 table rows"),
        "large": ("words and more words\n" * 8000, "164.1 KiB is more than the 128.0 KiB"),
        "wide": (("|" + " x |" * 400 + "\n") * 30, "tables of 12,030 cells"),
        # Inside every budget, and quadratic for markdown: stopped after its 2 s.
        "flat-links": ("[a](b " * 20_000, "it took more than 2 s to render"),
    }
    for name, (body, reason) in cases.items():
        preview = _preview_text(make_window, qtbot, tmp_path / name, body)
        assert "Checked: matches what the source listed" in preview.status.text()
        shown = preview.rendered.toPlainText()
        # On a loaded machine markdown may reach its 2 s stop before the nesting error.
        stopped = name == "lists" and "Not rendered: it took more than 2 s" in shown
        assert f"Not rendered: {reason}" in shown or stopped, name
        assert body[:200] in preview.raw.toPlainText(), name
    preview = _preview_text(make_window, qtbot, tmp_path / "run", "A" * 300_000 + "\n")
    assert "Not rendered" in preview.rendered.toPlainText()  # 293 KiB: over the budget
    assert "A" * 1000 in preview.raw.toPlainText()
    preview = _preview_text(make_window, qtbot, tmp_path / "short-run", "B" * 5000 + "\n")
    assert preview.rendered.wordWrapMode() == QTextOption.WrapMode.WrapAnywhere
    assert "B" * 5000 in preview.rendered.toPlainText()


def test_a_render_outliving_its_window_ends_quietly() -> None:
    """The window closed while a body was rendering: the render's result has nowhere to
    go, and must not end in an exception of its thread."""
    import asyncio

    from desktop.ui.page.markdown_render import render_markdown_bounded

    failures: list[Any] = []
    before = threading.excepthook
    threading.excepthook = failures.append
    try:

        async def start() -> asyncio.Task[str]:
            task = asyncio.ensure_future(render_markdown_bounded("# T\n\n" + "word " * 20_000))
            await asyncio.sleep(0)
            return task

        loop = asyncio.new_event_loop()
        task = loop.run_until_complete(start())
        task.cancel()  # as the window's tasks are when it closes
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        for thread in threading.enumerate():
            if thread.name == "markdown-render":
                thread.join(30)
    finally:
        threading.excepthook = before
    assert failures == []


def test_a_slow_render_of_a_file_left_behind_does_not_overwrite_the_next(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    """The user previews a body that renders slowly, then another skill: the first
    render's end (stopped, or finished) must not replace what the second shows."""
    folder = tmp_path / "skills"
    for name, body in (("slow", "[a](b " * 20_000), ("quick", "# Quick\n\nShown.\n")):
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {name}.\n---\n{body}\n", encoding="utf-8"
        )
    window = make_window([folder_spec(folder)])

    def rendering() -> bool:
        return any(t.name == "markdown-render" for t in threading.enumerate())

    assert window.select_skill("local:slow/SKILL.md")
    window.actions_.preview_current()
    qtbot.waitUntil(rendering)  # the slow body is being rendered
    assert window.select_skill("local:quick/SKILL.md")
    window.actions_.preview_current()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: not rendering(), timeout=30_000)  # the slow render ended
    wait_idle(qtbot, window)  # and what its end posted to the window was handled
    assert window.preview.skill.name == "quick"
    assert "Shown." in window.preview.rendered.toPlainText()
    assert "Not rendered" not in window.preview.rendered.toPlainText()


def test_a_file_verified_before_a_refresh_that_changed_it_is_not_fetched_again(
    make_window: Any, skills_folder: Path, qtbot: Any
) -> None:
    """What matched the old manifest says nothing of the new one: after F5 finds the
    file changed, its verification (and the preview of the old bytes) are gone."""
    window = make_window([folder_spec(skills_folder)])
    _open_alpha(window)
    window.preview.fetch()
    wait_idle(qtbot, window)
    assert _verification_cell(window, ALPHA) == "1 of 3 files verified"
    skill_md = skills_folder / "alpha-notes" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nA line added after the preview.\n")
    # The shown skill's new entry would be read again at once: held off, to see what the
    # refresh itself left of the old verification.
    window.auto_read.setInterval(3_600_000)
    window.actions_.refresh()
    wait_idle(qtbot, window)
    assert _verification_cell(window, ALPHA) == "not read yet"
    window.select_skill(ALPHA)
    assert "matches what the source listed" not in window.detail.text()
    p = window.preview
    assert "Checked: matches what the source listed" not in p.status.text()

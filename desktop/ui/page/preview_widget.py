"""The preview: a skill's files, shown only after their bytes are checked.

Until a file is fetched the pane says what will be fetched and from where, and a
button fetches it. A verified ``SKILL.md`` is shown rendered (Markdown, raw HTML
escaped, nothing loaded) beside its raw text. Supporting files open verified: text
is shown, binary is described. Links are never followed by the view: a listed file
opens here, verified; another server's skill needs a confirmation naming both
servers; anything else is shown, not opened.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.core.freshness import listing_changes
from desktop.core.manifest import format_size
from desktop.core.model import DYNAMIC, Problem, Skill
from desktop.core.problem_lines import problem_lines
from desktop.core.states import Severity, Verification, member
from desktop.core.verify import MISMATCHES, FileVerification
from desktop.core.visible import cut, visible
from desktop.session.content_reader import ReadResult
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.code_view import CodeView
from desktop.ui.page.markdown_render import (
    NotRendered,
    escape,
    has_long_run,
    render_markdown_bounded,
    render_problem,
)
from desktop.ui.page.preview_links import FILE, SKILL, resolve_link
from desktop.ui.page.safe_browser import SafeTextBrowser
from desktop.ui.widgets.plain_label import PlainLabel

Confirm = Callable[[str], bool]
TEXT_LIMIT = 2 * 1024 * 1024
# The raw text goes in by pieces, the window answering between them: Qt builds a
# plain-text view in time growing with its lines (200,000 short lines took 3 s at once).
RAW_STEP_LINES = 2000
RAW_STEP_CHARS = 128 * 1024
# Qt lays out a line in one piece, in time growing with its length (2 MB: 5 s): the raw
# view breaks a longer line into lines of this many characters.
RAW_LINE = 10_000


_LONG_LINE_RE = re.compile(rf"[^\n]{{{RAW_LINE + 1}}}")


def has_long_line(text: str) -> bool:
    return _LONG_LINE_RE.search(text) is not None


def _break_long_lines(text: str) -> str:
    """``text`` with every line over :data:`RAW_LINE` characters cut into such lines."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(line[i : i + RAW_LINE] for i in range(0, max(len(line), 1), RAW_LINE))
    return "\n".join(out)


def describe_binary(data: bytes) -> str | None:
    """None when ``data`` is UTF-8 text; otherwise a description of the binary."""
    if b"\x00" in data[:8192]:
        return f"binary file, {format_size(len(data))}; not shown"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return f"not UTF-8 text, {format_size(len(data))}; not shown"
    return None


def verified_head(vf: FileVerification, size: int) -> str:
    """What the status line says of bytes shown: checked, or not checkable (dynamic).
    The precise terms are in :func:`verified_detail`, for a tooltip."""
    if vf.state == DYNAMIC:
        return "Unverified: the server publishes no size or digest to check this file against."
    return "Checked: matches what the source listed (not a safety check)."


def verified_detail(vf: FileVerification, size: int) -> str:
    """The precise words behind :func:`verified_head`: the state, the URI, the size."""
    if vf.state == DYNAMIC:
        head = "Unverified: a dynamic skill, no size or SHA-256 digest published"
    else:
        head = "Verified: the size and SHA-256 digest match the entry (integrity, not safety)"
    return f"{head}\n{vf.uri}, {size:,} bytes"


def not_shown_reason(vf: FileVerification) -> str:
    """Why a file's bytes are not shown, in plain words (the precise message is for a
    tooltip): a file that differs from the listing, or one that could not be read."""
    state = member(Verification, vf.state)
    if state is not None and state.mismatch:
        return f"{vf.uri} differs from what the source listed; point here for how."
    if state is Verification.READ_ERROR:
        return f"{vf.uri} could not be read. {vf.message}"
    return vf.message


def showable(
    result: ReadResult, skill: Skill | None, status: QLabel, ask: QPushButton
) -> bytes | None:
    """``result``'s bytes when they may be shown. Otherwise ``None``: ``status`` says why,
    and ``ask`` (ask the server for its current entry) is offered after a server skill's
    mismatch. Bytes that may be shown need no fresh entry: ``ask`` is hidden."""
    vf = result.verification
    if result.data is None or not vf.usable:
        status.setText(f"Not shown: {not_shown_reason(vf)}")
        status.setToolTip(vf.message)  # the precise words: sizes, digests, fields
        ask.setVisible(vf.state in MISMATCHES and skill is not None and skill.kind_info.asks_again)
        return None
    ask.setVisible(False)
    status.setToolTip("")  # no longer the reason a read was refused
    return result.data


async def fill_plain(view: QPlainTextEdit, text: str, wanted: Callable[[], bool]) -> bool:
    """Show ``text`` in ``view`` by pieces, the window answering between them (controls
    as codes, lines over :data:`RAW_LINE` characters broken). False when ``wanted()``
    turned false meanwhile (another file was asked for)."""
    view.setPlainText("")
    cursor = QTextCursor(view.document())
    start, first = 0, True
    while start < len(text):
        end = start
        for _ in range(RAW_STEP_LINES):
            end = text.find("\n", end, start + RAW_STEP_CHARS)
            if end < 0:
                end = min(len(text), start + RAW_STEP_CHARS)
                break
            end += 1
        if text[end - 1 : end] == "\r":
            end += 1  # a CRLF stays whole
        piece = visible(text[start:end])
        if has_long_line(piece):
            piece = _break_long_lines(piece)
        if not first:
            await asyncio.sleep(0)
            if not wanted():
                return False
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)
        start, first = end, False
    view.moveCursor(QTextCursor.MoveOperation.Start)
    return True


def shown_line(text: str, line: int) -> int:
    """The line of the view where ``text``'s 1-based ``line`` starts, once lines over
    :data:`RAW_LINE` characters (as shown) are broken."""
    head = text.split("\n", line - 1)[: line - 1]
    return 1 + sum(max(1, -(-len(visible(part)) // RAW_LINE)) for part in head)


def problem_marks(text: str, problems: Iterable[Problem]) -> tuple[dict[int, str], dict[int, str]]:
    """The view's lines marked with the problems placed on them, in words, and each
    line's level (``error``, ``warning`` or ``info``: the gravest there)."""
    marks: dict[int, list[str]] = {}
    levels: dict[int, Severity] = {}
    long_lines = has_long_line(text)
    for line, p in problem_lines(text, problems):
        at = shown_line(text, line) if long_lines else line
        marks.setdefault(at, []).append(f"{p.level.label}: {cut(p.message)}")
        level = p.level.mark
        if at not in levels or level.rank < levels[at].rank:
            levels[at] = level
    return {line: "\n".join(words) for line, words in marks.items()}, dict(levels)


def marks_note(marks: dict[int, str]) -> str:
    """One line saying which lines are marked, for the eye that does not hover."""
    if not marks:
        return ""
    lines = sorted(marks)
    shown = ", ".join(str(n) for n in lines[:12]) + (" …" if len(lines) > 12 else "")
    word = "line" if len(lines) == 1 else "lines"
    return (
        f"⚠ Problems and notes on {word} {shown}: marked in the margin; "
        "point at a line to read them."
    )


class PreviewWidget(QWidget):
    skillRequested = Signal(str)  # open another skill (after confirmation)
    fileRequested = Signal(str, str)  # skill id, file uri: a link to one of its files
    fetchStarted = Signal()  # a read was asked for (by the user or the window)
    # A local skill whose entry could not be made: its SKILL.md shown as text, unchecked;
    # the UnlistedText (with its folder's files), for the Files tab.
    unlistedShown = Signal(object)

    def __init__(
        self,
        controller: CatalogController,
        confirm: Confirm,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.confirm = confirm
        self.skill: Skill | None = None
        self.uri: str = ""
        self.result: ReadResult | None = None
        self._keeping = False  # the kept copy of a file checked earlier is being read
        self.unlisted: object | None = None  # the UnlistedText shown, for a broken entry
        self.pending_problem: Problem | None = None  # to select once the text is shown
        self.status = PlainLabel("Select a skill, then press Preview.")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setAccessibleName("Preview status")
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.fetch_button = QPushButton("Fetc&h and verify")
        self.fetch_button.setEnabled(False)
        self.fetch_button.clicked.connect(lambda _=False: self.fetch())
        self.refresh_button = QPushButton("Ask the server agai&n")
        self.refresh_button.setAccessibleName("Ask the server again: for the skill's current entry")
        self.refresh_button.setToolTip(
            "The files differ from the entry listed: ask the server for its current entry "
            "(skills/get), then read the file again against it"
        )
        self.refresh_button.setVisible(False)
        self.refresh_button.clicked.connect(lambda _=False: self.refresh_entry())
        self.back_button = QPushButton("SKILL.md")
        self.back_button.setAccessibleName("Back to SKILL.md")
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self._back)
        self.link_note = PlainLabel("")
        self.link_note.setWordWrap(True)
        self.link_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.link_note.setAccessibleName("Link not opened")
        self.link_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.rendered = SafeTextBrowser(self)
        self.rendered.setAccessibleName("Rendered preview")
        self.rendered.linkActivated.connect(self.follow_link)
        self.raw = CodeView(self)
        self.raw.setObjectName("sourceText")
        self.raw.setAccessibleName("Raw text")
        # Which lines of the raw text are marked with a problem (shown above it).
        self.raw_note = PlainLabel("")
        self.raw_note.setObjectName("sourceMarks")
        self.raw_note.setWordWrap(True)
        self.raw_note.setAccessibleName("Problems marked in the text")
        self.raw_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.raw_note.setVisible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("previewSplitter")
        self.splitter.addWidget(self.rendered)
        self.splitter.addWidget(self.raw)
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.back_button)
        top.addWidget(self.fetch_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.link_note)
        layout.addWidget(self.splitter, 1)

    # -- what is shown --------------------------------------------------------

    def show_skill(self, skill: Skill | None, uri: str | None = None) -> None:
        self.skill = skill
        self.result = None
        self._clear()
        self.link_note.setText("")
        self.refresh_button.setVisible(False)
        if skill is None:
            self.uri = ""
            self.status.setText("Select a skill, then press Preview.")
            self.status.setToolTip("")
            self.fetch_button.setEnabled(False)
            self.back_button.setEnabled(False)
            return
        self.uri = uri or self.controller.reader.skill_md_uri(skill)
        self.back_button.setEnabled(self.uri != self.controller.reader.skill_md_uri(skill))
        self.status.setText(self.pending_text())
        self.status.setToolTip(self.pending_detail())
        self.fetch_button.setEnabled(skill.loadable)
        self.unlisted = None
        if not skill.loadable and skill.kind_info.folder_on_disk and skill.path:
            # The author's own file, whose entry could not be made: shown as text, on
            # this computer, said to be unchecked (a server's bytes never are).
            self.controller.spawn(self.show_unlisted(), f"reading {skill.path} as text")

    async def show_unlisted(self) -> None:
        """Show the SKILL.md of a local skill whose entry could not be made as the text it
        is, its problems marked on their lines, and say it is checked against nothing."""
        skill = self.skill
        if skill is None:
            return
        found = await self.controller.read_unlisted(skill)
        if self.skill is not skill or found is None or self.result is not None:
            return
        if not await fill_plain(self.raw, found.text, lambda: self.skill is skill):
            return
        self.unlisted = found
        self._set_marks(*problem_marks(found.text, skill.problems))
        reasons = skill.invalid_reasons
        stop = "" if reasons.endswith((".", "!", "?")) else "."
        cut_note = " (its first megabyte)" if found.cut else ""
        self.status.setText(
            f"{skill.name} cannot be loaded: {reasons}{stop} Its SKILL.md is shown as text"
            f"{cut_note}, as it is on this computer, not checked against a listing."
        )
        self.rendered.setHtml(
            f"<p><b>This skill cannot be loaded.</b></p><p>{escape(reasons)}</p>"
            "<p>Its SKILL.md is in the <i>Source</i> tab as it is on disk, the line with "
            "the problem marked. Fix it in your editor (right-click the skill: <i>Open in "
            "editor</i>); the page follows the file when it is saved.</p>"
        )
        self.unlistedShown.emit(found)
        self._select_pending()

    def go_to_problem(self, problem: Problem) -> bool:
        """Select the line of the raw text ``problem`` is placed on; when the text is not
        shown yet, once it is (reading it if it is not being read). False when the
        problem has no line."""
        text = self.raw.toPlainText()
        if text:
            return self._select_problem(problem)
        self.pending_problem = problem
        if self.skill is not None and self.skill.loadable and self.result is None:
            self.fetch()
        return True

    def _select_pending(self) -> None:
        problem, self.pending_problem = self.pending_problem, None
        if problem is not None:
            self._select_problem(problem)

    def _select_problem(self, problem: Problem) -> bool:
        text = self.raw.toPlainText()
        placed = problem_lines(text, [problem])
        if not placed:
            return False
        line = placed[0][0]
        at = shown_line(text, line) if has_long_line(text) else line
        block = self.raw.document().findBlockByNumber(at - 1)
        if not block.isValid():
            return False
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        self.raw.setTextCursor(cursor)
        self.raw.centerCursor()
        self.raw.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def follow_entry(self, skill: Skill) -> None:
        """The catalog now holds ``skill`` for the shown one (a relisting, a refresh).

        The same entry keeps what is shown. A changed one starts over on the same file
        if the new entry still lists it: bytes judged against the old entry say nothing
        of the new one.
        """
        old = self.skill
        if old is None or old is skill or old.id != skill.id:
            return
        if not listing_changes([old], [skill]):
            self.skill = skill
            return
        kept = skill.is_dynamic or skill.file(self.uri) is not None
        self.show_skill(skill, self.uri if kept else None)

    def pending_text(self) -> str:
        skill = self.skill
        assert skill is not None
        if not skill.loadable:
            return f"{skill.qualified_name} cannot be loaded. {skill.invalid_reasons}"
        if self.checked_earlier():
            return (
                f"{self.uri} was checked earlier and matched what the source listed; "
                "showing the copy kept here…"
            )
        if skill.kind_info.runs_code:
            return (
                "Read from the server and checked before it is shown: "
                "press Read from server to see it."
            )
        return "Read from its folder and checked before it is shown."

    def pending_detail(self) -> str:
        """The precise words behind :meth:`pending_text`: what is read, from where, and
        what it is checked against (a tooltip)."""
        skill = self.skill
        assert skill is not None
        if not skill.loadable:
            return f"Entry state: {skill.state}"
        f = skill.file(self.uri)
        if f is not None:
            what = f"{self.uri}\n{f.size:,} bytes, {f.digest}"
        else:
            what = f"{self.uri}\ndynamic: no size or digest published"
        return f"{what}\nfrom {skill.origin.describe()}"

    def _button_words(self) -> str:
        return self.fetch_button.text().replace("&", "")

    def checked_earlier(self) -> bool:
        """Whether the shown file was read and checked earlier (its state says so, as
        the page's pill does) though nothing of it is shown here yet."""
        skill = self.skill
        if skill is None or self.result is not None:
            return False
        state = self.controller.file_state(skill.id, self.uri)
        return state is not None and state.usable

    async def show_kept(self) -> None:
        """Show the copy kept here of a server file checked earlier (nothing is asked of
        the server), so the pane agrees with the page's Verified pill; without a kept
        copy the pane says how to show it again."""
        skill, uri = self.skill, self.uri
        if skill is None or self._keeping or not self.checked_earlier():
            return
        self._keeping = True
        try:
            result = await self.controller.read_kept(skill, uri)
        finally:
            self._keeping = False
        now = self.skill
        if now is None or now.id != skill.id or self.uri != uri or self.result is not None:
            return  # the user moved on, or a read came first
        if listing_changes([skill], [now]):
            return  # checked against an entry since replaced
        if result is None:
            self.status.setText(
                f"{uri} was checked earlier, but no copy of it is kept here: "
                "Read from server to show it again."
            )
            return
        self.result = result
        await self._show_result(result)

    def _clear(self) -> None:
        self.rendered.setHtml("")
        self.raw.setPlainText("")
        self._set_marks({})

    def _set_marks(self, marks: dict[int, str], levels: dict[int, str] | None = None) -> None:
        self.raw.set_marks(marks, levels)
        self.raw_note.setText(marks_note(marks))
        self.raw_note.setVisible(bool(marks))

    # -- fetching --------------------------------------------------------------

    def fetch(self) -> None:
        """Fetch and verify the shown file (a task; the button and shortcuts call this)."""
        if self.skill is None:
            return
        if not self.skill.loadable:
            # Nothing is asked of an entry that cannot be loaded, whichever way the
            # preview was asked for (Enter, Ctrl+P, a file of the detail pane): the pane
            # says why, rather than a new message at every press.
            self.status.setText(self.pending_text())
            return
        self.fetchStarted.emit()
        self.controller.spawn(self.fetch_now(), f"fetching {self.uri}")

    async def fetch_now(self) -> ReadResult | None:
        skill, uri = self.skill, self.uri
        if skill is None:
            return None
        self.fetch_button.setEnabled(False)
        where = "the server" if skill.kind_info.runs_code else "its folder"
        self.status.setText(f"Reading from {where} and checking…")
        self.status.setToolTip(f"{uri}\nfrom {skill.origin.describe()}")
        try:
            result = await self.controller.read(skill, uri)
        except asyncio.CancelledError:
            if self.skill is not None and self.skill.id == skill.id and self.uri == uri:
                self.status.setText(
                    f"Cancelled: nothing read of {uri}. Press {self._button_words()} to try again."
                )
            raise
        finally:
            current = self.skill
            self.fetch_button.setEnabled(current is not None and current.loadable)
        if self.skill is None or self.skill.id != skill.id or self.uri != uri:
            return result  # the user moved on; the result is kept in the controller
        if listing_changes([skill], [self.skill]):
            return result  # read against an entry since replaced
        self.result = result
        await self._show_result(result)
        return result

    async def _show_result(self, result: ReadResult) -> None:
        data = showable(result, self.skill, self.status, self.refresh_button)
        if data is None:
            self._clear()
            return
        vf = result.verification
        self.status.setText(verified_head(vf, len(data)))
        self.status.setToolTip(verified_detail(vf, len(data)))
        binary = describe_binary(data)
        if binary is not None:
            self.rendered.setHtml(f"<p><i>{escape(binary)}</i></p>")
            self.raw.setPlainText(binary)
            return
        text = data[:TEXT_LIMIT].decode("utf-8", "replace")
        if not await fill_plain(self.raw, text, lambda: self.result is result):
            return  # another file was asked for meanwhile
        if result.parsed is not None and self.skill is not None:
            self._set_marks(*problem_marks(text, self.skill.problems))  # SKILL.md's problems
            self._select_pending()
        if has_long_line(text):
            self.status.setText(
                self.status.text()
                + f"; lines over {RAW_LINE:,} characters are broken in the raw text"
            )
        long_run = has_long_run(text)
        source = result.parsed.body if result.parsed is not None else text
        try:
            if result.parsed is not None or vf.uri.lower().endswith((".md", ".markdown")):
                self.rendered.setHtml("<p><i>Rendering…</i></p>")
                html = await render_markdown_bounded(source)
            elif (problem := render_problem(text, markdown=False)) is not None:
                raise NotRendered(problem)
            else:
                html = f"<pre>{escape(text)}</pre>"
        except NotRendered as exc:
            html = f"<p><i>Not rendered: {escape(str(exc))}. The raw text is beside.</i></p>"
            long_run = False  # the pane holds this sentence only
        if self.result is not result:
            return  # another file was asked for while this one rendered
        wrap = QTextOption.WrapMode
        self.rendered.setWordWrapMode(
            wrap.WrapAnywhere if long_run else wrap.WrapAtWordBoundaryOrAnywhere
        )
        self.rendered.setHtml(visible(html))

    # -- links ------------------------------------------------------------------

    def follow_link(self, href: str) -> None:
        skill = self.skill
        if skill is None:
            return
        target = resolve_link(skill, href, self.controller.catalog, self.uri)
        if target.kind == FILE:
            # The window opens it in the Files tab, read and checked there.
            self.link_note.setText("")
            self.fileRequested.emit(skill.id, target.uri)
            return
        if target.kind == SKILL:
            other = self.controller.catalog.get(target.uri)
            if other is None:
                return
            if target.other_server is not None:
                question = (
                    f"This link in {skill.qualified_name} (server {skill.origin.label}) points "
                    f"to {other.qualified_name} on another server, {target.other_server} "
                    f"({other.origin.describe()}). Fetch it from {target.other_server}?"
                )
                if not self.confirm(question):
                    self.link_note.setText(f"Not opened: {href} (on server {target.other_server})")
                    return
            self.skillRequested.emit(other.id)
            return
        self.link_note.setText(f"Link not opened: {href} — {target.reason}")

    def refresh_entry(self) -> None:
        """After a mismatch: ask the server for the skill's current entry."""
        skill = self.skill
        if skill is None or not skill.kind_info.asks_again:
            return

        async def work() -> None:
            fresh = await self.controller.open_uri(skill.origin.label, skill.uri, refresh=True)
            if fresh is not None:
                self.skillRequested.emit(fresh.id)

        self.controller.spawn(work(), "refreshing the entry")

    def _back(self) -> None:
        if self.skill is not None:
            self.show_skill(self.skill)

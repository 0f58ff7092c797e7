"""Markdown to HTML for the preview, with the body's own HTML shown as text.

Raw HTML in a skill body is escaped, not interpreted; images become a visible
placeholder naming their target (nothing is loaded); every link keeps its target as
written so the preview can decide what a click does. The markdown package is loaded
on the first preview, not when the window opens.
"""

from __future__ import annotations

import contextlib
import html
import re
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

from desktop.core.manifest import format_size
from desktop.core.visible import visible

# Budgets keeping a render to a fraction of a second (markdown and Qt's layout both
# grow faster than the text on some shapes): beyond them the raw text alone is shown.
MAX_RENDER_BYTES = 128 * 1024
MAX_BRACKET_DEPTH = 256  # nested [ ... ]: markdown's link search is quadratic in it
MAX_TABLE_ROWS = 2000
MAX_TABLE_CELLS = 10_000  # Qt lays out a wide table in time growing with its cells
# What Qt lays out, weighed in microseconds of the window's thread as measured on a
# small machine: a block (paragraph, heading, line of code, table row), a list item
# (Qt numbers list items in time growing with the list: 20,000 took 27 s) and a table
# cell. The HTML handed to Qt costs at most LAYOUT_BUDGET of them, about 150 ms:
# counted on the document markdown built, so a table without leading "|", or one in a
# quote or a list item, is counted as any other.
BLOCK_COST = 25
LIST_ITEM_COST = 120
CELL_COST = 350
LAYOUT_BUDGET = 150_000
_BLOCK_RE = re.compile(r"<(?:p|h[1-6]|blockquote|tr|hr|pre)[ >/]")
_CELL_RE = re.compile(r"<t[dh][ >]")
_PRE_RE = re.compile(r"<pre[ >].*?</pre>", re.DOTALL)
# What the budgets above cannot foresee (markdown is quadratic on some flat shapes too,
# "[a](b " repeated): a render running longer is stopped, and the raw text shown.
RENDER_SECONDS = 2.0
# An unbroken run this long is wrapped anywhere: wrapping at word boundaries searches
# for one, which takes seconds on a long enough run (13 s for 200,000 characters).
LONG_RUN = 2000
_LONG_RUN_RE = re.compile(rf"\S{{{LONG_RUN}}}")
_REFERENCE_RE = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9A-Fa-f]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});")


class NotRendered(Exception):
    """A body the preview shows as raw text only; the message says why."""


def render_problem(body: str, *, markdown: bool = True) -> str | None:
    """Why ``body`` is not rendered (over a budget), or ``None``. Plain text (not
    ``markdown``) is laid out as one preformatted block: its size and lines count."""
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > MAX_RENDER_BYTES:
        return f"{format_size(size)} is more than the {format_size(MAX_RENDER_BYTES)} rendered"
    if not markdown:
        return text_layout_problem(body)
    depth = deepest = 0
    for char in body:
        if char == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "]" and depth:
            depth -= 1
    if deepest > MAX_BRACKET_DEPTH:
        return f"brackets nested {deepest:,} deep (more than {MAX_BRACKET_DEPTH} are not rendered)"
    table = [line for line in body.splitlines() if line.lstrip().startswith("|")]
    if len(table) > MAX_TABLE_ROWS:
        return f"{len(table):,} table rows (more than {MAX_TABLE_ROWS:,} are not rendered)"
    cells = sum(line.count("|") for line in table)
    if cells > MAX_TABLE_CELLS:
        return f"tables of {cells:,} cells (more than {MAX_TABLE_CELLS:,} are not rendered)"
    return None


def layout_problem(blocks: int, items: int, cells: int) -> str | None:
    """Why a document of ``blocks`` blocks, ``items`` list items and ``cells`` table
    cells is not handed to Qt (more than it lays out in a fraction of a second), or
    ``None``."""
    cost = blocks * BLOCK_COST + items * LIST_ITEM_COST + cells * CELL_COST
    if cost <= LAYOUT_BUDGET:
        return None
    parts = [(blocks, "paragraphs and lines"), (items, "list items"), (cells, "table cells")]
    counted = ", ".join(f"{n:,} {what}" for n, what in parts if n)
    return f"{counted} are more than the preview lays out at once"


def text_layout_problem(text: str) -> str | None:
    """:func:`layout_problem` for plain text shown as one preformatted block."""
    return layout_problem(text.count("\n") + 1, 0, 0)


def _layout_counts(out: str) -> tuple[int, int, int]:
    """Blocks, list items and table cells of markdown's HTML (the body's own HTML is
    escaped: every tag in it is markdown's). A line of a code block is a block."""
    blocks = len(_BLOCK_RE.findall(out))
    blocks += sum(m.group(0).count("\n") for m in _PRE_RE.finditer(out))
    return blocks, out.count("<li"), len(_CELL_RE.findall(out))


class _Stopped(Exception):
    """Raised inside a render that ran out of time."""


async def render_markdown_bounded(body: str, seconds: float = RENDER_SECONDS) -> str:
    """:func:`render_markdown` on a worker thread, stopped after ``seconds``: the window
    goes on meanwhile, and a render that takes longer raises :class:`NotRendered`."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    # A waiter gone (the user moved on) leaves the outcome unread: it is read here.
    done.add_done_callback(lambda f: f.cancelled() or f.exception())

    def settle(value: str | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value or "")

    def hand_over(value: str | None, error: BaseException | None) -> None:
        # A RuntimeError: the window closed meanwhile, nobody waits for this render.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, value, error)

    def work() -> None:
        try:
            html_out = render_markdown(body)
        except _Stopped:
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting task
            hand_over(None, exc)
            return
        hand_over(html_out, None)

    worker = threading.Thread(target=work, name="markdown-render", daemon=True)
    # One preview is shown at a time: a render still running for an earlier one (the
    # user moved on) is stopped, not left to share the processor with this one.
    earlier = _running[0] if _running else None
    if earlier is not None and earlier.is_alive():
        _stop(earlier)
    _running[:] = [worker]
    worker.start()
    try:
        return await asyncio.wait_for(asyncio.shield(done), seconds)
    except TimeoutError:
        _stop(worker)
        raise NotRendered(f"it took more than {seconds:g} s to render") from None


_running: list[Any] = []  # the render thread started last


def _stop(worker: Any) -> None:
    """End a render thread at its next Python instruction (CPython; elsewhere the thread
    finishes in its own time, its result unused)."""
    import ctypes

    with contextlib.suppress(AttributeError, TypeError, ValueError):
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(worker.ident), ctypes.py_object(_Stopped)
        )


def has_long_run(text: str) -> bool:
    """Whether ``text`` holds an unbroken run the view should wrap anywhere."""
    return _LONG_RUN_RE.search(text) is not None


def _visible_reference(match: re.Match[str]) -> str:
    """A character reference to a control or bidirectional formatting character, as its
    code: Qt decodes references after :func:`visible` has looked at the text."""
    ref = match.group(0)
    if ref.startswith("&#"):  # decoded as Qt does: html.unescape drops some controls
        number = ref[3:-1] if ref[2] in "xX" else ref[2:-1]
        code = int(number, 16 if ref[2] in "xX" else 10)
        char = chr(code) if code <= 0x10FFFF else "\ufffd"
    else:
        char = html.unescape(ref)
    shown = visible(char)
    return ref if shown == char else html.escape(shown)


def _images_as_text(root: ET.Element) -> None:
    """Replace every image with a visible placeholder naming its target."""
    for parent in root.iter():
        for i, child in enumerate(list(parent)):
            if child.tag == "img":
                alt = child.get("alt") or "image"
                src = child.get("src") or ""
                span = ET.Element("span")
                span.set("class", "image")
                span.text = f"[image not loaded: {alt} → {src}]"
                span.tail = child.tail
                parent.remove(child)
                parent.insert(i, span)


@cache
def _extensions() -> tuple[Any, Any]:
    from markdown.extensions import Extension
    from markdown.treeprocessors import Treeprocessor

    class EscapeHtml(Extension):
        """Drop the raw-HTML preprocessor and inline pattern: HTML stays literal text."""

        def extendMarkdown(self, md: Any) -> None:
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")

    class ImagesAsText(Treeprocessor):
        def run(self, root: ET.Element) -> None:
            _images_as_text(root)
            # A title becomes a rich-text tooltip, which Qt renders (and loads images
            # for) past the view's own refusal: titles are dropped.
            for element in root.iter():
                element.attrib.pop("title", None)

    class ImagesExtension(Extension):
        def extendMarkdown(self, md: Any) -> None:
            md.treeprocessors.register(ImagesAsText(md), "images_as_text", 0)

    return EscapeHtml, ImagesExtension


def render_markdown(body: str) -> str:
    """HTML for a skill body. Raw HTML is escaped; images are not loaded; character
    references to control or bidirectional characters are written as their codes.
    Raises :class:`NotRendered` for a body over a budget (its size, its nesting, what
    Qt would lay out) or nested too deeply."""
    import markdown

    problem = render_problem(body)
    if problem is not None:
        raise NotRendered(problem)
    escape_html, images = _extensions()
    md = markdown.Markdown(
        extensions=[escape_html(), images(), "fenced_code", "tables"], output_format="html"
    )
    try:
        out = str(md.convert(body))
    except RecursionError:
        raise NotRendered("nested too deeply to render") from None
    problem = layout_problem(*_layout_counts(out))
    if problem is not None:
        raise NotRendered(problem)
    return _REFERENCE_RE.sub(_visible_reference, out) if "&" in out else out


def escape(text: str) -> str:
    return html.escape(text, quote=True)

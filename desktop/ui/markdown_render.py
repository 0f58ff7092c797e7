"""Markdown to HTML for the preview, with the body's own HTML shown as text (P3).

Raw HTML in a skill body is escaped, not interpreted; images become a visible
placeholder naming their target (nothing is loaded); every link keeps its target as
written so the preview can decide what a click does. The markdown package is loaded
on the first preview, not when the window opens.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any


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

    class ImagesExtension(Extension):
        def extendMarkdown(self, md: Any) -> None:
            md.treeprocessors.register(ImagesAsText(md), "images_as_text", 0)

    return EscapeHtml, ImagesExtension


def render_markdown(body: str) -> str:
    """HTML for a skill body. Raw HTML is escaped; images are not loaded."""
    import markdown

    escape_html, images = _extensions()
    md = markdown.Markdown(
        extensions=[escape_html(), images(), "fenced_code", "tables"], output_format="html"
    )
    return str(md.convert(body))


def escape(text: str) -> str:
    return html.escape(text, quote=True)

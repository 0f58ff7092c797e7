"""Markdown to HTML for the preview, with the body's own HTML shown as text (P3).

Raw HTML in a skill body is escaped, not interpreted; images become a visible
placeholder naming their target (nothing is loaded); every link keeps its target as
written so the preview can decide what a click does.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor


class _EscapeHtml(Extension):
    """Drop the raw-HTML preprocessor and inline pattern: HTML stays literal text."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")


class _ImagesAsText(Treeprocessor):
    def run(self, root: ET.Element) -> None:
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


class _ImagesExtension(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.treeprocessors.register(_ImagesAsText(md), "images_as_text", 0)


def render_markdown(body: str) -> str:
    """HTML for a skill body. Raw HTML is escaped; images are not loaded."""
    md = markdown.Markdown(
        extensions=[_EscapeHtml(), _ImagesExtension(), "fenced_code", "tables"],
        output_format="html",
    )
    return md.convert(body)


def escape(text: str) -> str:
    return html.escape(text, quote=True)

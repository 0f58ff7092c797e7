"""Skills shaped like the public anthropics/skills collection (their descriptions'
facts, shortened), written as SKILL.md folders."""

from __future__ import annotations

from pathlib import Path

SKILLS = {
    "pdf": "Use for anything with PDF files: reading or extracting text and tables, "
    "merging or splitting PDFs, rotating pages, watermarks, creating PDFs, filling PDF "
    "forms, encrypting, extracting images, and OCR of scanned PDFs.",
    "pptx": "Use whenever a .pptx file is involved: creating slide decks, pitch decks or "
    "presentations; reading or extracting text from them; editing existing presentations; "
    "templates, layouts, speaker notes. Trigger when the user mentions deck, slides or "
    "presentation.",
    "xlsx": "Use when a spreadsheet file is the main input or output: open, edit or fix "
    ".xlsx, .xlsm, .csv or .tsv files (adding columns, computing formulas, formatting, "
    "charting, cleaning messy data); create a new spreadsheet; convert tabular formats.",
    "docx": "Use to create, read, edit or manipulate Word documents (.docx files): "
    "tables of contents, headings, page numbers, letterheads, tracked changes and "
    "comments, find-and-replace, reports, memos and letters as Word files.",
    "frontend-design": "Create distinctive, production-grade web interfaces: components, "
    "pages, dashboards and landing pages with polished design and layout.",
    "mcp-builder": "Guide for building MCP servers that let models use external services "
    "through well-designed tools, in Python or TypeScript.",
    "webapp-testing": "Test local web applications with Playwright: check frontend "
    "behaviour, debug the UI, capture browser screenshots and logs.",
    "algorithmic-art": "Create generative algorithmic art with p5.js: seeded randomness, "
    "flow fields and particle systems.",
}


def write(root: Path, name: str, description: str, extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description!r}\n{extra}---\n\n# {name}\n",
        encoding="utf-8",
    )
    return folder


def write_all(root: Path) -> Path:
    for name, description in SKILLS.items():
        write(root, name, description)
    return root

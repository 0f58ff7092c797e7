"""Export every stored decision (approvals and rejections) as Markdown or CSV, from the
review view or the Skill menu: the same rows as ``skill-catalog approvals --format``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QWidget

from desktop.core.audit import audit_rows, export


def ask_path(parent: QWidget) -> tuple[Path, str] | None:
    """The file to write and its format (``markdown`` or ``csv``), or ``None``."""
    path, chosen = QFileDialog.getSaveFileName(
        parent, "Export decisions", "decisions.md", "Markdown (*.md);;CSV (*.csv)"
    )
    if not path:
        return None
    fmt = "csv" if path.lower().endswith(".csv") or "CSV" in chosen else "markdown"
    return Path(path), fmt


async def export_to(controller: Any, path: Path, fmt: str) -> int:
    """Write every stored decision to ``path``; how many were written (0 on a failure,
    which is said)."""
    from desktop.core.approvals import ApprovalError

    try:
        items = await controller.approvals.records()
    except ApprovalError as exc:
        controller.notifier.error(f"export decisions: {exc.message}")
        return 0
    rows = audit_rows(items)
    text = export(rows, fmt)
    try:
        await asyncio.to_thread(path.write_text, text, encoding="utf-8")
    except OSError as exc:
        controller.notifier.error(f"export decisions: cannot write {path}: {exc}")
        return 0
    controller.notifier.info(f"exported {len(rows)} decision(s) to {path}")
    return len(rows)

"""The audit export of stored decisions: one row per approval or rejection.

Markdown for reading and CSV for a spreadsheet, from the same rows: skill, origin,
set hash, files read or not, grants, who and when. Every value is third-party text
or derived from it: a Markdown cell is text (its Markdown escaped, so it can neither
break its table nor make a link or an image), and a CSV cell that a
spreadsheet would take for a formula (``=``, ``+``, ``-``, ``@``) is quoted as text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from desktop.core.approvals import ApprovalKey, ApprovalRecord
from desktop.core.visible import one_line

FORMATS = ("markdown", "csv")
COLUMNS = (
    "decision",
    "skill",
    "origin",
    "set hash",
    "files",
    "files read",
    "tools granted",
    "scripts",
    "despite problems",
    "reason",
    "by",
    "at",
)


def origin_text(key: ApprovalKey, transport: str = "") -> str:
    if key.kind == "local":
        return f"local folder {key.uri}"
    return f"{key.label} ({transport or 'server'} {key.shown_endpoint}, third-party)"


@dataclass(frozen=True, slots=True)
class AuditRow:
    values: tuple[str, ...]

    @classmethod
    def of(cls, record: ApprovalRecord) -> AuditRow:
        read = {True: "yes", False: "no (from the listing)", None: "not recorded"}
        approved = not record.rejected
        return cls(
            (
                record.decision,
                record.skill_id,
                origin_text(record.key, record.transport),
                record.set_hash,
                str(record.file_count),
                read[record.files_read],
                ", ".join(record.grants.tools) if approved else "",
                ("allowed" if record.grants.scripts else "not allowed") if approved else "",
                "; ".join(record.despite_problems),
                record.reason,
                record.approved_by,
                record.approved_at,
            )
        )

    @classmethod
    def unreadable(cls, skill_id: str, key: ApprovalKey, why: str) -> AuditRow:
        values = ["unreadable", skill_id, origin_text(key), "", "", "", "", "", "", why]
        return cls((*values, "", ""))


def audit_rows(items: Iterable[Any]) -> list[AuditRow]:
    """The rows of stored decisions (the store's ``records()``: each with ``record``,
    or ``problem`` and ``entry`` when it could not be read)."""
    rows = []
    for item in items:
        if item.record is not None:
            rows.append(AuditRow.of(item.record))
        else:
            why = item.problem.message if item.problem else "it could not be read"
            rows.append(AuditRow.unreadable(item.entry.skill_id, item.entry.key, why))
    return rows


# Every character Markdown gives a meaning to inside a line of a table cell: link and
# image syntax (``[``, ``]``, ``(``, ``)``, ``!``), emphasis, code and the table's ``|``,
# each with the backslash escape CommonMark and Python-Markdown share; ``<`` and ``&``
# as entities, so no HTML tag, autolink (``<https://…>``) or entity is written. (A cell
# never starts a line, so what means something only there, ``#`` or ``>``, is left.)
_MD_ESCAPES = {ord(c): "\\" + c for c in "\\`*_[]()!|"}
_MD_ESCAPES |= {ord("<"): "&lt;", ord("&"): "&amp;"}


def _md_cell(value: str) -> str:
    """A value as the text of one table cell: one line, every Markdown character
    escaped, so a skill named ``![p](https://…)`` is that text, not a remote image."""
    return one_line(value).translate(_MD_ESCAPES)


def to_markdown(rows: Iterable[AuditRow], *, title: str = "Skill decisions") -> str:
    rows = list(rows)
    lines = [f"# {title}", "", f"{len(rows)} decision{'s' if len(rows) != 1 else ''}.", ""]
    lines.append("| " + " | ".join(c.capitalize() for c in COLUMNS) + " |")
    lines.append("|" + "---|" * len(COLUMNS))
    for row in rows:
        lines.append("| " + " | ".join(_md_cell(v) for v in row.values) + " |")
    return "\n".join(lines) + "\n"


def _csv_cell(value: str) -> str:
    text = one_line(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_csv(rows: Iterable[AuditRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_csv_cell(v) for v in row.values])
    return out.getvalue()


def export(rows: Iterable[AuditRow], fmt: str) -> str:
    if fmt == "markdown":
        return to_markdown(rows)
    if fmt == "csv":
        return to_csv(rows)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")

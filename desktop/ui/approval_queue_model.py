"""Skills waiting for a decision (not approved, or changed since approval)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from desktop.core.approvals import ApprovalState
from desktop.core.model import Skill
from desktop.ui.read_only_table_model import TEXT_ROLES, TOOLTIP, ReadOnlyTableModel

COLUMNS = ("Skill", "Origin", "State", "What changed")
SKILL_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ApprovalQueueModel(ReadOnlyTableModel):
    columns = COLUMNS
    answered = TEXT_ROLES | {TOOLTIP, int(SKILL_ID_ROLE)}

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[Skill, ApprovalState]] = []

    def set_rows(self, rows: list[tuple[Skill, ApprovalState]]) -> None:
        self.beginResetModel()
        order = {"changed": 0, "not-approved": 1}
        self.rows = sorted(rows, key=lambda r: (order.get(r[1].state, 2), r[0].qualified_name))
        self.endResetModel()

    def skill_at(self, row: int) -> Skill | None:
        return self.rows[row][0] if 0 <= row < len(self.rows) else None

    def row_items(self) -> list[Any]:
        return self.rows

    def text(self, item: tuple[Skill, ApprovalState], col: int) -> str:
        skill, state = item
        if col == 0:
            return skill.qualified_name
        if col == 1:
            return skill.origin.label + (" (third-party)" if skill.kind == "mcp" else "")
        if col == 2:
            return state.state
        if col == 3:
            return state.diff.summary() if state.diff else ""
        return ""

    def tooltip(self, item: tuple[Skill, ApprovalState], col: int) -> str | None:
        skill, state = item
        return state.message() or skill.origin.describe()

    def role_data(self, item: tuple[Skill, ApprovalState], col: int, role: int) -> Any:
        return item[0].id  # SKILL_ID_ROLE

"""The catalog as a Qt table: a thin adapter over the session's skills and their states.

Rows are skills in catalog order; the filter and sort live in the proxy
(:mod:`desktop.ui.library.skill_filter_proxy`). Verification and approval states are the
session's: read from it whenever a cell is asked for, never copied here. The session's
events become ``dataChanged``: a file read updates its skill's row, approval states read
again update every row.

In the *To review* view the rows changed since their approval come first, whatever the
sort (``changed_first``): what was approved and is now different is the alarm. Each row
says itself to a screen reader as its name, its source and its states
(``AccessibleTextRole``), with the description and what the states mean as its
``AccessibleDescriptionRole``: two skills of one name from two sources sound different.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush

from desktop.core.approval_states import CHANGED
from desktop.core.library import origin_chip, row_marks
from desktop.core.model import INVALID, LISTED, OVER_LIMIT, Skill
from desktop.core.states import EntryState
from desktop.core.verify import MISMATCHES, NOT_READ, READ_ERROR
from desktop.core.visible import visible
from desktop.ui.widgets.read_only_table_model import (
    ACCESSIBLE_TEXT,
    DISPLAY,
    FOREGROUND,
    TEXT_ROLES,
    TOOLTIP,
    ReadOnlyTableModel,
)
from desktop.ui.widgets.status_colors import status_brush

if TYPE_CHECKING:
    from desktop.ui.catalog_controller import CatalogController
    from desktop.ui.widgets.read_only_table_model import Index

COLUMNS = (
    "Name",
    "Qualified name",
    "Origin",
    "Verification",
    "Approval",
    "Strategy",
    "Priority",
    "Triggers",
    "Description",
)
(
    COL_NAME,
    COL_QUALIFIED,
    COL_ORIGIN,
    COL_VERIFICATION,
    COL_APPROVAL,
    COL_STRATEGY,
    COL_PRIORITY,
    COL_TRIGGERS,
    COL_DESCRIPTION,
) = range(len(COLUMNS))

SKILL_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
ROW_ROLE = Qt.ItemDataRole.UserRole + 3  # (skill, approval, verification, nesting depth)

APPROVAL_PENDING = "…"
ACCESSIBLE_DESCRIPTION = int(Qt.ItemDataRole.AccessibleDescriptionRole)
_BAD_STATES = frozenset({INVALID, OVER_LIMIT, READ_ERROR, *MISMATCHES})


def origin_text(skill: Skill) -> str:
    """Origin beside every skill; server skills say they are third-party."""
    if skill.kind_info.third_party:
        opened = " · opened by URI" if skill.opened_by_uri else ""
        return f"{skill.origin.label} · {skill.origin.transport} · third-party{opened}"
    return f"{skill.origin.label} · {skill.origin.transport}"


def accessible_text(skill: Skill, approval: str | None, verification: str | None) -> str:
    """What a screen reader says of a row: the name, where it comes from, its states."""
    chip, _third_party = origin_chip(skill)
    words = [m.word for m in row_marks(skill, approval, verification)]
    source = f"from {chip} ({skill.origin.kind_info.word_for(skill.origin.transport)})"
    return ", ".join([skill.name, source, *words])


def accessible_description(skill: Skill, approval: str | None, verification: str | None) -> str:
    """The row's description and what each of its states means."""
    first = skill.description.strip().split("\n", 1)[0].removesuffix("\r")[:300]
    tips = [m.tip for m in row_marks(skill, approval, verification)]
    return ". ".join(part for part in [first or "No description", *tips] if part)


def strategy_text(skill: Skill) -> str:
    declared = "declared" if skill.loading.strategy_declared else "default"
    return f"{skill.loading.strategy} ({declared})"


def priority_text(skill: Skill) -> str:
    p = skill.loading.priority
    return "default" if p is None else f"{p:g}"


class SkillTableModel(ReadOnlyTableModel):
    """Skills in rows, :data:`COLUMNS` in columns."""

    columns = COLUMNS
    answered = TEXT_ROLES | {
        TOOLTIP,
        FOREGROUND,
        int(SORT_ROLE),
        int(SKILL_ID_ROLE),
        int(ROW_ROLE),
        ACCESSIBLE_DESCRIPTION,
    }

    def __init__(self, controller: CatalogController | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.skills: list[Skill] = []
        # Where the states are read (none without a session: nothing read, no decision).
        self.session = controller.session if controller is not None else None
        if controller is not None:
            controller.verificationChanged.connect(self._verification_changed)
            controller.approvalsChanged.connect(self._approvals_changed)
        self._row_of: dict[str, int] = {}
        self._path: dict[str, tuple[str, ...]] = {}  # names from the outermost parent
        # Rows changed since approval first (the To review view), and the last sort
        # asked for, so a change of either sorts again.
        self.changed_first = False
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._changed_ids: frozenset[str] = frozenset()

    # -- feeding -------------------------------------------------------------

    def set_skills(self, skills: list[Skill], sort: tuple[int, Qt.SortOrder] | None = None) -> None:
        self.beginResetModel()
        self.skills = list(skills)
        self._path = _nesting_paths(self.skills)
        if sort is not None and 0 <= sort[0] < len(COLUMNS):
            self._sort = sort
            self.skills = self._sorted(*sort)
        self._row_of = {s.id: i for i, s in enumerate(self.skills)}
        self.endResetModel()

    def replace_skills(
        self,
        skills: list[Skill],
        changed: list[str],
        sort: tuple[int, Qt.SortOrder] | None = None,
    ) -> list[int]:
        """Take the entries of a catalog built again with the same skills (some read
        again after a change, ``changed``): every row takes its skill's new entry in
        place, so selection and scroll stay; the changed rows are announced. Returns
        those rows (after any sort their new names call for, which keeps the selection)."""
        by_id = {s.id: s for s in skills}
        rows = [r for r in (self._row_of.get(i) for i in changed) if r is not None]
        keys = None
        if sort is not None and 0 <= sort[0] < len(COLUMNS):
            keys = [self.sort_key(self.skills[r], sort[0]) for r in rows]
        self.skills = [by_id.get(s.id, s) for s in self.skills]
        self._path = _nesting_paths(self.skills)
        last = len(COLUMNS) - 1
        for row in rows:
            self.dataChanged.emit(self.index(row, 0), self.index(row, last))
        if (
            sort is not None
            and keys is not None
            and keys != [self.sort_key(self.skills[r], sort[0]) for r in rows]
        ):
            self.sort(*sort)  # a new name moves the row; persistent indexes follow
        return sorted(r for r in (self._row_of.get(i) for i in changed) if r is not None)

    # -- the session's states, read when asked ----------------------------------------

    def verification_of(self, skill: Skill) -> tuple[str, str]:
        """(state, text) of the files of ``skill`` read so far: ``""`` when none was."""
        return self.session.verification_of(skill) if self.session is not None else ("", "")

    def approval_of(self, skill_id: str) -> str | None:
        """The approval state of a skill; ``None`` until it is read."""
        if self.session is None:
            return None
        state = self.session.approval_states.get(skill_id)
        return state.state if state is not None else None

    def verifications(self) -> dict[str, str]:
        """Every row's verification state, by skill id (for filters)."""
        return {s.id: state for s in self.skills if (state := self.verification_of(s)[0])}

    def approvals(self) -> dict[str, str]:
        """Every row's approval state, by skill id (for filters and counts)."""
        return {s.id: state for s in self.skills if (state := self.approval_of(s.id))}

    def _verification_changed(self, skill_id: str) -> None:
        self._row_changed(skill_id, COL_VERIFICATION)

    def _approvals_changed(self) -> None:
        if self.changed_first and self._sort is not None and self._changed() != self._changed_ids:
            self.sort(*self._sort)  # a skill changed since approval (or no longer) moves
        if self.skills:
            # From the first column: the list's two-line rows show the approval there.
            self.dataChanged.emit(
                self.index(0, COL_NAME), self.index(len(self.skills) - 1, COL_APPROVAL)
            )

    def _row_changed(self, skill_id: str, column: int) -> None:
        row = self._row_of.get(skill_id)
        if row is not None:
            # The list's row (the first column) shows every state too.
            self.dataChanged.emit(self.index(row, COL_NAME), self.index(row, column))

    def row_of(self, skill_id: str) -> int | None:
        return self._row_of.get(skill_id)

    def skill_at(self, row: int) -> Skill | None:
        return self.skills[row] if 0 <= row < len(self.skills) else None

    def sort_key(self, skill: Skill, column: int) -> tuple[int, float, str]:
        if column == COL_PRIORITY:
            p = skill.loading.priority
            return (0, -1.0 if p is None else float(p), skill.qualified_name.casefold())
        if column == COL_NAME:  # nested skills under their parent
            return (0, 0.0, "\x00".join(self._path.get(skill.id, (skill.name.casefold(),))))
        return (0, 0.0, self.text(skill, column).casefold())

    def _changed(self) -> frozenset[str]:
        return frozenset(s.id for s in self.skills if self.approval_of(s.id) == CHANGED)

    def _sorted(self, column: int, order: Qt.SortOrder) -> list[Skill]:
        keyed = [(self.sort_key(s, column), s) for s in self.skills]
        keyed.sort(key=lambda pair: pair[0], reverse=order == Qt.SortOrder.DescendingOrder)
        skills = [s for _, s in keyed]
        self._changed_ids = self._changed() if self.changed_first else frozenset()
        if self._changed_ids:  # stable: each part keeps the order asked for
            changed = self._changed_ids
            skills.sort(key=lambda s: s.id not in changed)
        return skills

    def set_changed_first(self, on: bool) -> None:
        """Put the rows changed since approval first (or not): sorted again only when
        the order moves (some skill changed since approval)."""
        if on == self.changed_first:
            return
        self.changed_first = on
        if self._sort is None or not self.skills:
            return
        if self._changed_ids or (on and self._changed()):
            self.sort(*self._sort)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows in Python, once (the proxy keeps this order and only filters)."""
        if not (0 <= column < len(COLUMNS)):
            return
        self._sort = (column, order)
        if not self.skills:
            return
        # Without arguments: PySide6 6.11 refuses the (parents, hint) form of these
        # signals from Python, and the hint only spares views some work.
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_ids = [self.skills[i.row()].id if i.isValid() else "" for i in old]
        self.skills = self._sorted(column, order)
        self._row_of = {s.id: i for i, s in enumerate(self.skills)}
        new = [
            self.index(self._row_of[sid], i.column()) if sid in self._row_of else QModelIndex()
            for i, sid in zip(old, old_ids, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # -- Qt model interface --------------------------------------------------

    def row_items(self) -> list[Any]:
        return self.skills

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if role in (ACCESSIBLE_TEXT, ACCESSIBLE_DESCRIPTION) and index.column() == 0:
            skill = self.skill_at(index.row()) if index.isValid() else None
            if skill is not None:
                approval, verification = self.approval_of(skill.id), self.verification_of(skill)[0]
                said = accessible_text if role == ACCESSIBLE_TEXT else accessible_description
                return visible(said(skill, approval, verification))
        if role == ACCESSIBLE_DESCRIPTION:
            return None
        return super().data(index, role)

    def role_data(self, skill: Skill, col: int, role: int) -> Any:
        if role == FOREGROUND:
            return self._color(skill, col)
        if role == ROW_ROLE:
            depth = len(self._path.get(skill.id, ())) - 1
            return (
                skill,
                self.approval_of(skill.id),
                self.verification_of(skill)[0],
                max(0, min(depth, 4)),
            )
        if role == SORT_ROLE:
            if col == COL_PRIORITY:
                p = skill.loading.priority
                return -1.0 if p is None else float(p)
            return self.text(skill, col).casefold()
        return skill.id  # SKILL_ID_ROLE

    def text(self, skill: Skill, col: int) -> str:
        if col == COL_NAME:
            return skill.name
        if col == COL_QUALIFIED:
            return skill.qualified_name
        if col == COL_ORIGIN:
            return origin_text(skill)
        if col == COL_DESCRIPTION:
            # The first line ends at a line feed only: a carriage return alone, or a
            # NEL, shows as its code (visible) rather than hiding what follows it.
            first = skill.description.strip().split("\n", 1)[0]
            return first.removesuffix("\r")[:200]
        if col == COL_STRATEGY:
            return strategy_text(skill)
        if col == COL_PRIORITY:
            return priority_text(skill)
        if col == COL_TRIGGERS:
            return ", ".join(skill.loading.triggers)
        if col == COL_VERIFICATION:
            if skill.state is not EntryState.LISTED:
                return skill.state
            state, text = self.verification_of(skill)
            return text or state or NOT_READ
        if col == COL_APPROVAL:
            return self.approval_of(skill.id) or APPROVAL_PENDING
        return ""

    def tooltip(self, skill: Skill, col: int) -> str | None:
        if col == COL_ORIGIN:  # the cell's words too: a narrow column cuts them
            return f"{origin_text(skill)}\n{skill.origin.describe()}"
        if col == COL_DESCRIPTION:
            return skill.description[:1200]
        if col == COL_NAME and skill.problems:
            return "\n".join(f"{p.level.label}: {p.message}" for p in skill.problems[:12])
        return None

    def _color(self, skill: Skill, col: int) -> QBrush | None:
        if col == COL_VERIFICATION:
            state = skill.state if skill.state != LISTED else self.verification_of(skill)[0]
            if state in _BAD_STATES:
                return status_brush("bad")
        if col == COL_APPROVAL and self.approval_of(skill.id) == CHANGED:
            return status_brush("alarm")
        if col == COL_NAME and skill.has_errors():
            return status_brush("bad")
        return None


def _nesting_paths(skills: list[Skill]) -> dict[str, tuple[str, ...]]:
    """Each skill's folded name after those of the skills it is nested in."""
    by_id = {s.id: s for s in skills}
    paths: dict[str, tuple[str, ...]] = {}
    for skill in skills:
        chain = [skill.name.casefold()]
        parent = by_id.get(skill.nested_in or "")
        seen = {skill.id}
        while parent is not None and parent.id not in seen and len(chain) < 8:
            seen.add(parent.id)
            chain.append(parent.name.casefold())
            parent = by_id.get(parent.nested_in or "")
        paths[skill.id] = tuple(reversed(chain))
    return paths

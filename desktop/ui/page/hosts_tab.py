"""The skill page's Hosts tab: per agent host, whether it loads the skill (or why
not) and how the skill appears in the host's listing for the model, judged with the
catalog's other skills at 200K tokens of context, when the tab comes into sight.
Each host's row has its profile's rules, with their sources, in a tooltip
(:mod:`desktop.core.hosts`). The frontmatter judged is the catalog's reading of it;
``skill-catalog lint PATH --hosts`` reads each file as each host's reader does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePath

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from desktop.core.hosts import DEFAULT_CONTEXT, PROFILES, SkillText, judge
from desktop.core.model import Skill
from desktop.core.visible import one_line

_LISTING = {
    "full": "Listed in full",
    "cut": "Description cut",
    "name-only": "Name only",
    "dropped": "Not listed",
}


def _text(skill: Skill) -> SkillText:
    folder = PurePath(skill.path).name if skill.path else skill.name
    return SkillText(
        skill.name, skill.path or skill.uri, folder, None, fields=skill.frontmatter or {}
    )


class HostsTab(QWidget):
    def __init__(
        self, skills: Callable[[], Sequence[Skill]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._skills = skills
        self._skill: Skill | None = None
        self._filled = True
        self.table = QTreeWidget(self)
        self.table.setAccessibleName("Agent hosts for this skill")
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["Host", "Loads", "Listing", "Why"])
        for column, width in enumerate((150, 95, 120)):
            self.table.setColumnWidth(column, width)
        self.budget = QLabel("", self)
        self.budget.setAccessibleName("Listing budget")
        self.budget.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.budget)

    def show_skill(self, skill: Skill | None) -> None:
        """Show ``skill``'s hosts: now when the tab is in sight, else when it comes
        into sight (the budget is judged over the whole catalog)."""
        self._skill = skill
        self._filled = False
        if self.isVisible():
            self._fill()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._filled:
            self._fill()

    def _fill(self) -> None:
        self._filled = True
        skill = self._skill
        self.table.clear()
        self.budget.setText("")
        if skill is None:
            return
        skills = [s for s in self._skills() if s.loadable and s is not skill]
        skills.insert(0, skill)
        verdicts, budgets = judge([_text(s) for s in skills], PROFILES, DEFAULT_CONTEXT)
        for p in PROFILES:
            v = verdicts[0][p.slug]
            loads = "Unknown" if v.loads is None else ("Loads" if v.loads else "Does not load")
            item = QTreeWidgetItem(
                [p.title, loads, _LISTING.get(v.listing or "", "Unknown"), one_line(v.why)]
            )
            item.setToolTip(0, "\n".join(f"• {r.says} (source: {r.source})" for r in p.rules))
            if v.why:  # on every column but the host's: the Why column may be scrolled off
                for column in (1, 2, 3):
                    item.setToolTip(column, one_line(v.why))
            self.table.addTopLevelItem(item)
        claude = next(p for p in PROFILES if p.slug == "claude-code")
        loaded = sum(1 for per in verdicts if per[claude.slug].loads)
        self.budget.setText(budgets[claude.slug].sentence(claude.title, loaded))

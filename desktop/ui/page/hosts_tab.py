"""The skill page's Hosts tab: per agent host, whether it loads the skill (or why
not) and how the skill appears in the host's listing for the model, reckoned over the
catalog's skills at 200K tokens of context, when the tab is in sight. Each host's row
has its profile's rules, with their sources, in a tooltip (:mod:`desktop.core.hosts`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from desktop.core.hosts.table import host_table
from desktop.core.hosts.verdict import budget_sentence
from desktop.core.model import Skill
from desktop.core.selector import DEFAULT_CONTEXT
from desktop.core.visible import one_line

_LOADS = {"yes": "Loads", "no": "Does not load"}
_LISTING = {
    "full": "Listed in full",
    "cut": "Listed, description cut",
    "name-only": "Name only",
    "dropped": "Not listed",
    "unknown": "Unknown",
}


class HostsTab(QWidget):
    def __init__(
        self, skills: Callable[[], Sequence[Skill]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._skills = skills
        self._skill: Skill | None = None
        self._shown = True
        self.table = QTreeWidget(self)
        self.table.setAccessibleName("Agent hosts for this skill")
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["Host", "Loads", "Listing", "Why"])
        self.table.setColumnWidth(0, 150)
        self.table.setColumnWidth(1, 95)
        self.table.setColumnWidth(2, 125)
        self.budget = QLabel("", self)
        self.budget.setAccessibleName("Listing budget")
        self.budget.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.budget)

    def show_skill(self, skill: Skill | None) -> None:
        """Show ``skill``'s hosts: now when the tab is in sight, else when it comes
        into sight (the budget is reckoned over the whole catalog)."""
        self._skill = skill
        self._shown = False
        if self.isVisible():
            self._fill()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown:
            self._fill()

    def _fill(self) -> None:
        self._shown = True
        skill = self._skill
        self.table.clear()
        self.budget.setText("")
        if skill is None:
            return
        skills = [s for s in self._skills() if s.loadable]
        if not any(s is skill for s in skills):
            skills.append(skill)
        at = next(i for i, s in enumerate(skills) if s is skill)
        rows, budgets, hosts = host_table(skills, DEFAULT_CONTEXT)
        for host in hosts:
            verdict, mode = rows[at][host.id]
            item = QTreeWidgetItem(
                [
                    host.title,
                    _LOADS.get(verdict.loads, "Unknown"),
                    _LISTING.get(mode, mode),
                    one_line("; ".join(verdict.why)),
                ]
            )
            tip = "\n".join(f"• {r.text} (source: {r.source})" for r in host.rules)
            item.setToolTip(0, tip)
            item.setToolTip(3, one_line("\n".join(verdict.why)))
            self.table.addTopLevelItem(item)
        claude = next(h for h in hosts if h.id == "claude-code")
        self.budget.setText(
            budget_sentence(claude, budgets[claude.id], DEFAULT_CONTEXT, len(skills))
        )

"""Type a prompt, see which skill each selection strategy would pick; edit a scratch
copy of one skill's description and watch its rank move.

The strategies are :mod:`desktop.core.selector`'s: BM25 over names, descriptions,
``when_to_use`` and keywords; NimbleBrain's triggers; and what the model can read
after Claude Code's listing budget at 200K tokens. The index is built once when the
lab opens; each keystroke ranks against it (a scratch description is scored in place
of its skill's own, with the catalog's term statistics). Nothing edited here is saved.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.selection import BM25, LISTING, TRIGGERS, Ranked
from desktop.core.selector import DEFAULT_CONTEXT, Selector
from desktop.core.visible import one_line
from desktop.ui.catalog_controller import CatalogController

TOP = 10
_TITLES = {
    BM25: (
        "Words (BM25)",
        "Okapi BM25 over each skill's name, description, when_to_use and "
        "keywords, as agents that search skills by words rank them",
    ),
    TRIGGERS: (
        "Triggers",
        "A trigger phrase the skill declares (metadata nimblebrain.triggers) "
        "found in the prompt, case aside; then skills with two keyword hits or more",
    ),
    LISTING: (
        "What Claude Code lists",
        f"BM25 over what the model can read after Claude "
        f"Code's listing budget at {DEFAULT_CONTEXT // 1000}K tokens: a skill listed "
        "by name only is matched on its name; skills it cannot see are marked",
    ),
}


class SelectionLabDialog(QDialog):
    skillSelected = Signal(str)

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Selection lab")
        self.resize(860, 600)
        skills = [s for s in controller.catalog.skills if s.loadable]
        self.selector = Selector(skills)
        self.prompt = QLineEdit(self)
        self.prompt.setAccessibleName("Prompt to test")
        self.prompt.setPlaceholderText("Type a prompt a user might send…")
        self.skill = QComboBox(self)
        self.skill.setAccessibleName("Skill whose description to try")
        self.skill.setToolTip("A scratch copy of this skill's description is ranked in its place")
        for s in sorted(skills, key=lambda s: s.qualified_name):
            self.skill.addItem(one_line(s.qualified_name), s.id)
        self.scratch = QPlainTextEdit(self)
        self.scratch.setAccessibleName("Scratch description")
        self.scratch.setToolTip("Edit to see the rank move; nothing here is saved")
        self.scratch.setMaximumHeight(90)
        self.reset = QPushButton("&Reset", self)
        self.reset.setAccessibleName("Reset the scratch description")
        self.reset.setAutoDefault(False)
        self.lists: dict[str, QListWidget] = {}
        columns = QHBoxLayout()
        for key, (title, tip) in _TITLES.items():
            box = QGroupBox(title, self)
            box.setToolTip(tip)
            inner = QVBoxLayout(box)
            view = QListWidget(box)
            view.setAccessibleName(f"Ranking: {title}")
            view.itemActivated.connect(self._on_item)
            inner.addWidget(view)
            self.lists[key] = view
            columns.addWidget(box, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Try a description for", self))
        row.addWidget(self.skill, 1)
        row.addWidget(self.reset)
        self.summary = QLabel("", self)
        self.summary.setAccessibleName("Where the edited skill ranks")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setAccessibleName("Close the selection lab")
        close.setAutoDefault(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addLayout(row)
        layout.addWidget(self.scratch)
        layout.addWidget(self.summary)
        layout.addLayout(columns, 1)
        layout.addWidget(buttons)
        self._editing: str | None = None
        self.prompt.textChanged.connect(self.update_results)
        self.skill.currentIndexChanged.connect(self._on_skill)
        self.scratch.textChanged.connect(self._on_scratch)
        self.reset.clicked.connect(self._on_skill)
        self._on_skill()

    def _on_skill(self) -> None:
        if self._editing is not None:
            self.selector.edit(self._editing, None)
        skill_id = self.skill.currentData()
        self._editing = skill_id if isinstance(skill_id, str) else None
        doc = (
            self.selector.docs[self.selector.position[self._editing]]
            if self._editing is not None
            else None
        )
        self.scratch.blockSignals(True)
        self.scratch.setPlainText(doc.description if doc is not None else "")
        self.scratch.blockSignals(False)
        self.scratch.setEnabled(doc is not None)
        self.update_results()

    def _on_scratch(self) -> None:
        if self._editing is not None:
            self.selector.edit(self._editing, self.scratch.toPlainText())
        self.update_results()

    def rankings(self) -> dict[str, list[Ranked]]:
        prompt = self.prompt.text()
        if not prompt.strip():
            return {key: [] for key in self.lists}
        return {key: ranker(prompt) for key, ranker in self.selector.rankers(TOP).items()}

    def update_results(self) -> None:
        ranks = self.rankings()
        where: list[str] = []
        for key, view in self.lists.items():
            view.clear()
            for pos, r in enumerate(ranks[key], 1):
                note = f" — {r.why}" if r.why else ""
                item = QListWidgetItem(f"{pos}. {one_line(r.name)}  {r.score:.2f}{note}")
                item.setData(Qt.ItemDataRole.UserRole, r.id)
                if r.why:
                    item.setToolTip(r.why)
                if r.id == self._editing:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                    where.append(f"{_TITLES[key][0]}: #{pos}")
                view.addItem(item)
            if not ranks[key]:
                view.addItem(
                    QListWidgetItem("no skill matches" if self.prompt.text().strip() else "")
                )
        name = self.skill.currentText()
        if not self.prompt.text().strip():
            self.summary.setText("Type a prompt to rank the skills.")
        elif where:
            self.summary.setText(f"{name} ranks " + ", ".join(where))
        else:
            self.summary.setText(f"{name} is not in the top {TOP} of any strategy")

    def _on_item(self, item: QListWidgetItem) -> None:
        skill_id = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(skill_id, str):
            self.skillSelected.emit(skill_id)

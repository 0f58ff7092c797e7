"""The Selection lab: which skill a prompt would pick, under each strategy hosts use, and
how a draft of a description moves it.

Three columns rank the catalog's skills as you type (:mod:`desktop.core.selection`):
``bm25`` over names and descriptions, declared ``triggers``, and ``listing`` (what the
model can read after a host's listing budget). Choose a skill and edit a scratch copy of
its description below: the columns rank the draft in its place, and nothing is written.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.core.hosts import DEFAULT_CONTEXT, PROFILES, SkillText, judge, profile
from desktop.core.selection import Doc, Index, Pick, doc_of, select
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.widgets.plain_label import PlainLabel

STRATEGIES = (
    ("bm25", "Words in names and descriptions", "Okapi BM25 (k1 1.2, b 0.75) over name, "
     "description, when_to_use and keywords: the lexical search several agents run"),
    ("triggers", "Declared triggers", "NimbleBrain's rule: the first declared trigger found "
     "in the prompt wins; then keywords found twice or more"),
    ("listing", "What the model can see", "The words ranking, after the chosen host's listing "
     "budget: a skill listed by name only is matched on its name alone"),
)  # fmt: skip
TOP = 8


def _buddy(text: str, widget: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(widget)
    return label


class SelectionLabDialog(QDialog):
    """Rank the catalog's skills for a prompt, under each strategy."""

    skillSelected = Signal(str)  # a skill id, double-clicked in a ranking

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Selection lab")
        self.resize(900, 620)
        self.skills = list(controller.catalog.skills)
        self.docs = [doc_of(s) for s in self.skills]
        self.index = Index.build(self.docs)
        self.by_id = {d.id: i for i, d in enumerate(self.docs)}
        layout = QVBoxLayout(self)
        intro = PlainLabel(
            "Type what a person would ask. Hosts pick skills by their names and "
            "descriptions; these columns show which would be picked, and why."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        row = QHBoxLayout()
        self.prompt = QLineEdit()
        self.prompt.setPlaceholderText("fill in a PDF form")
        self.prompt.setAccessibleName("Prompt")
        self.prompt.textChanged.connect(self.rank)
        self.host = QComboBox()
        self.host.setAccessibleName("Host")
        for p in PROFILES:
            self.host.addItem(p.title, p.slug)
        self.host.setToolTip("The host whose listing budget the third column applies")
        self.host.currentIndexChanged.connect(self._host_changed)
        row.addWidget(_buddy("&Prompt:", self.prompt))
        row.addWidget(self.prompt, 1)
        row.addWidget(_buddy("&Host:", self.host))
        row.addWidget(self.host)
        layout.addLayout(row)

        grid = QGridLayout()
        self.columns: dict[str, QListWidget] = {}
        for col, (key, title, tip) in enumerate(STRATEGIES):
            head = QLabel(f"<b>{title}</b>")
            head.setToolTip(tip)
            grid.addWidget(head, 0, col)
            view = QListWidget()
            view.setAccessibleName(title)
            view.setToolTip(tip)
            view.itemActivated.connect(self._chosen)
            grid.addWidget(view, 1, col)
            self.columns[key] = view
        layout.addLayout(grid, 1)

        scratch = QHBoxLayout()
        self.skill_box = QComboBox()
        self.skill_box.setAccessibleName("Skill to draft")
        self.skill_box.addItem("(no draft)", "")
        for d in sorted(self.docs, key=lambda d: d.name):
            self.skill_box.addItem(d.name, d.id)
        self.skill_box.currentIndexChanged.connect(self._draft_skill)
        scratch.addWidget(_buddy("&Draft the description of:", self.skill_box))
        scratch.addWidget(self.skill_box, 1)
        layout.addLayout(scratch)
        self.draft = QPlainTextEdit()
        self.draft.setAccessibleName("Draft description")
        self.draft.setPlaceholderText("Choose a skill: its description is copied here to edit")
        self.draft.setMaximumHeight(110)
        self.draft.textChanged.connect(self.rank)
        layout.addWidget(self.draft)
        self.note = PlainLabel("")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.listings: dict[str, str] = {}
        self._host_changed()

    # -- what is ranked --------------------------------------------------------------

    def _host_changed(self) -> None:
        slug = self.host.currentData() or "claude-code"
        texts = [SkillText(s.name, s.uri, s.name, None, s.frontmatter or {}) for s in self.skills]
        verdicts, budgets = judge(texts, [profile(slug)], DEFAULT_CONTEXT)
        self.listings = {
            s.id: (v[slug].listing or "full") for s, v in zip(self.skills, verdicts, strict=True)
        }
        b = budgets[slug]
        self.budget_line = b.sentence(profile(slug).title, len(self.skills))
        self.rank()

    def _draft_skill(self) -> None:
        skill_id = self.skill_box.currentData()
        i = self.by_id.get(skill_id or "")
        self.draft.blockSignals(True)
        self.draft.setPlainText("" if i is None else self.docs[i].description)
        self.draft.blockSignals(False)
        self.rank()

    def drafted(self) -> Doc | None:
        skill_id = self.skill_box.currentData()
        i = self.by_id.get(skill_id or "")
        if i is None:
            return None
        return replace(self.docs[i], description=self.draft.toPlainText())

    def picks(self) -> dict[str, list[Pick]]:
        return select(self.index, self.prompt.text(), TOP, self.listings, self.drafted())

    def rank(self) -> None:
        prompt = self.prompt.text().strip()
        found = self.picks() if prompt else {k: [] for k, _, _ in STRATEGIES}
        draft = self.drafted()
        for key, view in self.columns.items():
            view.clear()
            for n, pick in enumerate(found[key], 1):
                mark = " (draft)" if draft is not None and pick.id == draft.id else ""
                shown = f"  [{pick.listing}]" if pick.listing not in ("", "full") else ""
                item = QListWidgetItem(f"{n}. {pick.name}{mark}  {pick.score:.2f}{shown}")
                item.setData(Qt.ItemDataRole.UserRole, pick.id)
                if pick.why:
                    item.setToolTip(pick.why)
                view.addItem(item)
            if prompt and not found[key]:
                view.addItem(QListWidgetItem("no skill"))
        notes = [self.budget_line]
        if prompt and not found["bm25"]:
            notes.append(
                "No skill shares a word with this prompt: hosts choose by description, so a "
                "skill meant for it needs those words in its description."
            )
        self.note.setText("\n".join(notes))

    def _chosen(self, item: QListWidgetItem) -> None:
        skill_id = item.data(Qt.ItemDataRole.UserRole)
        if skill_id:
            self.skillSelected.emit(skill_id)

"""What the team decided on the skill shown, from its repository's signed review
records, and adopting a valid team approval as one's own in one step.

Shown for a skill in a folder of a repository with a ``.skill-reviews`` folder: each
valid decision on exactly these bytes ("Approved by alice@example.com, 2 Dec (signature
valid)"), rejections first, or that reviews exist for earlier bytes with the files
changed since. The records are verified off the window's thread, each time a skill is
shown or the approvals change; a reply for a skill no longer shown is dropped.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from desktop.core.model import Skill
from desktop.core.review_record import Review
from desktop.session.team_review import (
    TeamDecisions,
    adopt_and_say,
    read_team_decisions,
    sign_and_say,
)
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.widgets.plain_label import PlainLabel


class TeamReviewPanel(QWidget):
    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.skill: Skill | None = None
        self.team: TeamDecisions | None = None
        self._asked = 0  # which request's answer is the one to show
        self.label = PlainLabel("")
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Team review")
        self.adopt_button = QPushButton("Adopt team approval")
        self.adopt_button.setAccessibleName("Adopt team approval: take it as your own")
        self.adopt_button.setToolTip(
            "Approve these exact files yourself, with the grants the team reviewer gave "
            "(a signed review record in this repository)"
        )
        self.adopt_button.clicked.connect(self.adopt)
        self.sign_button = QPushButton("Sign for the team")
        self.sign_button.setAccessibleName("Sign for the team: your decision, signed")
        self.sign_button.setToolTip(
            "Write your decision on these exact files into the repository's .skill-reviews "
            "folder, signed with the SSH key git signs your commits with"
        )
        self.sign_button.clicked.connect(self.sign)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.adopt_button)
        layout.addWidget(self.sign_button)
        self.setVisible(False)
        controller.approvalsChanged.connect(self._again)

    def show_skill(self, skill: Skill | None) -> None:
        same = skill is not None and self.skill is not None and skill.id == self.skill.id
        self.skill = skill
        if not same:
            self.team = None
            self.setVisible(False)
        self._asked += 1
        if skill is not None and skill.kind_info.folder_on_disk and skill.files:
            self.controller.spawn(self._read(skill, self._asked))

    def _again(self) -> None:
        self.show_skill(self.skill)

    async def _read(self, skill: Skill, asked: int) -> None:
        team = await read_team_decisions(skill)
        if asked != self._asked:
            return  # another skill (or a newer state) is shown now
        self.team = team
        self._show()

    def _show(self) -> None:
        team, skill = self.team, self.skill
        lines = team.lines() if team is not None else []
        # A repository with a review folder: the team reviews here, even none yet.
        self.setVisible(team is not None)
        self.label.setText(
            "Team review: " + ("\n".join(lines) if lines else "none of these files yet")
        )
        state = self.controller.approval_states.get(skill.id) if skill else None
        mine = state is not None and state.approved
        self.adopt_button.setVisible(bool(team and team.adoptable) and not mine)
        decided = state is not None and state.record is not None and not state.needs_decision
        self.sign_button.setVisible(
            team is not None and decided and not self.adopt_button.isVisibleTo(self)
        )

    def adoptable(self) -> Review | None:
        team = self.team
        return team.adoptable[0] if team is not None and team.adoptable else None

    def adopt(self) -> None:
        """Approve the shown skill as the first valid team approval of its bytes did."""
        review, skill = self.adoptable(), self.skill
        if review is None or skill is None:
            return
        self.adopt_button.setEnabled(False)
        task = self.controller.spawn(
            adopt_and_say(self.controller.session, skill, review), "adopting the approval"
        )
        task.add_done_callback(lambda _t: self.adopt_button.setEnabled(True))

    def sign(self) -> None:
        """Sign the decision taken here on the shown skill for the team (git's key)."""
        team, skill = self.team, self.skill
        if team is None or skill is None:
            return
        self.sign_button.setEnabled(False)
        task = self.controller.spawn(
            sign_and_say(self.controller.session, skill, team.repository), "signing for the team"
        )
        task.add_done_callback(lambda _t: self.sign_button.setEnabled(True))

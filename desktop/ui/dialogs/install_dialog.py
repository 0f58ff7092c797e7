"""Install a skill's approved files into the folders agents read (``install`` in the
window), and the list of installed skills with their states (``installed``).

Both go through the session (:mod:`desktop.session.installer`): the bytes installed
are the ones the approval binds, checked against it before anything is written, and a
skill that may not be installed says why. The installed list reads no source: whether
a source lists other files now is judged from the catalog the window already holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.install import InstalledSkill, InstallError
from desktop.core.model import Skill
from desktop.core.words import count
from desktop.session.installer import Place
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.widgets.plain_label import PlainLabel
from desktop.ui.widgets.state_icons import state_icon


class InstallDialog(QDialog):
    """Choose the agents and the scope, then install the selected skill."""

    def __init__(self, controller: CatalogController, skill: Skill, parent: QWidget | None = None):
        from desktop.sources.config.install_targets import TARGETS

        super().__init__(parent)
        self.controller = controller
        self.skill = skill
        self.project: Path | None = None
        self.setWindowTitle(f"Install {skill.name}")
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        intro = PlainLabel(
            f"Write the approved files of <b>{skill.name}</b> into the folders the agents "
            "you choose read. Only the files you approved are written, checked against "
            "your approval first."
        )
        intro.setTextFormat(Qt.TextFormat.RichText)
        intro.setWordWrap(True)
        layout.addWidget(intro)

        agents = QGroupBox("Agents")
        agents_box = QGridLayout(agents)
        self.agent_boxes: dict[str, QCheckBox] = {}
        for i, t in enumerate(TARGETS):
            box = QCheckBox(t.agent)
            box.setObjectName(f"agent-{t.slug}")
            box.setToolTip(f"{t.slug}: ~/{t.user} (yours), {t.project} (a project's)")
            box.setAccessibleName(f"Install for {t.agent}")
            box.toggled.connect(self._update)
            agents_box.addWidget(box, i // 2, i % 2)
            self.agent_boxes[t.slug] = box
        layout.addWidget(agents)

        scope = QGroupBox("Where")
        scope_box = QVBoxLayout(scope)
        self.user_scope = QRadioButton("&Your folders (every project)")
        self.project_scope = QRadioButton("A &project's folders, recorded in its lock file")
        self.user_scope.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.user_scope)
        group.addButton(self.project_scope)
        row = QHBoxLayout()
        self.project_label = QLabel("No project chosen")
        self.choose_project = QPushButton("Choose &folder…")
        self.choose_project.setAccessibleName("Choose folder: the project folder")
        self.choose_project.clicked.connect(self._choose_project)
        row.addWidget(self.project_label, 1)
        row.addWidget(self.choose_project)
        scope_box.addWidget(self.user_scope)
        scope_box.addWidget(self.project_scope)
        scope_box.addLayout(row)
        self.project_scope.toggled.connect(self._update)
        layout.addWidget(scope)

        self.targets = PlainLabel("")
        self.targets.setWordWrap(True)
        self.targets.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.targets)
        self.outcome = PlainLabel("")
        self.outcome.setObjectName("install-result")
        self.outcome.setWordWrap(True)
        self.outcome.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.outcome)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.install_button = buttons.addButton("&Install", QDialogButtonBox.ButtonRole.ActionRole)
        self.install_button.setAccessibleName(f"Install {skill.name}")
        self.install_button.clicked.connect(self.start)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.task: asyncio.Task[None] | None = None
        self._update()

    def chosen(self) -> list[str]:
        return [slug for slug, box in self.agent_boxes.items() if box.isChecked()]

    def places(self) -> list[Place]:
        from desktop.sources.config.install_targets import target

        project = self.project if self.project_scope.isChecked() else None
        by_folder: dict[Path, list[str]] = {}
        for slug in self.chosen():
            by_folder.setdefault(target(slug).folder(project), []).append(slug)
        return [Place(folder, tuple(who), project) for folder, who in by_folder.items()]

    def _choose_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose the project folder")
        if folder:
            self.set_project(Path(folder))

    def set_project(self, folder: Path) -> None:
        self.project = folder.resolve()
        self.project_label.setText(str(self.project))
        self.project_scope.setChecked(True)
        self._update()

    def _update(self) -> None:
        places = self.places()
        needs_project = self.project_scope.isChecked() and self.project is None
        self.install_button.setEnabled(bool(places) and not needs_project)
        if needs_project:
            self.targets.setText("Choose the project folder first.")
        elif places:
            folders = "\n".join(home_short(p.folder / self.skill.name) for p in places)
            self.targets.setText(f"It will be written to:\n{folders}")
        else:
            self.targets.setText("Choose at least one agent.")

    def start(self) -> None:
        self.install_button.setEnabled(False)
        self.outcome.setText("Installing…")
        self.task = self.controller.spawn(self.run_install(), f"installing {self.skill.name}")

    async def run_install(self) -> None:
        from desktop.session.approval_service import now_utc
        from desktop.session.installer import Prepared, approved_bytes, install

        places = self.places()
        try:
            state, files = await approved_bytes(self.controller.session, self.skill)
            batch = [Prepared(self.skill, state, tuple(files))]
            done = await asyncio.to_thread(install, batch, places, at=now_utc())
        except (InstallError, OSError) as exc:
            if not isValid(self):
                return
            self.outcome.setText(f"Not installed: {exc}")
            self.controller.notifier.warning(f"{self.skill.name} was not installed: {exc}")
            self._update()
            return
        if not isValid(self):  # what was installed is said by the notifier alone
            self.controller.notifier.info(f"installed {self.skill.name}")
            return
        lines = [f"Installed into {home_short(p)}" for p in done.written]
        lines += [f"{home_short(p)} already holds the approved files" for p in done.unchanged]
        lines += [f"Not installed into {home_short(p)}: {why}" for p, why in done.failed]
        self.outcome.setText("\n".join(lines))
        if done.written:
            self.controller.notifier.info(
                f"installed {self.skill.name} into {len(done.written)} folder(s)"
            )
        self._update()


class InstalledDialog(QDialog):
    """Every skill in the folders agents read, with whether it is still as approved."""

    HEADERS = ("Skill", "Agents", "State", "Detail", "Folder")

    def __init__(self, controller: CatalogController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Installed skills")
        self.resize(860, 420)
        layout = QVBoxLayout(self)
        self.summary = PlainLabel("Reading the agents' folders…")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.setAccessibleName("Installed skills")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setAccessibleName("Columns of the installed skills")
        header.setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        again = buttons.addButton("&Check again", QDialogButtonBox.ButtonRole.ActionRole)
        again.clicked.connect(self.start)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.found: list[InstalledSkill] = []
        self.task: asyncio.Task[None] | None = None
        self.start()

    def start(self) -> None:
        self.task = self.controller.spawn(self.read(), "reading the installed skills")

    async def read(self) -> None:
        import os

        from desktop.session.installer import installed_in, published_sets, stored_approvals
        from desktop.sources.config.install_targets import every_folder
        from desktop.sources.config.known_folders import home_dir

        session = self.controller.session
        approvals = await stored_approvals(session)
        published = published_sets(self.controller.catalog.skills)
        folders = [(f, agents, None) for f, agents in every_folder(None)]
        others: dict[str, str] = {}
        home = home_dir(os.environ)
        from desktop.core.install import skills_cli_names

        others.update(skills_cli_names(_json(home / ".agents" / ".skill-lock.json")))
        found = await asyncio.to_thread(installed_in, folders, approvals, published, others)
        if not isValid(self):  # closed, and its window gone, while the folders were read
            return
        self.found = found
        self.show_found()

    def show_found(self) -> None:
        found = sorted(self.found, key=lambda s: (s.state.rank, s.name))
        self.table.setRowCount(len(found))
        for row, s in enumerate(found):
            detail = ", ".join(s.files_changed) or s.installed_by or s.reason
            cells = (s.name, agent_names(s.agent), s.state.label, detail, home_short(Path(s.path)))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 2:
                    item.setIcon(state_icon(self.style(), s.state.icon))
                    item.setToolTip(f"{s.state.value}: {s.state.label}")
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        attention = sum(1 for s in found if s.state.rank < 3)
        installed = count(len(found), "installed skill")
        if not found:
            self.summary.setText("No skill is installed in the folders agents read.")
        elif attention:
            self.summary.setText(f"{installed}; {attention} need attention (shown first).")
        else:
            self.summary.setText(f"{installed}; none needs attention.")


def home_short(path: Path) -> str:
    """``path`` with the home folder written ``~``."""
    home = Path.home()
    return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


def agent_names(slugs: str) -> str:
    """``claude-code, copilot`` as people read it: ``Claude Code, GitHub Copilot``."""
    from desktop.sources.config.install_targets import UnknownAgent, target

    names = []
    for slug in slugs.split(", "):
        try:
            names.append(target(slug).agent)
        except UnknownAgent:
            names.append(slug)
    return ", ".join(names)


def _json(path: Path) -> object:
    import json

    try:
        with open(path, "rb") as f:
            data = f.read(4 * 1024 * 1024 + 1)
        return json.loads(data) if len(data) <= 4 * 1024 * 1024 else None
    except (OSError, ValueError):
        return None

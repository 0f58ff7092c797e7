"""The detail pane: what is known about the selected skill. Values the skill did
not declare, or that are the default, are left out until Show all is on."""

from __future__ import annotations

from urllib.parse import unquote

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import Skill
from desktop.core.states import SourceState
from desktop.core.visible import visible
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.detail_html import detail_html
from desktop.ui.page.safe_browser import SafeTextBrowser
from desktop.ui.page.team_review_panel import TeamReviewPanel
from desktop.ui.widgets.plain_label import PlainLabel


class DetailWidget(QWidget):
    skillRequested = Signal(str)  # another skill's id (collision, nesting link)
    fileRequested = Signal(str, str)  # skill id, file uri: open verified in Files
    previewRequested = Signal(str)  # skill id
    reviewRequested = Signal(str)  # skill id
    compareRequested = Signal(str)  # skill id

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.skill: Skill | None = None
        self._html = ""  # the page shown, to skip laying out the same one again
        self._shown_id = ""
        self.title = PlainLabel("Select a skill to see its details")
        self.title.setAccessibleName("Selected skill")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.preview_button = QPushButton("&Preview")
        self.preview_button.setAccessibleName("Preview the selected skill")
        self.review_button = QPushButton("Review approva&l…")
        self.review_button.setAccessibleName("Review approval of the selected skill")
        self.compare_button = QPushButton("Co&mpare…")
        self.compare_button.setAccessibleName("Compare the selected skill with another")
        self.show_all = QCheckBox("Show all")
        self.show_all.setObjectName("detailShowAll")
        self.show_all.setAccessibleName("Show all values, defaults included")
        self.show_all.setToolTip(
            "Also show the values the skill does not declare (the defaults a host applies) "
            "and its identity"
        )
        self.show_all.toggled.connect(lambda _on: self.refresh())
        buttons = QHBoxLayout()
        buttons.addWidget(self.title, 1)
        buttons.addWidget(self.show_all)
        for b in (self.preview_button, self.review_button, self.compare_button):
            b.setEnabled(False)
            buttons.addWidget(b)
        # The team's signed decisions: shown in the skill page's header, above every tab.
        self.team = TeamReviewPanel(controller, self)
        self.browser = SafeTextBrowser(self)
        self.browser.setAccessibleName("Skill details")
        self.browser.linkActivated.connect(self._on_link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.browser, 1)
        self.preview_button.clicked.connect(lambda: self._emit(self.previewRequested))
        self.review_button.clicked.connect(lambda: self._emit(self.reviewRequested))
        self.compare_button.clicked.connect(lambda: self._emit(self.compareRequested))
        controller.approvalsChanged.connect(self.refresh)
        controller.verificationChanged.connect(self._maybe_refresh)

    def _emit(self, signal: SignalInstance) -> None:
        if self.skill is not None:
            signal.emit(self.skill.id)

    def show_skill(self, skill: Skill | None) -> None:
        self.skill = skill
        for b in (self.preview_button, self.review_button, self.compare_button):
            b.setEnabled(skill is not None)
        self.team.show_skill(skill)
        self.refresh()

    def _maybe_refresh(self, skill_id: str) -> None:
        if self.skill is not None and self.skill.id == skill_id:
            self.refresh()

    def refresh(self) -> None:
        skill = self.skill
        if skill is None:
            catalog = self.controller.catalog
            failed = [s.origin.label for s in catalog.sources if s.status == SourceState.FAILED]
            if catalog.skills or not catalog.sources:
                self.title.setText("Select a skill to see its details")
            elif failed:
                # An empty catalog is explained, not left blank: where to read why.
                self.title.setText(
                    f"No skills: {', '.join(failed[:5])} could not be read — the Sources "
                    "panel and Messages say why"
                )
            else:
                self.title.setText("No skills in the sources read")
            self.browser.setHtml("")
            self._html = ""
            return
        self.title.setText(f"{skill.qualified_name} — {skill.origin.describe()}")
        catalog = self.controller.catalog
        status = catalog.source(skill.origin.label)
        html = detail_html(
            skill,
            catalog,
            approval=self.controller.approval_states.get(skill.id),
            files=self.controller.files.get(skill.id, {}),
            tools=status.tools if status else None,
            directory_read=bool(status and status.directory_read),
            directories=self.controller.directory_listings(skill),
            show_all=self.show_all.isChecked(),
        )
        if html == self._html:
            return  # the same page (a catalog that grew elsewhere): no new layout
        self._html = html
        # The same skill keeps its place; another one starts at the top.
        same = self._shown_id == skill.id
        self._shown_id = skill.id
        scroll = self.browser.verticalScrollBar().value() if same else 0
        self.browser.setHtml(visible(html))
        self.browser.verticalScrollBar().setValue(scroll)

    def text(self) -> str:
        return self.browser.toPlainText()

    def _on_link(self, href: str) -> None:
        scheme, _, rest = href.partition(":")
        if scheme == "skill":
            self.skillRequested.emit(unquote(rest))
        elif scheme == "show":
            self.show_all.setChecked(rest == "all")
        elif scheme == "file" and self.skill is not None:
            self.fileRequested.emit(self.skill.id, unquote(rest))
        elif scheme == "https":  # a published skill's repository page
            from PySide6.QtCore import QUrl
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(QUrl(href))
        elif scheme == "dir" and self.skill is not None:
            c = self.controller
            c.spawn(c.read_directory(self.skill, unquote(rest)), "listing a folder")

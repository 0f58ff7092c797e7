"""Type a message, see which skills it would pull in (triggers), next to those loaded
always. The message and each trigger are shown monospace: they are what a host
compares, character for character (case aside)."""

from __future__ import annotations

from urllib.parse import unquote

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop.core.loading import loaded_always, match_triggers
from desktop.core.model import Skill
from desktop.core.visible import visible
from desktop.core.words import count
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.detail_html import skill_link
from desktop.ui.page.markdown_render import escape
from desktop.ui.page.safe_browser import SafeTextBrowser

MODELS = (
    "No skill declares a trigger phrase that is in this message. Hosts such as Claude "
    "Code choose skills by reading their descriptions; this tester only matches the "
    "trigger phrases skills declare, so a skill may still be chosen."
)


class TriggerTesterDialog(QDialog):
    skillSelected = Signal(str)

    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Trigger tester")
        self.resize(640, 420)
        self.message = QLineEdit(self)
        self.message.setAccessibleName("Message to test")
        self.message.setPlaceholderText("Type a message a user might send…")
        self.message.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.message.setToolTip(
            "A skill is pulled in when its trigger phrases (metadata nimblebrain.triggers) "
            "appear in the message, case aside"
        )
        self.summary = QLabel("", self)
        self.summary.setAccessibleName("Skills pulled in")
        self.summary.setToolTip(
            "Matched on the triggers a skill declares; skills that cannot be loaded are "
            "never pulled in"
        )
        # What the tester models, said where it answers "none": hosts choose by the
        # description, which this tester does not read.
        self.note = QLabel(MODELS, self)
        self.note.setWordWrap(True)
        self.note.setAccessibleName("What the tester matches")
        self.note.setVisible(False)
        self.results = SafeTextBrowser(self)
        self.results.setAccessibleName("Matching skills")
        self.results.linkActivated.connect(self._on_link)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        self.close_button.setAccessibleName("Close the trigger tester")
        # Enter in the message tests it as typed; it does not close the dialog.
        self.close_button.setAutoDefault(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.summary)
        layout.addWidget(self.note)
        layout.addWidget(self.results, 1)
        layout.addWidget(buttons)
        self.message.textChanged.connect(self.update_results)
        self.update_results()

    def matches(self) -> list[tuple[str, str]]:
        skills = [s for s in self.controller.catalog.skills if s.loadable]
        found = match_triggers(skills, self.message.text()) if self.message.text().strip() else []
        return [(m.skill.id, m.trigger) for m in found]

    def update_results(self) -> None:
        catalog = self.controller.catalog
        found = self.matches()
        rows = []
        for skill_id, trigger in found:
            s = catalog.get(skill_id)
            if s is None:
                continue
            mark = " — third-party" if s.kind_info.third_party else ""
            rows.append(
                f"<li>{skill_link(s.id, s.qualified_name)} ({escape(s.origin.label)}{mark}): "
                f"trigger <code>{escape(trigger)}</code></li>"
            )
        always = [s for s in catalog.skills if loaded_always(s)]
        declared = [
            s
            for s in catalog.skills
            if s.loadable and s.loading.strategy == "always" and not loaded_always(s)
        ]
        html = "<h3>Pulled in by this message</h3><ul>" + ("".join(rows) or "<li>none</li>")
        html += "</ul><h3>Loaded always, whatever the message</h3><ul>" + _items(always) + "</ul>"
        if declared:
            html += (
                "<h3>Declaring always, not loaded on that alone</h3><p>Third-party: the host "
                "does not promote what a server's skill declares.</p><ul>"
                + _items(declared)
                + "</ul>"
            )
        self.results.setHtml(visible(html))
        self.summary.setText(f"{count(len(found), 'skill')} match")
        self.note.setVisible(not found and bool(self.message.text().strip()))

    def _on_link(self, href: str) -> None:
        scheme, _, rest = href.partition(":")
        if scheme == "skill":
            self.skillSelected.emit(unquote(rest))


def _items(skills: list[Skill]) -> str:
    return (
        "".join(
            f"<li>{skill_link(s.id, s.qualified_name)} ({escape(s.origin.label)})</li>"
            for s in skills
        )
        or "<li>none</li>"
    )

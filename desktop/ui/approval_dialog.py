"""Review one skill's approval: what exactly is being bound, and what is granted (A2-A5).

The dialog states the file count, the set hash and the origin being bound, the files
that changed since the last approval, each requested tool as a separate grant, and
running scripts as its own gate. A dynamic skill cannot be approved against content:
the dialog says why and offers no Approve button. It only collects the decision; the
window's controller stores it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.approvals import ApprovalState, file_set_hash, unapprovable_reason
from desktop.core.entry import skill_md_uri
from desktop.core.manifest import format_size
from desktop.core.model import Skill
from desktop.core.verify import FileVerification
from desktop.core.visible import visible
from desktop.core.words import count
from desktop.ui.detail_html import approval_html
from desktop.ui.markdown_render import escape
from desktop.ui.safe_browser import SafeTextBrowser

APPROVE = 1
REVOKE = 2


def binding_html(skill: Skill) -> str:
    files = sorted(skill.files, key=lambda f: f.uri)
    kind = "third-party server skill" if skill.kind == "mcp" else "local skill"
    intro = (
        f"<p>Approving <b>{escape(skill.qualified_name)}</b>, a {kind} from "
        f"{escape(skill.origin.describe())}, binds exactly "
        f"<b>{count(len(files), 'file')}</b> ({escape(format_size(skill.total_size))}), "
        f"set hash <code>{escape(file_set_hash(files))}</code>. Any file added, removed or "
        "changed later revokes the approval and asks again.</p>"
    )
    lines = [intro]
    own = skill_md_uri(skill)
    if any(f.uri.endswith("SKILL.md") and f.uri != own for f in files):
        lines.append("<p>Nested skills are not covered: each needs its own approval.</p>")
    lines.append("<ul>")
    for f in files[:200]:
        lines.append(
            f"<li><code>{escape(f.uri)}</code> {f.size:,} B"
            f" <code>{escape(f.digest[:19])}…</code></li>"
        )
    if len(files) > 200:
        lines.append(f"<li>… and {len(files) - 200} more</li>")
    lines.append("</ul>")
    return "".join(lines)


def mismatch_html(mismatches: Sequence[FileVerification]) -> str:
    """What the reads of this entry found against it: the digests an approval would bind
    are ones the server's bytes did not match."""
    if not mismatches:
        return ""
    items = "".join(f"<li>{escape(vf.message)}</li>" for vf in mismatches[:20])
    more = f"<li>… and {len(mismatches) - 20} more</li>" if len(mismatches) > 20 else ""
    return (
        f"<p><b>The server's bytes did not match this entry</b> when "
        f"{'a file was' if len(mismatches) == 1 else f'{len(mismatches)} files were'} "
        f"read:</p><ul>{items}{more}</ul><p>An approval binds the files listed below, not "
        "what the server sent. Refresh the entry in the preview (skills/get) to see what "
        "it serves now.</p>"
    )


class ApprovalDialog(QDialog):
    def __init__(
        self,
        skill: Skill,
        state: ApprovalState | None,
        parent: QWidget | None = None,
        *,
        mismatches: Sequence[FileVerification] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(visible(f"Review approval: {skill.qualified_name}"))
        self.resize(640, 560)
        self.skill = skill
        self.decision = 0
        layout = QVBoxLayout(self)
        current = QLabel(f"Current state: {state.state if state else 'unknown'}", self)
        current.setAccessibleName("Current approval state")
        layout.addWidget(current)
        self.body = SafeTextBrowser(self)  # names and URIs a third party chose
        self.body.setAccessibleName("What the approval binds")
        reason = unapprovable_reason(skill)
        problem = state.problem if state is not None else None
        html = ""
        if problem is not None:
            # Nothing could be stored or removed: say so before anyone ticks anything (A7).
            html = (
                "<p><b>Approvals cannot be stored or revoked now.</b> "
                f"{escape(problem.message)}</p>"
            )
        if reason:
            html += (
                "<p><b>This skill cannot be approved against content.</b> "
                f"{escape(reason[:1].upper() + reason[1:])}.</p>"
            )
            if skill.is_dynamic:
                html += (
                    "<p>An approval is bound to an exact set of files and digests; without "
                    "one it would cover whatever the server serves at any moment.</p>"
                )
        else:
            html += mismatch_html(mismatches) + binding_html(skill)
        if state is not None and state.state == "changed":
            html = "<h3>Changed since approval</h3>" + approval_html(state) + html
        self.body.setHtml(visible(html))
        layout.addWidget(self.body, 1)
        self.tool_boxes: list[QCheckBox] = []
        requested = list(dict.fromkeys(skill.allowed_tools()))
        group = QGroupBox("Grants (each separate from approving the skill)", self)
        group_layout = QVBoxLayout(group)
        if requested:
            note = QLabel(
                "The skill requests these tools in allowed-tools. A request is not a "
                "permission: tick each one you grant.",
                group,
            )
            note.setWordWrap(True)
            group_layout.addWidget(note)
        # Grants are shown ticked only under an approval that still holds: those of an
        # approval voided by a change are decided again, like the approval itself (A2).
        held = state.record if state is not None and state.approved else None
        self.tools: list[str] = []  # the requested names, as the skill wrote them
        for tool in requested:
            # "&&": a "&" in a tool name is shown, not taken for a keyboard accelerator.
            label = f"Grant tool {visible(tool)}"
            box = QCheckBox(label.replace("&", "&&"), group)
            box.setAccessibleName(label)
            box.setChecked(bool(held and tool in held.grants.tools))
            self.tool_boxes.append(box)
            self.tools.append(tool)
            group_layout.addWidget(box)
        if not requested:
            group_layout.addWidget(QLabel("The skill requests no tools.", group))
        self.scripts_box = QCheckBox("Allow running the skill's bundled scripts", group)
        self.scripts_box.setAccessibleName("Allow scripts")
        self.scripts_box.setChecked(bool(held and held.grants.scripts))
        group_layout.addWidget(self.scripts_box)
        layout.addWidget(group)
        group.setEnabled(reason is None and problem is None)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.approve_button: QPushButton | None = None
        if reason is None and problem is None:
            self.approve_button = self.buttons.addButton(
                "&Approve these files", QDialogButtonBox.ButtonRole.AcceptRole
            )
            self.approve_button.setAccessibleName("Approve")
            self.approve_button.clicked.connect(lambda: self._done(APPROVE))
        self.revoke_button = self.buttons.addButton(
            "&Revoke", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.revoke_button.setAccessibleName("Revoke")
        self.revoke_button.setEnabled(bool(state and state.record is not None) and not problem)
        self.revoke_button.clicked.connect(lambda: self._done(REVOKE))
        self.buttons.rejected.connect(self.reject)
        # Enter never decides: only a deliberate press of Approve or Revoke does.
        for button in self.buttons.buttons():
            if isinstance(button, QPushButton):
                button.setAutoDefault(False)
                button.setDefault(False)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setDefault(True)
        layout.addWidget(self.buttons)

    def granted_tools(self) -> list[str]:
        return [t for t, b in zip(self.tools, self.tool_boxes, strict=True) if b.isChecked()]

    def _done(self, decision: int) -> None:
        self.decision = decision
        self.accept()

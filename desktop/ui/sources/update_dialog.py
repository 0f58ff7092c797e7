"""Check for updates: what a newer commit of a git source changes, reviewed before the
pin moves.

The dialog fetches the source's branch or tag again (in a worker thread: the window
never waits) and lists the skills added, removed and changed between the pinned commit
and the fetched one, with each changed skill's files and each changed text file's
diff. *Update* moves the pin; *Cancel* moves nothing. A changed skill must be approved
again, as after any change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import SourceSpec
from desktop.core.visible import one_line
from desktop.ui.widgets.plain_label import PlainLabel


def _check(spec: SourceSpec) -> Any:
    from desktop.sources.git.updates import check_update

    return check_update(spec, diffs=True)


def _apply(spec: SourceSpec, report: Any) -> None:
    from desktop.sources.git.updates import apply_update

    apply_update(spec, report)


class UpdateDialog(QDialog):
    """The review of one git source's update (see the module)."""

    checked = Signal(object)  # the report, or the exception that stopped the check
    moved = Signal(object)  # None once the pin moved, or the exception that stopped it
    updated = Signal(str)  # the source's label, after its pin moved

    def __init__(
        self,
        spec: SourceSpec,
        parent: QWidget | None = None,
        *,
        check: Callable[[SourceSpec], Any] = _check,
        apply: Callable[[SourceSpec, Any], None] = _apply,
    ) -> None:
        super().__init__(parent)
        self.spec = spec
        self._apply_fn = apply
        self.report: Any = None
        self.setWindowTitle(f"Updates of {one_line(spec.label)}")
        self.setMinimumWidth(560)
        self.summary = PlainLabel(f"Checking {one_line(spec.label)} for updates…", self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("What the update changes")
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setAccessibleName("Skills added, removed and changed")
        self.details.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.update_button = QPushButton("&Update", self)
        self.update_button.setEnabled(False)
        self.update_button.setToolTip(
            "Pin the newer commit: its skills are shown, and a changed skill must be approved again"
        )
        self.buttons.addButton(self.update_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.update_button.clicked.connect(self._update)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.details, 1)
        layout.addWidget(self.buttons)
        self.checked.connect(self._show_report)
        self.moved.connect(self._after_move)
        self._run(lambda: check(spec), self.checked)

    def _run(self, work: Callable[[], Any], done: Any) -> None:
        def target() -> None:
            try:
                result = work()
            except Exception as exc:  # noqa: BLE001 - said in the dialog
                result = exc
            done.emit(result)

        threading.Thread(target=target, name="git-update", daemon=True).start()

    def _show_report(self, report: Any) -> None:
        if isinstance(report, BaseException):
            self.summary.setText(f"Could not check {one_line(self.spec.label)}: {report}")
            return
        self.report = report
        if report.up_to_date:
            self.summary.setText(
                f"{one_line(self.spec.label)} is up to date at commit {report.old[:7]}."
            )
            return
        self.summary.setText(
            report.summary()
            + (". A changed skill must be approved again." if report.changed else ".")
        )
        shown = report.lines()[1:] or ["No skill changed."]
        diffs = report.diff_lines()
        self.details.setPlainText("\n".join(shown + ([""] + diffs if diffs else [])))
        self.details.show()
        self.update_button.setEnabled(True)

    def _update(self) -> None:
        if self.report is None:
            return
        self.update_button.setEnabled(False)
        report = self.report
        self._run(lambda: self._apply_fn(self.spec, report), self.moved)

    def _after_move(self, failed: Any) -> None:
        if isinstance(failed, BaseException):
            self.summary.setText(f"The pin did not move: {failed}")
            return
        self.updated.emit(self.spec.label)
        self.accept()

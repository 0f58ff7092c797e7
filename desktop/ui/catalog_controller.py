"""The window's catalog: the one catalog session, its events as Qt signals.

Everything the catalog does (reading sources, re-listing, verified reads, approvals)
is :class:`desktop.session.catalog_session.CatalogSession`'s; this adapter adds only
the signals widgets connect to, on the window's loop (qasync's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.model import SourceSpec, SourceStatus
from desktop.session.approval_service import ApprovalService
from desktop.session.catalog_session import CatalogSession, SessionEvents
from desktop.session.content_reader import ContentReader
from desktop.ui.notifier import Notifier


class _Signals(SessionEvents):
    """The session's events, emitted as the controller's signals."""

    def __init__(self, controller: CatalogController) -> None:
        self.c = controller

    def catalog_changed(self) -> None:
        self.c.catalogChanged.emit()

    def source_done(self, status: SourceStatus) -> None:
        self.c.sourceDone.emit(status)

    def progress(self, done: int, total: int, what: str) -> None:
        self.c.progress.emit(done, total, what)

    def busy_changed(self, busy: bool) -> None:
        self.c.busyChanged.emit(busy)

    def verification_changed(self, skill_id: str) -> None:
        self.c.verificationChanged.emit(skill_id)

    def approvals_changed(self) -> None:
        self.c.approvalsChanged.emit()

    def skills_updated(self, skill_ids: list[str]) -> None:
        self.c.skillsUpdated.emit(skill_ids)


class CatalogController(QObject, CatalogSession):
    catalogChanged = Signal()
    sourceDone = Signal(object)  # SourceStatus
    progress = Signal(int, int, str)  # done, total (0: idle), what is happening
    busyChanged = Signal(bool)
    verificationChanged = Signal(str)  # skill id
    approvalsChanged = Signal()
    # Skills read again with nothing else changed (same ids, same names elsewhere): their
    # rows and pages are updated in place, where a catalogChanged would start over.
    skillsUpdated = Signal(list)  # skill ids

    def __init__(
        self,
        notifier: Notifier,
        *,
        reader: ContentReader | None = None,
        approvals: ApprovalService | None = None,
        specs: Iterable[SourceSpec] = (),
        budgets: Any = None,
        parent: QObject | None = None,
    ) -> None:
        # QObject's initialiser takes ``parent`` and hands the other arguments on to the
        # session's (cooperative initialisers along the method resolution order).
        session: dict[str, Any] = {
            "notifier": notifier,
            "events": _Signals(self),
            "reader": reader,
            "approvals": approvals,
            "specs": specs,
            "budgets": budgets,
        }
        super().__init__(parent=parent, **session)
        self.notifier: Notifier = notifier

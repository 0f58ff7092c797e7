"""The window's catalog: it holds the one catalog session and gives its events as Qt
signals.

Everything the catalog does (reading sources, re-listing, verified reads, decisions) is
the :class:`desktop.session.catalog_session.CatalogSession`'s, held as
:attr:`CatalogController.session`; this adapter adds only the signals widgets connect
to, on the window's loop (qasync's). What views use of the session reads through to it
(bound methods and properties): the controller keeps no state of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktop.core.catalog import Catalog
from desktop.core.model import SourceSpec, SourceStatus
from desktop.session.approval_service import ApprovalService
from desktop.session.catalog_session import CatalogChange, CatalogSession, SessionEvents
from desktop.session.content_reader import ContentReader
from desktop.ui.notifier import Notifier

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalState
    from desktop.core.verify import FileVerification


class _Signals(SessionEvents):
    """The session's events, emitted as the controller's signals."""

    def __init__(self, controller: CatalogController) -> None:
        self.c = controller

    def catalog_changed(self, change: CatalogChange) -> None:
        self.c.catalogChanged.emit(change)

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


class CatalogController(QObject):
    catalogChanged = Signal(object)  # CatalogChange: partial, or read again from disk
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
        super().__init__(parent)
        self.notifier: Notifier = notifier
        self.session = s = CatalogSession(
            notifier,
            events=_Signals(self),
            reader=reader,
            approvals=approvals,
            specs=specs,
            budgets=budgets,
        )
        # What views ask of the session, bound to it.
        self.spawn = s.spawn
        self.cancel = s.cancel
        self.wait_idle = s.wait_idle
        self.set_specs = s.set_specs
        self.refresh = s.refresh
        self.show_partial = s.show_partial
        self.relist = s.relist
        self.retry = s.retry
        self.summary = s.summary
        self.read_kept = s.read_kept
        self.relist_due = s.relist_due
        self.stop_relisting = s.stop_relisting
        self.reread_folder = s.reread_folder
        self.load_approvals = s.load_approvals
        self.open_uri = s.open_uri
        self.server_output = s.server_output
        self.read = s.read
        self.verify = s.verify
        self.read_directory = s.read_directory
        self.directory_listings = s.directory_listings
        self.file_state = s.file_state
        self.verification_of = s.verification_of
        self.approve = s.approve
        self.reject = s.reject
        self.revoke = s.revoke
        self.approved_copy = s.approved_copy
        self.needs_decision = s.needs_decision
        self.trust_servers = s.trust_servers

    # -- the session's state, read where it is ---------------------------------------

    @property
    def catalog(self) -> Catalog:
        return self.session.catalog

    @catalog.setter
    def catalog(self, catalog: Catalog) -> None:
        self.session.catalog = catalog

    @property
    def statuses(self) -> dict[str, SourceStatus]:
        """Each source's last status by label (pending while it is read)."""
        return self.session.statuses

    @property
    def approval_states(self) -> dict[str, ApprovalState]:
        return self.session.approval_states

    @property
    def files(self) -> dict[str, dict[str, FileVerification]]:
        return self.session.files

    @property
    def specs(self) -> list[SourceSpec]:
        return self.session.specs

    @property
    def reader(self) -> ContentReader:
        return self.session.reader

    @property
    def approvals(self) -> ApprovalService:
        return self.session.approvals

    @property
    def busy(self) -> bool:
        return self.session.busy

    @property
    def closing(self) -> bool:
        return self.session.closing

    @closing.setter
    def closing(self, closing: bool) -> None:
        self.session.closing = closing

    @property
    def relist_floor(self) -> float:
        return self.session.relist_floor

    @relist_floor.setter
    def relist_floor(self, seconds: float) -> None:
        self.session.relist_floor = seconds

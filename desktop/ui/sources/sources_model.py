"""The sources panel's model: each configured source with what its last read said."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette

from desktop.core.freshness import relist_delay
from desktop.core.library import source_words
from desktop.core.model import SourceSpec, SourceStatus
from desktop.core.states import SourceState
from desktop.core.visible import quoted
from desktop.sources.launchers import spec_runner, starting_message
from desktop.ui.widgets.read_only_table_model import (
    FOREGROUND,
    TEXT_ROLES,
    TOOLTIP,
    ReadOnlyTableModel,
)
from desktop.ui.widgets.status_colors import status_brush

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogSession

COLUMNS = ("Source", "Transport", "Address", "Era", "Status", "Skills")
LABEL_ROLE = Qt.ItemDataRole.UserRole + 1


def era_text(status: SourceStatus | None) -> str:
    if status is None or not status.protocol_version:
        return ""
    return status.protocol_version


class SourcesModel(ReadOnlyTableModel):
    columns = COLUMNS
    answered = TEXT_ROLES | {TOOLTIP, FOREGROUND, int(LABEL_ROLE)}

    def __init__(self, parent: Any = None, session: CatalogSession | None = None) -> None:
        super().__init__(parent)
        self.specs: list[SourceSpec] = []
        # The session's statuses when it is given (its one state of each source, read
        # where it is); a model of its own keeps those it is told.
        self.session = session
        self._statuses: dict[str, SourceStatus] = {}
        self.origins: dict[str, str] = {}  # label -> saved | bundled | detected-folder | imported
        self.keys: dict[str, str] = {}  # label -> the key that switches a source off

    def spec(self, label: str) -> SourceSpec | None:
        """The source shown with this label, if any."""
        return next((s for s in self.specs if s.label == label), None)

    def saved(self, spec: SourceSpec) -> bool:
        """Whether the source is one of the saved configuration's (so it can be edited or
        removed there), not found on its own (a detected folder, an imported server)."""
        return self.origins.get(spec.label, "saved") in ("saved", "bundled", "given")

    def set_specs(
        self,
        specs: list[SourceSpec],
        origins: dict[str, str] | None = None,
        keys: dict[str, str] | None = None,
    ) -> None:
        self.beginResetModel()
        self.specs = list(specs)
        self.origins = dict(origins or {})
        self.keys = dict(keys or {})
        if self.session is None:
            labels = {s.label for s in self.specs}
            self._statuses = {k: v for k, v in self._statuses.items() if k in labels}
        self.endResetModel()

    @property
    def statuses(self) -> dict[str, SourceStatus]:
        """Each source's last status by label (the session's, when it is given)."""
        return self.session.statuses if self.session is not None else self._statuses

    def set_status(self, status: SourceStatus) -> None:
        """A source's status changed: its row says so (the session already holds it)."""
        label = status.origin.label
        if self.session is None:
            self._statuses[label] = status
        for row, spec in enumerate(self.specs):
            if spec.label == label:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def mark_pending(self) -> None:
        """Every source is about to be read again: each row says it is being read."""
        if self.session is not None:
            self.session.mark_reading(s.label for s in self.specs)
            return
        self._statuses = {}
        if self.specs:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.specs) - 1, len(COLUMNS) - 1)
            )

    def rows_changed(self) -> None:
        """Every row says its source's status again (the statuses changed together)."""
        if self.specs:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.specs) - 1, len(COLUMNS) - 1)
            )

    def row_items(self) -> list[Any]:
        return self.specs

    def status_line(self, spec: SourceSpec) -> str:
        """One source's status in plain words, for the line under the sidebar: its kind
        ("folder", "local process"), its state ("Ready", "Failed") and what it came to."""
        words = source_words(spec, self.statuses.get(spec.label))
        # Bounded, so a long error does not squeeze the table to a row or two; the
        # source's tooltip holds the rest.
        return quoted(f"{spec.label} ({words.kind}): {words.status} — {words.detail}", 300)

    def tooltip(self, spec: SourceSpec, col: int) -> str | None:
        status = self.statuses.get(spec.label)
        lines = [f"{spec.label}: {spec.shown_endpoint}"]
        if spec.sample:
            lines.append("(a bundled sample, shown while you have no source of your own)")
        elif spec.imported_from is not None:
            lines.append(f"(imported from {spec.imported_from[0]}: {spec.imported_from[1]})")
        elif spec.label in self.origins:
            lines.append(f"({self.origins[spec.label]})")
        if status is not None and status.message:
            lines.append(status.message)
        if status is not None and status.ttl_ms is not None:
            delay = relist_delay(status)
            again = "" if delay is None else f"; listed again after {delay:g} s"
            lines.append(f"ttlMs {status.ttl_ms}{again}")
        if status is not None:
            lines.extend(status.notes[:8])
        return "\n".join(lines)

    def role_data(self, spec: SourceSpec, col: int, role: int) -> Any:
        if role == FOREGROUND:
            status = self.statuses.get(spec.label)
            if not spec.enabled:
                return QGuiApplication.palette().brush(
                    QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text
                )
            if status is not None and status.status == SourceState.FAILED and col == 4:
                return status_brush("bad")
            return None
        return spec.label  # LABEL_ROLE

    def text(self, spec: SourceSpec, col: int) -> str:
        status = self.statuses.get(spec.label)
        if col == 0:
            return spec.label + (" (sample)" if spec.sample else "")
        if col == 1:
            return spec.transport
        if col == 2:
            return spec.shown_endpoint
        if col == 3:
            return era_text(status) if spec.kind_info.runs_code else ""
        if col == 4:
            if not spec.enabled:
                return "off"
            if status is None or status.state is SourceState.PENDING:
                return starting_message(spec) + "…" if spec_runner(spec) else "reading…"
            return status.status if not status.message else f"{status.status}: {status.message}"
        if col == 5:
            if status is None or not spec.enabled or status.state is SourceState.PENDING:
                return ""
            return str(status.skill_count)
        return ""

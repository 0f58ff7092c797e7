"""The filter row above the catalog table: text as you type, and source/state/strategy."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QWidget

from desktop.core.query import SkillQuery

ANY = "any"
STATE_CHOICES = (
    ("any state", ""),
    ("listed", "listed"),
    ("invalid", "invalid"),
    ("over limit", "over-limit"),
    ("dynamic", "dynamic"),
    ("needs a decision", "not-approved|changed"),
    ("not approved", "not-approved"),
    ("approved", "approved"),
    ("changed since approval", "changed"),
    ("unapprovable", "unapprovable"),
    ("bytes match", "verified"),
    ("mismatch", "size-mismatch|digest-mismatch|frontmatter-mismatch|unlisted-file"),
)
STRATEGY_CHOICES = (("any strategy", ""), ("always", "always"), ("dynamic", "dynamic"))


class FilterBarWidget(QWidget):
    queryChanged = Signal(object)  # SkillQuery

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QLineEdit(self)
        self.text.setPlaceholderText("Filter by name, description, origin, trigger  (Ctrl+F)")
        self.text.setClearButtonEnabled(True)
        self.text.setMinimumWidth(140)
        self.text.setAccessibleName("Filter skills")
        self.source = QComboBox(self)
        self.source.setAccessibleName("Filter by source")
        self.source.addItem("any source", "")
        self.state = QComboBox(self)
        self.state.setAccessibleName("Filter by state")
        for text, value in STATE_CHOICES:
            self.state.addItem(text, value)
        self.strategy = QComboBox(self)
        self.strategy.setAccessibleName("Filter by loading strategy")
        for text, value in STRATEGY_CHOICES:
            self.strategy.addItem(text, value)
        self._wanted_source = ""
        self.view = ""  # the sidebar's Library view (desktop.core.library)
        self.count = QLabel("", self)
        self.count.setAccessibleName("Skills shown")
        # Never squeezed: the choices give way first.
        self.count.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for combo in (self.source, self.state, self.strategy):
            # Narrow windows shrink the choices to a few letters rather than grow the window.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(6)
        layout.addWidget(self.text, 3)
        layout.addWidget(self.source, 1)
        layout.addWidget(self.state, 1)
        layout.addWidget(self.strategy, 1)
        layout.addWidget(self.count)
        self.text.textChanged.connect(self._emit)
        for combo in (self.source, self.state, self.strategy):
            combo.currentIndexChanged.connect(self._emit)

    def set_sources(self, labels: Iterable[str]) -> None:
        current = self.source.currentData() or self._wanted_source
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem("any source", "")
        for label in labels:
            self.source.addItem(label, label)
        i = self.source.findData(current)
        self.source.setCurrentIndex(max(i, 0))
        self.source.blockSignals(False)
        self._wanted_source = ""
        self._emit()

    def query(self) -> SkillQuery:
        def chosen(combo: QComboBox) -> frozenset[str]:
            value = combo.currentData() or ""
            return frozenset(v for v in str(value).split("|") if v)

        return SkillQuery(
            text=self.text.text(),
            sources=chosen(self.source),
            states=chosen(self.state),
            strategies=chosen(self.strategy),
            view=self.view,
        )

    def set_view(self, view: str) -> None:
        """Show a Library view: any source, the text and other choices kept."""
        self.view = view
        self.source.blockSignals(True)
        self.source.setCurrentIndex(0)
        self.source.blockSignals(False)
        self._emit()

    def restore(self, text: str, source: str, state: str, strategy: str, view: str = "") -> None:
        self.view = view
        self.text.setText(text)
        if source and self.source.findData(source) < 0:
            self._wanted_source = source
        for combo, value in ((self.source, source), (self.state, state), (self.strategy, strategy)):
            combo.setCurrentIndex(max(combo.findData(value), 0))
        self._emit()

    def _emit(self) -> None:
        self.queryChanged.emit(self.query())

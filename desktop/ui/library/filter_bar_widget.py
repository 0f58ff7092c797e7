"""The filter row above the catalog table: text as you type, and source/state/strategy."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.library import PROBLEMS
from desktop.core.query import SkillQuery
from desktop.core.states import Approval, EntryState, Verification

ANY = "any"
# The Filters menu's choices, in the sidebar's words: (shown, the states it selects by,
# joined by "|", the precise meaning for a tooltip). "Has problems" and "To review" find
# exactly what the sidebar's rows of those names count (desktop.core.library).
STATE_CHOICES = (
    ("any state", "", ""),
    (
        "To review",
        "|".join(a for a in Approval if a.needs_decision),
        "Approval state not-approved or changed: nobody approved it yet, or it changed since",
    ),
    ("Changed since approval", Approval.CHANGED, "Approval state changed: " + Approval.CHANGED.tip),
    ("Approved", Approval.APPROVED, "Approval state approved: " + Approval.APPROVED.tip),
    ("Rejected", Approval.REJECTED, "Approval state rejected: " + Approval.REJECTED.tip),
    (
        "Cannot be approved",
        Approval.UNAPPROVABLE,
        "Approval state unapprovable: " + Approval.UNAPPROVABLE.tip,
    ),
    (
        "Checked",
        Verification.VERIFIED,
        "Verification verified: every file's size and SHA-256 digest match the listing",
    ),
    (
        "Files differ",
        "|".join(v for v in Verification if v.mismatch),
        "Verification mismatch: a file read is not the one the source listed "
        "(size, digest, frontmatter or an unlisted file)",
    ),
    (
        "Has problems",
        PROBLEMS,
        "An error in the entry (invalid, over a limit) or a broken rule of the format",
    ),
    (
        "Cannot be loaded",
        EntryState.INVALID,
        "Entry state invalid: the SKILL.md or its entry cannot be parsed or has no name",
    ),
    (
        "Too large",
        EntryState.OVER_LIMIT,
        "Entry state over-limit: larger than the limits allow, so nothing is read",
    ),
    (
        "Files not listed",
        EntryState.DYNAMIC,
        "Entry state dynamic: the server publishes no files or digests to check against",
    ),
)
STRATEGY_CHOICES = (("any strategy", ""), ("always", "always"), ("dynamic", "dynamic"))
# The kinds of state, each its own choice in the Filters menu: one state of each kind
# at a time, and a skill shown only when it is in every state chosen.
# (key, menu section, the state choices, the hidden box's accessible name)
STATE_KINDS = (
    (
        "approval",
        "Review",
        ("To review", "Changed since approval", "Approved", "Rejected", "Cannot be approved"),
        "Filter by review",
    ),
    ("checks", "Files", ("Checked", "Files differ"), "Filter by the files' check"),
    (
        "entry",
        "Problems",
        ("Has problems", "Cannot be loaded", "Too large", "Files not listed"),
        "Filter by problems",
    ),
)
STATE_VALUES = {name: str(value) for name, value, _tip in STATE_CHOICES}
STATE_TIPS = {name: tip for name, _value, tip in STATE_CHOICES}
CHIP_TIPS = {
    "source": "Only this source's skills: click to show every source",
    "approval": "Only skills in this review state: click to show every review state",
    "checks": "Only skills whose files were checked with this result: click to drop this filter",
    "entry": "Only skills with these problems: click to drop this filter",
    "strategy": "Only skills with this loading strategy: click to show all",
    "view": "A Library view: click to show all skills",
}


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
        self.states: dict[str, QComboBox] = {}  # kind of state -> its choice
        for key, _title, names, accessible in STATE_KINDS:
            combo = QComboBox(self)
            combo.setAccessibleName(accessible)
            combo.addItem("any", "")
            for name in names:
                combo.addItem(name, STATE_VALUES[name])
            self.states[key] = combo
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
        # The choices live in a Filters menu; what is chosen shows as removable chips.
        self.filters_button = QToolButton(self)
        self.filters_button.setText("Filters")
        self.filters_button.setAccessibleName("Choose filters")
        self.filters_button.setToolTip("Filter by status, source or loading strategy")
        self.filters_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.filters_menu = QMenu(self.filters_button)
        self.filters_menu.setToolTipsVisible(True)  # each choice's precise meaning
        self.filters_menu.aboutToShow.connect(self._fill_menu)
        self._groups: list[QActionGroup] = []
        self.filters_button.setMenu(self.filters_menu)
        self.chips = QWidget(self)
        self.chips.setObjectName("filterChips")
        self.chips_layout = QHBoxLayout(self.chips)
        self.chips_layout.setContentsMargins(0, 0, 0, 0)
        self.chips_layout.setSpacing(4)
        self.chips.hide()
        self.view_names: dict[str, str] = {}  # view key -> its name, set by the window
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        layout = QHBoxLayout()
        outer.addLayout(layout)
        outer.addWidget(self.chips)
        for combo in self._combos():
            combo.hide()  # the Filters menu sets them; they hold what is chosen
            # Narrow windows shrink the choices to a few letters rather than grow the window.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.filters_button)
        layout.addWidget(self.count)
        self.text.textChanged.connect(self._emit)
        for combo in self._combos():
            combo.currentIndexChanged.connect(self._emit)

    def _combos(self) -> tuple[QComboBox, ...]:
        return (self.source, *self.states.values(), self.strategy)

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

        groups = (chosen(combo) for combo in self.states.values())
        return SkillQuery(
            text=self.text.text(),
            sources=chosen(self.source),
            state_groups=tuple(group for group in groups if group),
            strategies=chosen(self.strategy),
            view=self.view,
        )

    def state_values(self) -> str:
        """The chosen states, one per kind, joined by commas (as ``restore`` takes them)."""
        return ",".join(str(c.currentData()) for c in self.states.values() if c.currentIndex() > 0)

    def set_view(self, view: str) -> None:
        """Show a Library view: any source, the text and other choices kept."""
        self.view = view
        self.source.blockSignals(True)
        self.source.setCurrentIndex(0)
        self.source.blockSignals(False)
        self._emit()

    def restore(self, text: str, source: str, states: str, strategy: str, view: str = "") -> None:
        """Set every choice at once; ``states`` holds a state of each kind, by commas."""
        self.view = view
        self.text.setText(text)
        if source and self.source.findData(source) < 0:
            self._wanted_source = source
        values = [v for v in states.split(",") if v]
        combos = self._combos()
        for combo in combos:
            combo.blockSignals(True)
        for combo, value in ((self.source, source), (self.strategy, strategy)):
            combo.setCurrentIndex(max(combo.findData(value), 0))
        for combo in self.states.values():
            found = [i for i in map(combo.findData, values) if i > 0]
            combo.setCurrentIndex(found[-1] if found else 0)
        for combo in combos:
            combo.blockSignals(False)
        self._emit()

    def _emit(self) -> None:
        self._show_chips()
        self.queryChanged.emit(self.query())

    # -- the Filters menu and the chips --------------------------------------------

    def _fill_menu(self) -> None:
        menu = self.filters_menu
        menu.clear()
        for group in self._groups:
            group.deleteLater()
        self._groups = []
        for key, title, names, _accessible in STATE_KINDS:
            section = menu.addSection(title)
            section.setText(title)
            combo = self.states[key]
            group = self._group(menu)
            for name in names:
                self._choice(menu, combo, combo.findText(name), group)
        menu.addSeparator()  # Source and Loading strategy are no kind of problem
        sources = menu.addMenu("Source")
        group = self._group(sources)
        for i in range(self.source.count()):
            self._choice(sources, self.source, i, group)
        loading = menu.addMenu("Loading strategy")
        group = self._group(loading)
        for i in range(self.strategy.count()):
            self._choice(loading, self.strategy, i, group)
        menu.addSeparator()
        clear = menu.addAction("Clear filters")
        clear.triggered.connect(lambda _c=False: self.restore(self.text.text(), "", "", ""))

    def _group(self, menu: QMenu) -> QActionGroup:
        """One choice of a kind at a time, shown as such; the chosen one can be dropped."""
        group = QActionGroup(menu)
        group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self._groups.append(group)
        return group

    def _choice(self, menu: QMenu, combo: QComboBox, i: int, group: QActionGroup) -> None:
        if i < 0:
            return
        action = menu.addAction(combo.itemText(i))
        action.setToolTip(STATE_TIPS.get(combo.itemText(i)) or combo.itemText(i))
        action.setCheckable(True)
        group.addAction(action)
        action.setChecked(combo.currentIndex() == i and i > 0)
        # Choosing the chosen one again drops it; another of its kind takes its place.
        action.triggered.connect(lambda on=False: combo.setCurrentIndex(i if on else 0))

    def _show_chips(self) -> None:
        while self.chips_layout.count():
            item = self.chips_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setProperty("gone", True)
                widget.hide()
                widget.deleteLater()
        chosen: list[tuple[str, str]] = []
        if self.view and self.view != "all":
            chosen.append(("view", self.view_names.get(self.view, self.view)))
        for key, combo in (("source", self.source), *self.states.items()):
            if combo.currentIndex() > 0:
                chosen.append((key, combo.currentText()))
        if self.strategy.currentIndex() > 0:
            chosen.append(("strategy", f"loads {self.strategy.currentText()}"))
        for key, text in chosen:
            chip = QToolButton(self.chips)
            chip.setObjectName(f"chip-{key}")
            chip.setText(f"{text}  ✕")
            chip.setToolTip(CHIP_TIPS[key])
            chip.setAccessibleName(f"Remove the filter {text}")
            chip.setAutoRaise(False)
            chip.clicked.connect(lambda _c=False, k=key: self.remove_filter(k))
            self.chips_layout.addWidget(chip)
        self.chips_layout.addStretch(1)
        self.chips.setVisible(bool(chosen))

    def chip_texts(self) -> list[str]:
        return [
            w.text().removesuffix("  ✕")
            for w in self.chips.findChildren(QToolButton)
            if not w.property("gone")
        ]

    def remove_filter(self, key: str) -> None:
        if key == "view":
            self.view = ""
            self._emit()
            return
        combo = {"source": self.source, "strategy": self.strategy, **self.states}[key]
        combo.setCurrentIndex(0)

""" "What the model would see": the registry text a host would hand a model, in a
monospace view with each line numbered and a description longer than hosts keep marked
on its line; its length against the host's listing budget, as a bar; and each server's
instructions against the cut many clients apply, as a bar with the numbers."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from desktop.core.checks import DESCRIPTION_MAX as DESCRIPTION_LIMIT
from desktop.core.entry import INSTRUCTIONS_KEPT as INSTRUCTIONS_CUT
from desktop.core.host_view import LISTING_BUDGET, LISTING_TIP, model_registry
from desktop.core.visible import visible
from desktop.core.words import count
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.page.budget_widget import BudgetBar
from desktop.ui.page.code_view import CodeView
from desktop.ui.widgets.plain_label import PlainLabel

INSTRUCTIONS_TIP = (
    "A server's instructions (the initialize result's instructions field): many clients "
    f"keep only the first {INSTRUCTIONS_CUT:,} characters and drop the rest"
)


class ModelViewDialog(QDialog):
    def __init__(self, controller: CatalogController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("What the model would see")
        self.resize(820, 560)
        self.controller = controller
        self.summary = PlainLabel("", self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Registry length")
        self.summary.setToolTip(
            "The registry: one line per skill a host can load (name, origin, description), "
            "handed to the model so it can choose a skill"
        )
        # How much of the host's listing budget the skills use, as a bar with the numbers.
        self.listing = BudgetBar("Listing budget:", LISTING_TIP, self)
        self.listing.setAccessibleName("Listing budget")
        self.text = CodeView(self)
        self.text.setObjectName("modelRegistry")
        self.text.setAccessibleName("Registry text")
        self.note = PlainLabel("", self)
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Descriptions over the limit")
        self.servers = PlainLabel("", self)
        self.servers.setWordWrap(True)
        self.servers.setAccessibleName("Server instructions lengths")
        self.servers.setToolTip(INSTRUCTIONS_TIP)
        self.bars_box = QVBoxLayout()
        self.bars: list[BudgetBar] = []
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        self.close_button.setAccessibleName("Close what the model would see")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.listing)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.servers)
        layout.addLayout(self.bars_box)
        layout.addWidget(buttons)
        controller.catalogChanged.connect(lambda _change: self.reload())
        self.reload()

    def reload(self) -> None:
        view = model_registry(self.controller.catalog)
        self.summary.setText(
            f"{count(len(view.lines), 'skill')}, {view.length:,} characters."
            " Server skills are marked "
            "third-party; names and descriptions appear exactly as a host passes them on."
        )
        self.listing.set(view.length, LISTING_BUDGET)
        body = view.text
        if view.warnings:
            body += "\n\n# will not survive intact\n" + "\n".join(view.warnings)
        if view.left_out:
            body += "\n\n# not offered (cannot be loaded)\n" + "\n".join(view.left_out)
        self.text.setPlainText(visible(body))
        self.text.set_marks(view.marked)
        over = len(view.marked)
        self.note.setText(
            f"⚠ {count(over, 'description')} longer than the {DESCRIPTION_LIMIT:,} "
            "characters hosts keep: marked in the margin; point at a line to read why."
            if over
            else ""
        )
        self.note.setVisible(bool(over))
        lines = [s.describe() for s in view.servers] or ["no servers"]
        self.servers.setText("Server instructions: " + "; ".join(lines))
        for bar in self.bars:
            bar.deleteLater()
        self.bars = []
        for server in view.servers:
            if not server.length:
                continue  # "no instructions" is said above: no empty bar to say it again
            bar = BudgetBar(f"{server.label} instructions:", INSTRUCTIONS_TIP, self)
            bar.set(server.length, INSTRUCTIONS_CUT)
            self.bars_box.addWidget(bar)
            self.bars.append(bar)

"""The values a server asks the user for (VS Code's ``${input:ID}``): a dialog per server.

When a server could not be started because an input has no value yet, the window asks
for it, naming the server and each input (with the description its config file gives),
keeps what is entered in the OS keyring for that server, and lists the server again.
Each server is asked once per run; dismissing the dialog leaves the server failed, with
its message saying which input it needs.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.core.model import SourceSpec, SourceStatus
from desktop.core.states import SourceState
from desktop.sources.config.inputs import (
    InputRequest,
    input_ids,
    missing_inputs,
    remember_input,
)
from desktop.ui.catalog_controller import CatalogController


class InputDialog(QDialog):
    """Asks for the inputs of one server; :meth:`values` gives what was entered."""

    def __init__(self, label: str, requests: Iterable[InputRequest], parent: QWidget | None):
        super().__init__(parent)
        self.requests = list(requests)
        self.setWindowTitle(f"Values for {label}")
        layout = QVBoxLayout(self)
        names = ", ".join(r.id for r in self.requests)
        intro = QLabel(
            f"The server {label} asks for {names} before it can start. What you enter is "
            "kept in your system's keyring for this server, and asked again only if you "
            "remove it there."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for request in self.requests:
            edit = QLineEdit(self)
            if request.password:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setPlaceholderText(request.description or request.id)
            edit.setToolTip(f"${{input:{request.id}}} in the server's settings")
            edit.textChanged.connect(self._update_ok)
            self.fields[request.id] = edit
            text = request.id + (f" ({request.description})" if request.description else "")
            form.addRow(text + ":", edit)
        layout.addLayout(form)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._update_ok()

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(all(e.text() for e in self.fields.values()))

    def values(self) -> dict[str, str]:
        return {key: edit.text() for key, edit in self.fields.items()}


class InputAsker(QObject):
    """Watches the sources read: a server that failed for want of an input is asked for
    it (once per run), and listed again with the values given."""

    asking = Signal(object)  # the InputDialog shown

    def __init__(self, controller: CatalogController, parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.window = parent
        self.asked: set[str] = set()
        self.dialog: InputDialog | None = None
        self._queue: list[tuple[str, list[InputRequest]]] = []
        controller.sourceDone.connect(self._on_source)

    def _on_source(self, status: SourceStatus) -> None:
        label = status.origin.label
        if status.status != SourceState.FAILED or label in self.asked:
            return
        spec = next((s for s in self.controller.specs if s.label == label), None)
        if spec is None or not input_ids(spec):
            return
        self.asked.add(label)
        self.controller.spawn(self._check(spec), f"looking up the values {label} asks for")

    async def _check(self, spec: SourceSpec) -> None:
        import asyncio  # not at the top: the window paints its list before asyncio loads

        missing = await asyncio.to_thread(missing_inputs, spec)
        if missing:
            self._queue.append((missing[0].label, missing))
            self._next()

    def _next(self) -> None:
        if self.dialog is not None or not self._queue:
            return
        label, requests = self._queue.pop(0)
        dialog = InputDialog(label, requests, self.window)
        self.dialog = dialog
        dialog.finished.connect(lambda result: self._answered(label, dialog, result))
        dialog.open()
        self.asking.emit(dialog)

    def _answered(self, label: str, dialog: InputDialog, result: int) -> None:
        self.dialog = None
        if result == QDialog.DialogCode.Accepted:
            values = dialog.values()
            self.controller.spawn(self._keep(label, values), f"keeping the values for {label}")
        dialog.deleteLater()
        self._next()

    async def _keep(self, label: str, values: dict[str, str]) -> None:
        import asyncio

        for input_id, value in values.items():
            why = await asyncio.to_thread(remember_input, label, input_id, value)
            if why:
                self.controller.notifier.warning(
                    f"{label}: input {input_id} is used while the window is open only: {why}"
                )
        await self.controller.relist(label)

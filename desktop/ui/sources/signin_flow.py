"""Sign in and Sign out of a Streamable HTTP source, in the window.

Signing in opens the system browser (``QDesktopServices``) at the authorization
address and shows "Waiting for sign-in in your browser… Cancel" until the browser's
answer arrives on the loopback address, the deadline passes, or Cancel is pressed. The
protocol and the tokens are :mod:`desktop.sources.mcp.signin`'s; this is only the window's
part of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from desktop.core.model import SourceSpec
from desktop.session.mcp_loading import load_mcp_support
from desktop.ui.notifier import Notifier


class WaitingDialog(QDialog):
    """ "Waiting for sign-in in your browser…" with Cancel, and the address to open
    by hand when no browser opened."""

    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signInDialog")
        self.setWindowTitle(f"Sign in to {label}")
        self.setModal(False)
        self.message = QLabel("Waiting for sign-in in your browser…", self)
        self.message.setObjectName("signInWaiting")
        self.address = QLabel("", self)
        self.address.setObjectName("signInAddress")
        self.address.setWordWrap(True)
        self.address.setTextFormat(Qt.TextFormat.PlainText)
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.address.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.address)
        layout.addWidget(buttons)

    def show_address(self, url: str, opened: bool) -> None:
        if opened:
            return
        self.address.setText(f"No browser could be opened. Open this address to sign in:\n{url}")
        self.address.show()


class SignInFlow(QObject):
    """Runs one sign-in at a time; ``changed(label)`` once a source's sign-in changed
    (the window then reads the source again)."""

    changed = Signal(str)

    def __init__(
        self,
        parent: QWidget,
        notifier: Notifier,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._notifier = notifier
        self._open_url = open_url
        self.dialog: WaitingDialog | None = None
        self.task: asyncio.Task[Any] | None = None

    @property
    def busy(self) -> bool:
        """A sign-in runs, or has ended and not yet said how (its dialog still open)."""
        return self.task is not None

    def sign_in(self, spec: SourceSpec) -> None:
        if self.busy:
            if self.dialog is not None:
                self.dialog.raise_()
            return
        dialog = WaitingDialog(spec.label, self._parent)
        self.dialog = dialog

        def open_browser(url: str) -> None:
            dialog.show_address(url, self._open_url(QUrl(url)))

        async def run() -> Any:
            # The sign-in needs the MCP client, loaded off the loop's thread when first
            # needed rather than when the window starts.
            await load_mcp_support()
            from desktop.sources.mcp import signin

            return await signin.sign_in(spec, open_browser)

        task = asyncio.ensure_future(run())
        self.task = task
        dialog.rejected.connect(task.cancel)
        task.add_done_callback(lambda t: self._finished(spec, t))
        dialog.show()

    def _finished(self, spec: SourceSpec, task: asyncio.Task[Any]) -> None:
        if self.task is task:
            self.task = None
        dialog, self.dialog = self.dialog, None
        if dialog is not None:
            dialog.done(0)
            dialog.deleteLater()
        if task.cancelled():
            self._notifier.info(f"sign-in to {spec.label} cancelled; nothing was stored")
            return
        exc = task.exception()
        if exc is not None:
            signin = sys.modules.get("desktop.sources.mcp.signin")
            if signin is None:  # the MCP client could not be loaded
                why = str(exc)
            else:
                why = str(exc) if isinstance(exc, signin.SignInError) else signin.explain(exc)
            self._notifier.error(f"could not sign in to {spec.label}: {why}")
            return
        done = task.result()
        who = f" as {done.account}" if done.account else ""
        if done.remembered:
            self._notifier.info(f"signed in to {spec.label}{who}")
        else:
            self._notifier.warning(
                f"signed in to {spec.label}{who} until the program closes: it will not be "
                f"remembered ({done.why_not})"
            )
        self.changed.emit(spec.label)

    async def sign_out(self, spec: SourceSpec) -> None:
        await load_mcp_support()
        from desktop.sources.mcp import signin

        had = await asyncio.to_thread(signin.sign_out, spec)
        if had:
            self._notifier.info(f"signed out of {spec.label}: its tokens were removed")
        else:
            self._notifier.info(f"{spec.label} was not signed in")
        self.changed.emit(spec.label)


def attach(window: Any) -> SignInFlow:
    """A :class:`SignInFlow` for ``window`` (a :class:`~desktop.ui.window.main_window.MainWindow`):
    once a sign-in or sign-out changes what a source sends, the source is read again."""
    flow = SignInFlow(window, window.notifier)

    def changed(label: str) -> None:
        # The kept connection sends what it signed in with: the next reading opens anew.
        with contextlib.suppress(Exception):  # no kept connection for it
            window.controller.reader.pool.handle(label).abandon()
        window.actions_.refresh()

    flow.changed.connect(changed)
    return flow


def _http_spec(window: Any, label: str) -> SourceSpec | None:
    found: SourceSpec | None = window.sources_model.spec(label)
    return found if found is not None and found.kind_info.signs_in(found.transport) else None


def sign_in(window: Any, label: str) -> None:
    """Sign in to the window's Streamable HTTP source ``label`` (the sidebar's Sign in)."""
    found = _http_spec(window, label)
    if found is not None:
        window.sign_in_flow.sign_in(found)


def sign_out(window: Any, label: str) -> None:
    """Sign out of the window's Streamable HTTP source ``label`` (the sidebar's Sign out)."""
    found = _http_spec(window, label)
    if found is not None:
        flow = window.sign_in_flow
        window.controller.spawn(flow.sign_out(found), f"signing out of {label}")

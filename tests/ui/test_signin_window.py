"""Sign in and Sign out in the window, against a real authorization server and a
protected Skills-extension server on 127.0.0.1 (tests/signin). The system browser is
the test's: a URL handler registered with ``QDesktopServices`` receives the address
the window opens and consents over HTTP, as a person's browser would."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from desktop.core.model import SourceSpec
from tests.signin.signin_browser import Visit, consent
from tests.signin.signin_helpers import Protected, start, stop, write_skills

from .conftest import table_names, wait_idle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


class Browser(QObject):
    """The system browser of these tests: opens what the window asks it to."""

    def __init__(self, *, consents: bool = True) -> None:
        super().__init__()
        self.consents = consents
        self.opened: list[str] = []
        self.visits: list[Visit] = []
        self.threads: list[threading.Thread] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())
        if self.consents:
            # In its own thread, as a browser is its own process: the window keeps
            # running its loop, which answers the redirect to the loopback address.
            thread = threading.Thread(target=lambda: self.visits.append(consent(url.toString())))
            thread.start()
            self.threads.append(thread)


@pytest.fixture
def protected(tmp_path: Path) -> Iterator[Protected]:
    server = start(write_skills(tmp_path / "published"))
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def browser() -> Iterator[Browser]:
    made = Browser()
    QDesktopServices.setUrlHandler("http", made, "open")
    try:
        yield made
    finally:
        QDesktopServices.unsetUrlHandler("http")
        for thread in made.threads:
            thread.join(30)


def stored(spec: SourceSpec) -> bool:
    from desktop.sources.mcp import signin

    return signin.signed_in(spec)


def sign_in_state(window: Any) -> str | None:
    status = window.sources_model.statuses.get("vault")
    return None if status is None else str(status.sign_in)


def shown_status(window: Any, label: str) -> str:
    return str(window.sidebar.source_items[label].text(1))


def test_sign_in_from_the_window_reaches_the_skills(
    qtbot: Any, make_window: Any, protected: Protected, browser: Browser, secret_service: Any
) -> None:
    spec = SourceSpec("vault", "mcp", "http", protected.url)
    window = make_window([spec])
    assert shown_status(window, "vault") == "Sign in required"
    assert window.sources_model.statuses["vault"].sign_in == "required"
    window.sidebar.select_source("vault")
    button = window.sidebar.sign_in_button
    assert button.isVisible() and button.text() == "Sign in…"
    assert table_names(window) == []

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    flow = window.sign_in_flow
    assert flow.dialog is not None
    assert flow.dialog.message.text() == "Waiting for sign-in in your browser…"
    assert flow.dialog.cancel_button.text().replace("&", "") == "Cancel"
    qtbot.waitUntil(lambda: not flow.busy, timeout=60000)
    assert browser.opened and browser.opened[0].startswith(protected.issuer + "/authorize?")
    assert browser.visits[0].status == 200 and "Signed in" in browser.visits[0].text
    assert window.notifier.last().text == "signed in to vault as ada@example.test"
    assert stored(spec)

    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: sign_in_state(window) == "signed-in", timeout=60000)
    wait_idle(qtbot, window)
    assert sorted(table_names(window)) == ["vault:alpha", "vault:beta"]
    assert window.sources_model.statuses["vault"].sign_in == "signed-in"
    tip = window.sidebar.source_items["vault"].toolTip(0)
    assert "signed in as ada@example.test" in tip
    assert not button.isVisible()

    window.sidebar.select_source("vault")
    assert window.sidebar.sign_out_action.isEnabled()
    window.sidebar.sign_out_action.trigger()
    qtbot.waitUntil(lambda: sign_in_state(window) == "required", timeout=60000)
    wait_idle(qtbot, window)
    assert not stored(spec)
    assert shown_status(window, "vault") == "Sign in required"
    assert table_names(window) == []


def test_cancel_ends_the_wait_and_closes_the_loopback_address(
    qtbot: Any, make_window: Any, protected: Protected, browser: Browser, secret_service: Any
) -> None:
    browser.consents = False  # the person never answers in the browser
    spec = SourceSpec("vault", "mcp", "http", protected.url)
    window = make_window([spec])
    window.sidebar.select_source("vault")
    qtbot.mouseClick(window.sidebar.sign_in_button, Qt.MouseButton.LeftButton)
    flow = window.sign_in_flow
    qtbot.waitUntil(lambda: bool(browser.opened), timeout=60000)
    query = parse_qs(urlsplit(browser.opened[0]).query)
    port = urlsplit(query["redirect_uri"][0]).port
    assert port is not None
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # listening while the sign-in waits
    assert flow.dialog is not None
    qtbot.mouseClick(flow.dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not flow.busy, timeout=30000)
    assert flow.dialog is None
    assert "cancelled; nothing was stored" in window.notifier.last().text
    assert not stored(spec)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # no longer listening
    assert shown_status(window, "vault") == "Sign in required"


def test_a_refused_refresh_asks_to_sign_in_again_in_the_window(
    qtbot: Any, make_window: Any, protected: Protected, browser: Browser, secret_service: Any
) -> None:
    spec = SourceSpec("vault", "mcp", "http", protected.url)
    window = make_window([spec])
    window.sidebar.select_source("vault")
    qtbot.mouseClick(window.sidebar.sign_in_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.sign_in_flow.busy, timeout=60000)
    qtbot.waitUntil(lambda: sign_in_state(window) == "signed-in", timeout=60000)
    wait_idle(qtbot, window)
    # The server stops taking the token, and the authorization server would refuse to
    # renew it: the stored sign-in is no longer good.
    protected.control("/test/refuse-refresh")
    protected.control("/test/revoke")
    window.actions_.refresh()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: sign_in_state(window) == "again", timeout=60000)
    wait_idle(qtbot, window)
    status = window.sources_model.statuses["vault"]
    assert status.message.startswith("Sign in again: the sign-in has expired"), status.message
    assert "check the source's headers" not in status.message
    assert shown_status(window, "vault") == "Sign in again"
    window.sidebar.select_source("vault")
    button = window.sidebar.sign_in_button
    assert button.isVisible() and button.text() == "Sign in again…"

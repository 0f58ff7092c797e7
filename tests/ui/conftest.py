"""Fixtures for the window's tests: a qasync loop on pytest-qt's QApplication, skill
folders, and windows built on real sources with their own settings and keyring service."""

from __future__ import annotations

import asyncio
import gc
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings

from desktop.core.model import SourceSpec
from desktop.session.approval_service import ApprovalService
from desktop.session.content_reader import ContentReader
from desktop.store.approvals_store import ApprovalStore
from desktop.store.cache import SkillCache
from desktop.ui.app import build_window
from desktop.ui.sources.sources_service import SourcesService
from desktop.ui.window.main_window import MainWindow


def write_skill(root: Path, name: str, body: str = "", **frontmatter: Any) -> Path:
    """A skill folder ``root/name`` with a SKILL.md; extra frontmatter as YAML lines."""
    import yaml

    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    fm = {"name": name, "description": f"The {name} skill.", **frontmatter}
    text = "---\n" + yaml.safe_dump(fm, sort_keys=False) + "---\n" + (body or f"# {name}\n")
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


UI_DIR = Path(__file__).parent
# Qt's offscreen platform says this about dock widgets; it is not a problem of ours.
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if UI_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def _collect_on_main_thread() -> Iterator[None]:
    """No automatic garbage collection while a window test runs.

    A collection can start in whichever thread allocates, a worker thread included,
    and destroying Qt objects held in reference cycles there crashes the process. The
    cycles are collected here instead, on the main thread, after the test.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        if enabled:
            gc.enable()


@pytest.fixture
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """qasync's loop on the test QApplication, running while Qt processes events."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        qapp.processEvents()
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]  # ours to stop
        loop.close()  # shuts down its worker threads
        qapp.processEvents()  # its stopped timer kills its pending timers here
        # Collect cycles holding Qt objects now, on this thread: a collection that
        # happened to run in a later test's worker thread would destroy them there.
        gc.collect()
        qapp.processEvents()


@pytest.fixture
def run_async(qtbot: Any, qloop: asyncio.AbstractEventLoop) -> Callable[..., Any]:
    """``run_async(awaitable, timeout=30)``: run it on the qasync loop, return its result."""

    def run(aw: Awaitable[Any], timeout: float = 30) -> Any:
        task = asyncio.ensure_future(aw)
        qtbot.waitUntil(task.done, timeout=int(timeout * 1000))
        return task.result()

    return run


@pytest.fixture
def skills_folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "alpha-notes",
        "# Alpha\n\nSee [the guide](references/guide.md) and [the web](https://example.com/x)."
        "\n\n<script>alert('x')</script> <b>raw</b>\n\n![logo](logo.png)\n",
        metadata={"nimblebrain": {"triggers": ["alpha report"], "loading-strategy": "always"}},
    )
    (root / "alpha-notes" / "references").mkdir()
    (root / "alpha-notes" / "references" / "guide.md").write_text("# Guide\n\nStep one.\n")
    (root / "alpha-notes" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    write_skill(root, "beta-tools", "# Beta\n", **{"allowed-tools": "Read Bash(git:*)"})
    write_skill(root, "gamma-release", "# Gamma\n", metadata={"nimblebrain": {"priority": 40}})
    return root


@pytest.fixture
def approval_service() -> ApprovalService:
    """Approvals in a keyring service of this test only."""
    return ApprovalService(ApprovalStore(service=f"skill-catalog-test-{uuid.uuid4().hex[:12]}"))


@pytest.fixture
def make_window(
    qtbot: Any, qloop: Any, tmp_path: Path, approval_service: ApprovalService
) -> Iterator[Callable[..., MainWindow]]:
    """``make_window(specs, start=True)``: a shown window reading ``specs``, idle."""
    made: list[MainWindow] = []

    def make(specs: list[SourceSpec] | None, *, start: bool = True, **kw: Any) -> MainWindow:
        settings = QSettings(str(tmp_path / f"window-{len(made)}.ini"), QSettings.Format.IniFormat)
        kw.setdefault("reader", ContentReader(cache=SkillCache(tmp_path / "cache")))
        kw.setdefault("approvals", approval_service)
        kw.setdefault("sources", SourcesService(specs))
        # Watching folders is tested where asked for: elsewhere a file changed on disk
        # stays changed against the listing (a mismatch), however fast it is read.
        kw.setdefault("watch", False)
        window = build_window(specs, settings=settings, **kw)
        qtbot.addWidget(window)
        window.resize(1200, 800)
        window.show()
        made.append(window)
        if start:
            window.start()
            wait_idle(qtbot, window)
        return window

    yield make
    for window in made:
        window.controller.cancel()
        task = asyncio.ensure_future(window.controller.reader.close())
        qtbot.waitUntil(task.done, timeout=20000)


def wait_idle(qtbot: Any, window: MainWindow, timeout: int = 60000) -> None:
    """Wait until the window has no read pending (a selection's automatic read included)
    and every task of its controller has finished."""
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # work posted to the event loop has started
    qtbot.waitUntil(
        lambda: not window.auto_read.isActive() and not window.controller.busy, timeout=timeout
    )


def folder_spec(path: Path, label: str = "local") -> SourceSpec:
    return SourceSpec(label, "local", "folder", str(path.resolve()))


def table_names(window: MainWindow) -> list[str]:
    proxy = window.proxy
    return [proxy.index(r, 1).data() for r in range(proxy.rowCount())]


def to_review_count(window: MainWindow) -> int:
    """The count the sidebar shows beside To review."""
    from desktop.core.library import TO_REVIEW

    return int(window.sidebar.view_items[TO_REVIEW].text(1) or 0)


def click_sidebar(qtbot: Any, window: MainWindow, item: Any) -> None:
    """A click on a row of the sidebar, where a person sees it."""
    from PySide6.QtCore import Qt

    tree = window.sidebar.tree
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

"""``skill-catalog-window``: the QApplication, qasync's loop, and the main window.

With no source options the window uses the saved sources shared with the CLI (on a
first run: the bundled sample skills and the bundled sample server). ``--folder`` and
``--server`` pin the sources for this run, as in the CLI. ``--screenshot FILE`` saves
the window once the sources are read, then quits (for documentation and tests).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from desktop.core.collector import collector_paused

if TYPE_CHECKING:
    import qasync

    from desktop.core.model import SourceSpec
    from desktop.session.content_reader import ContentReader
    from desktop.ui.notifier import Notifier
    from desktop.ui.sources.sources_service import SourcesService
    from desktop.ui.window.first_look import FirstLook
    from desktop.ui.window.main_window import MainWindow

ORGANIZATION = "skill-catalog"
APPLICATION = "Skill Catalog"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The window's options; ``args.specs`` holds the sources they name (None: saved ones)."""
    parser = argparse.ArgumentParser(
        prog="skill-catalog-window",
        description="Open the Skill Catalog window: browse the skills of local folders and MCP "
        "servers, preview verified bodies, review approvals. Without source options it uses "
        "the saved sources shared with the skill-catalog command (on a first run: the bundled "
        "sample skills and sample server).",
    )
    group = parser.add_argument_group("sources (when any is given, only these are used)")
    group.add_argument(
        "--folder", action="append", default=[], metavar="[LABEL=]DIR",
        help="a local folder of skills",
    )  # fmt: skip
    group.add_argument(
        "--server", action="append", default=[], metavar="LABEL=COMMAND|URL",
        help="an MCP server: a command line (stdio) or an http(s):// URL",
    )  # fmt: skip
    group.add_argument(
        "--config", action="append", default=[], metavar="FILE",
        help="MCP servers from a client's config file (Claude, VS Code, Cursor, Codex)",
    )  # fmt: skip
    parser.add_argument("--screenshot", metavar="FILE", help="save the window as PNG, then quit")
    parser.add_argument(
        "--select", metavar="NAME", help="select the skill with this qualified name at start"
    )
    parser.add_argument("--preview", action="store_true", help="fetch the selected skill's preview")
    args = parser.parse_args(argv)
    from desktop.sources.config.options import SourceOptionError, specs_from_options

    try:
        args.specs = specs_from_options(
            args.folder, args.server, args.config, lambda line: print(line, file=sys.stderr)
        )
    except SourceOptionError as exc:
        parser.error(str(exc))
    return args


def specs_from_args(args: argparse.Namespace) -> list[SourceSpec] | None:
    """The sources named on the command line, or None to use the saved ones."""
    specs: list[SourceSpec] | None = args.specs
    return specs


def build_window(
    specs: list[SourceSpec] | None = None,
    *,
    settings: QSettings | None = None,
    notifier: Notifier | None = None,
    reader: ContentReader | None = None,
    sources: SourcesService | None = None,
    approvals: object | None = None,
    watch: bool = True,
) -> MainWindow:
    """The window with its services (tests pass their own)."""
    from desktop.session.content_reader import ContentReader
    from desktop.ui.catalog_controller import CatalogController
    from desktop.ui.notifier import Notifier
    from desktop.ui.sources.sources_service import SourcesService
    from desktop.ui.window.main_window import MainWindow

    notifier = notifier or Notifier()
    controller = CatalogController(
        notifier,
        reader=reader or ContentReader(),
        approvals=approvals,  # type: ignore[arg-type]
    )
    settings = settings or QSettings(ORGANIZATION, "window")
    sources = sources or SourcesService(specs)
    return MainWindow(controller, sources, settings, watch=watch)


def size_first_run(window: MainWindow) -> None:
    """Give a window with no saved geometry its first size, within the screen; a saved
    one keeps the size and place the user left it at."""
    if window.settings.contains("geometry"):
        return
    width, height = 1280, 800
    screen = window.screen()
    if screen is not None:
        # Most of the screen, and no more than a list and a page can use.
        room = screen.availableGeometry()
        width = min(room.width() * 85 // 100, 1720)
        height = min(room.height() * 85 // 100, 1100)
    window.resize(width, height)


async def _capture(window: MainWindow, args: argparse.Namespace) -> None:
    import asyncio

    c = window.controller
    await asyncio.sleep(0.2)
    await c.wait_idle()
    if args.select:
        for skill in c.catalog.skills:
            if skill.qualified_name == args.select:
                window.select_skill(skill.id)
                break
    if args.preview:
        window.actions_.preview_current()
        await asyncio.sleep(0.1)
        await c.wait_idle()
    await asyncio.sleep(0.5)
    if args.screenshot:
        window.grab().save(args.screenshot, "PNG")
        QTimer.singleShot(0, window.close)


def no_display_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the window cannot open here, in one line, or None when it can.

    On Linux and the BSDs Qt needs an X11 or Wayland display (or a platform named in
    ``QT_QPA_PLATFORM``, such as ``offscreen``); without one it aborts the process.
    """
    env = os.environ if environ is None else environ
    if sys.platform in ("win32", "darwin") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return (
        "skill-catalog-window: no graphical display here (neither DISPLAY nor "
        "WAYLAND_DISPLAY is set); run it from a desktop session, or use skill-catalog "
        "in the terminal"
    )


# The longest the window waits for its first look at the sources before its loop starts
# (seconds). Meanwhile it paints, and the user's input waits (none is lost).
FIRST_LOOK_WAIT = 0.5


def open_window(
    specs: list[SourceSpec] | None,
    *,
    settings: QSettings | None = None,
    first_look_wait: float = FIRST_LOOK_WAIT,
) -> tuple[QApplication, qasync.QEventLoop, MainWindow]:
    """The application, qasync's loop and the window, shown and reading its sources
    (once the loop runs).

    The window takes a first look at its sources before the loop exists: the local
    folders' skills are painted before asyncio loads (see :mod:`desktop.ui.window.first_look`),
    for at most ``first_look_wait`` seconds.

    What the start-up makes (modules, classes, widgets: a few hundred thousand objects)
    lives as long as the window. The collector is paused while it is made, and then
    it is moved out of the collector's reach, where no later pass traverses it again.
    """
    with collector_paused():
        app = QApplication.instance() or QApplication(sys.argv[:1])
        assert isinstance(app, QApplication)
        app.setOrganizationName(ORGANIZATION)
        app.setApplicationName(APPLICATION)
        app.setDesktopFileName("skill-catalog")
        window = build_window(specs, settings=settings)
        size_first_run(window)
        window.show()
        look = window.look_first()
        _until_painted(window, look, first_look_wait)
        import asyncio

        import qasync

        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        window.start(look)
        gc.freeze()  # before the collector is back on: nothing of it is traversed again
    return app, loop, window


def _until_painted(window: MainWindow, look: FirstLook, wait: float) -> None:
    """Run Qt's own event loop, painting and leaving the user's input for later, until
    the first look's skills are painted in the list, or for ``wait`` seconds."""
    from PySide6.QtCore import QEventLoop

    if wait <= 0:
        return
    waiting = QEventLoop()

    def over() -> None:
        if not look.shown or not window.table_model.rowCount():
            waiting.quit()  # nothing came of it: no rows to wait for

    window.rowsPainted.connect(waiting.quit)
    look.finished.connect(over)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(waiting.quit)
    timer.start(int(wait * 1000))
    try:
        waiting.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    finally:
        timer.stop()
        look.finished.disconnect(over)
        window.rowsPainted.disconnect(waiting.quit)


def main(argv: list[str] | None = None) -> int:
    with collector_paused():
        args = parse_args(sys.argv[1:] if argv is None else argv)
    reason = None if QApplication.instance() else no_display_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    app, loop, window = open_window(specs_from_args(args))
    import asyncio

    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    app.setQuitOnLastWindowClosed(True)
    if args.screenshot or args.select or args.preview:
        capture = asyncio.ensure_future(_capture(window, args))
        capture.add_done_callback(lambda t: t.cancelled() or t.exception())
    with loop:
        loop.run_until_complete(closed.wait())
        loop.run_until_complete(window.controller.reader.close())
    if args.screenshot and not Path(args.screenshot).exists():
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

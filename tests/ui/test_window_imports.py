"""The window starts without the MCP client: it is loaded, off the loop's thread, when
a server is first read or a sign-in is asked for (about 40 MB and half a second less
at start)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _skill(parent: Path, name: str) -> Path:
    """A skill folder ``parent/name`` with a minimal SKILL.md."""
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: A.\n---\n# A\n")
    return folder


def _run(code: str, timeout: int = 60) -> list[str]:
    """The lines ``code`` printed, run in a fresh interpreter on the offscreen platform."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()


def _open_on(tmp_path: Path, folder: Path, served: Path | None = None) -> str:
    """Code that opens the window as ``skill-catalog-window`` does, on ``folder``'s
    parent as its only source (and ``served``'s parent through ``skill-catalog serve``
    over stdio, when given); ``app``, ``loop`` and ``window`` are then defined, and
    ``paints`` holds what each paint of the list showed, from the very first: the rows,
    whether the skill page was made, and which of ``LATER`` (module names) were loaded;
    ``painted_on_open`` says whether the window had painted its skills when
    ``open_window`` returned."""
    return textwrap.dedent(
        f"""
        import sys
        from PySide6.QtCore import QEvent, QObject, QSettings
        from PySide6.QtWidgets import QApplication
        from desktop.core.model import SourceSpec
        from desktop.ui.app import open_window
        LATER = (
            "asyncio", "qasync", "desktop.ui.page.preview_widget", "desktop.core.approvals",
            "desktop.core.review", "desktop.ui.sources.signin_flow", "desktop.sources.mcp.source",
        )
        paints = []
        class Paints(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint:
                    shown = obj.window()
                    lists = getattr(shown, "skill_list", None)
                    if lists is not None and obj is lists.list.viewport():
                        paints.append((shown.table_model.rowCount(), shown._page is not None,
                                       [m for m in LATER if m in sys.modules]))
                return False
        app = QApplication([])
        spy = Paints()
        app.installEventFilter(spy)
        settings = QSettings({str(tmp_path / "w.ini")!r}, QSettings.Format.IniFormat)
        specs = [SourceSpec("local", "local", "folder", {str(folder.parent)!r})]
        served = {str(served.parent) if served else None!r}
        if served:
            command = (sys.executable, "-m", "desktop", "serve", served)
            specs.append(SourceSpec("server", "mcp", "stdio", " ".join(command), command=command))
        app, loop, window = open_window(specs, settings=settings)
        painted_on_open = window.rows_painted_at is not None and bool(paints[-1][0])
        import asyncio
        """
    )


def test_a_window_of_folders_does_not_load_the_mcp_client(tmp_path: Path) -> None:
    folder = _skill(tmp_path / "skills", "alpha")
    code = textwrap.dedent(
        f"""
        import sys
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication
        from desktop.core.model import SourceSpec
        from desktop.ui.app import build_window
        app = QApplication([])
        settings = QSettings({str(tmp_path / "w.ini")!r}, QSettings.Format.IniFormat)
        spec = SourceSpec("local", "local", "folder", {str(folder.parent)!r})
        window = build_window([spec], settings=settings)
        window.show()
        app.processEvents()
        print(sorted(m for m in ("mcp", "pydantic", "httpx2") if m in sys.modules))
        """
    )
    lines = _run(code)
    assert lines[-1] == "[]"


def test_the_list_is_painted_with_its_rows_before_the_skill_page_is_made(
    tmp_path: Path,
) -> None:
    """The skill page (its tabs, viewers and their modules) is made on the turn after
    the list first paints its rows: a person sees the rows first, then the page with
    the selected skill."""
    folder = _skill(tmp_path / "skills", "alpha")
    code = _open_on(tmp_path, folder) + textwrap.dedent(
        """
        async def until_page():
            for _ in range(200):
                if window._page is not None and window._page.title.text() == "alpha":
                    return
                await asyncio.sleep(0.02)
        with loop:
            loop.run_until_complete(until_page())
        print(window.page.title.text())
        print([p[:2] + ("desktop.ui.page.preview_widget" in p[2],) for p in paints if p[0]][:1])
        """
    )
    lines = _run(code)
    title, first_paint_with_rows = lines[-2:]
    assert title == "alpha"
    # The first paint that shows a row: no page yet, its modules not even loaded.
    assert first_paint_with_rows == "[(1, False, False)]"


def test_the_first_rows_are_painted_before_asyncio_is_loaded(tmp_path: Path) -> None:
    """A folder's skills are in the list, painted, before asyncio (with its sockets,
    subprocesses and TLS) or the window's loop is loaded; the catalog then goes on
    with the loop as always: the folder is watched and the skill's state is read."""
    folder = _skill(tmp_path / "skills", "alpha")
    code = _open_on(tmp_path, folder) + textwrap.dedent(
        """
        async def until_watched():
            for _ in range(500):
                if window.watcher.ready and window.table_model.approvals():
                    return
                await asyncio.sleep(0.02)
        with loop:
            loop.run_until_complete(until_watched())
        first = [p for p in paints if p[0]][:1]
        loops = ("asyncio", "qasync")
        print([(rows, [m for m in loaded if m in loops]) for rows, _, loaded in first])
        print(painted_on_open)
        print(sorted(map(str, window.table_model.approvals().values())), window.watcher.ready)
        print([s.name for s in window.controller.catalog.skills])
        """
    )
    first_rows, painted_on_open, state, catalog = _run(code)[-4:]
    assert first_rows == "[(1, [])]"
    assert painted_on_open == "True"  # the window opens with its skills on screen
    assert state == "['not-approved'] True"
    assert catalog == "['alpha']"


def test_the_approval_rules_and_sign_in_load_after_the_list_is_painted(tmp_path: Path) -> None:
    """Showing the list needs only the names of the approval states: the first rows are
    painted before the approval rules are loaded (they load when the states are read,
    after the catalog), and the sign-in dialogs on the first sign-in. The row then
    shows its state."""
    folder = _skill(tmp_path / "skills", "alpha")
    code = _open_on(tmp_path, folder) + textwrap.dedent(
        """
        later = ("desktop.core.approvals", "desktop.core.review", "desktop.ui.sources.signin_flow")
        async def until_states():
            for _ in range(500):
                if window.table_model.approvals():
                    return
                await asyncio.sleep(0.02)
        with loop:
            loop.run_until_complete(until_states())
        print([[m for m in loaded if m in later] for rows, _, loaded in paints if rows][:1])
        print(sorted(map(str, window.table_model.approvals().values())))
        print("desktop.ui.sources.signin_flow" in sys.modules)
        """
    )
    first_rows, states, sign_in_loaded = _run(code)[-3:]
    assert first_rows == "[[]]"
    assert states == "['not-approved']"
    assert sign_in_loaded == "False"


def test_a_folders_skills_are_painted_before_the_mcp_client_is_loaded(tmp_path: Path) -> None:
    """With a folder and a server, the folder is read first: its skills are painted
    before the MCP client's import (which holds the interpreter most of the time)
    starts, and the server's skills follow."""
    folder = _skill(tmp_path / "skills", "alpha")
    served = _skill(tmp_path / "served", "beta")
    code = _open_on(tmp_path, folder, served) + textwrap.dedent(
        """
        def names():
            return sorted(s.name for s in window.controller.catalog.skills)
        async def until_both():
            for _ in range(1500):
                if names() == ["alpha", "beta"]:
                    return
                await asyncio.sleep(0.02)
        with loop:
            loop.run_until_complete(until_both())
            loop.run_until_complete(window.controller.reader.close())
        first = [p for p in paints if p[0]][:1]
        print([(rows, "desktop.sources.mcp.source" in loaded) for rows, _, loaded in first])
        print(names())
        """
    )
    first, last = _run(code, timeout=90)[-2:]
    assert first == "[(1, False)]"  # the folder's skill, the MCP client not loaded
    assert last == "['alpha', 'beta']"

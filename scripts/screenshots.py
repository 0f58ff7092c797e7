"""Drives the real window through its main states and saves a PNG of each.

Run by ``scripts/screenshots`` (which gives it a virtual display and throw-away home):

    python scripts/screenshots.py OUTDIR SCRATCH

Approvals go to whatever keyring the session offers (the script gives it a throw-away
one), so every skill shows the state a first-time user sees.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace
from pathlib import Path

import qasync
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QDialog

from desktop.core.model import SourceSpec
from desktop.sources.config.saved import bundled_sources
from desktop.ui.app import build_window
from desktop.ui.dialogs.instructions_dialog import InstructionsDialog
from desktop.ui.window.main_window import MainWindow

SIZES = ((1280, 800), (1920, 1080), (900, 700))
MANY = 400


def many_skills(root: Path) -> Path:
    folder = root / "team-skills"
    topics = ("billing", "release", "search", "deploy", "review", "support", "data", "docs")
    for i in range(MANY):
        topic = topics[i % len(topics)]
        name = f"{topic}-{'helper' if i % 3 else 'assistant-for-long-running-tasks'}-{i:03d}"
        skill = folder / name
        skill.mkdir(parents=True, exist_ok=True)
        description = (
            f"Helps with {topic} work: step-by-step guidance, checklists and the commands "
            f"the team uses for {topic}."
        )
        if i % 37 == 0:
            description = "x" * 1100  # over the 1,024 characters a description may hold
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: '{description}'\n---\n# {name}\n\nSteps.\n"
        )
        if i % 5 == 0:
            (skill / "scripts").mkdir(exist_ok=True)
            (skill / "scripts" / "run.sh").write_text("#!/bin/sh\necho run\n")
    return folder


async def settle(window: MainWindow, seconds: float = 0.4) -> None:
    await asyncio.sleep(seconds)
    await window.controller.wait_idle()
    await asyncio.sleep(0.2)


def save(window: MainWindow, out: Path, size: tuple[int, int], state: str) -> None:
    path = out / f"{size[0]}x{size[1]}-{state}.png"
    window.grab().save(str(path), "PNG")
    print(path)


def save_dialog(dialog: QDialog, out: Path, size: tuple[int, int], state: str) -> None:
    path = out / f"{size[0]}x{size[1]}-{state}.png"
    dialog.grab().save(str(path), "PNG")
    print(path)
    dialog.close()


def skill_named(window: MainWindow, qualified: str) -> str:
    for skill in window.controller.catalog.skills:
        if skill.qualified_name == qualified:
            return skill.id
    raise SystemExit(f"no skill {qualified} in the catalog")


async def shoot(specs: list[SourceSpec], out: Path, scratch: Path, size: tuple[int, int]) -> None:
    ini = scratch / f"window-{size[0]}x{size[1]}.ini"
    window = build_window(specs, settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(*size)
    window.show()
    window.start()
    await settle(window, 1.0)
    window.sidebar.select_view("all")
    window.select_skill(skill_named(window, "git-commit-style"))
    await settle(window)
    save(window, out, size, "1-list-and-local-skill")

    window.select_skill(skill_named(window, "sample-server:acme/billing/refunds"))
    await settle(window)
    window.preview.fetch()
    await settle(window)
    save(window, out, size, "2-server-skill")

    window.select_skill(skill_named(window, "Meeting_Summary"))
    await settle(window)
    window.tabs.setCurrentWidget(window.page.problems)
    await settle(window, 0.2)
    save(window, out, size, "3-problems")
    window.tabs.setCurrentWidget(window.page.source)
    await settle(window, 0.2)
    save(window, out, size, "3-source-marked")
    window.tabs.setCurrentWidget(window.detail)
    await settle(window, 0.2)
    save(window, out, size, "3-details-cut")

    window.select_skill(skill_named(window, "pdf-forms"))
    await settle(window)
    window.tabs.setCurrentWidget(window.page.files_tab)
    files = window.page.files
    script = files.findItems("fill_form.py", Qt.MatchFlag.MatchRecursive)[0]
    files.setCurrentItem(script)
    await settle(window)
    save(window, out, size, "3-files-script")
    window.tabs.setCurrentWidget(window.preview)

    window.select_skill(skill_named(window, "incident-triage"))
    await settle(window)
    window.actions_.compare()
    dialog = window.actions_.dialog
    await dialog.fetch_now()
    await settle(window, 0.2)
    save_dialog(dialog, out, size, "3-compare")

    window.actions_.model_view()
    await settle(window, 0.2)
    save_dialog(window.actions_.dialog, out, size, "3-model-view")
    window.actions_.trigger_tester()
    tester = window.actions_.dialog
    tester.message.setText("please write a commit message for this refund")
    await settle(window, 0.2)
    save_dialog(tester, out, size, "3-trigger-tester")
    # The sample server sends no instructions: the dialog is shown on its status with
    # instructions past the cut many clients apply, as a long-winded server sends them.
    status = window.controller.catalog.source("sample-server")
    if status is not None:
        wordy = "Use these skills for billing questions and refunds. " * 50
        wordy += "\nSee skill://acme/billing/refunds/SKILL.md for refunds.\n"
        dialog = InstructionsDialog(replace(status, instructions=wordy), window.controller)
        dialog.show()
        await settle(window, 0.2)
        save_dialog(dialog, out, size, "3-instructions")

    window.sidebar.select_source("team-skills")
    await settle(window)
    save(window, out, size, "4-many-skills")

    window.sidebar.select_view("all")
    window.filter_bar.text.setText("no-such-skill")
    await settle(window, 0.2)
    save(window, out, size, "5-empty-state")
    window.filter_bar.text.setText("")

    if not window.sidebar.isVisible():
        window.toggle_sidebar()
    window.sidebar.select_source("missing")
    await settle(window, 0.2)
    save(window, out, size, "6-failed-source")
    window.close()
    await window.controller.reader.close()


async def run(out: Path, scratch: Path) -> None:
    scratch.mkdir(parents=True, exist_ok=True)
    empty = scratch / "empty-folder"
    empty.mkdir(exist_ok=True)
    specs = [
        *bundled_sources(),
        SourceSpec("team-skills", "local", "folder", str(many_skills(scratch))),
        SourceSpec("missing", "local", "folder", str(scratch / "no-such-folder")),
    ]
    for size in SIZES:
        await shoot(specs, out, scratch, size)
    await readme(specs[:-1], out, scratch)
    await review(out, scratch)
    await vanished(out, scratch)


async def readme(specs: list[SourceSpec], out: Path, scratch: Path) -> None:
    """The README's picture: the samples and the many skills, a local skill read."""
    # The samples from a copy in the throw-away home, so the picture names no folder
    # of this checkout (the window shows a folder under home as ~/...).
    import shutil

    copy = Path.home() / "skills" / "samples"
    if not copy.exists():
        shutil.copytree(Path(specs[0].endpoint), copy)
    specs = [SourceSpec(specs[0].label, "local", "folder", str(copy)), *specs[1:]]
    ini = scratch / "window-readme.ini"
    window = build_window(specs, settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(1280, 800)
    window.show()
    window.start()
    await settle(window, 1.0)
    window.select_skill(skill_named(window, "incident-triage"))
    await settle(window)
    path = out / "readme.png"
    window.grab().save(str(path), "PNG")
    print(path)
    window.close()
    await window.controller.reader.close()


async def review(out: Path, scratch: Path) -> None:
    """The review (the skill page's Review tab) at each size: a new skill with a script,
    a skill with errors, and the first skill again after its script changed since
    approval: first in To review, then its review (the earlier approval, the diff)."""
    for size in SIZES:
        await review_at(out, scratch, size)


async def review_at(out: Path, scratch: Path, size: tuple[int, int]) -> None:
    import shutil

    from desktop.ui.review.review_view import URI_ROLE

    # A copy of its own at each size (approving one changes what the next would show),
    # shown as ~/skills/review-WxH.
    copy = Path.home() / "skills" / f"review-{size[0]}x{size[1]}"
    if not copy.exists():
        shutil.copytree(bundled_sources()[0].endpoint, copy)
    spec = SourceSpec("samples", "local", "folder", str(copy))
    ini = scratch / f"window-review-{size[0]}x{size[1]}.ini"
    window = build_window([spec], settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(*size)
    window.show()
    window.start()
    await settle(window, 1.0)

    async def open_review(qualified: str, file: str | None) -> None:
        window.actions_.review(skill_named(window, qualified))
        await settle(window)
        view = window.review
        if file is not None:
            for i in range(view.file_list.count()):
                if str(view.file_list.item(i).data(URI_ROLE)).endswith(file):
                    view.file_list.setCurrentRow(i)
            await settle(window, 0.2)

    await open_review("pdf-forms", "fill_form.py")
    save(window, out, size, "7-review-new-skill")
    await open_review("Meeting_Summary", None)
    save(window, out, size, "7-review-errors")
    await open_review("pdf-forms", None)
    window.review.approve()
    await settle(window)
    save(window, out, size, "7-review-after-approve")
    script = copy / "pdf-forms" / "scripts" / "fill_form.py"
    script.write_text(script.read_text() + "\nimport urllib.request  # sends the form away\n")
    window.actions_.refresh()
    await settle(window, 1.0)
    # The changed skill alarms: first in To review, its row and pill marked.
    window.sidebar.select_view("to-review")
    window.select_skill(skill_named(window, "pdf-forms"))
    window.tabs.setCurrentWidget(window.preview)
    await settle(window)
    save(window, out, size, "7-changed-in-list")
    await open_review("pdf-forms", "fill_form.py")
    save(window, out, size, "7-review-changed")
    window.close()
    await window.controller.reader.close()


async def vanished(out: Path, scratch: Path) -> None:
    """A watched folder deleted while the window shows one of its skills, at each size:
    every part says the source failed and the page says the skill is gone; then Retry,
    and the notice that it still fails."""
    for size in SIZES:
        await vanished_at(out, scratch, size)


async def vanished_at(out: Path, scratch: Path, size: tuple[int, int]) -> None:
    import shutil

    folder = Path.home() / "skills" / f"mine-{size[0]}x{size[1]}"
    for name in ("my-helper", "pr-summary", "release-notes"):
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Helps with {name.replace('-', ' ')}.\n---\n"
            f"# {name}\n\n1. List what is open.\n2. Write a short summary.\n"
        )
    spec = SourceSpec("mine", "local", "folder", str(folder))
    ini = scratch / f"window-vanished-{size[0]}x{size[1]}.ini"
    window = build_window([spec], settings=QSettings(str(ini), QSettings.Format.IniFormat))
    window.resize(*size)
    window.show()
    window.start()
    await settle(window, 1.0)
    window.select_skill(skill_named(window, "my-helper"))
    await settle(window)
    shutil.rmtree(folder)
    for _ in range(100):  # the watcher sees it go within a second or so
        await asyncio.sleep(0.1)
        if not window.controller.catalog.skills:
            break
    await settle(window)
    save(window, out, size, "8-folder-vanished")
    window.message_bar.action.click()  # Retry
    save(window, out, size, "8-retry-reading")  # at once, before it ends
    await settle(window)
    save(window, out, size, "8-retry-still-fails")
    window.close()
    await window.controller.reader.close()


def dark_palette() -> QPalette:
    """A dark palette as desktops' dark themes give one."""
    p = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    for r, colour in (
        (role.Window, "#2b2b2b"),
        (role.WindowText, "#e6e6e6"),
        (role.Base, "#1e1e1e"),
        (role.AlternateBase, "#262626"),
        (role.Text, "#e6e6e6"),
        (role.Button, "#353535"),
        (role.ButtonText, "#e6e6e6"),
        (role.ToolTipBase, "#3a3a3a"),
        (role.ToolTipText, "#e6e6e6"),
        (role.PlaceholderText, "#8c8c8c"),
        (role.Highlight, "#3d6fb6"),
        (role.HighlightedText, "#ffffff"),
        (role.Link, "#7ab4ff"),
        (role.LinkVisited, "#b89cff"),
        (role.Mid, "#444444"),
        (role.Dark, "#191919"),
        (role.Light, "#505050"),
        (role.Midlight, "#404040"),
        (role.Shadow, "#000000"),
    ):
        p.setColor(r, QColor(colour))
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(group.Disabled, r, QColor("#7a7a7a"))
    return p


def application() -> QApplication:
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Skill Catalog")
    if os.environ.get("SKILL_CATALOG_SHOTS_SCHEME") == "dark":
        # What a desktop set to dark shows (no desktop theme under Xvfb to ask for it).
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    return app


def first_window(path: str) -> int:
    """The program as a person starts it (its own sources, its default size), in the
    palette asked for, saved to ``path``."""
    from desktop.ui.app import main as start

    application()
    return start(["--screenshot", path])


def main() -> int:
    if sys.argv[1] == "--first-window":
        return first_window(sys.argv[2])
    out, scratch = Path(sys.argv[1]), Path(sys.argv[2])
    app = application()
    app.setQuitOnLastWindowClosed(False)  # one window per size, one after another
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(run(out, scratch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

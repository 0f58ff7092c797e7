"""What the window's menus and actions use of the main window: its parts and the few
things it does. :class:`desktop.ui.window.main_window.MainWindow` is the one subclass; the
actions (:mod:`desktop.ui.window.window_actions`) are given the window as this, so they reach
nothing else of it and import nothing that imports them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDockWidget, QMainWindow

from desktop.core.model import Skill
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.library.filter_bar_widget import FilterBarWidget
from desktop.ui.library.sidebar_widget import SidebarWidget
from desktop.ui.library.skill_list_widget import SkillListWidget
from desktop.ui.notifier import Notifier
from desktop.ui.sources.sources_model import SourcesModel
from desktop.ui.sources.sources_service import SourcesService

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTabWidget

    from desktop.ui.page.preview_widget import PreviewWidget


class WindowSurface(QMainWindow):
    controller: CatalogController
    notifier: Notifier
    sources: SourcesService
    sources_model: SourcesModel
    sidebar: SidebarWidget
    filter_bar: FilterBarWidget
    skill_list: SkillListWidget
    messages_dock: QDockWidget
    # Asks the person a yes-or-no question (a stand-in in tests).
    confirm: Callable[[str], bool]

    @property
    def preview(self) -> PreviewWidget:
        """The skill page's Overview (made on first use)."""
        raise NotImplementedError

    @property
    def tabs(self) -> QTabWidget:
        """The skill page's tabs (made on first use)."""
        raise NotImplementedError

    def current_skill(self) -> Skill | None:
        """The skill whose page is shown."""
        raise NotImplementedError

    def selected_skills(self) -> list[Skill]:
        """The skills selected in the list, in list order."""
        raise NotImplementedError

    def select_skill(self, skill_id: str) -> bool:
        """Select and show this skill; ``False`` when the catalog does not hold it."""
        raise NotImplementedError

    def show_review(self) -> None:
        """The page's Review tab, on the selected skill."""
        raise NotImplementedError

    def move_selection(self, step: int) -> None:
        """Select the row ``step`` rows away."""
        raise NotImplementedError

    def toggle_sidebar(self) -> None:
        raise NotImplementedError

    def stop_auto_read(self) -> None:
        """Drop the pending automatic read of the selected local skill."""
        raise NotImplementedError

    async def reload_sources(self) -> None:
        """Read the source settings again, then every source."""
        raise NotImplementedError

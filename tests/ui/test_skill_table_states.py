"""The skill table is a thin adapter over the catalog session: every state it shows is
read from the session when a cell is asked for, and the session's events repaint it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.session.approval_service import ApprovalService
from desktop.session.catalog_session import CatalogSession
from desktop.session.content_reader import ContentReader
from desktop.store.cache import SkillCache
from desktop.ui.catalog_controller import CatalogController
from desktop.ui.library.skill_table_model import (
    COL_APPROVAL,
    COL_NAME,
    COL_VERIFICATION,
    SkillTableModel,
)
from desktop.ui.notifier import Notifier

from .conftest import folder_spec


def test_the_table_shows_the_sessions_states_as_they_are_now(
    qtbot: Any,
    qtmodeltester: Any,
    run_async: Any,
    tmp_path: Path,
    skills_folder: Path,
    approval_service: ApprovalService,
) -> None:
    controller = CatalogController(
        Notifier(),
        reader=ContentReader(cache=SkillCache(tmp_path / "cache")),
        approvals=approval_service,
        specs=[folder_spec(skills_folder)],
    )
    model = SkillTableModel(controller)
    try:
        # The controller holds the session, it is not one: what it shows is the session's.
        assert not isinstance(controller, CatalogSession)
        run_async(controller.refresh())
        run_async(controller.wait_idle())
        assert controller.catalog is controller.session.catalog
        model.set_skills(controller.catalog.skills)
        qtmodeltester.check(model)
        row = next(r for r in range(model.rowCount()) if model.skill_at(r).name == "gamma-release")
        gamma = model.skill_at(row)
        assert gamma is not None and len(gamma.files) == 1
        cell = model.index(row, COL_VERIFICATION)
        assert cell.data() == "not read yet"
        assert model.index(row, COL_APPROVAL).data() == "not-approved"

        # A read through the session repaints the row and shows what was read.
        with qtbot.waitSignal(model.dataChanged) as changed:
            run_async(controller.read(gamma, controller.reader.skill_md_uri(gamma)))
        assert changed.args[0].row() == row and changed.args[0].column() == COL_NAME
        assert cell.data() == "1 of 1 files verified"

        # A decision through the session: every row is told, the row shows it.
        with qtbot.waitSignal(model.dataChanged):
            assert run_async(controller.approve(gamma, read={})) is not None
        assert model.index(row, COL_APPROVAL).data() == "approved"
        assert model.approvals()[gamma.id] == "approved"

        # Nothing is copied: what the session forgets, the table no longer shows.
        controller.session.files.pop(gamma.id)
        assert cell.data() == "not read yet"
        assert model.verifications() == {}
        qtmodeltester.check(model)
    finally:
        run_async(controller.reader.close())

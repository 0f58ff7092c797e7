"""What the model would see (pure): registry lines, third-party tags, cuts."""

from __future__ import annotations

from desktop.core.catalog import build_catalog
from desktop.core.host_view import INSTRUCTIONS_CUT, model_registry
from desktop.core.model import Origin, Skill, SkillFile, SourceStatus

DIGEST = "sha256:" + "b" * 64


def _skill(origin: Origin, name: str, description: str, resources: object = None) -> Skill:
    uri = f"skill://{name}/SKILL.md" if origin.kind == "mcp" else f"{name}/SKILL.md"
    files = resources if resources is not None else (SkillFile(uri, DIGEST, 1),)
    return Skill(origin, uri, name, description, {"name": name}, files)  # type: ignore[arg-type]


def test_registry_marks_origin_and_cuts() -> None:
    local = Origin("mine", "local", "folder", "/skills")
    server = Origin("docs", "mcp", "stdio", "serve docs")
    skills = [
        _skill(local, "notes", "Take notes."),
        _skill(server, "refunds", "Refund things."),
        _skill(server, "long", "x" * 1500),
        _skill(server, "broken", "d", resources=None),
    ]
    skills[3].resources = None
    from desktop.core.model import Problem

    skills[3].problems.append(Problem("bad", "bad entry", "invalid"))
    status = SourceStatus(server, instructions="i" * (INSTRUCTIONS_CUT + 10))
    view = model_registry(build_catalog([SourceStatus(local), status], skills))
    assert "- notes [local, folder mine]: Take notes." in view.lines
    assert "- docs:refunds [third-party, from server docs]: Refund things." in view.lines
    assert any("docs:broken" in x for x in view.left_out)
    assert any("docs:long: description is 1,500 characters" in w for w in view.warnings)
    assert view.length == len(view.text)
    assert view.servers[0].cut and "lose 10" in view.servers[0].describe()

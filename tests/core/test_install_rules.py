"""The rules of installing: names that collide, what may be installed, the lock's format,
and the state of an installed skill."""

from __future__ import annotations

import json

import pytest

from desktop.core.approval_states import APPROVED, CHANGED, NOT_APPROVED, REJECTED
from desktop.core.install import (
    InstallError,
    LockEntry,
    LockFile,
    drifted_files,
    installed_state,
    is_script,
    merged,
    name_clash,
    other_tool,
    parse_lock,
    refusal,
    render_lock,
    safe_folder_name,
    safe_relative_path,
    skills_cli_names,
    toolhive_names,
)
from desktop.core.model import Origin, Skill
from desktop.core.states import Installed


def entry(name: str = "pdf", folder: str = ".claude/skills", **kw: object) -> LockEntry:
    files = (LockFile("SKILL.md", 3, "aa"), LockFile("scripts/run.sh", 4, "bb"))
    base: dict[str, object] = {
        "name": name,
        "agent": "claude-code",
        "folder": folder,
        "source": {"label": "team", "approval": "k1"},
        "uri": "pdf/SKILL.md",
        "files": files,
        "set_hash": "sha256:set",
    }
    base.update(kw)
    return LockEntry(**base)  # type: ignore[arg-type]


def test_names_that_one_file_system_folds_together_collide() -> None:
    assert name_clash("PDF", ["pdf", "docx"]) == "pdf"
    assert name_clash("pdf", ["pdf"]) is None  # the same name is not a collision
    assert name_clash("ﬁle", ["file"]) == "file"  # NFKC: the ligature is "fi"
    assert name_clash("café", ["cafe\u0301"]) == "cafe\u0301"  # NFC
    assert name_clash("new", ["old"]) is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "no name"),
        ("..", "no name"),
        ("a/b", "path separator"),
        (".hidden", "starts with a dot"),
        ("bad\x07", "control character"),
    ],
)
def test_a_name_that_cannot_be_a_folder_is_said(name: str, why: str) -> None:
    assert why in (safe_folder_name(name) or "")


def test_a_plain_name_is_a_folder() -> None:
    assert safe_folder_name("pdf-forms") is None
    assert safe_relative_path("scripts/run.sh")
    for bad in ("", "/etc/passwd", "../x", "a//b", "a\\b", "./a"):
        assert not safe_relative_path(bad), bad


def skill(dynamic: bool = False) -> Skill:
    return Skill(
        Origin("team", "local", "folder", "/x"),
        "pdf/SKILL.md",
        "pdf",
        "d",
        {},
        "dynamic" if dynamic else (),
    )


def test_only_an_approved_skill_with_bytes_may_be_installed() -> None:
    assert refusal(skill(), APPROVED) is None
    assert "changed since it was approved" in (refusal(skill(), CHANGED) or "")
    assert "rejected" in (refusal(skill(), REJECTED) or "")
    assert "not approved" in (refusal(skill(), NOT_APPROVED, "no record") or "")
    assert "(no record)" in (refusal(skill(), NOT_APPROVED, "no record") or "")
    assert "not approved for its current files: approve" in (refusal(skill(), NOT_APPROVED) or "")
    assert "no bytes to install" in (refusal(skill(dynamic=True), APPROVED) or "")


def test_scripts_are_what_is_under_scripts_or_bin() -> None:
    assert is_script("scripts/run.sh") and is_script("bin/tool")
    assert not is_script("SKILL.md") and not is_script("docs/scripts/x")


def test_a_lock_round_trips_stably_sorted() -> None:
    a, b = entry("zeta", provenance={"commit": "c1"}, enabled=False), entry("alpha")
    text = render_lock([a, b])
    assert text == render_lock([b, a])  # the order given does not matter
    assert text.endswith("}\n") and '"version": 1' in text
    assert text.count('"enabled": false') == 1  # written only when disabled
    parsed = parse_lock(text)
    assert [e.name for e in parsed] == ["alpha", "zeta"]
    assert parsed[1] == a
    assert [e.name for e in merged(parsed, entry("alpha", agent="codex"))] == ["zeta", "alpha"]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "not JSON"),
        ("[]", 'no "skills" list'),
        ('{"version": 9, "skills": []}', "version 9"),
        ('{"version": 1, "skills": [1]}', "not an object"),
        ('{"version": 1, "skills": [{"name": "x"}]}', "malformed"),
    ],
)
def test_a_broken_lock_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(InstallError, match=why):
        parse_lock(text)


def test_a_lock_naming_a_path_outside_its_folder_is_refused() -> None:
    data = json.loads(render_lock([entry()]))
    data["skills"][0]["files"][0]["path"] = "../../.bashrc"
    with pytest.raises(InstallError, match="outside its folder"):
        parse_lock(json.dumps(data))
    data = json.loads(render_lock([entry()]))
    data["skills"][0]["name"] = "../evil"
    with pytest.raises(InstallError, match="cannot be installed"):
        parse_lock(json.dumps(data))


def test_the_state_of_an_installed_skill() -> None:
    e = entry()
    same = {"SKILL.md": "aa", "scripts/run.sh": "bb"}
    assert installed_state(e, same, APPROVED, "sha256:set", "sha256:set") == (
        Installed.APPROVED,
        (),
    )
    assert installed_state(e, same, APPROVED, "sha256:set", None)[0] is Installed.APPROVED
    edited = {**same, "SKILL.md": "zz", "extra.txt": "cc"}
    assert installed_state(e, edited, APPROVED, "sha256:set", None) == (
        Installed.DRIFTED,
        ("SKILL.md", "extra.txt"),
    )
    assert drifted_files(e, {"SKILL.md": "aa"}) == ("scripts/run.sh",)
    assert installed_state(e, same, APPROVED, "sha256:set", "sha256:new")[0] is (
        Installed.CHANGED_UPSTREAM
    )
    assert installed_state(e, same, None, None, None)[0] is Installed.NOT_APPROVED
    assert installed_state(e, same, NOT_APPROVED, "sha256:set", None)[0] is (Installed.NOT_APPROVED)
    assert installed_state(e, same, APPROVED, "sha256:other", None)[0] is Installed.NOT_APPROVED
    assert Installed.APPROVED.ok and not Installed.DRIFTED.ok
    assert Installed.DRIFTED.label == "Changed on disk" and Installed.DRIFTED.rank == 0
    assert Installed.UNMANAGED.icon


def test_who_installed_a_skill_as_other_tools_record_it() -> None:
    gh = {"metadata": {"github-repo": "octo/skills", "github-ref": "v1"}}
    assert other_tool(gh) == "gh skill from octo/skills at v1"
    assert other_tool({"metadata": {"github-repo": "octo/skills"}}) == "gh skill from octo/skills"
    assert other_tool({"metadata": "x"}) == "" and other_tool(None) == ""
    lock = {"version": 1, "skills": {"pdf": {"source": "anthropics/skills"}, "x": "bad"}}
    assert skills_cli_names(lock) == {"pdf": "skills CLI from anthropics/skills", "x": "skills CLI"}
    listed = {"skills": [{"name": "a", "sourceUrl": "u"}, {"name": "b"}, 3]}
    assert skills_cli_names(listed) == {"a": "skills CLI from u", "b": "skills CLI"}
    assert skills_cli_names(None) == {} and skills_cli_names({"skills": 1}) == {}
    th = {"skills": [{"name": "a", "reference": "ghcr.io/x/a:1"}, {"name": "b"}, "z"]}
    assert toolhive_names(th) == {"a": "ToolHive from ghcr.io/x/a:1", "b": "ToolHive"}
    assert toolhive_names({"skills": {"c": {"source": "s"}, "d": 1}}) == {
        "c": "ToolHive from s",
        "d": "ToolHive",
    }
    assert toolhive_names([]) == {}

"""What each grant a reviewer gives allows, in the words the review shows (A3): known
tools, scoped tools, a server's tools, unknown names treated as powerful, scripts."""

from __future__ import annotations

import pytest

from desktop.core.grants import (
    CHANGES_FILES,
    HARMLESS,
    READS,
    RUNS_CODE,
    SERVER_TOOL,
    UNKNOWN,
    explain_tool,
    has_scripts,
    is_script,
    requested_risks,
    script_files,
)
from desktop.core.model import Origin, Skill, SkillFile


def test_a_known_tool_says_what_it_allows_and_its_risk() -> None:
    bash = explain_tool("Bash")
    assert bash.powerful and bash.known
    assert bash.explain() == (
        "Bash: run any command on this machine, with your permissions (high risk)"
    )
    assert bash.to_json() == {
        "name": "Bash",
        "level": RUNS_CODE,
        "allows": "run any command on this machine, with your permissions",
        "known": True,
    }
    todo = explain_tool("TodoWrite")
    assert (
        not todo.powerful
        and todo.explain() == "TodoWrite: keep a to-do list for the task (low risk)"
    )


def test_a_scoped_tool_names_its_scope() -> None:
    bash = explain_tool("Bash(git status:*)")
    assert bash.level == RUNS_CODE
    assert bash.allows == "run commands matching 'git status:*' on this machine"
    edit = explain_tool("Edit( src/** )")
    assert edit.level == CHANGES_FILES and edit.allows == "change files, limited to 'src/**'"


def test_a_servers_tools_are_named_with_their_server() -> None:
    one = explain_tool("mcp__github__create_issue")
    assert one.level == SERVER_TOOL and one.level_words == "a server's tool"
    assert one.allows == (
        "call the tool 'create_issue' of the server 'github': whatever that tool does"
    )
    every = explain_tool("mcp__github")
    assert every.allows == "call every tool of the server 'github': whatever they do"


@pytest.mark.parametrize("name", ["Deploy", "mcp__", "mcp____tool", "Unknown(x)"])
def test_an_unknown_name_is_treated_as_powerful_and_said_so(name: str) -> None:
    risk = explain_tool(name)
    assert risk.level == UNKNOWN and risk.powerful and not risk.known
    assert risk.explain() == (
        f"{name}: not a tool this program knows; treated as powerful, as it could do "
        "anything (high risk (unknown tool))"
    )


def skill(tools: object, uris: list[str]) -> Skill:
    return Skill(
        origin=Origin("srv", "mcp", "stdio", "serve"),
        uri="skill://pdf/SKILL.md",
        name="pdf",
        description="d",
        frontmatter={"name": "pdf", "description": "d", "allowed-tools": tools},
        resources=tuple(SkillFile(u, "sha256:" + "0" * 64, 1) for u in uris),
    )


def test_requested_tools_are_listed_highest_risk_first_once_each() -> None:
    risks = requested_risks(skill("TodoRead Read Bash Read Deploy", []))
    assert [(r.name, r.level) for r in risks] == [
        ("Bash", RUNS_CODE),
        ("Deploy", UNKNOWN),
        ("Read", READS),
        ("TodoRead", HARMLESS),
    ]


def test_scripts_are_code_under_scripts_or_named_as_a_program() -> None:
    assert is_script("skill://pdf/scripts/run") and is_script("scripts/data.txt")
    assert is_script("skill://pdf/tool.PY") and is_script("build.sh")
    assert not is_script("skill://pdf/README.md")
    assert not is_script("skill://pdf/.bashrc") and not is_script("Makefile")
    with_scripts = skill("", ["skill://pdf/SKILL.md", "skill://pdf/b.py", "skill://pdf/a.sh"])
    assert has_scripts(with_scripts)
    assert [f.uri for f in script_files(with_scripts)] == ["skill://pdf/a.sh", "skill://pdf/b.py"]
    assert not has_scripts(skill("", ["skill://pdf/SKILL.md"]))

"""A skill's identity (source label + URI, I1), its state, and what the catalog's nouns
show of themselves in the command line's JSON: never a secret of an endpoint."""

from __future__ import annotations

import pytest

from desktop.core.identity import Identity
from desktop.core.model import (
    DYNAMIC,
    INVALID,
    LISTED,
    OVER_LIMIT,
    LoadingConfig,
    Origin,
    Problem,
    Resources,
    Skill,
    SkillFile,
    SourceSpec,
    SourceStatus,
    split_tools,
)

SERVER = Origin("srv", "mcp", "stdio", "serve --api-key sk-12345678")
WEB = Origin("web", "mcp", "http", "https://user:pw@example.test/mcp?token=abc")
FOLDER = Origin("mine", "local", "folder", "/skills")
FILE = SkillFile("skill://pdf/SKILL.md", "sha256:" + "0" * 64, 12)


def make(
    resources: Resources = (FILE,),
    problems: list[Problem] | None = None,
    tools: object = None,
) -> Skill:
    return Skill(
        origin=SERVER,
        uri="skill://pdf/SKILL.md",
        name="pdf",
        description="d",
        frontmatter={"name": "pdf", "description": "d", "allowed-tools": tools},
        resources=resources,
        problems=problems or [],
    )


def test_an_id_round_trips_and_names_label_and_uri() -> None:
    skill = make()
    assert skill.id == "srv:skill://pdf/SKILL.md" == str(skill.identity)
    assert Identity.parse(skill.id) == skill.identity == Identity("srv", "skill://pdf/SKILL.md")


@pytest.mark.parametrize("text", ["no-separator", ":skill://x", "bad label:x", "srv:"])
def test_what_is_not_an_id_is_refused_with_the_expected_form(text: str) -> None:
    with pytest.raises(ValueError, match=r"not a skill id \(expected LABEL:URI\)"):
        Identity.parse(text)


def test_states_in_order_invalid_dynamic_over_limit_listed() -> None:
    assert make().state == LISTED and make().loadable
    dynamic = make("dynamic")
    assert dynamic.state == DYNAMIC and dynamic.loadable and dynamic.files == ()
    assert make(None).files == () and make(None).total_size == 0
    over = make(problems=[Problem("limit-size", "too big")])
    assert over.state == OVER_LIMIT and not over.loadable
    invalid = make("dynamic", [Problem("name-missing", "no name", "invalid")])
    assert invalid.state == INVALID and not invalid.loadable and invalid.has_errors()
    assert not make(problems=[Problem("x", "note", "warning")]).has_errors()


def test_a_skill_opened_by_uri_says_so_and_problems_show_their_code() -> None:
    note = Problem("opened-by-uri", "opened by its URI; no listing carries it", "info")
    assert make(problems=[note]).opened_by_uri and not make().opened_by_uri
    assert note.to_json() == {
        "code": "opened-by-uri",
        "message": "opened by its URI; no listing carries it",
        "severity": "info",
    }


def test_a_file_is_found_by_its_uri_only() -> None:
    skill = make()
    assert skill.file(FILE.uri) == FILE and skill.file("skill://pdf/other.md") is None
    assert skill.total_size == 12
    assert FILE.to_json() == {"uri": FILE.uri, "digest": FILE.digest, "size": 12}


def test_allowed_tools_as_a_string_or_a_list_of_names() -> None:
    assert make(tools="Bash(git status:*) Read, Grep,").allowed_tools() == [
        "Bash(git status:*)",
        "Read",
        "Grep",
    ]
    listed = make(tools=["Read", " ", 7, None, {"a": 1}])
    assert listed.allowed_tools() == ["Read", "7"]
    assert make(tools=3).allowed_tools() == []
    assert split_tools("Bash(a (b) c)) x") == ["Bash(a (b) c))", "x"]


def test_an_origin_shows_its_endpoint_with_secrets_masked() -> None:
    assert SERVER.shown_endpoint == "serve --api-key ****"
    assert SERVER.describe() == "srv (stdio serve --api-key ****)"
    assert WEB.to_json() == {
        "label": "web",
        "kind": "mcp",
        "transport": "http",
        "endpoint": "https://user:****@example.test/mcp?token=****",
    }
    assert FOLDER.shown_endpoint == "/skills" and FOLDER.describe() == "mine (folder /skills)"


def test_a_source_spec_masks_its_command() -> None:
    spec = SourceSpec("srv", "mcp", "stdio", SERVER.endpoint, ("serve", "--api-key", "sk-12345678"))
    assert spec.shown_endpoint == "serve --api-key ****" and spec.origin == SERVER
    folder = SourceSpec("mine", "local", "folder", "/skills")
    assert folder.shown_endpoint == "/skills"


def test_a_source_status_reports_server_details_only_for_servers() -> None:
    local = SourceStatus(FOLDER, skill_count=2)
    assert local.to_json() == {
        "label": "mine",
        "kind": "local",
        "transport": "folder",
        "endpoint": "/skills",
        "status": "ok",
        "message": "",
        "skill_count": 2,
    }
    noted = SourceStatus(FOLDER, notes=["1 link not followed"])
    assert noted.to_json()["notes"] == ["1 link not followed"]
    server = SourceStatus(WEB, instructions="hello", tools=["search"], notes=["n"])
    out = server.to_json()
    assert out["endpoint"] == "https://user:****@example.test/mcp?token=****"
    assert out["instructions_length"] == 5 and out["tools"] == ["search"]
    assert out["notes"] == ["n"] and "sign_in" not in out
    server.sign_in = "required"
    assert server.to_json()["sign_in"] == "required"


def test_loading_config_says_what_was_declared() -> None:
    config = LoadingConfig("always", True, 5, True, ("pdf",), True, ("srv__*",), False)
    assert config.to_json() == {
        "strategy": "always",
        "strategy_declared": True,
        "priority": 5,
        "priority_declared": True,
        "triggers": ["pdf"],
        "triggers_declared": True,
        "tool_affinity": ["srv__*"],
        "tool_affinity_declared": False,
    }

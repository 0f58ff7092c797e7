"""What a kind of source is, asked instead of compared: words, icons, whether it runs
anything, whether its skills are files here. Kinds added in ``desktop/sources/``
describe themselves the same way."""

from __future__ import annotations

import pytest

from desktop.core.identity import server_key
from desktop.core.model import Origin, Skill, SourceSpec, SourceStatus
from desktop.core.source_kinds import (
    FOLDER,
    MCP_SERVER,
    KindInfo,
    describe_kind,
    icon_names,
    is_known,
    kind_info,
    known_kinds,
)

ARCHIVE = KindInfo(
    name="test-archive",
    transports=("test-archive",),
    word="test archive",
    icon="test archive",
    path_endpoint=True,
    icons={"test archive": ("package-x-generic", "SP_DriveCDIcon")},
)


def test_the_built_in_kinds_say_what_they_are() -> None:
    assert kind_info("local") is FOLDER and kind_info("mcp") is MCP_SERVER
    assert FOLDER.word_for("folder") == "folder" and FOLDER.icon_for("folder") == "folder"
    assert (FOLDER.runs_code, FOLDER.folder_on_disk, FOLDER.third_party) == (False, True, False)
    assert MCP_SERVER.word_for("stdio") == "local process"
    assert MCP_SERVER.word_for("http") == "remote server"
    assert MCP_SERVER.icon_for("stdio") == "local process"
    assert MCP_SERVER.word_for("other") == "server"
    assert (MCP_SERVER.runs_code, MCP_SERVER.third_party, MCP_SERVER.asks_again) == (
        True,
        True,
        True,
    )
    assert is_known("local", "folder") and is_known("mcp", "http")
    assert not is_known("local", "http") and not is_known("nothing", "folder")


def test_an_unknown_kind_is_taken_as_one_that_runs_something() -> None:
    unknown = kind_info("never-registered")
    assert unknown.runs_code and unknown.third_party and not unknown.folder_on_disk
    assert unknown.word == "never-registered" and unknown.transports == ()


def test_a_kind_describes_itself_once_and_its_transports_stay_its_own() -> None:
    describe_kind(ARCHIVE)
    assert kind_info("test-archive") is ARCHIVE and ARCHIVE in known_kinds()
    assert icon_names()["test archive"] == ("package-x-generic", "SP_DriveCDIcon")
    assert icon_names()["folder"] == ("folder", "SP_DirIcon")
    describe_kind(ARCHIVE)  # again: the same kind, no complaint
    thief = KindInfo(name="thief", transports=("folder",), word="thief")
    with pytest.raises(ValueError, match="'folder' is the 'local' kind's"):
        describe_kind(thief)
    assert kind_info("thief").word == "thief" and not is_known("thief", "folder")


def test_origins_and_specs_ask_their_kind() -> None:
    describe_kind(ARCHIVE)
    origin = Origin("team", "test-archive", "test-archive", "/srv/team.zip")
    assert origin.kind_info is ARCHIVE
    assert origin.shown_endpoint == "/srv/team.zip"  # a path: nothing to mask
    assert origin.describe() == "team (test-archive /srv/team.zip)"
    assert server_key("test-archive", "test-archive", "/srv/x/../team.zip") == (
        "test-archive",
        "/srv/team.zip",
    )
    skill = Skill(origin, "a/SKILL.md", "a", "d", {}, ())
    assert skill.kind == "test-archive" and skill.kind_info is ARCHIVE
    spec = SourceSpec("team", "test-archive", "test-archive", "/srv/team.zip")
    assert spec.kind_info is ARCHIVE and spec.shown_endpoint == "/srv/team.zip"
    # Only a source that runs something has a handshake to show.
    assert "protocol_version" not in SourceStatus(origin).to_json()
    server = Origin("srv", "mcp", "stdio", "serve --token abc123secretsecret")
    assert "protocol_version" in SourceStatus(server).to_json()


def test_a_transport_says_whether_it_signs_in_and_shows_a_programs_output() -> None:
    mcp = kind_info("mcp")
    assert mcp.signs_in("http") and not mcp.signs_in("stdio")
    assert mcp.shows_output("stdio") and not mcp.shows_output("http")
    folder = kind_info("local")
    assert not folder.signs_in("folder") and not folder.shows_output("folder")

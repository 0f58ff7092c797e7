"""One rule for sources a person names: CLI options and the window's source dialog."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.sources.config.options import (
    SourceOptionError,
    parse_folder,
    parse_server,
    source_from_fields,
    specs_from_options,
    unique_labels,
)


def test_folder_label_defaults_to_its_name(tmp_path: Path) -> None:
    spec = parse_folder(str(tmp_path / "drafts"))
    assert (spec.label, spec.kind, spec.endpoint) == (
        "drafts",
        "local",
        str((tmp_path / "drafts").resolve()),
    )
    assert parse_folder(f"mine={tmp_path}").label == "mine"


def test_servers_need_a_label_and_are_split_like_a_shell_line() -> None:
    spec = parse_server("docs=python -m my_server --name 'two words'")
    assert spec.transport == "stdio" and spec.command == (
        "python",
        "-m",
        "my_server",
        "--name",
        "two words",
    )
    assert parse_server("web=https://host.example/mcp").transport == "http"
    for bad in ["nolabel", "x=", "bad:label=cmd", "docs=python 'unclosed"]:
        with pytest.raises(SourceOptionError):
            parse_server(bad)


def test_a_label_that_breaks_the_rule_is_named_as_the_problem(tmp_path: Path) -> None:
    """Not "needs LABEL=COMMAND" (there was one), nor a label never typed."""
    with pytest.raises(SourceOptionError, match="the label 'é' may use"):
        parse_server("é=python -m x")
    with pytest.raises(SourceOptionError, match="the label 'é' may use"):
        parse_folder(f"é={tmp_path}")
    assert parse_folder(f"={tmp_path}").endpoint == str(tmp_path.resolve())
    assert parse_folder(str(tmp_path / "a=b")).endpoint.endswith("a=b")  # a path, no label


def test_dialog_fields_follow_the_same_rule() -> None:
    with pytest.raises(SourceOptionError, match="http"):
        source_from_fields("web", "http", "ftp://host")
    with pytest.raises(SourceOptionError, match="label"):
        source_from_fields("", "stdio", "python -m x")


def test_labels_are_unique_and_a_clashing_folder_is_named_by_its_parent(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "skills", tmp_path / ".copilot" / "skills"
    specs = specs_from_options([str(a), str(b)], [], [], print)
    assert [s.label for s in specs] == ["skills", "copilot-skills"]
    # The parent's name taken too (or no parent to name): numbered, as a last resort.
    again = tmp_path / "x" / "copilot" / "skills"
    specs = specs_from_options([str(a), str(b), str(again)], [], [], print)
    assert [s.label for s in specs] == ["skills", "copilot-skills", "skills-2"]
    root = [parse_folder("/"), parse_folder("/")]
    assert [s.label for s in unique_labels(root)] == ["folder", "folder-2"]
    with pytest.raises(SourceOptionError, match="used twice"):
        unique_labels([parse_server("x=cmd"), parse_server("x=other")])
    assert specs_from_options([], [], [], print) is None


def test_a_config_file_that_is_not_there_is_bad_usage(tmp_path: Path) -> None:
    with pytest.raises(SourceOptionError, match="no such file"):
        specs_from_options([], [], [str(tmp_path / "nope.json")], print)


def test_a_url_no_connection_could_use_is_bad_usage() -> None:
    for url, why in (
        ("http://", "names no host"),
        ("http://127.0.0.1:99999/mcp", "Port out of range"),
        ("http://127.0.0.1:0/mcp", "port 0"),
    ):
        with pytest.raises(SourceOptionError, match=why):
            parse_server(f"x={url}")
    assert parse_server("x=http://${HOST}/mcp").endpoint == "http://${HOST}/mcp"
    assert parse_server("x=https://[::1]:8080/mcp").transport == "http"


def test_a_server_given_another_label_than_its_name_is_reported(tmp_path: Path) -> None:
    """Labels are part of identity (approvals): a clash or an unusable name is said."""
    import json

    config_file = tmp_path / "servers.json"
    config_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "dup": {"url": "http://127.0.0.1:1/mcp"},
                    "Dup": {"url": "http://127.0.0.1:2/mcp"},
                }
            }
        )
    )
    said: list[str] = []
    specs = specs_from_options([], [], [str(config_file)], said.append)
    assert specs is not None and specs[0].label == "dup"
    assert said == [f"{config_file}: server 'Dup' is labelled '{specs[1].label}'"]

"""What a user sees from servers that answer in ways the other hostile tests do not
cover: each test runs the real command line against a scenario of ``hostile.py``."""

from __future__ import annotations

import json

import pytest
from conftest import server_option

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

DEMO = "h:skill://demo/SKILL.md"


def test_a_uri_listed_twice_is_one_skill_and_never_read_when_the_entries_differ(
    run_cli, tmp_home
) -> None:
    listed = run_cli("list", "--json", "--server", server_option("repeated-uri"))
    assert listed.returncode == 0, listed.stderr
    skills = json.loads(listed.stdout)["skills"]
    ids = [s["id"] for s in skills]
    assert len(ids) == len(set(ids)), ids  # one skill per identity
    demo = next(s for s in skills if s["id"] == DEMO)
    assert demo["state"] == "invalid"
    assert any(
        p["code"] == "entry-repeated" and "different entries" in p["message"]
        for p in demo["problems"]
    )
    # The same entry listed twice is kept once, as listed, with a warning.
    again = next(s for s in skills if s["id"] == "h:skill://again/SKILL.md")
    assert again["state"] == "listed"
    assert any(p["code"] == "entry-repeated" for p in again["problems"])

    human = run_cli("list", "--server", server_option("repeated-uri"))
    rows = [line for line in human.stdout.splitlines() if line.startswith("h:")]
    assert [row.split()[:2] for row in rows] == [["h:demo", "invalid"], ["h:again", "listed"]]
    assert "different entries" in human.stdout

    # By the name `list` shows, the listing decides (an id is asked with skills/get).
    shown = run_cli("show", "h:demo", "--server", server_option("repeated-uri"))
    assert shown.returncode == 1
    assert shown.stdout == ""
    assert "different entries" in shown.stderr
    assert "Traceback" not in shown.stderr

    verified = run_cli("verify", "--all", "--json", "--server", server_option("repeated-uri"))
    assert verified.returncode == 1
    states = {r["id"]: r["state"] for r in json.loads(verified.stdout)["results"]}
    assert states == {DEMO: "invalid", "h:skill://again/SKILL.md": "verified"}


def test_an_answer_of_the_wrong_shape_is_named_in_one_plain_line(run_cli, tmp_home) -> None:
    server = server_option("malformed-answers")
    listed = run_cli("list", "--json", "--server", server)
    assert listed.returncode == 0, listed.stderr
    (source,) = json.loads(listed.stdout)["sources"]
    (note,) = [n for n in source["notes"] if n.startswith("tools/list failed")]
    assert "malformed answer from the server" in note and "tools.0.name" in note
    # The validator's report (its class, a link per problem) and the server's ordinary
    # logging on stderr say nothing more to a person.
    for said in (note, listed.stderr):
        assert "ValidationError" not in said and "pydantic" not in said
    assert "server stderr" not in note

    shown = run_cli("show", DEMO, "--server", server)
    assert shown.returncode == 1
    assert shown.stdout == ""
    assert "malformed answer from the server" in shown.stderr
    assert "text: Input should be a valid string, got 42" in shown.stderr
    assert "ValidationError" not in shown.stderr and "Traceback" not in shown.stderr

    verified = run_cli("verify", DEMO, "--json", "--server", server)
    assert verified.returncode == 1
    (result,) = json.loads(verified.stdout)["results"]
    assert result["state"] == "read-error"
    assert all(f["state"] == "read-error" for f in result["files"])
    assert "malformed answer from the server" in result["message"]
    assert "pydantic" not in result["message"]


def test_an_answer_that_is_not_json_rpc_ends_its_read_at_once_saying_so(run_cli, tmp_home) -> None:
    server = server_option("unreadable-answers")
    shown = run_cli("show", DEMO, "--server", server)
    assert shown.returncode == 1
    assert shown.stdout == ""
    assert "the server's answer is not valid JSON-RPC" in shown.stderr
    assert "Traceback" not in shown.stderr

    verified = run_cli("verify", DEMO, "--json", "--server", server)
    assert verified.returncode == 1
    (result,) = json.loads(verified.stdout)["results"]
    assert result["state"] == "read-error"
    assert [f["state"] for f in result["files"]] == ["read-error", "read-error"]
    for message in (result["message"], shown.stderr):
        # Not a timeout: the server did answer, and nothing waited for one.
        assert "not valid JSON-RPC" in message and "no answer" not in message


def test_a_listing_that_is_not_json_rpc_is_said_once_with_its_page(run_cli, tmp_home) -> None:
    listed = run_cli("list", "--json", "--server", server_option("unreadable-listing"))
    assert listed.returncode == 1
    (source,) = json.loads(listed.stdout)["sources"]
    assert source["status"] == "error"
    assert source["message"].startswith(
        "nothing listed; skills/list page 1 failed: the server's answer is not valid JSON-RPC"
    ), source["message"]

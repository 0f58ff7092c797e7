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

    shown = run_cli("show", DEMO, "--server", server_option("repeated-uri"))
    assert shown.returncode == 1
    assert shown.stdout == ""
    assert "different entries" in shown.stderr
    assert "Traceback" not in shown.stderr

    verified = run_cli("verify", "--all", "--json", "--server", server_option("repeated-uri"))
    assert verified.returncode == 1
    states = {r["id"]: r["state"] for r in json.loads(verified.stdout)["results"]}
    assert states == {DEMO: "invalid", "h:skill://again/SKILL.md": "verified"}

"""A token a server echoes back is never printed: a protected server whose errors quote
the request's ``Authorization`` header, signed in for real (see oauth_server.py's
``echo-authorization``), gets its access token masked in ``list`` and ``list --json``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.signin.signin_helpers import Protected, login
from tests.signin.test_signin_cli import cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def test_a_token_the_server_quotes_in_its_error_is_masked(
    scenario_server: Callable[[str], Protected], tmp_home: Path, secret_service: object
) -> None:
    server = scenario_server("echo-authorization")
    done = login("vault", "--server", server.option)
    assert done.returncode == 0, done.stderr
    tokens = server.stats()["tokens"]
    assert tokens  # an access and a refresh token were issued
    human = cli("list", "--server", server.option)
    as_json = cli("list", "--json", "--server", server.option)
    # The server did quote it: the error is shown, with the token masked.
    assert "refused: header 'Authorization: Bearer ****" in human.stdout, human.stdout
    (source,) = json.loads(as_json.stdout)["sources"]
    assert source["status"] == "error"
    assert "token=****" in source["message"], source["message"]
    # Asked by URI: "no such skill", the server's words quoted with the token masked.
    got = cli("get", "vault", "skill://alpha/SKILL.md", "--server", server.option)
    assert got.returncode == 1
    assert "refused: header 'Authorization: Bearer ****" in got.stderr, got.stderr
    outputs = (human.stdout, human.stderr, as_json.stdout, as_json.stderr, got.stdout, got.stderr)
    for output in outputs:
        for token in tokens:
            assert token not in output, output

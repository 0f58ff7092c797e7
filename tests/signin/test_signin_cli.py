"""Sign-in on the command line, against a real authorization server and a protected
Skills-extension server on 127.0.0.1 (see conftest.py): ``login``, ``list``,
``verify``, ``show``, refresh, ``logout``, and the refusals of bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.core.model import SourceSpec
from tests.signin.signin_browser import consent
from tests.signin.signin_helpers import Protected, login

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
        env=dict(os.environ if env is None else env),
    )


def spec_of(server: Protected) -> SourceSpec:
    return SourceSpec(server.label, "mcp", "http", server.url)


def stored(server: Protected) -> str | None:
    """What the keyring holds for the server's sign-in (read here, as the program does)."""
    from desktop.sources.mcp import signin

    return signin._keyring_get(signin.entry_name(spec_of(server)))


def source_line(output: str, label: str) -> list[str]:
    return [ln for ln in output.splitlines() if ln.startswith(f"  {label} (")]


def test_sign_in_then_list_verify_and_show_reach_the_skills(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    before = cli("list", "--server", protected.option)
    assert before.returncode == 0, before.stderr
    (line,) = source_line(before.stdout, "vault")
    assert "Sign in required" in line and "skill-catalog login vault" in line
    assert "Traceback" not in before.stderr and before.stderr == ""

    done = login("vault", "--server", protected.option)
    assert done.returncode == 0, done.stderr
    assert "Signed in to vault as ada@example.test." in done.stdout
    assert "OS keyring" in done.stdout
    assert done.visits[0].status == 200 and "Signed in" in done.visits[0].text
    assert stored(protected) is not None

    listed = cli("list", "--json", "--server", protected.option)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    (source,) = data["sources"]
    assert source["status"] == "ok" and source["sign_in"] == "signed-in"
    ids = sorted(s["id"] for s in data["skills"])
    assert ids == ["vault:skill://alpha/SKILL.md", "vault:skill://beta/SKILL.md"]

    verified = cli("verify", "vault:skill://alpha/SKILL.md", "--server", protected.option)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    shown = cli("show", "vault:skill://alpha/SKILL.md", "--server", protected.option)
    assert shown.returncode == 0, shown.stderr
    assert "Body of alpha." in shown.stdout

    # A second run uses the stored token: no browser, no new authorization.
    again = cli("list", "--server", protected.option)
    assert again.returncode == 0 and "alpha" in again.stdout
    assert "note: signed in as ada@example.test" in again.stdout  # as the server said
    stats = protected.stats()
    assert stats["code"] == 1 and stats["refresh"] == 0
    # The authorization named this server as the resource (RFC 8707), carried a PKCE
    # challenge, and sent the browser back to a loopback address.
    (asked,) = stats["asked"]
    assert asked["resource"] == protected.url and asked["code_challenge"]
    assert asked["redirect_uri"].startswith("http://127.0.0.1:")


def test_an_expired_token_is_refreshed_without_a_browser(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    protected.control("/test/ttl?seconds=1")
    assert login("vault", "--server", protected.option).returncode == 0
    first = stored(protected)
    time.sleep(1.5)
    listed = cli("list", "--server", protected.option)
    assert listed.returncode == 0, listed.stderr
    assert "alpha" in listed.stdout and "Sign in" not in listed.stdout
    stats = protected.stats()
    assert stats["refresh"] == 1 and stats["code"] == 1
    # The renewed tokens replaced the old ones in the keyring.
    assert stored(protected) not in (None, first)


def test_a_refused_refresh_asks_to_sign_in_again(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    protected.control("/test/ttl?seconds=1")
    assert login("vault", "--server", protected.option).returncode == 0
    protected.control("/test/refuse-refresh")
    time.sleep(1.5)
    listed = cli("list", "--server", protected.option)
    assert listed.returncode == 0, listed.stderr
    (line,) = source_line(listed.stdout, "vault")
    assert "Sign in again" in line and "skill-catalog login vault" in line
    assert listed.stderr == ""
    assert protected.stats()["refused"] == 1
    assert login("vault", "--server", protected.option).returncode == 0
    assert "alpha" in cli("list", "--server", protected.option).stdout


def test_logout_removes_the_sign_in(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    assert login("vault", "--server", protected.option).returncode == 0
    out = cli("logout", "vault", "--server", protected.option)
    assert out.returncode == 0 and "Signed out of vault" in out.stdout
    assert stored(protected) is None
    assert "Sign in required" in cli("list", "--server", protected.option).stdout
    twice = cli("logout", "vault", "--server", protected.option)
    assert twice.returncode == 0 and "was not signed in" in twice.stdout


def test_a_callback_with_another_state_is_refused(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    def browse(url: str) -> list:
        # A forged answer first (another state), then the real one.
        return [consent(url, state="forged-state"), consent(url)]

    done = login("vault", "--server", protected.option, browse=browse)
    forged, real = done.visits
    assert forged.status == 400 and "refused" in forged.text
    assert real.status == 200 and "Signed in" in real.text
    assert done.returncode == 0, done.stderr


def test_the_sign_in_deadline_ends_the_wait_and_stores_nothing(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    done = login("vault", "--server", protected.option, "--timeout", "2", browse=lambda url: [])
    assert done.returncode == 1
    assert "no sign-in within 2 s; nothing was stored" in done.stderr
    assert stored(protected) is None


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("wrong-resource", "resource metadata names another server"),
        ("no-pkce", "does not say it supports PKCE (S256)"),
        ("foreign-issuer", "names another issuer"),
        ("http-issuer", "is not HTTPS; a sign-in over plain HTTP is refused"),
        ("other-redirect", "not to this computer's loopback address"),
    ],
)
def test_bad_sign_in_metadata_is_refused_before_any_browser(
    scenario: str, said: str, scenario_server, tmp_home: Path, secret_service: object
) -> None:
    server = scenario_server(scenario)
    done = login("vault", "--server", server.option)
    assert done.returncode == 1
    assert said in done.stderr, done.stderr
    assert "nothing was stored" in done.stderr
    assert done.address is None  # no browser was sent anywhere
    assert "Traceback" not in done.stderr
    assert stored(server) is None


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("no-access-token", "token answer has no usable access token"),
        ("deny", "did not sign you in: access_denied"),
    ],
)
def test_a_failed_authorization_is_said_and_stores_nothing(
    scenario: str, said: str, scenario_server, tmp_home: Path, secret_service: object
) -> None:
    server = scenario_server(scenario)
    done = login("vault", "--server", server.option)
    assert done.returncode == 1
    assert said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert "rt-" not in done.stderr + done.stdout  # the refresh token it did send
    assert stored(server) is None


def test_a_listing_of_a_server_with_a_mismatched_resource_says_so(
    scenario_server, tmp_home: Path, secret_service: object
) -> None:
    server = scenario_server("wrong-resource")
    listed = cli("list", "--server", server.option)
    (line,) = source_line(listed.stdout, "vault")
    assert "sign-in refused" in line and "names another server" in line
    assert listed.stderr == ""


def test_tokens_never_reach_output_logs_config_or_cache(
    protected: Protected, tmp_home: Path, secret_service: object
) -> None:
    """The tokens live in the keyring alone: not in any command's output, nor in
    sources.json, the cache or any other file of the home folder."""
    from desktop.sources.config import saved as config

    saved = config.load_config()
    saved.sources.append(config.SavedSource(spec_of(protected)))
    config.save_config(saved)
    protected.control("/test/ttl?seconds=1")
    runs = [login("vault")]
    assert runs[0].returncode == 0, runs[0].stderr
    time.sleep(1.5)  # the next run refreshes: new tokens, written again
    outputs = [runs[0].stdout, runs[0].stderr]
    for args in (
        ("list",),
        ("list", "--json"),
        ("verify", "vault:skill://alpha/SKILL.md"),
        ("show", "vault:skill://alpha/SKILL.md"),
    ):
        done = cli(*args)
        outputs += [done.stdout, done.stderr]
    assert any("Body of alpha." in text for text in outputs), outputs
    stats = protected.stats()
    assert stats["refresh"] == 1
    tokens = stats["tokens"]
    assert len(tokens) == 4  # two access and two refresh tokens
    record = stored(protected)
    assert record is not None and any(t in record for t in tokens)  # kept, in the keyring
    for text in outputs:
        for token in tokens:
            assert token not in text
    files = [p for p in tmp_home.rglob("*") if p.is_file()]
    assert any(p.name == "sources.json" for p in files)
    for path in files:
        data = path.read_bytes()
        for token in tokens:
            assert token.encode() not in data, path

"""Sign-in without a usable keyring (for the session only, and said so), and the
source's own headers, which a sign-in never replaces unless the server challenges."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop.core.model import SourceSpec
from desktop.sources.mcp.source import discover_server
from tests.signin.signin_helpers import HERE, REPO, Protected, login

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}

SESSION = textwrap.dedent(
    """
    import asyncio, json, sys
    sys.path.insert(0, {here!r})
    from tests.signin.signin_browser import consent
    from desktop.core.model import SourceSpec
    from desktop.sources.mcp import signin
    from desktop.sources.mcp.source import discover_server

    async def main():
        spec = SourceSpec("vault", "mcp", "http", {url!r})
        async def browser(url):
            await asyncio.to_thread(consent, url)
        done = await signin.sign_in(spec, browser)
        status, skills = await discover_server(spec)
        print(json.dumps({{"remembered": done.remembered, "why_not": done.why_not,
                           "status": status.status, "sign_in": status.sign_in,
                           "skills": sorted(s.name for s in skills)}}))

    asyncio.run(main())
    """
)


def test_without_a_keyring_the_sign_in_lasts_for_the_session_and_says_so(
    protected: Protected, tmp_home: Path
) -> None:
    env = {**os.environ, **NO_KEYRING, "PYTHONPATH": str(REPO)}
    script = SESSION.format(here=str(HERE), url=protected.url)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["remembered"] is False and "no OS keyring" in result["why_not"]
    assert result["status"] == "ok" and result["sign_in"] == "signed-in"
    assert result["skills"] == ["alpha", "beta"]

    cli = login("vault", "--server", protected.option, env=env)
    assert cli.returncode == 0, cli.stderr
    assert "for this run only: it will not be remembered" in cli.stdout
    # The next run has nothing: it was not written anywhere.
    listed = subprocess.run(
        [sys.executable, "-m", "desktop", "list", "--server", protected.option],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "Sign in required" in listed.stdout
    for token in protected.stats()["tokens"]:
        assert not any(token.encode() in p.read_bytes() for p in tmp_home.rglob("*") if p.is_file())


def test_the_sources_own_authorization_header_is_sent_as_written(
    protected: Protected, tmp_home: Path, secret_service: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token in the source's headers is used as it is: no sign-in, no browser."""
    assert login("vault", "--server", protected.option).returncode == 0
    token = protected.stats()["tokens"][0]
    monkeypatch.setenv("VAULT_TOKEN", token)
    spec = SourceSpec(
        "headers",
        "mcp",
        "http",
        protected.url,
        headers=(("Authorization", "Bearer ${env:VAULT_TOKEN}"),),
    )
    status, skills = asyncio.run(discover_server(spec))
    assert status.status == "ok", status.message
    assert status.sign_in == "" and sorted(s.name for s in skills) == ["alpha", "beta"]
    # A header the server refuses, on a server that publishes its sign-in: sign in.
    monkeypatch.setenv("VAULT_TOKEN", "not-a-token")
    refused, _ = asyncio.run(discover_server(spec))
    assert refused.sign_in == "required"
    assert "Sign in required" in refused.message and "not-a-token" not in refused.message
    assert protected.stats()["code"] == 1  # no other sign-in happened


def test_a_token_is_renewed_before_it_runs_out_not_after(secret_service: object) -> None:
    """A token still good by this machine's clock can be refused on arrival, and a
    refused token is answered with a whole new sign-in: renewal comes a little early
    (a minute, or a tenth of a short lifetime), also for a token stored by an earlier run."""
    import time

    from mcp.shared.auth import OAuthToken

    from desktop.sources.mcp import signin

    async def stored(lifetime: int) -> tuple[float, float | None, float | None]:
        store = signin.KeyringTokenStorage(f"test-renewal-{lifetime}", fresh=True)
        token = OAuthToken(access_token="a", refresh_token="r", expires_in=lifetime)
        await store.set_tokens(token)
        later = signin.KeyringTokenStorage(f"test-renewal-{lifetime}")  # the next run
        await later.get_tokens()
        signin._keyring_delete(store.entry)
        return time.time(), store.renew_at, later.renew_at

    for lifetime, early in ((3600, 60.0), (10, 1.0)):
        now, renew_at, stored_renew_at = asyncio.run(stored(lifetime))
        assert renew_at is not None and stored_renew_at is not None
        assert abs(renew_at - (now + lifetime - early)) < 5, (lifetime, renew_at - now)
        assert abs(stored_renew_at - renew_at) < 0.01

"""Placeholders stay placeholders until connect time; secrets are never shown in full."""

from __future__ import annotations

import pytest

from desktop.core.placeholders import (
    UnresolvedPlaceholder,
    find_placeholders,
    resolve,
    resolve_pairs,
)
from desktop.core.secrets import display_value, looks_secret, redact

SECRET = "ghp_1a2b3c4d5e6f7g8h9i0jKLMNOPQRSTuv"


def test_find_every_kind() -> None:
    found = find_placeholders("a ${HOME} b ${env:TOKEN} ${input:api-key} ${keyring:source/x/env/K}")
    assert [(p.kind, p.name) for p in found] == [
        ("env", "HOME"),
        ("env", "TOKEN"),
        ("input", "api-key"),
        ("keyring", "source/x/env/K"),
    ]


def test_resolve_from_the_given_environment_only() -> None:
    env = {"TOKEN": "t0k", "EMPTY": ""}
    assert resolve("Bearer ${env:TOKEN}", env) == "Bearer t0k"
    assert resolve("${TOKEN}/${EMPTY}", env) == "t0k/"
    assert resolve("${MISSING:-fallback}", env) == "fallback"
    assert resolve("${EMPTY:-fallback}", env) == "fallback"
    assert resolve("no placeholders", {}) == "no placeholders"


def test_missing_values_are_named() -> None:
    with pytest.raises(UnresolvedPlaceholder) as exc:
        resolve_pairs([("A", "${env:NOPE}"), ("B", "${input:key}"), ("C", "${keyring:s/e}")], {})
    message = str(exc.value)
    assert "environment variable NOPE" in message
    assert "input key" in message
    assert "keyring entry s/e" in message


def test_inputs_and_keyring_lookup() -> None:
    got = resolve(
        "${input:a}-${keyring:x}",
        {},
        inputs={"a": "1"},
        secret_lookup=lambda entry: "2" if entry == "x" else None,
    )
    assert got == "1-2"


@pytest.mark.parametrize(
    "value",
    [SECRET, f"Bearer {SECRET}", f"token={SECRET}&x=1", "hunter2", f"{SECRET} ${{env:X}}"],
)
def test_redact_never_shows_a_secret(value: str) -> None:
    shown = redact(value)
    assert "****" in shown
    for part in ("hunter2", SECRET):
        if part in value:
            assert part not in shown
    # Never more than four characters of the literal survive.
    assert SECRET[:5] not in shown


def test_redact_keeps_placeholders_and_scheme() -> None:
    assert redact("${env:TOKEN}") == "${env:TOKEN}"
    assert redact("Bearer ${env:TOKEN}") == "Bearer ${env:TOKEN}"
    assert redact(f"Bearer {SECRET}") == "Bearer ****" + SECRET[-4:]
    assert redact("short") == "****"


def test_display_value_redacts_what_looks_secret() -> None:
    assert display_value("NODE_ENV", "production") == "production"
    assert display_value("API_KEY", "abc") == "****"
    assert display_value("X-Custom", SECRET) != SECRET
    assert display_value("Authorization", "${env:T}") == "${env:T}"
    assert looks_secret("X-Api-Key") and looks_secret("GITHUB_TOKEN")
    assert not looks_secret("LOG_LEVEL", "debug")
    assert not looks_secret("DATA_DIR", "/home/someone/projects/data-2026")


def test_resolve_spec_for_one_connection() -> None:
    from desktop.core.model import SourceSpec
    from desktop.core.resolved_spec import resolve_spec

    spec = SourceSpec(
        "s",
        "mcp",
        "stdio",
        "tool --root ${env:ROOT}",
        ("tool", "--root", "${env:ROOT}"),
        env=(("TOKEN", "${keyring:source/s/env/TOKEN}"),),
    )
    done = resolve_spec(spec, {"ROOT": "/r"}, secret_lookup={"source/s/env/TOKEN": "t"}.get)
    assert done.command == ("tool", "--root", "/r") and done.env == (("TOKEN", "t"),)
    assert spec.env == (("TOKEN", "${keyring:source/s/env/TOKEN}"),)  # the original is kept
    http = SourceSpec("h", "mcp", "http", "https://x/${env:TENANT}/mcp")
    with pytest.raises(UnresolvedPlaceholder, match="TENANT"):
        resolve_spec(http, {})


@pytest.mark.parametrize(
    ("endpoint", "secret", "kept"),
    [
        ('sh -c "exec x" --header "Authorization: Bearer hunter2pass"', "hunter2pass", "Bearer"),
        ("npx mcp-remote http://x/mcp --header X-Api-Key:zzz-secret", "zzz-secret", "X-Api-Key:"),
        ("env API_KEY=abc123secret node s.js", "abc123secret", "API_KEY="),
        ("docker run -e GITHUB_TOKEN=ghp_abc -e MODE=fast img", "ghp_abc", "MODE=fast"),
    ],
)
def test_headers_and_variables_passed_as_arguments_are_masked(
    endpoint: str, secret: str, kept: str
) -> None:
    from desktop.core.secrets import mask_endpoint

    shown = mask_endpoint("stdio", endpoint)
    assert secret not in shown and kept in shown


def test_urls_paths_and_plain_variables_in_arguments_are_not_masked() -> None:
    from desktop.core.secrets import mask_endpoint

    for endpoint in (
        "node server.js --url http://a.example:8080/mcp",
        "tool NAME=value PATH=/usr/bin",
        "tool Authorization:${TOK}",
    ):
        assert mask_endpoint("stdio", endpoint) == endpoint

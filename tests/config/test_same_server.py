"""Configuration decides "the same server" with the one server key that approvals, the
cache and sign-in use: two files naming one server the same way are one source, and two
entries that approvals would tell apart are never merged into one."""

from __future__ import annotations

from desktop.core.model import SourceSpec
from desktop.sources.config.saved import same_server


def http(label: str, url: str, **kw: object) -> SourceSpec:
    return SourceSpec(label, "mcp", "http", url, **kw)  # type: ignore[arg-type]


def stdio(label: str, line: str, **kw: object) -> SourceSpec:
    return SourceSpec(label, "mcp", "stdio", line, tuple(line.split()), **kw)  # type: ignore[arg-type]


def test_a_url_written_two_ways_a_client_sends_alike_is_one_server() -> None:
    assert same_server(
        http("a", "HTTPS://Example.COM:443/mcp"), http("b", "https://example.com/mcp")
    )
    assert same_server(http("a", "https://example.com"), http("b", "https://example.com/"))


def test_what_approvals_tell_apart_is_never_one_server() -> None:
    # Another path, another transport, a folder: other servers for approvals too.
    assert not same_server(
        http("a", "https://example.com/mcp"), http("b", "https://example.com/other")
    )
    assert not same_server(stdio("a", "/srv/x"), http("b", "/srv/x"))
    folder = SourceSpec("f", "local", "folder", "/srv/x")
    assert not same_server(folder, folder)


def test_a_command_line_spaced_differently_is_one_server_unless_its_settings_differ() -> None:
    one, two = stdio("a", "npx -y pkg"), stdio("b", "npx  -y   pkg")
    assert same_server(one, two)
    assert not same_server(one, stdio("b", "npx -y pkg", env=(("K", "1"),)))
    assert not same_server(
        http("a", "https://example.com/mcp"),
        http("b", "https://example.com/mcp", headers=(("X-Key", "${env:K}"),)),
    )

"""A server answering over HTTP with a body that never ends is given up at the message
limit, with the reason, instead of filling memory until a timeout."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_BUDGETS, HttpServer, free_port, hostile_argv, run

from desktop.core.model import SourceSpec
from desktop.sources.budgets import Budgets
from desktop.sources.mcp.source import discover_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

ENDLESS = Path(__file__).resolve().parent / "servers" / "endless_http.py"


@pytest.mark.parametrize(
    ("mode", "what"), [("json", "a response"), ("sse", "one event"), ("gzip-bomb", "a response")]
)
def test_an_endless_body_gives_the_connection_up_at_the_limit(mode: str, what: str) -> None:
    port = free_port()
    # Long timeouts: the connection must end on the limit, not on a timeout.
    budgets = Budgets(
        connect_timeout=120, request_timeout=120, server_timeout=180, max_message_bytes=1 << 20
    )
    with HttpServer([sys.executable, str(ENDLESS), mode, str(port)], port) as server:
        spec = SourceSpec("e", "mcp", "http", server.url)
        status, skills = run(discover_server(spec, budgets))
    assert skills == []
    assert status.status == "error"
    assert f"the server sent {what} over 1 MiB" in status.message, status.message
    assert "no answer" not in status.message


@pytest.mark.parametrize("gzip", [False, True], ids=["plain", "gzip"])
def test_a_large_file_arrives_over_an_event_stream(tmp_path: Path, gzip: bool) -> None:
    """A 2025-era HTTP server of the SDK answers with event streams; the SDK client's own
    limit on one event (1 MiB) refused every file over about 760 KB there. Compressed,
    the 22 MB event is decompressed a bounded piece at a time."""
    from desktop.core.entry import parse_entry
    from desktop.sources.mcp.connection import McpConnection
    from desktop.sources.mcp.reads import read_bytes
    from desktop.sources.mcp.skills import list_skills
    from desktop.sources.reader import accept_bytes
    from desktop.store.cache import SkillCache

    port = free_port()

    async def read_all(url: str) -> dict[str, tuple[str, int]]:
        spec = SourceSpec("big", "mcp", "http", url)
        async with McpConnection(spec, TEST_BUDGETS, mode="legacy") as conn:
            assert not conn.modern
            listing = await list_skills(conn)
            skills = [parse_entry(raw, spec.origin) for raw in listing.entries]
            skill = next(s for s in skills if s.name == "big")
            states = {}
            for f in skill.files:
                data = await read_bytes(conn, f.uri, expected_size=f.size)
                result, _ = await accept_bytes(skill, f.uri, data, cache=SkillCache(tmp_path))
                states[f.uri] = (result.state, len(data))
            return states

    argv = [*hostile_argv("big"), "--http", str(port), *(["--gzip"] if gzip else [])]
    with HttpServer(argv, port) as server:
        states = run(read_all(server.url))
    assert states["skill://big/blob.bin"] == ("verified", 16 * 1024 * 1024 - 16 * 1024)
    assert all(state == "verified" for state, _ in states.values())


def test_the_limit_counts_one_event_not_the_whole_stream() -> None:
    from desktop.sources.mcp.http_limits import CappedStream, ResponseRefused

    faults: list[str] = []

    async def body(chunks: list[bytes]) -> Any:
        for chunk in chunks:
            yield chunk

    async def read(chunks: list[bytes], events: bool) -> int:
        stream = CappedStream(body(chunks), 1 << 20, events=events, on_fault=faults.append)
        return sum([len(c) async for c in stream])

    event = b"data: " + b"y" * 600_000 + b"\n\n"
    # Five events of 600 KB, cut anywhere: 3 MB in all, each under 1 MiB.
    stream = event * 5
    chunks = [stream[i : i + 65536] for i in range(0, len(stream), 65536)]
    assert run(read(chunks, events=True)) == len(stream)
    assert faults == []
    # The same bytes as one JSON body go over the limit.
    with pytest.raises(ResponseRefused):
        run(read(chunks, events=False))
    assert faults and "a response over 1 MiB" in faults[0]


def test_gzip_is_decompressed_within_the_limit() -> None:
    import gzip
    import zlib

    from desktop.sources.mcp.http_limits import CappedStream, ResponseRefused

    faults: list[str] = []

    async def body(data: bytes) -> Any:
        for i in range(0, len(data), 4096):
            yield data[i : i + 4096]

    async def read(data: bytes, encoding: str, limit: int = 1 << 20) -> bytes:
        stream = CappedStream(
            body(data), limit, events=False, on_fault=faults.append, encoding=encoding
        )
        return b"".join([c async for c in stream])

    text = b'{"jsonrpc": "2.0", "id": 1, "result": {}}' * 1000
    assert run(read(gzip.compress(text), "gzip")) == text
    assert run(read(zlib.compress(text), "deflate")) == text
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    assert run(read(raw_deflate.compress(text) + raw_deflate.flush(), "deflate")) == text
    assert faults == []
    with pytest.raises(ResponseRefused):  # 8 MiB of zeros in 8 KB: refused at 1 MiB
        run(read(gzip.compress(bytes(8 << 20)), "gzip"))
    assert "a response over 1 MiB" in faults[-1]
    with pytest.raises(ResponseRefused):
        run(read(b"not gzip at all", "gzip"))
    assert "corrupt" in faults[-1]
    with pytest.raises(ResponseRefused):
        run(read(b"...", "br"))
    assert "'br'" in faults[-1]


def test_an_endless_stream_of_keep_alive_comments_is_given_up() -> None:
    """Comments carry no message, so no size limit meets them: a stream of them held the
    client's loop until the request timed out (for as long as a kept stream lived). They
    count as sent unasked: past the budget they are dropped, and without pause (over it
    three windows in a row, here of 1 s) the connection is given up."""
    port = free_port()
    budgets = Budgets(
        connect_timeout=120, request_timeout=120, server_timeout=180, notification_window=1.0
    )
    with HttpServer([sys.executable, str(ENDLESS), "sse-pings", str(port)], port) as server:
        status, skills = run(discover_server(SourceSpec("e", "mcp", "http", server.url), budgets))
    assert skills == [] and status.status == "error"
    assert "over 5,000 notifications or requests unasked within 1 s" in status.message, (
        status.message
    )
    assert "no answer" not in status.message


def test_a_web_page_where_the_endpoint_should_be_is_said_once(run_cli: Any) -> None:
    """The SDK logs the content type and raises it too: the CLI printed the log line
    twice on stderr before the source's own message."""
    port = free_port()
    with HttpServer([sys.executable, str(ENDLESS), "html", str(port)], port) as server:
        proc = run_cli("list", "--server", f"w={server.url}", timeout=60)
    assert "Unexpected content type: text/html" in proc.stdout
    assert "Unexpected content type" not in proc.stderr, proc.stderr

"""The stdio transport: whole lines in linear time, a size limit, and no process left.

Against real server processes; the line splitter on its own where chunk boundaries
have to be placed exactly.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import TEST_BUDGETS, hostile_spec, run

from desktop.sources.budgets import Budgets
from desktop.sources.mcp.source import discover_server
from desktop.sources.mcp.stdio_transport import LineSplitter

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_lines_are_cut_wherever_the_chunks_end() -> None:
    text = b'{"a": 1}\n\n' + b"x" * 200_000 + b"\n" + b'{"b": 2}\nrest'
    for size in (1, 7, 4096, 65536, len(text)):
        splitter = LineSplitter(limit=1 << 20)
        lines: list[bytes] = []
        for start in range(0, len(text), size):
            lines += splitter.feed(text[start : start + size])
        assert lines == [b'{"a": 1}', b"", b"x" * 200_000, b'{"b": 2}'], size


def test_a_line_over_the_limit_is_refused_and_forgotten() -> None:
    splitter = LineSplitter(limit=100)
    assert splitter.feed(b"y" * 60) == []
    with pytest.raises(OverflowError):
        splitter.feed(b"y" * 60)
    assert splitter.feed(b"ok\n") == [b"ok"]  # nothing of the refused line is kept


def test_a_line_that_never_ends_gives_the_connection_up_with_the_reason() -> None:
    # Long timeouts: the connection must end on the limit, not on a timeout.
    budgets = Budgets(
        connect_timeout=120, request_timeout=120, server_timeout=180, max_message_bytes=1 << 20
    )
    status, skills = run(discover_server(hostile_spec("endless-line"), budgets))
    assert skills == []
    assert status.status == "error"
    assert "a message over 1 MiB" in status.message, status.message
    assert "no answer" not in status.message


def test_a_server_deaf_to_its_stdin_closing_is_ended(tmp_path: Path) -> None:
    record = tmp_path / "pid"
    status, _ = run(discover_server(hostile_spec("flood", record=record), TEST_BUDGETS))
    assert status.status == "error"
    pid = int(record.read_text())
    assert _ended_within(pid, 10), f"the server {pid} is still running after the connection closed"


def test_a_server_logging_more_than_a_pipe_holds_still_answers() -> None:
    status, skills = run(discover_server(hostile_spec("chatty-stderr"), TEST_BUDGETS))
    assert status.status == "ok", status.message
    assert [s.name for s in skills] == ["demo"]


def test_the_stderr_tail_keeps_the_last_bytes() -> None:
    from desktop.sources.mcp.stdio_transport import StderrTail

    tail = StderrTail(keep=100)
    for i in range(1000):
        tail.feed(f"line {i}\n".encode())
    text = tail.text()
    assert len(text) == 100 and text.endswith("line 999\n")


def test_a_server_logging_without_pause_is_read_at_a_bounded_pace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read as fast as it wrote, a server logging without end kept the client's loop
    (the window's thread) at 100 % of a core; past a burst, stderr is read at a pace."""
    import sys

    import anyio
    from mcp.client.stdio import StdioServerParameters

    from desktop.sources.mcp import stdio_transport as transport

    monkeypatch.setattr(transport, "STDERR_BURST", 2**20)
    monkeypatch.setattr(transport, "STDERR_RATE", 2**20)
    flood = "import sys\nwhile True: sys.stderr.buffer.write(b'log ' * 16384)"
    params = StdioServerParameters(command=sys.executable, args=["-c", flood])
    tail = transport.StderrTail()

    async def scenario() -> tuple[float, int]:
        start = time.monotonic()
        async with transport.stdio_transport(
            params, tail, max_message=2**20, on_fault=lambda reason: None
        ):
            await anyio.sleep(2)
            return time.monotonic() - start, tail.seen

    elapsed, seen = run(scenario())
    assert seen > 2**20  # it did write, and was read
    # The burst, then the pace for the time that passed, give or take one read.
    assert seen <= 2**20 + elapsed * 2**20 + 256 * 1024, (seen, elapsed)


def test_a_child_the_server_left_running_is_ended_with_it(
    tmp_path: Path, sample_skills_dir: Path
) -> None:
    """A server that exits when its stdin closes may leave a child it started: the
    whole process group goes when the connection closes, not the server alone."""
    import shlex
    import sys

    from desktop.core.model import SourceSpec

    record = tmp_path / "child"
    script = (
        f"sleep 300 & echo $! > {shlex.quote(str(record))}; "
        f"exec {shlex.quote(sys.executable)} -m desktop serve {shlex.quote(str(sample_skills_dir))}"
    )
    argv = ("sh", "-c", script)
    spec = SourceSpec("kids", "mcp", "stdio", shlex.join(argv), command=argv)
    status, skills = run(discover_server(spec, TEST_BUDGETS))
    assert status.status == "ok" and skills, status.message
    pid = int(record.read_text())
    assert _ended_within(pid, 10), (
        f"the server's child {pid} still runs after the connection closed"
    )


def _ended_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ended within ``seconds``: gone, or a zombie (ended, its
    entry waiting for a parent to collect it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False

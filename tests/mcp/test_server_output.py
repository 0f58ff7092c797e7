"""A server that fails says its cause: the first lines of its stderr that read like an
error, not only its last ones; ``sources log LABEL`` prints what it wrote, bounded and
masked. Real servers over stdio: a crashing Node.js script and a crashing Python one."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers.bounded import run_bounded

from desktop.core.server_output import bounded_log, cause_lines, stderr_summary

NODE_CRASH = r"""
console.error("demo-server 1.2.3 starting");
for (let i = 0; i < 40; i++) {
  console.error(JSON.stringify({level: "debug", step: i, nested: {a: [1, 2, {b: [3]}]}}, null, 2));
}
const err = new Error("Cannot open config file /etc/demo/config.json");
err.code = "ENOENT";
err.details = {path: "/etc/demo/config.json", tried: [{where: "a"}, {where: "b"}]};
throw err;
"""

PYTHON_CRASH = """
import sys
print("demo: loading plugins", file=sys.stderr)
for i in range(40):
    print(f"demo: plugin {i} loaded", file=sys.stderr)
print(f"demo: started with {sys.argv[1]}", file=sys.stderr)

def load(path):
    raise FileNotFoundError(f"no settings at {path}")

def main():
    load("/srv/demo/settings.toml")

main()
"""


def _listed(*args: str) -> dict:
    result = run_bounded("list", "--json", *args, seconds=60)
    assert not result.timed_out, result.summary()
    (source,) = json.loads(result.stdout)["sources"]
    return source


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_crashing_node_server_shows_its_error_not_only_its_last_braces(
    tmp_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "server.js"
    script.write_text(NODE_CRASH)
    server = f"n=node {script}"
    source = _listed("--server", server)
    message = source["message"]
    assert source["status"] == "error"
    assert "the server exited with code 1" in message
    assert "Error: Cannot open config file /etc/demo/config.json" in message, message
    assert "ENOENT" in message
    assert "Node.js v" in message  # the last lines follow
    assert message.index("Error: Cannot open") < message.index("Node.js v")

    log = run_bounded("sources", "log", "n", "--server", server, seconds=60)
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()
    assert lines[0] == "demo-server 1.2.3 starting"  # its beginning...
    assert any(ln.startswith("Error: Cannot open config file") for ln in lines)
    assert lines[-1].startswith("Node.js v")  # ...and its end
    assert "exited with code 1" in log.stderr


def test_a_crashing_python_server_shows_its_traceback_and_its_secret_masked(
    tmp_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "server.py"
    script.write_text(PYTHON_CRASH)
    secret = "s3cr3tV4lue9aZ7kQ2mX8pL5"
    server = f"p={sys.executable} {script} --api-key={secret}"
    source = _listed("--server", server)
    message = source["message"]
    assert "Traceback (most recent call last)" in message, message
    assert "FileNotFoundError: no settings at /srv/demo/settings.toml" in message, message

    log = run_bounded("sources", "log", "p", "--server", server, seconds=60)
    assert log.returncode == 0, log.stderr
    assert "demo: loading plugins" in log.stdout
    assert "FileNotFoundError: no settings at /srv/demo/settings.toml" in log.stdout
    assert "demo: started with --api-key=****" in log.stdout, log.stdout
    assert secret not in log.stdout + log.stderr


def test_sources_log_of_an_http_server_says_it_runs_elsewhere(tmp_home: Path) -> None:
    log = run_bounded("sources", "log", "w", "--server", "w=http://127.0.0.1:9/mcp", seconds=30)
    assert log.returncode == 1
    assert "runs elsewhere" in log.stderr and log.stdout == ""


def test_the_log_is_bounded_and_says_what_it_left_out() -> None:
    head = "".join(f"first {i}\n" for i in range(300))
    tail = "".join(f"last {i}\n" for i in range(300)) + "x" * 5000 + "\n"
    shown = bounded_log(head, tail, skipped=10_000_000)
    lines = shown.splitlines()
    assert len(lines) == 401
    assert lines[0] == "first 0" and lines[-1].endswith("[… 3,000 more characters]")
    assert "[… 10,000,000 bytes and 201 lines not shown …]" in lines


def test_the_summary_quotes_the_cause_before_the_tail() -> None:
    lines = ["starting", "  File 'x', line 3", "ValueError: bad port", "}", "Node.js v20"]
    causes = cause_lines(lines)
    assert causes == ["ValueError: bad port"]
    assert (
        stderr_summary(causes, lines[-2:]) == "ValueError: bad port … last lines: } | Node.js v20"
    )
    assert stderr_summary([], ["a", "b"]) == "a | b"
    assert cause_lines(['    throw new Error("x")', "    raise ValueError(x)"]) == []

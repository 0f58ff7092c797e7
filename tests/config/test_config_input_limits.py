"""Config files of hostile size or shape: a clear message, bounded time and memory, and
the exit status the README gives (``list --config FILE`` exits 1 when nothing of FILE
could be read).

Each hostile run is a subprocess under ``resource`` limits (address space and CPU
seconds), so a regression fails the test instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

RunCli = Callable[..., subprocess.CompletedProcess[str]]
MIB = 1024 * 1024


def limited(memory: int, cpu_seconds: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))

    return apply


def run_limited(
    args: list[str], cwd: Path, *, memory: int = 1024 * MIB, cpu_seconds: int = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=240,
        preexec_fn=limited(memory, cpu_seconds),
        check=False,
    )


@pytest.mark.parametrize("shape", ["one long string", "many strings"])
def test_comment_stripping_is_linear(tmp_path: Path, repo_root: Path, shape: str) -> None:
    """A large JSON-with-comments text is parsed within a few CPU seconds (a 63 MiB one
    took 58 s and 741 MB when comments were stripped a character at a time)."""
    big = tmp_path / "mcp.json"
    if shape == "one long string":
        body = json.dumps({"servers": {"a": {"command": "x", "args": ["y" * (63 * MIB)]}}})
    else:
        body = json.dumps(
            {"servers": {"a": {"command": "x", "args": [f"a{i:07d}" for i in range(2_500_000)]}}}
        )
    big.write_text("// a comment makes it JSONC\n" + body + "\n/* and a block */", encoding="utf-8")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from desktop.sources.config.importers.common import parse_json\n"
        "data = parse_json(Path(sys.argv[1]).read_text(encoding='utf-8'))\n"
        "print(len(data['servers']['a']['args']))\n"
    )
    proc = run_limited(["-c", script, str(big)], repo_root, cpu_seconds=20)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() in ("1", "2500000")


def _project(tmp_home: Path, tmp_path: Path) -> Path:
    saved = tmp_home / ".config" / "skill-catalog" / "sources.json"
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text('{"version": 1, "sources": []}', encoding="utf-8")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    return project


def test_an_oversized_project_config_is_refused_with_a_message(
    tmp_home: Path, tmp_path: Path
) -> None:
    project = _project(tmp_home, tmp_path)
    big = project / ".vscode" / "mcp.json"
    big.parent.mkdir()
    with big.open("w", encoding="utf-8") as fh:
        fh.write('// servers\n{"servers": {}, "pad": "')
        fh.write("x" * (63 * MIB))
        fh.write('"}\n')
    proc = run_limited(["-m", "desktop", "list"], project, memory=1024 * MIB, cpu_seconds=30)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert f"{big}: file is {big.stat().st_size:,} bytes" in proc.stderr
    assert "read up to 4 MiB" in proc.stderr
    # Named on the command line, it is a source that failed.
    proc = run_limited(["-m", "desktop", "list", "--config", str(big)], project, memory=1024 * MIB)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "read up to 4 MiB" in proc.stderr


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bad-utf8.json", b'{"mcpServers": {"a": {"command": "\xff\xfe"}}}'),
        ("deep.json", b'{"mcpServers": ' + b"[" * 100_000),
        ("bad.toml", b"[mcp_servers.a\ncommand = "),
        (
            "all-bad.json",
            b'{"mcpServers": {"a": {"command": 5}, "b": {"type": "sse", "url": "x"}}}',
        ),
        ("not-a-config.json", b'{"something": "else"}'),
    ],
)
def test_list_config_exits_1_when_nothing_of_the_file_can_be_read(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli, name: str, content: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    for extra in ((), ("--json",)):
        proc = run_cli("list", "--config", str(path), *extra, cwd=tmp_path)
        assert proc.returncode == 1, (name, proc.stdout, proc.stderr)
        assert str(path) in proc.stderr
        assert "Traceback" not in proc.stderr


def test_list_config_with_one_good_entry_still_lists_it(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """A bad entry beside a good one is reported; the good one is used (exit as its
    reading goes: here a folder server that answers)."""
    served = tmp_path / "served" / "alpha"
    served.mkdir(parents=True)
    (served / "SKILL.md").write_text("---\nname: alpha\ndescription: Alpha.\n---\n\nBody.\n")
    path = tmp_path / "mixed.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "bad": {"command": 5},
                    "good": {
                        "command": sys.executable,
                        "args": ["-m", "desktop", "serve", str(served.parent)],
                    },
                }
            }
        )
    )
    proc = run_cli("list", "--json", "--config", str(path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "'bad'" in proc.stderr
    assert [s["label"] for s in json.loads(proc.stdout)["sources"]] == ["good"]

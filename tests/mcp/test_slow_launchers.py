"""Servers started through a package runner (npx, uvx, ...) that first "install" their
package: a real launcher script that takes a while before it starts a real server."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest
from conftest import run

from desktop.core.model import SourceSpec
from desktop.sources import launchers
from desktop.sources.budgets import Budgets
from desktop.sources.config.saved import load_config, save_config
from desktop.sources.launchers import package_runner, starting_message
from desktop.sources.mcp.source import discover_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

# A short connect timeout for ordinary servers, so that the runner's longer one shows.
SHORT = Budgets(request_timeout=20, connect_timeout=2, server_timeout=60)


def launcher(folder: Path, name: str, install_seconds: float, skills: Path) -> Path:
    """A script called ``name`` that "installs" for ``install_seconds`` (a child process
    in its group, as npm's are), then starts ``skill-catalog serve SKILLS``.

    It writes its progress to ``<name>.log`` beside it: ``installed`` once the install
    finished, ``interrupted`` when it was sent SIGTERM mid-install; and the install's
    pid to ``<name>.child``."""
    folder.mkdir(parents=True, exist_ok=True)
    log, child = folder / f"{name}.log", folder / f"{name}.child"
    serve = shlex.join([sys.executable, "-m", "desktop", "serve", str(skills)])
    script = folder / name
    script.write_text(
        "#!/bin/sh\n"
        f"trap 'echo interrupted >> {shlex.quote(str(log))}; exit 143' TERM\n"
        f"sleep {install_seconds} &\n"
        f"echo $! > {shlex.quote(str(child))}\n"
        "wait $!\n"
        f"echo installed >> {shlex.quote(str(log))}\n"
        f"exec {serve}\n"
    )
    script.chmod(0o755)
    return script


def spec_of(script: Path, label: str = "slow", timeout: float | None = None) -> SourceSpec:
    argv = (str(script), "-y", "@acme/skills-server")
    return SourceSpec(
        label, "mcp", "stdio", shlex.join(argv), command=argv, connect_timeout=timeout
    )


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" in status.read_text()


def test_package_runners_are_known_by_their_command() -> None:
    assert package_runner(["npx", "-y", "pkg"]) == "npx"
    assert package_runner(["/usr/local/bin/uvx", "pkg"]) == "uvx"
    assert package_runner(["pipx", "run", "pkg"]) == "pipx run"
    assert package_runner(["pipx", "install", "pkg"]) is None
    assert package_runner(["bunx", "pkg"]) == "bunx"
    assert package_runner(["docker", "run", "-i", "image"]) == "docker run"
    assert package_runner(["cmd", "/c", "npx.cmd", "pkg"]) == "npx"
    assert package_runner(["python", "server.py"]) is None
    argv = ("npx", "-y", "pkg")
    spec = SourceSpec("n", "mcp", "stdio", shlex.join(argv), command=argv)
    assert starting_message(spec) == "starting (npx may be installing the package)"


def test_a_server_started_with_npx_gets_the_time_its_install_takes(
    tmp_path: Path, sample_skills_dir: Path
) -> None:
    """The same slow start: as ``npx`` it is waited for; as any other command the
    ordinary connect timeout (2 s here) gives up, saying how to give it longer."""
    npx = launcher(tmp_path / "a", "npx", 4, sample_skills_dir)
    status, skills = run(discover_server(spec_of(npx), SHORT))
    assert status.status == "ok", status.message
    assert len(skills) == 5  # what serve publishes of the samples
    other = launcher(tmp_path / "b", "start-server", 4, sample_skills_dir)
    status, skills = run(discover_server(spec_of(other), SHORT))
    assert status.status == "error" and not skills
    assert "no answer within 2 s" in status.message
    assert "--connect-timeout" in status.message


def test_giving_up_on_npx_lets_its_install_finish_and_ends_its_group(
    tmp_path: Path, sample_skills_dir: Path
) -> None:
    """A connect timeout shorter than the install: the message says what npx was doing,
    and the install is not cut short (no half-written package left for the next run)."""
    npx = launcher(tmp_path, "npx", 4, sample_skills_dir)
    status, skills = run(discover_server(spec_of(npx, timeout=1), SHORT))
    assert status.status == "error" and not skills
    assert "no answer within 1 s" in status.message
    assert "npx may still have been installing the package" in status.message
    log = (tmp_path / "npx.log").read_text()
    assert log.split() == ["installed"], log
    assert gone(int((tmp_path / "npx.child").read_text()))


def test_an_install_that_never_ends_is_ended_with_sigterm_to_its_group(
    tmp_path: Path, sample_skills_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(launchers, "PACKAGE_RUNNER_EXIT_GRACE", 1.0)
    npx = launcher(tmp_path, "npx", 600, sample_skills_dir)
    status, _ = run(discover_server(spec_of(npx, timeout=1), SHORT))
    assert status.status == "error"
    # SIGTERM reached the runner (it could clean up), and its install child went too.
    assert (tmp_path / "npx.log").read_text().split() == ["interrupted"]
    child = int((tmp_path / "npx.child").read_text())
    deadline = time.monotonic() + 10
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child), f"the install {child} still runs"


def test_the_connect_timeout_is_saved_with_the_source(tmp_home: Path) -> None:
    path = tmp_home / "sources.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "sources": [
                    {"label": "docs", "kind": "mcp", "transport": "stdio",
                     "endpoint": "npx -y docs", "command": ["npx", "-y", "docs"],
                     "connect_timeout": 300},
                    {"label": "bad", "kind": "mcp", "transport": "stdio",
                     "endpoint": "npx -y bad", "command": ["npx", "-y", "bad"],
                     "connect_timeout": "soon"},
                ],
            }
        )
    )  # fmt: skip
    cfg = load_config(path)
    (docs,) = cfg.sources
    assert docs.spec.connect_timeout == 300
    assert any("'bad': connect_timeout 'soon' is not a number" in p for p in cfg.problems)
    save_config(cfg, path)
    again = json.loads(path.read_text())["sources"]
    assert again[0]["connect_timeout"] == 300
    assert again[1]["connect_timeout"] == "soon"  # left out, and kept as it was


def test_codex_startup_timeout_is_the_connect_timeout(tmp_path: Path) -> None:
    from desktop.sources.config.saved import load_config_file

    config = tmp_path / "config.toml"
    config.write_text(
        "[mcp_servers.docs]\ncommand = 'npx'\nargs = ['-y', 'docs']\nstartup_timeout_sec = 90\n"
        "[mcp_servers.old]\ncommand = 'uvx'\nargs = ['old']\nstartup_timeout_ms = 45000\n"
        "[mcp_servers.odd]\ncommand = 'uvx'\nargs = ['odd']\nstartup_timeout_sec = 'long'\n"
    )
    found = {s.server_id: s for s in load_config_file(config).servers}
    assert found["docs"].spec.connect_timeout == 90
    assert found["old"].spec.connect_timeout == 45
    assert found["odd"].spec.connect_timeout is None
    assert any("startup_timeout_sec is not used" in n for n in found["odd"].notes)


def test_cli_connect_timeout_option(run_cli, tmp_home: Path, tmp_path: Path) -> None:
    npx = launcher(tmp_path, "npx", 3, tmp_path / "none")
    server = f"slow={shlex.join(spec_of(npx).command)}"
    proc = run_cli("list", "--server", server, "--connect-timeout", "0.5")
    assert proc.returncode == 1
    assert "no answer within 0.5 s" in proc.stdout + proc.stderr
    assert "npx may still have been installing the package" in proc.stdout + proc.stderr
    bad = run_cli("list", "--server", server, "--connect-timeout", "soon")
    assert bad.returncode == 2
    assert "soon" in bad.stderr and "Traceback" not in bad.stderr

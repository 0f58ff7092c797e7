"""Secrets in a server's command line, URL or env are masked wherever they are shown:
the listing, ``--json`` and messages that repeat them. The trust review shows a
project's entries as its files write them (the repository's text, not the user's)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.model import SourceSpec
from desktop.core.secrets import display_value, mask_endpoint, spec_secrets

RunCli = Callable[..., subprocess.CompletedProcess[str]]

# (argv, the secret in it, what must still be shown)
COMMANDS = [
    (["mysql", "-uroot", "-pMyS3cretPW", "shop"], "MyS3cretPW", "-p****"),
    (["/usr/bin/mysqldump", "-p", "MyS3cretPW", "shop"], "MyS3cretPW", "-p ****"),
    (["sshpass", "-pSshPassw0rd", "ssh", "host"], "SshPassw0rd", "-p****"),
    (["mongosh", "-u", "admin", "-p", "M0ngoPass", "h"], "M0ngoPass", "-p ****"),
    (["redis-cli", "-a", "RedisPassw0rd", "ping"], "RedisPassw0rd", "-a ****"),
    (
        ["npx", "pg-mcp", "postgresql://app:PgPassw0rd@db.internal:5432/prod"],
        "PgPassw0rd",
        "app:****@",
    ),
    (["uvx", "mysql-mcp", "mysql://root:MyPassw0rd@127.0.0.1/db"], "MyPassw0rd", "root:****@"),
    (["node", "r.js", "redis://:RedisPW99@cache:6379/0"], "RedisPW99", "//:****@"),
    (["node", "m.js", "mongodb+srv://u:MongoPW99@cluster0.example.net/x"], "MongoPW99", "u:****@"),
    (["node", "q.js", "amqp://guest:AmqpPW99@mq/"], "AmqpPW99", "guest:****@"),
    (["node", "s.js", "sftp://deploy:SftpPW99@files.example.com/in"], "SftpPW99", "deploy:****@"),
    (["aws-mcp", "AKIAIOSFODNN7EXAMPLE"], "AKIAIOSFODNN7EXAMPLE", "aws-mcp ****"),
    (
        ["aws-mcp", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEX",
        "****",
    ),
    (["gh-mcp", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"], "ghp_abcdefghijklmnop", "gh-mcp ****"),
    (["gh-mcp", "github_pat_11ABCDEFG0_abcdefghijklmnopqrstuv"], "github_pat_11ABCDEFG0", "****"),
    (["slack-mcp", "xoxb-2048-4096-abcdefABCDEF"], "xoxb-2048-4096-abcdef", "slack-mcp ****"),
    (["ai-mcp", "sk-proj-abcdefghijklmnop1234"], "sk-proj-abcdefghijklmnop", "ai-mcp ****"),
    (["sh", "-c", "mysql -uroot -pInnerPW99 shop"], "InnerPW99", "-p****"),
]

NOT_SECRETS = [
    ["docker", "run", "-p", "8080:80", "image"],
    ["python", "-m", "server", "-p", "8080"],
    ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects"],
    ["node", "x.js", "https://example.com/path"],
]


@pytest.mark.parametrize(("argv", "secret", "kept"), COMMANDS)
def test_secrets_in_a_command_line_are_masked(argv: list[str], secret: str, kept: str) -> None:
    shown = mask_endpoint("stdio", shlex.join(argv), argv)
    assert secret not in shown
    assert kept in shown, shown
    # Without the argument list (an origin shown from its endpoint alone) as well.
    assert secret not in mask_endpoint("stdio", shlex.join(argv))
    # And a message that repeats the secret is scrubbed of it.
    spec = SourceSpec("s", "mcp", "stdio", shlex.join(argv), tuple(argv))
    assert any(secret in s or s in secret for s in spec_secrets(spec)), spec_secrets(spec)


@pytest.mark.parametrize("argv", NOT_SECRETS)
def test_ordinary_arguments_are_shown_as_written(argv: list[str]) -> None:
    assert mask_endpoint("stdio", shlex.join(argv), argv) == shlex.join(argv)


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("postgresql://admin:S3cretPW@db.internal/prod", "S3cretPW"),
        ("redis://:R3disPW@cache:6379", "R3disPW"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnop"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ],
)
def test_secrets_in_env_values_are_masked_whatever_the_name(value: str, secret: str) -> None:
    assert secret not in display_value("DATABASE", value)
    assert display_value("DATABASE", "${env:DB_URL}") == "${env:DB_URL}"
    spec = SourceSpec("s", "mcp", "stdio", "srv", ("srv",), env=(("DATABASE", value),))
    assert any(secret in s for s in spec_secrets(spec))


def test_list_json_and_trust_review_mask_every_kind(
    tmp_home: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """A project's servers (never started: nothing runs) in the listing and in --json;
    the trust review shows them as written."""
    servers = {
        f"s{i}": {"command": argv[0], "args": argv[1:], "env": {"DB": "mysql://u:EnvPW99@h/d"}}
        for i, (argv, _secret, _kept) in enumerate(COMMANDS)
    }
    servers["web"] = {
        "url": "http://127.0.0.1:9/mcp?x=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "headers": {"X-Db": "postgresql://a:HeaderPW99@h/d"},
    }
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    runs = [("list",), ("list", "--json")]
    for args in runs:
        proc = run_cli(*args, cwd=project)
        out = proc.stdout + proc.stderr
        assert "Traceback" not in out
        for _argv, secret, _kept in COMMANDS:
            assert secret not in out, (args, secret)
        for secret in ("EnvPW99", "ghp_abcdefghijklmnop", "HeaderPW99"):
            assert secret not in out, (args, secret)
        assert "s0" in out and "web" in out
    assert "DB: mysql://u:****@h/d" in proc.stdout
    # The trust review shows the repository's text as written: a value masked there
    # could hide what a command does with it (sh -c '... $TOKEN').
    proc = run_cli("trust", cwd=project, input="n\n")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "env DB: mysql://u:EnvPW99@h/d" in proc.stdout
    assert "header X-Db: postgresql://a:HeaderPW99@h/d" in proc.stdout
    assert "command: mysql -uroot -pMyS3cretPW shop" in proc.stdout


pytestmark = pytest.mark.timeout(300)


def test_a_long_run_of_letters_in_a_config_value_is_masked_in_linear_time() -> None:
    """A connection URL's password is found without trying every start in a long run of
    letters: a value of 900,000 letters before the URL costs well under the CPU
    limit the check runs under (it took minutes before)."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (20, 20))\n"
        "from desktop.core.secrets import display_value\n"
        "value = 'a' * 900_000 + ' postgresql://user:Sup3rSecret@db.example/x'\n"
        "shown = display_value('NOTES', value)\n"
        "assert 'Sup3rSecret' not in shown, shown[-80:]\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"

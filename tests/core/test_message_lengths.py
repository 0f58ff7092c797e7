"""Third-party strings in messages are cut to a readable length, by one rule."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.bounded import GIB, run_bounded

from desktop.core.visible import SHOWN_LIMIT, cut, cut_repr, quoted


def test_the_one_cutting_rule_says_how_long_the_text_was() -> None:
    assert cut("short") == "short"
    assert cut("x" * 5_000_000) == "x" * SHOWN_LIMIT + "… (5,000,000 characters in all)"
    assert cut_repr("y" * 400) == repr("y" * SHOWN_LIMIT) + "… (400 characters in all)"
    assert quoted("a  b\n" * 200).endswith("… (1,000 characters in all)")


def test_a_5_mb_server_id_and_url_in_a_config_make_short_lines(
    tmp_path: Path, tmp_home: Path
) -> None:
    """A 5 MB id gave a 5 MB line (twice: the warning and the source). Config files are
    read up to 4 MiB: 2 MB of id and 1.5 MB of URL fit."""
    config = tmp_path / "servers.json"
    huge = "x" * 2_000_000
    url = "http://127.0.0.1:9/mcp?q=" + "_" * 1_500_000
    servers = {huge: {"command": "/nonexistent/command"}, "far": {"url": url}}
    config.write_text(json.dumps({"mcpServers": servers}))
    result = run_bounded("list", "--config", config, seconds=60, memory=2 * GIB)
    assert not result.timed_out, result.summary()
    lines = (result.stdout + result.stderr).splitlines()
    assert max(len(line) for line in lines) < 1000, [line[:120] for line in lines]
    assert any("(2,000,000 characters in all)" in line for line in lines)
    assert any(f"({len(url):,} characters in all)" in line for line in lines)

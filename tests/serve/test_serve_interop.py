"""Our `serve` and hosts that read frontmatter otherwise: it warns, before publishing, of
each value YAML 1.1 and 1.2 read differently and of metadata that is not text; asked to
publish such a skill (`--publish-nonconforming`), it does, and the catalog verifies
what it publishes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.serve import serve_http

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SKILL_MD = (
    b"---\nname: pdf\ndescription: Fill PDF forms\nbuild: 017\nenabled: yes\n"
    b'version: "1.0e3"\nmetadata:\n  owner: me\n  nimblebrain:\n    priority: 5\n'
    b"---\n\n# pdf\n"
)


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    (root / "pdf").mkdir(parents=True)
    (root / "pdf" / "SKILL.md").write_bytes(SKILL_MD)
    return root


def test_serve_warns_before_publishing_and_the_catalog_verifies_it(
    run_cli, tmp_home: Path, tmp_path: Path
) -> None:
    root = folder(tmp_path)
    with serve_http(root, "--publish-nonconforming") as server:
        said = server.wait_for_stderr("some hosts read otherwise")
        warned = [line for line in said.splitlines() if "some hosts read otherwise" in line]
        assert len(warned) == 1, said
        (line,) = warned
        assert "'build' is 15 in YAML 1.1, 17 in 1.2" in line
        assert "'enabled' is true in YAML 1.1" in line
        assert "version" not in line  # quoted: read alike
        (strict,) = [line for line in said.splitlines() if "will refuse the whole" in line]
        assert "nimblebrain is a mapping" in strict and "fastmcp 4.1.3" in strict
        assert "owner" not in strict
        listed = run_cli("list", "--json", "--server", f"me={server.url}")
        verified = run_cli("verify", "me:pdf", "--server", f"me={server.url}")
    assert listed.returncode == 0, listed.stderr
    (skill,) = json.loads(listed.stdout)["skills"]
    assert skill["frontmatter"]["build"] == 15 and skill["frontmatter"]["enabled"] is True
    codes = {p["code"] for p in skill["problems"]}
    assert {"metadata-not-text"} <= codes
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "me:skill://pdf/SKILL.md: verified" in verified.stdout


def test_lint_warns_with_codes_and_still_passes(run_cli, tmp_home: Path, tmp_path: Path) -> None:
    root = folder(tmp_path)
    proc = run_cli("lint", root / "pdf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[warning] frontmatter-yaml-versions: YAML readers disagree" in proc.stdout
    assert "put it in quotes" in proc.stdout
    assert "[warning] metadata-not-text: metadata.nimblebrain is a mapping" in proc.stdout

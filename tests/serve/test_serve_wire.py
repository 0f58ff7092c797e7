"""What `skill-catalog serve` puts on the wire, read raw (no SDK client in between):
the extension in the legacy `initialize` result and in `server/discover`, nothing but
protocol on stdout, warnings on stderr."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from helpers.serve import HttpServe, serve_argv, serve_http, stop, write_skill

pytestmark = pytest.mark.timeout(60)

EXTENSION = "io.modelcontextprotocol/skills"
MODERN = "2026-07-28"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {EXTENSION: {}}},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
}
# The legacy handshake, then one listing: what a 2025-era client sends first.
LIST_AFTER_INITIALIZE = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "skills/list", "params": {}},
]
DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}}


def exchange(folder: Path, messages: list[dict[str, Any]], answers: int) -> tuple[list[str], str]:
    """Send ``messages`` to a stdio server, read ``answers`` lines, then close its stdin."""
    process = subprocess.Popen(
        serve_argv(folder, "--instructions", "Read skill://alpha/SKILL.md first."),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for message in messages:
            process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        lines = [process.stdout.readline().decode() for _ in range(answers)]
        process.stdin.close()
        rest = process.stdout.read()
        stderr = process.stderr.read() if process.stderr is not None else b""
        process.wait(30)
    finally:
        stop(process)
    return [*lines, *rest.decode().splitlines()], stderr.decode()


def test_legacy_initialize_declares_the_extension_on_stdio(skills_folder: Path) -> None:
    lines, stderr = exchange(
        skills_folder,
        LIST_AFTER_INITIALIZE,
        answers=2,
    )
    messages = [json.loads(line) for line in lines if line.strip()]  # stdout: JSON only
    init = messages[0]["result"]
    assert init["protocolVersion"] == "2025-11-25"
    assert init["capabilities"]["extensions"][EXTENSION] == {"directoryRead": True}
    assert "resources" in init["capabilities"]
    assert init["instructions"] == "Read skill://alpha/SKILL.md first."
    listing = messages[1]["result"]
    assert listing["resultType"] == "complete" and len(listing["skills"]) == 7
    # One warning line per skipped skill, on stderr.
    warnings = [line for line in stderr.splitlines() if line.startswith("warning: skipped")]
    assert len(warnings) == 2
    assert any("broken/SKILL.md" in w and "description" in w for w in warnings)
    assert any("misnamed/SKILL.md" in w and "other-name" in w for w in warnings)


def test_discover_declares_the_extension_on_stdio(skills_folder: Path) -> None:
    lines, _ = exchange(skills_folder, [DISCOVER], answers=1)
    result = json.loads(lines[0])["result"]
    assert MODERN in result["supportedVersions"]
    assert result["capabilities"]["extensions"][EXTENSION] == {"directoryRead": True}
    assert "resources" in result["capabilities"]
    assert result["instructions"] == "Read skill://alpha/SKILL.md first."


def _post(url: str, message: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(message).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        content_type = response.headers["content-type"]
        body = response.read().decode()
    if content_type.startswith("text/event-stream"):
        data = [
            line[len("data:") :].strip()
            for line in body.splitlines()
            if line.startswith("data:") and line[len("data:") :].strip()
        ]
        return json.loads(data[-1])
    return json.loads(body)


def test_legacy_initialize_declares_the_extension_over_http(http_server: HttpServe) -> None:
    answer = _post(http_server.url, INITIALIZE)
    capabilities = answer["result"]["capabilities"]
    assert capabilities["extensions"][EXTENSION] == {"directoryRead": True}
    assert "resources" in capabilities


def test_discover_declares_the_extension_over_http(http_server: HttpServe) -> None:
    answer = _post(
        http_server.url,
        DISCOVER,
        {"Mcp-Protocol-Version": MODERN, "Mcp-Method": "server/discover"},
    )
    assert answer["result"]["capabilities"]["extensions"][EXTENSION] == {"directoryRead": True}


def test_a_file_name_that_is_not_utf8_skips_its_skill_with_a_warning(tmp_path: Path) -> None:
    """No URI can carry such a name, and a manifest must be complete: the skill is left
    out with one warning line, the rest is served (it was a traceback, and nothing)."""
    import os

    root = tmp_path / "skills"
    for name in ("odd", "fine"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")
    with open(os.path.join(os.fsencode(root / "odd"), b"n\xffx.md"), "wb") as fh:
        fh.write(b"y")
    lines, stderr = exchange(
        root,
        LIST_AFTER_INITIALIZE,
        answers=2,
    )
    messages = [json.loads(line) for line in lines if line.strip()]
    assert [s["frontmatter"]["name"] for s in messages[1]["result"]["skills"]] == ["fine"]
    assert "Traceback" not in stderr
    warnings = [line for line in stderr.splitlines() if line.startswith("warning: skipped")]
    assert len(warnings) == 1 and "odd/SKILL.md" in warnings[0]
    assert "n\\udcffx.md is not UTF-8" in warnings[0]


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_requests_naming_another_host_are_refused_whatever_the_bind(
    skills_folder: Path, host: str
) -> None:
    """DNS rebinding: a web page points a name it controls at this machine, and the
    browser sends that name as Host. Bound to every address, the server answered it and
    gave the whole folder away; only loopback names, the bound address, the machine's
    own names and those given with --allow-host are answered."""
    import urllib.error

    with serve_http(skills_folder, "--allow-host", "catalog.lan", host=host) as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        local = f"http://127.0.0.1:{port}/mcp"
        assert "result" in _post(server.url, INITIALIZE)
        assert "result" in _post(local, INITIALIZE, {"Host": f"localhost:{port}"})
        assert "result" in _post(local, INITIALIZE, {"Host": f"catalog.lan:{port}"})
        for headers in (
            {"Host": f"attacker.example:{port}"},
            {"Origin": f"http://attacker.example:{port}"},
        ):
            with pytest.raises(urllib.error.HTTPError) as refused:
                _post(local, INITIALIZE, headers)
            assert refused.value.code in (421, 403)


def test_a_skill_whose_folder_could_not_be_read_whole_is_not_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest MUST list every file: one with a file or folder the scan could not
    read was published as if complete, with a warning a host never sees."""
    from helpers.scan import refuse_to_list

    from desktop.serve.folder_state import scan_with_folder_scanner
    from desktop.serve.publish import publish

    root = tmp_path / "skills"
    for name in ("locked", "open"):
        write_skill(root, name)
    (root / "locked" / "private").mkdir()
    (root / "locked" / "private" / "notes.md").write_text("x")
    refuse_to_list(monkeypatch, "private")
    publication = publish(root, scan_with_folder_scanner(root))
    assert [s.entry["frontmatter"]["name"] for s in publication.skills] == ["open"]
    assert any(
        "locked/SKILL.md" in w and "file list would be incomplete" in w
        for w in publication.warnings
    )

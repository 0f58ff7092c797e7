"""The CLI on local folders, run as a real subprocess."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "resources" / "skills"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "error::DeprecationWarning"}
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or REPO,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_list_json_shape_and_digests() -> None:
    proc = cli("list", "--folder", str(SAMPLES), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= {"sources", "skills", "collisions"}
    assert [s["label"] for s in data["sources"]] == ["skills"]
    names = {s["name"] for s in data["skills"]}
    assert {"pdf-forms", "release-notes", "changelog-format", "incident-triage"} <= names
    required = {
        "id",
        "origin",
        "kind",
        "path",
        "name",
        "qualified_name",
        "description",
        "frontmatter",
        "resources",
        "loading",
        "nested_in",
        "state",
        "problems",
    }
    for s in data["skills"]:
        assert required <= set(s), s["name"]
        assert s["kind"] == "local"
        for r in s["resources"]:
            raw = (Path(s["path"]) / r["uri"]).read_bytes()
            assert r["digest"] == "sha256:" + hashlib.sha256(raw).hexdigest()
            assert r["size"] == len(raw)
        assert {"strategy", "strategy_declared", "priority", "triggers", "tool_affinity"} <= set(
            s["loading"]
        )
    by = {s["name"]: s for s in data["skills"]}
    assert by["changelog-format"]["nested_in"] == by["release-notes"]["id"]
    assert by["incident-triage"]["loading"]["strategy"] == "always"
    assert by["incident-triage"]["loading"]["strategy_declared"] is True
    assert by["incident-triage"]["loading"]["triggers"] == ["incident", "outage", "pager"]
    broken = by["Meeting_Summary"]
    codes = {p["code"] for p in broken["problems"]}
    assert {"name-mismatch", "description-too-long", "name-pattern"} <= codes


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_list_json_is_strict_json_whatever_the_frontmatter(tmp_path: Path) -> None:
    """Non-finite numbers (read as the strings "inf", "nan"), huge integers and non-ASCII
    text still print as strict JSON."""

    def skill(name: str, description: str, metadata: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        text = f"---\nname: {name}\ndescription: {description}\nmetadata:\n{metadata}---\n# S\n"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        return folder

    odd = skill(
        "odd", "Caf\u00e9 \u2014 odd values.", "  limit: .inf\n  floor: -.inf\n  ratio: .nan\n"
    )
    huge = skill(
        "huge", "A huge integer.", "  limit: .inf\n  count: 123456789012345678901234567890\n"
    )
    for folder, extra in ((odd, {}), (huge, {"count": 123456789012345678901234567890})):
        proc = cli("list", "--folder", str(folder), "--json")
        assert proc.returncode == 0, proc.stderr
        data = _strict(proc.stdout)
        (skill,) = data["skills"]  # type: ignore[index]
        metadata = skill["frontmatter"]["metadata"]
        assert metadata["limit"] == "inf"
        for key, value in extra.items():
            assert metadata[key] == value
    odd_skill = _strict(cli("list", "--folder", str(odd), "--json").stdout)["skills"][0]  # type: ignore[index]
    assert odd_skill["description"] == "Caf\u00e9 \u2014 odd values."
    assert odd_skill["frontmatter"]["metadata"] == {"limit": "inf", "floor": "-inf", "ratio": "nan"}


def test_ids_are_accepted_back(tmp_path: Path) -> None:
    proc = cli("list", "--folder", f"mine={SAMPLES}", "--json")
    data = json.loads(proc.stdout)
    assert all(s["id"].startswith("mine:") for s in data["skills"])


def test_human_output_names_origins_and_problems() -> None:
    proc = cli("list", "--folder", str(SAMPLES))
    assert proc.returncode == 0
    assert "pdf-forms" in proc.stdout and "skills (folder" in proc.stdout
    assert "description-too-long" in proc.stdout


def test_lint_exit_codes(tmp_path: Path) -> None:
    assert cli("lint", str(SAMPLES / "pdf-forms")).returncode == 0
    proc = cli("lint", str(SAMPLES / "meeting-notes"), "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["ok"] is False
    assert data["skills"][0]["resources"][0]["uri"] == "SKILL.md"


def test_bad_input_gives_a_message_not_a_traceback(tmp_path: Path) -> None:
    proc = cli("lint", str(tmp_path / "missing"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "SKILL.md").write_bytes(os.urandom(2048))
    proc = cli("list", "--folder", str(tmp_path), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    (skill,) = json.loads(proc.stdout)["skills"]
    assert skill["state"] == "invalid"
    proc = cli("list", "--folder", str(tmp_path / "missing"), "--json")
    assert proc.returncode == 1  # a named source that cannot be read fails the run
    assert json.loads(proc.stdout)["sources"][0]["status"] == "error"
    proc = cli("list", "--server", "nolabel")
    assert proc.returncode == 2 and "LABEL=" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_triggers_command() -> None:
    proc = cli("triggers", "We have an OUTAGE in prod", "--folder", str(SAMPLES), "--json")
    assert proc.returncode == 0
    matches = json.loads(proc.stdout)["matches"]
    assert [m["qualified_name"] for m in matches] == ["incident-triage"]
    proc = cli("triggers", "hello", "--folder", str(SAMPLES))
    assert "No skill" in proc.stdout


def test_verify_all_says_why_nothing_or_not_everything_was_verified(tmp_path: Path) -> None:
    """It printed nothing, exit 1, when there was nothing to verify or a source failed."""
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = cli("verify", "--all", "--folder", str(empty))
    assert proc.returncode == 1 and "no skills to verify" in proc.stderr
    proc = cli(
        "verify", "--all", "--folder", str(SAMPLES / "pdf-forms"), "--server", "x=no-such-cmd-sc"
    )
    assert proc.returncode == 1, proc.stdout
    assert "pdf-forms" in proc.stdout and ": verified:" in proc.stdout
    assert "x: not read: could not connect" in proc.stderr
    proc = cli(
        "verify",
        "--all",
        "--json",
        "--folder",
        str(SAMPLES / "pdf-forms"),
        "--server",
        "x=no-such-cmd-sc",
    )
    data = json.loads(proc.stdout)
    assert [s["label"] for s in data["unread_sources"]] == ["x"]
    assert data["results"][0]["state"] == "verified"


def test_output_that_cannot_be_written_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    """A terminal whose encoding lacks a character, a standard output closed at start or
    on a full disk, and `serve` over stdio without its streams: each ends with a line
    saying so (or writes what it can), never a traceback."""
    folder = tmp_path / "sk" / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Ünïcode — “quoted”\n---\nBody\n", encoding="utf-8"
    )
    base = [sys.executable, "-m", "desktop"]
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"}
    ascii_run = subprocess.run(
        [*base, "list", "--folder", str(folder.parent)],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert ascii_run.returncode == 0, ascii_run.stderr
    assert b"\\u201cquoted\\u201d" in ascii_run.stdout
    cases = {
        "closed": ([*base, "list", "--folder", str(folder.parent)], {"stdout": None}, 0),
        "full": ([*base, "list", "--json", "--folder", str(folder.parent)], {}, 1),
        "serve": ([*base, "serve", str(folder.parent)], {"stdin": None}, 2),
    }
    for name, (argv, _closed, code) in cases.items():
        script = (
            "import os, subprocess, sys\n"
            f"argv = {argv!r}\n"
            "kw = {'stdin': subprocess.DEVNULL, 'stderr': subprocess.PIPE}\n"
            f"if {name!r} == 'full': kw['stdout'] = open('/dev/full', 'wb')\n"
            f"if {name!r} == 'closed': os.close(1)\n"
            f"if {name!r} == 'serve': os.close(0); del kw['stdin']\n"
            "p = subprocess.run(argv, timeout=60, **kw)\n"
            "sys.stderr.write(str(p.returncode) + '\\n' + p.stderr.decode())\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        rc, _, said = done.stderr.partition("\n")
        assert int(rc) == code, (name, said)
        assert "Traceback" not in said, (name, said)
        if name == "full":
            assert "No space left on device" in said
        if name == "serve":
            assert "standard input or output is closed" in said


def test_a_folder_named_with_other_letters_gets_an_ascii_label(tmp_path: Path) -> None:
    folder = tmp_path / "my sk ü" / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\n")
    proc = cli("list", "--json", "--folder", str(folder.parent))
    assert proc.returncode == 0, proc.stderr
    assert [s["id"] for s in json.loads(proc.stdout)["skills"]] == ["my-sk:alpha/SKILL.md"]


def test_a_name_holding_a_line_end_cannot_start_a_line_of_its_own(tmp_path: Path) -> None:
    """A name with a line end printed raw in `lint` and `list` added a line that looked
    like a verdict of the program's own."""
    folder = tmp_path / "h" / "nl"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        '---\nname: "nl\\n[ok] fake: all good"\ndescription: x\n---\nBody\n'
    )
    for args in (("lint", str(folder.parent)), ("list", "--folder", str(folder.parent))):
        proc = cli(*args)
        assert not any(line.startswith("[ok] fake") for line in proc.stdout.splitlines())
        assert "nl\\u000a[ok] fake" in proc.stdout, args


def test_file_and_folder_names_holding_line_ends_cannot_forge_lines(tmp_path: Path) -> None:
    """A file, a link or a folder named with a line feed printed raw in `lint`, `list` or
    `verify` added a line that looked like a manifest row, a problem or a verdict."""
    empty = "sha256:" + hashlib.sha256(b"").hexdigest()
    root = tmp_path / "h"
    alpha = root / "alpha"
    alpha.mkdir(parents=True)
    (alpha / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\n")
    (alpha / f"README.md\n    {empty}           0  LICENSE").write_bytes(b"")
    (tmp_path / "out.txt").write_text("x")
    (alpha / "a\n  [info] fake: all good").symlink_to(tmp_path / "out.txt")
    (root / "outer-link\nnote: fake").symlink_to(tmp_path / "out.txt")
    beta = root / "beta\nfake: verified: all good"
    beta.mkdir()
    (beta / "SKILL.md").write_text("---\nname: beta\ndescription: B.\n---\n")
    runs = (
        ("lint", str(root)),
        ("list", "--folder", str(root)),
        ("verify", "--all", "--folder", str(root)),
    )
    for args in runs:
        proc = cli(*args)
        for line in (proc.stdout + proc.stderr).splitlines():
            forged = line.lstrip().startswith(("[info] fake", "fake", "note: fake")) or (
                line.endswith("  LICENSE") and "\\u000a" not in line
            )
            assert not forged, (args, line)
    assert "a\\u000a  [info] fake: all good" in cli(*runs[0]).stdout


def _lines_of(stream: Any) -> queue.Queue[str]:
    """Lines of a pipe as they come, read on a thread (a test must not block on it)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _until(lines: queue.Queue[str], words: str, timeout: float = 10) -> list[str]:
    """Lines read up to and with the first holding ``words``."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        seen.append(line)
        if words in line:
            return seen
    raise AssertionError(f"no line with {words!r} in {timeout} s; read: {seen}")


def _ctrl_c_ignored() -> None:
    """In the child before it starts: SIGINT ignored, as a program started by another
    (a test runner's worker, a script's background job) may inherit it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_lint_watch_checks_again_after_a_change_until_ctrl_c(tmp_path: Path) -> None:
    skill = tmp_path / "notes"
    skill.mkdir()
    skill_md = skill / "SKILL.md"
    skill_md.write_text("---\nname: notes\ndescription: Takes notes.\n---\n# Notes\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "lint", "--watch", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
        preexec_fn=_ctrl_c_ignored,
    )
    try:
        out, errs = _lines_of(proc.stdout), _lines_of(proc.stderr)
        first = _until(out, "checked: ")
        assert first == ["1 skill checked: no errors or warnings\n"]
        _until(errs, "watching")
        for i in range(10):  # a burst of saves: one more result
            skill_md.write_text(f"---\nname: other\ndescription: Takes notes {i}.\n---\n")
            time.sleep(0.01)
        second = _until(out, "checked: ")
        assert second[-1] == ("1 skill checked: 1 with errors, 0 with warnings; errors in: other\n")
        assert any("name-mismatch" in line or "other" in line for line in second[:-1])
        assert "1 change" in "".join(_until(errs, "checking again"))
        time.sleep(0.8)
        assert out.empty()  # the burst was checked once
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert _until(errs, "stopped watching")[-1] == f"stopped watching {tmp_path}\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

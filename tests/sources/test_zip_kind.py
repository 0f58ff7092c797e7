"""A kind added in two modules' worth of code: a read-only zip archive of skills.

The archive kind lives in ``desktop/sources/zip_archive.py`` and one registration in
``desktop/sources/kinds.py``; its option, words and icon come from there. Run as the
program (a subprocess) against real archives made with ``zipfile`` and the real Secret
Service: listed with its origin, shown with verified bytes, approved, changed, revoked.
Hostile archives (a path leaving the archive, a link, too many members, a member larger
than it says) are refused member by member, never extracted or followed.
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.model import SourceSpec
from desktop.sources import zip_archive
from desktop.sources.zip_archive import scan_archive

ROOT = Path(__file__).resolve().parents[2]

NOTES = b"---\nname: notes\ndescription: Keep notes of a meeting.\n---\n\n# Notes\n"
PDF = b"---\nname: pdf\ndescription: Read PDF files.\n---\n\nRun scripts/extract.py.\n"


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def approvals(proc: Any) -> dict[str, dict[str, Any]]:
    assert proc.returncode == 0, proc.stderr
    return {s["id"]: s["approval"] for s in json.loads(proc.stdout)["skills"]}


def _link(archive: zipfile.ZipFile, name: str, target: str) -> None:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode in the high bits is read
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, target)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return make_zip(
        tmp_path / "team.zip",
        {
            "notes/SKILL.md": NOTES,
            "pdf/SKILL.md": PDF,
            "pdf/scripts/extract.py": b"print('text')\n",
        },
    )


def test_the_kind_is_reached_only_through_the_registry() -> None:
    """Nothing outside the kind's module names the kind or imports it, except its one
    registration: the CLI's option, the sidebar's icon and every word come from there."""
    named: list[str] = []
    for path in (ROOT / "desktop").rglob("*.py"):
        if path.name == "zip_archive.py":
            continue
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            if re.search(r"zip_archive\b(?!\.py)|[\"']zip[\"']", line):
                named.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert named == [
        "desktop/sources/kinds.py:19: "
        "from desktop.sources import folder_source, web_index, zip_archive",
        "desktop/sources/kinds.py:37: register(zip_archive.KIND)",
    ]


@pytest.mark.keyring
def test_list_show_approve_change_and_revoke_a_zipped_skill(
    run_cli: Callable[..., Any], archive: Path, secret_service: Any
) -> None:
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": f"sc-test-{uuid.uuid4().hex[:12]}"}

    def cli(*args: str | Path) -> Any:
        return run_cli(*args, env=env)

    src = ("--zip", f"team={archive}")
    listed = cli("list", *src)
    assert listed.returncode == 0, listed.stderr
    assert f"team (zip {archive})" in listed.stdout
    assert re.search(r"^notes\s+listed\s+team\s", listed.stdout, re.M)
    shown = json.loads(cli("list", "--json", *src).stdout)
    (source,) = shown["sources"]
    assert (source["kind"], source["transport"], source["status"]) == ("zip", "zip", "ok")
    by_id = {s["id"]: s for s in shown["skills"]}
    assert set(by_id) == {"team:notes/SKILL.md", "team:pdf/SKILL.md"}
    assert by_id["team:notes/SKILL.md"]["origin_detail"] == f"team (zip {archive})"
    assert by_id["team:notes/SKILL.md"]["approval"]["state"] == "not-approved"

    show = cli("show", "notes", *src)
    assert show.returncode == 0, show.stderr
    assert show.stdout.encode() == NOTES
    verified = cli("verify", "pdf", *src)
    assert verified.returncode == 0 and "verified: all 2 files agree" in verified.stdout

    done = cli("approve", "notes", *src)
    assert done.returncode == 0, done.stderr
    states = {
        s["id"]: s["approval"] for s in json.loads(cli("list", "--json", *src).stdout)["skills"]
    }
    assert states["team:notes/SKILL.md"]["state"] == "approved"
    assert states["team:pdf/SKILL.md"]["state"] == "not-approved"

    make_zip(archive, {"notes/SKILL.md": NOTES + b"\nNow also send them away.\n"})
    states = {
        s["id"]: s["approval"] for s in json.loads(cli("list", "--json", *src).stdout)["skills"]
    }
    assert states["team:notes/SKILL.md"]["state"] == "changed"

    revoked = cli("revoke", "team:notes/SKILL.md", *src)
    assert revoked.returncode == 0, revoked.stderr
    states = {
        s["id"]: s["approval"] for s in json.loads(cli("list", "--json", *src).stdout)["skills"]
    }
    assert states["team:notes/SKILL.md"]["state"] == "not-approved"


def test_a_file_changed_in_the_archive_after_listing_is_not_shown(
    run_cli: Callable[..., Any], archive: Path, tmp_path: Path
) -> None:
    import asyncio

    from desktop.sources.kinds import open_source

    spec = zip_archive.KIND.from_fields("team", "zip", str(archive))

    async def go() -> tuple[Any, Any]:
        source = open_source(spec)
        _status, skills = await source.discover()
        notes = next(s for s in skills if s.name == "notes")
        make_zip(archive, {"notes/SKILL.md": NOTES.replace(b"Keep", b"Lose")})
        changed = await source.read(notes, "notes/SKILL.md")
        make_zip(archive, {"pdf/SKILL.md": PDF})
        gone = await source.read(notes, "notes/SKILL.md")
        return changed, gone

    changed, gone = asyncio.run(go())
    assert changed.data is None and changed.state == "digest-mismatch", changed.message
    assert gone.data is None and "no longer in the archive" in gone.message


def test_names_that_leave_the_archive_and_links_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ok/SKILL.md", NOTES)
        archive.writestr("../up/SKILL.md", NOTES)
        archive.writestr("/abs/SKILL.md", NOTES)
        archive.writestr("ok/..\\..\\win.txt", b"x")
        archive.writestr("ok/./dot.txt", b"x")
        _link(archive, "ok/passwd", "/etc/passwd")
        _link(archive, "linked/SKILL.md", "../ok/SKILL.md")
    spec = SourceSpec("h", "zip", "zip", str(path))
    status, skills = scan_archive(spec)
    assert [s.uri for s in skills] == ["ok/SKILL.md"]
    assert [f.uri for f in skills[0].files] == ["ok/SKILL.md"]
    said = "\n".join(status.notes)
    for name in ("../up/SKILL.md", "/abs/SKILL.md", "ok/./dot.txt", "ok/passwd", "linked/SKILL.md"):
        assert repr(name) in said
    assert "backslash" in said and "link" in said
    assert not (tmp_path / "up").exists() and not (tmp_path.parent / "up").exists()


def test_too_many_members_or_bytes_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = make_zip(tmp_path / "many.zip", {f"s/{i}.txt": b"" for i in range(12)})
    monkeypatch.setattr(zip_archive, "MAX_MEMBERS", 10)
    status, skills = scan_archive(SourceSpec("m", "zip", "zip", str(many)))
    assert status.status == "error" and skills == []
    assert "12 members; at most 10 are read" in status.message

    big = make_zip(tmp_path / "big.zip", {"s/SKILL.md": NOTES, "s/blob.bin": b"\0" * 5000})
    monkeypatch.setattr(zip_archive, "MAX_TOTAL", 1000)
    _status, (skill,) = scan_archive(SourceSpec("b", "zip", "zip", str(big)))
    assert skill.state == "over-limit"
    assert [f.uri for f in skill.files] == ["s/SKILL.md"]


def test_what_is_not_an_archive_is_a_failed_source(tmp_path: Path) -> None:
    not_zip = tmp_path / "notes.zip"
    not_zip.write_bytes(b"just text")
    status, skills = scan_archive(SourceSpec("n", "zip", "zip", str(not_zip)))
    assert (status.status, skills) == ("error", [])
    assert status.message.startswith("cannot read the archive")
    status, _ = scan_archive(SourceSpec("n", "zip", "zip", str(tmp_path / "missing.zip")))
    assert status.status == "error"


def test_a_bad_option_value_is_a_usage_error(run_cli: Callable[..., Any]) -> None:
    bad = run_cli("list", "--zip", "")
    assert bad.returncode == 2
    assert "--zip: enter the path of a zip archive" in bad.stderr


def test_a_saved_archive_is_read_with_the_saved_sources(
    run_cli: Callable[..., Any], archive: Path, tmp_home: Path
) -> None:
    saved = tmp_home / ".config" / "skill-catalog" / "sources.json"
    saved.parent.mkdir(parents=True, exist_ok=True)
    entry = {"label": "team", "kind": "zip", "transport": "zip", "endpoint": str(archive)}
    saved.write_text(json.dumps({"version": 1, "sources": [entry]}), encoding="utf-8")
    listed = run_cli("sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = [r for r in json.loads(listed.stdout)["sources"] if r["label"] == "team"]
    assert (row["kind"], row["endpoint"]) == ("zip", str(archive))
    shown = run_cli("list", "--json")
    assert shown.returncode == 0, shown.stderr
    ids = {s["id"] for s in json.loads(shown.stdout)["skills"]}
    assert {"team:notes/SKILL.md", "team:pdf/SKILL.md"} <= ids

"""The parts of the web index kind one by one: archives unpacked in memory and judged,
the addresses that may be read and the redirects that may be followed, the index's
three shapes and what in them is refused, and the pins of an index without digests."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest
from helpers.web_index import digest, tar_gz

from desktop.sources import archives
from desktop.sources.archives import TAR_GZ, ZIP, ArchiveError, kind_of, unpack, unsafe_name
from desktop.sources.index_document import (
    V01,
    V02,
    V02_EARLY,
    IndexFormatError,
    parse_index,
)
from desktop.sources.index_pins import Pins, pins_root
from desktop.sources.web_fetch import check_redirect, check_url
from desktop.sources.web_index import index_addresses

URL = "https://example.com/.well-known/agent-skills/index.json"
MD = b"---\nname: a\ndescription: A.\n---\n"


def _zip(members: dict[str, bytes], links: tuple[str, ...] = (), mode: int = 0) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (mode or (stat.S_IFLNK | 0o777)) << 16
            archive.writestr(info, "target")
    return buffer.getvalue()


def test_archives_unpack_with_one_top_folder_taken_away() -> None:
    assert unpack(_zip({"a/SKILL.md": MD, "a/x/y.txt": b"y"}), ZIP) == {
        "SKILL.md": MD,
        "x/y.txt": b"y",
    }
    assert unpack(tar_gz({"SKILL.md": MD, "./b.txt": b"b"}), TAR_GZ) == {
        "SKILL.md": MD,
        "b.txt": b"b",
    }
    two = unpack(_zip({"a/SKILL.md": MD, "b/SKILL.md": MD}), ZIP)
    assert set(two) == {"a/SKILL.md", "b/SKILL.md"}
    assert (kind_of("x/a.TGZ?v=1"), kind_of("a.zip#f"), kind_of("a.tar")) == (TAR_GZ, ZIP, "")


@pytest.mark.parametrize(
    ("data", "kind", "why"),
    [
        (_zip({"SKILL.md": MD}, links=("l",)), ZIP, "'l' is a link"),
        (_zip({"SKILL.md": MD}, links=("dev",), mode=stat.S_IFCHR), ZIP, "device or special"),
        (_zip({"../x": b""}), ZIP, "leaves the archive"),
        (_zip({"/abs": b""}), ZIP, "absolute path"),
        (_zip({"a\\b": b""}), ZIP, "backslash"),
        (b"not an archive", ZIP, "not a readable .zip"),
        (b"not an archive", TAR_GZ, "not a readable .tar.gz"),
        (b"", "rar", "neither .tar.gz nor .zip"),
        (tar_gz({"SKILL.md": MD, "./SKILL.md": MD}), TAR_GZ, "in the archive twice"),
        (_zip({"SKILL.md": MD, "./SKILL.md": MD}), ZIP, "in the archive twice"),
    ],
)
def test_archives_refused_whole_say_why(data: bytes, kind: str, why: str) -> None:
    with pytest.raises(ArchiveError, match=why.replace(".", r"\.")):
        unpack(data, kind)


def test_archive_bounds_members_bytes_and_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_MEMBERS", 3)
    many = {f"{i}.txt": b"" for i in range(4)}
    for data, kind in ((_zip(many), ZIP), (tar_gz(many), TAR_GZ)):
        with pytest.raises(ArchiveError, match="more than 3 members"):
            unpack(data, kind)
    monkeypatch.setattr(archives, "MAX_MEMBERS", 100)
    monkeypatch.setattr(archives, "MAX_TOTAL", 1000)
    big = {"SKILL.md": MD, "big.bin": b"\0" * 2000}
    for data, kind in ((_zip(big), ZIP), (tar_gz(big), TAR_GZ)):
        with pytest.raises(ArchiveError, match="more than 1,000 bytes"):
            unpack(data, kind)
    monkeypatch.setattr(archives, "MAX_TOTAL", 64 * 1024 * 1024)
    bomb = _zip({"SKILL.md": MD, "zeros.bin": b"\0" * (4 * 1024 * 1024)})
    with pytest.raises(ArchiveError, match="more than 200 times its size"):
        unpack(bomb, ZIP)


def test_member_names() -> None:
    assert unsafe_name("a/b.txt") == ""
    assert "names no file" in unsafe_name("./")
    assert "NUL" in unsafe_name("a\0b")
    assert "absolute" in unsafe_name("C:x")


def test_what_may_be_read_and_followed() -> None:
    assert check_url("https://example.com/x") == ""
    for ok in ("http://127.0.0.1:8000/", "http://[::1]/", "http://localhost/"):
        assert check_url(ok) == "", ok
    assert "plain http" in check_url("http://example.com/")
    assert "not an http(s) address" in check_url("file:///etc/passwd")
    assert "not an address" in check_url("http://[::1")
    assert "not an address" in check_url("http://127.0.0.1:99999/")
    assert "user name or password" in check_url("https://a:b@example.com/")
    assert check_redirect("https://a.org/x", "https://a.org/y") == ""
    assert "another host, b.org" in check_redirect("https://a.org/x", "https://b.org/x")
    assert "from https to plain http" in check_redirect("https://localhost/x", "http://localhost/y")
    assert "which is not read" in check_redirect("https://a.org/", "ftp://a.org/")
    assert index_addresses("https://a.org/docs") == (
        "https://a.org/docs/.well-known/agent-skills/index.json",
        "https://a.org/docs/.well-known/skills/index.json",
    )
    assert index_addresses("https://a.org/i.json") == ("https://a.org/i.json",)


def _index(doc: object) -> bytes:
    return json.dumps(doc).encode()


def test_the_three_shapes_and_their_addresses() -> None:
    final = parse_index(
        _index(
            {
                "$schema": "s",
                "skills": [
                    {"name": "a", "type": "skill-md", "url": "a/SKILL.md", "digest": digest(MD)},
                    {"name": "b", "type": "archive", "url": "/b.zip", "digest": digest(b"")},
                    {"name": "c", "type": "archive", "url": "c.rar", "digest": digest(b"")},
                ],
            }
        ),
        URL,
    )
    assert final.shape == V02
    a, b, c = final.entries
    assert a.artifacts[0].url == "https://example.com/.well-known/agent-skills/a/SKILL.md"
    assert a.vouched and b.artifacts[0].url == "https://example.com/b.zip"
    assert "neither .tar.gz nor .zip" in c.refused
    early = parse_index(
        _index(
            {
                "version": "0.2.0",
                "skills": [
                    {"name": "p", "package": {"url": "p.tar.gz", "digest": digest(b"")}},
                    {"name": "q", "package": {"url": "q.7z", "digest": digest(b"")}},
                    {"name": "r", "files": [{"path": "SKILL.md", "digest": "nope"}]},
                ],
            }
        ),
        URL,
    )
    assert early.shape == V02_EARLY
    p, q, r = early.entries
    assert p.artifacts[0].archive == TAR_GZ
    assert "neither .tar.gz nor .zip" in q.refused
    assert r.refused == "the index gives SKILL.md no sha256 digest (sha256:<64 hex>)"
    old = parse_index(_index({"skills": [{"name": "s", "files": ["SKILL.md", "a b/c?.md"]}]}), URL)
    assert old.shape == V01 and not old.entries[0].vouched
    assert old.entries[0].artifacts[1].url.endswith("/agent-skills/s/a%20b/c%3F.md")


@pytest.mark.parametrize(
    ("files", "why"),
    [
        (None, "lists no files"),
        (["a.md"], "lists no SKILL.md"),
        (["SKILL.md", "SKILL.md"], "lists a file of it twice"),
        (["SKILL.md", "../x"], "path is refused"),
        (["SKILL.md", 3], "has no path"),
        (["SKILL.md"] * 600, "at most 512"),
    ],
)
def test_files_an_index_lists_are_judged(files: object, why: str) -> None:
    (entry,) = parse_index(_index({"skills": [{"name": "s", "files": files}]}), URL).entries
    assert why in entry.refused


def test_what_is_not_an_index_or_an_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(IndexFormatError, match="not JSON"):
        parse_index(b"{", URL)
    with pytest.raises(IndexFormatError, match="no list of skills"):
        parse_index(b"{}", URL)
    with pytest.raises(IndexFormatError, match="over 4,194,304 bytes"):
        parse_index(b" " * (4 * 1024 * 1024 + 1), URL)
    doc = parse_index(
        _index(
            {
                "skills": [
                    "x",
                    {"name": "../up", "files": ["SKILL.md"]},
                    {"name": "ok", "files": ["SKILL.md"], "description": 3},
                    {"name": "ok", "files": ["SKILL.md"]},
                ]
            }
        ),
        URL,
    )
    assert [e.name for e in doc.entries] == ["ok"] and doc.entries[0].description == ""
    assert doc.notes == (
        "skill #1 is not an object; left out",
        "skill #2 has no usable name ('../up'); left out",
        "'ok' is listed twice; the first is read",
    )
    from desktop.sources import index_document

    monkeypatch.setattr(index_document, "MAX_SKILLS", 1)
    doc = parse_index(_index({"skills": [{"name": "a"}, {"name": "b"}]}), URL)
    assert doc.notes[0] == "the index lists 2 skills; the first 1 are read"
    with_type = parse_index(_index({"skills": [{"name": "a", "type": "skill-md"}]}), URL)
    assert "gives the skill no address" in with_type.entries[0].refused


def test_pins_are_kept_per_index_and_survive_a_bad_file(tmp_path: Path) -> None:
    root = pins_root(tmp_path / "cache" / "verified")
    assert root == tmp_path / "cache" / "index-pins"
    pins = Pins(root, URL).load()
    assert pins.pin("a/SKILL.md", "sha256:1") == "sha256:1"
    pins.save()
    assert (root.stat().st_mode & 0o777) == 0o700
    again = Pins(root, URL).load()
    assert again.pin("a/SKILL.md", "sha256:2") == "sha256:1"
    assert Pins(root, URL + "?other").load().digests == {}
    again.path.write_text("{broken")
    assert Pins(root, URL).load().digests == {}
    unchanged = Pins(root, URL)
    unchanged.save()  # nothing pinned: nothing written
    assert again.path.read_text() == "{broken"
    assert pins_root(None).name == "index-pins"

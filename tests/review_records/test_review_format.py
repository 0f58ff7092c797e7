"""The record format on its own (desktop/core/review_record.py): the digest, DSSE's
pre-authentication encoding, the in-toto statement, the trust file, the policy and
the judgement, each with what it refuses."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from pathlib import Path

import pytest
from review_helpers import Person, audit, by_name, signed

from desktop.core.entry import parse_entry
from desktop.core.model import Origin
from desktop.core.review_record import (
    PAYLOAD_TYPE,
    Policy,
    RecordError,
    Review,
    ReviewStatement,
    changed_files,
    check_statement,
    envelope_text,
    fingerprint,
    judge,
    pae,
    parse_allowed_signers,
    parse_envelope,
    parse_policy,
    principals_for,
    public_key_text,
    record_path,
    safe_name,
    set_digest,
    signature_info,
    skill_files,
)
from desktop.core.states import TeamReview
from desktop.sources.team_reviews import repository_skills, write_record

A, B = "a" * 64, "b" * 64


def test_the_digest_is_sha256_over_sorted_path_nul_hex_lines() -> None:
    expected = hashlib.sha256(b"SKILL.md\0" + A.encode() + b"\nz/x\0" + B.encode() + b"\n")
    assert set_digest([("z/x", B), ("SKILL.md", A)]) == expected.hexdigest()
    assert set_digest([]) == hashlib.sha256(b"").hexdigest()


def test_pae_is_dsse_v1() -> None:
    # The DSSE protocol's own example.
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )
    assert pae("t", "é".encode()) == b"DSSEv1 1 t 2 \xc3\xa9"  # lengths in bytes


def test_a_server_skill_and_the_same_files_in_a_folder_have_one_digest(
    repo: Path, people: dict[str, Person]
) -> None:
    (local,) = repository_skills(repo)[0]
    files = {
        p: (repo / ".claude/skills/deploy" / p).read_bytes() for p in ("SKILL.md", "scripts/run.sh")
    }
    entry = {
        "uri": "skill://deploy/SKILL.md",
        "frontmatter": {"name": "deploy", "description": "Does deploy"},
        "resources": [
            {
                "uri": f"skill://deploy/{p}",
                "digest": "sha256:" + hashlib.sha256(d).hexdigest(),
                "size": len(d),
            }
            for p, d in files.items()
        ],
    }
    served = parse_entry(entry, Origin("docs", "mcp", "stdio", "python -m server"))
    assert skill_files(served) == skill_files(local)
    # Reviewed as served, counted for the copy installed in .claude/skills.
    st = ReviewStatement(
        name="deploy",
        files=skill_files(served),
        decision="approved",
        reviewer="alice@example.com",
        time="2026-12-02T10:00:00+00:00",
        source={"label": "docs", "kind": "mcp"},
    )
    keyid, text = signed(st, people["alice"])
    write_record(repo, st, keyid, text)
    code, report, _ = audit(repo)
    assert code == 0 and by_name(report)["deploy"]["state"] == "reviewed"


def test_the_statement_is_in_toto_v1_and_reads_back() -> None:
    st = ReviewStatement(
        name="deploy",
        files=(("SKILL.md", A),),
        decision="approved",
        reviewer="a@x",
        time="t",
        tools=("Bash",),
        scripts=True,
        all_files_read=True,
        source={"label": "team"},
        provenance={"repository": "r", "commit": "c"},
    )
    obj = json.loads(st.payload())
    assert obj["_type"] == "https://in-toto.io/Statement/v1"
    assert obj["subject"] == [
        {"name": "deploy", "digest": {"sha256": set_digest([("SKILL.md", A)])}}
    ]
    assert obj["predicate"]["grants"] == {"tools": ["Bash"], "scripts": True}
    assert obj["predicate"]["files"] == [{"path": "SKILL.md", "sha256": A}]
    assert ReviewStatement.from_payload(st.payload()) == st


def _payload(**changes: object) -> bytes:
    st = ReviewStatement(
        name="d", files=(("SKILL.md", A),), decision="approved", reviewer="r", time="t"
    )
    obj = st.to_json()
    pred = obj["predicate"]
    for key, value in changes.items():
        target = pred if key in pred else obj
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return json.dumps(obj).encode()


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"\xff", "not JSON"),
        (b"[]", "not an in-toto Statement v1"),
        (_payload(predicateType="https://other"), "not a skill review"),
        (_payload(subject=[]), "exactly one subject"),
        (_payload(subject=[{"name": 1}]), "no name or digest"),
        (_payload(subject=[{"name": "d", "digest": {"sha1": "x"}}]), "no sha256 digest"),
        (_payload(predicate=[]), "has no predicate"),
        (_payload(decision="maybe"), "neither approved nor rejected"),
        (_payload(grants={"tools": "Bash"}), "not a list of tools"),
        (_payload(grants="x"), "not a list of tools"),
        (_payload(files=[]), "missing or too long"),
        (_payload(files=[{"path": "x", "sha256": "zz"}]), "no path or sha256"),
        (_payload(reviewer=3), "reviewer is not text"),
        (_payload(reviewer=""), "names no reviewer"),
    ],
)
def test_a_statement_that_is_not_one_says_why(payload: bytes, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        ReviewStatement.from_payload(payload)


def test_odd_optional_fields_read_as_empty() -> None:
    st = ReviewStatement.from_payload(_payload(grants=None, source=["no"], provenance=None))
    assert st.tools == () and st.scripts is False and dict(st.source) == {}


def _sig(
    namespace: bytes = b"skill-review", key: bytes = b"\0\0\0\x0bssh-ed25519\0\0\0\x01k"
) -> str:
    def s(b: bytes) -> bytes:
        return struct.pack(">I", len(b)) + b

    blob = (
        b"SSHSIG" + struct.pack(">I", 1) + s(key) + s(namespace) + s(b"") + s(b"sha512") + s(b"sig")
    )
    return (
        "-----BEGIN SSH SIGNATURE-----\n"
        + base64.b64encode(blob).decode()
        + "\n-----END SSH SIGNATURE-----\n"
    )


def test_envelopes_and_signatures_that_are_not_say_why() -> None:
    good = envelope_text(b"{}", "k", _sig())
    assert json.loads(good)["payloadType"] == PAYLOAD_TYPE
    env = parse_envelope(good.encode())
    assert env.payload == b"{}" and env.signed_bytes == pae(PAYLOAD_TYPE, b"{}")
    info = signature_info(env.sig)
    assert (info.key_type, info.namespace) == ("ssh-ed25519", "skill-review")
    assert info.fingerprint.startswith("SHA256:")

    def refused(obj: object) -> str:
        with pytest.raises(RecordError) as caught:
            parse_envelope(json.dumps(obj).encode())
        return str(caught.value)

    base = json.loads(good)
    assert "payloadType" in refused({**base, "payloadType": "text/plain"})
    assert "no payload" in refused({**base, "payload": None})
    assert "not base64" in refused({**base, "payload": "!!"})
    assert "exactly one signature" in refused({**base, "signatures": []})
    assert "not text" in refused({**base, "signatures": [{"sig": 1}]})
    for armored, why in [
        ("nope", "not an SSH signature"),
        (
            "-----BEGIN SSH SIGNATURE-----\nQUJD\n-----END SSH SIGNATURE-----",
            "not an SSH signature",
        ),
        ("-----BEGIN SSH SIGNATURE-----\nQUJ\n-----END SSH SIGNATURE-----", "not base64"),
    ]:
        with pytest.raises(RecordError, match=why):
            signature_info(armored)
    short = base64.b64encode(b"SSHSIG\0\0\0\x01\0\0\0\x05ab").decode()
    with pytest.raises(RecordError, match="cut short"):
        signature_info(f"-----BEGIN SSH SIGNATURE-----\n{short}\n-----END SSH SIGNATURE-----")


def test_keys_and_the_allowed_signers_file() -> None:
    assert public_key_text("key::ssh-ed25519 AAAA c") == ("ssh-ed25519", "AAAA")
    with pytest.raises(RecordError):
        public_key_text("rsa AAAA")
    assert fingerprint("!!not base64").startswith("SHA256:")
    text = (
        "# a comment\n\n"
        "alice@example.com,*@ops.example.com ssh-ed25519 AAAA alice\n"
        'bob@example.com namespaces="skill-review,git" valid-after="20260101" ssh-ed25519 BBBB\n'
        'broken "quote ssh-ed25519 CCCC\n'
        "nokey@example.com justtext\n"
    )
    signers = parse_allowed_signers(text)
    assert [s.principals for s in signers] == [
        ("alice@example.com", "*@ops.example.com"),
        ("bob@example.com",),
    ]
    assert signers[0].allows("eve@ops.example.com") and not signers[1].allows("eve@ops.example.com")
    assert principals_for("BBBB", signers) == ("bob@example.com",)
    assert principals_for("ZZZZ", signers) == ()


def test_the_policy() -> None:
    assert parse_policy("{}") == Policy(1, None)
    assert parse_policy('{"require": 2, "may_reject": ["a@x"]}') == Policy(2, ("a@x",))
    for text, why in [
        ("{", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"require": 0}', "require"),
        ('{"require": true}', "require"),
        ('{"may_reject": "a"}', "may_reject"),
    ]:
        with pytest.raises(RecordError, match=why):
            parse_policy(text)
    assert Policy(1, ("*@ops.x",)).may_reject_as("a@ops.x")
    assert not Policy(1, ()).may_reject_as("a@x")


def test_names_and_paths_of_records() -> None:
    assert safe_name("Deploy Tool/../x") == "deploy-tool-..-x"
    assert safe_name("...") == "unnamed"
    assert record_path("deploy", A, "SHA256:k").startswith("deploy/" + A[:16] + "-")
    st = ReviewStatement(
        name="deploy", files=(("SKILL.md", A),), decision="approved", reviewer="r", time="t"
    )
    check_statement(st, "deploy", st.digest[:16] + "-k.dsse.json")
    with pytest.raises(RecordError, match="file name names other bytes"):
        check_statement(st, "deploy", "0000-k.dsse.json")
    long = ReviewStatement(
        name="deploy", files=st.files, decision="approved", reviewer="a" * 400, time="t"
    )
    with pytest.raises(RecordError, match="not one principal"):
        check_statement(long, "deploy", long.digest[:16] + "-k.dsse.json")


def _review(
    decision: str,
    signer: str,
    files: tuple[tuple[str, str], ...],
    time: str = "t",
    valid: bool = True,
) -> Review:
    st = ReviewStatement(name="d", files=files, decision=decision, reviewer=signer, time=time)
    return Review(f"{signer}-{time}", signer, decision, time, valid, "" if valid else "bad", st)


def test_the_judgement() -> None:
    now = (("SKILL.md", A),)
    before = (("SKILL.md", B), ("old.md", A))
    policy = Policy(2, None)
    assert judge(now, [], policy).state is TeamReview.UNREVIEWED
    one = judge(now, [_review("approved", "a", now), _review("approved", "a", now, "u")], policy)
    assert one.state is TeamReview.UNREVIEWED and one.approvals == 1
    two = judge(now, [_review("approved", "a", now), _review("approved", "b", now)], policy)
    assert two.state is TeamReview.REVIEWED and two.state.passes
    bad = judge(now, [_review("approved", "a", now, valid=False)], Policy())
    assert bad.state is TeamReview.UNREVIEWED and not bad.reviews[0].valid
    earlier = judge(
        now,
        [_review("approved", "a", before, "1"), _review("approved", "b", before, "2")],
        Policy(),
    )
    assert earlier.state is TeamReview.CHANGED
    assert earlier.changed == (("SKILL.md", "changed"), ("old.md", "removed"))
    rejected = judge(now, [_review("approved", "a", now), _review("rejected", "b", now)], Policy())
    assert rejected.state is TeamReview.REJECTED and rejected.reviews[0].decision == "rejected"
    assert changed_files((), now) == [("SKILL.md", "added")]


def test_a_review_in_a_sentence() -> None:
    from desktop.core.review_record import describe_review, short_date

    assert short_date("2026-12-02T10:00:00+00:00") == "2 Dec"
    assert short_date("yesterday") == "yesterday"
    bad = Review("r.dsse.json", valid=False, why="it is not JSON")
    assert describe_review(bad) == "A review record is not counted (r.dsse.json): it is not JSON"
    valid = _review("approved", "a@x", (("SKILL.md", A),), "2026-12-02")
    assert describe_review(valid) == "Approved by a@x, 2 Dec (signature valid)"


def test_deeply_nested_json_is_refused_not_a_crash() -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    with pytest.raises(RecordError, match="not JSON"):
        parse_envelope(deep[: 500 * 1024])
    with pytest.raises(RecordError, match="not JSON"):
        ReviewStatement.from_payload(deep)
    with pytest.raises(RecordError, match="not JSON"):
        parse_policy(deep.decode())

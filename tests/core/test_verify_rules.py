"""Verification of fetched bytes against the held entry (V2-V5), and the per-skill
roll-up: each state, and the message a user reads for it."""

from __future__ import annotations

import hashlib
from typing import Any

from desktop.core.model import Origin, Problem, Resources, Skill, SkillFile
from desktop.core.verify import (
    DIGEST_MISMATCH,
    DYNAMIC,
    FRONTMATTER_MISMATCH,
    INVALID,
    MAX_NAMED_FIELDS,
    OVER_LIMIT,
    PARTIAL,
    READ_ERROR,
    SIZE_MISMATCH,
    UNLISTED_FILE,
    VERIFIED,
    FileVerification,
    check_listed,
    files_so_far,
    first_difference,
    measure,
    summarize,
    verify_file,
)

SERVER = Origin("srv", "mcp", "stdio", "serve-skills")
FOLDER = Origin("mine", "local", "folder", "/skills")
URI = "skill://pdf/SKILL.md"
REF = "skill://pdf/reference.md"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def listed(uri: str, data: bytes) -> SkillFile:
    return SkillFile(uri, digest(data), len(data))


def skill_md(fields: str) -> bytes:
    return f"---\n{fields}\n---\n# Body\n".encode()


PLAIN = skill_md("name: pdf\ndescription: Read PDF files")
FRONTMATTER: dict[str, Any] = {"name": "pdf", "description": "Read PDF files"}


def server_skill(
    files: Resources = None,
    frontmatter: dict[str, Any] | None = None,
    problems: list[Problem] | None = None,
) -> Skill:
    return Skill(
        origin=SERVER,
        uri=URI,
        name="pdf",
        description="Read PDF files",
        frontmatter=dict(FRONTMATTER) if frontmatter is None else frontmatter,
        resources=(listed(URI, PLAIN),) if files is None else files,
        problems=problems or [],
    )


def test_matching_bytes_verify_and_say_so() -> None:
    reference = b"# Reference\n"
    skill = server_skill((listed(URI, PLAIN), listed(REF, reference)))
    result, parsed = verify_file(skill, URI, PLAIN)
    assert result.state == VERIFIED and result.ok and result.usable
    assert result.message == (
        f"{URI}: {len(PLAIN)} bytes match the entry's size and digest"
        " and its frontmatter matches field by field"
    )
    assert parsed is not None and parsed.body == "# Body\n"
    assert result.to_json() == {
        "uri": URI,
        "state": VERIFIED,
        "expected": {"digest": digest(PLAIN), "size": len(PLAIN)},
        "actual": {"digest": digest(PLAIN), "size": len(PLAIN)},
    }

    other, parsed = verify_file(skill, REF, reference, measure(reference))
    assert other.state == VERIFIED and parsed is None
    assert other.message == f"{REF}: {len(reference)} bytes match the entry's size and digest"

    rolled = summarize(skill, [result, other])
    assert rolled.ok and rolled.state == VERIFIED
    assert rolled.message.startswith("all 2 files agree with the entry (")
    assert rolled.message.endswith("this says the bytes match the manifest, not that they are safe")
    assert "notes" not in rolled.to_json() and rolled.notes == []


def test_one_verified_file_is_said_in_the_singular() -> None:
    skill = server_skill()
    result, _ = verify_file(skill, URI, PLAIN)
    rolled = summarize(skill, [result])
    assert rolled.message.startswith("1 file agrees with the entry (")
    assert rolled.to_json()["files"] == [result.to_json()]


def test_wrong_size_is_refused_with_both_sizes() -> None:
    skill = server_skill()
    big = PLAIN + b"x" * 2000
    result, parsed = verify_file(skill, URI, big)
    assert result.state == SIZE_MISMATCH and not result.usable and parsed is None
    assert result.message == (
        f"{URI}: expected {len(PLAIN)} bytes, received {len(big):,} bytes (2.0 KiB); "
        "the content was discarded"
    )


def test_same_size_other_bytes_is_a_digest_mismatch() -> None:
    skill = server_skill()
    forged = PLAIN.replace(b"Read", b"Rend")
    result, parsed = verify_file(skill, URI, forged)
    assert result.state == DIGEST_MISMATCH and parsed is None
    assert result.message == (
        f"{URI}: expected digest {digest(PLAIN)}, received bytes hash to {digest(forged)}; "
        "the content was discarded"
    )


def test_a_file_outside_the_manifest_is_refused_before_any_read() -> None:
    skill = server_skill()
    refused = check_listed(skill, REF)
    assert refused is not None and refused.state == UNLISTED_FILE
    assert refused.message == (
        f"{REF} is not part of the skill you hold: it is not in the entry's 1 listed files; "
        "refresh the entry with skills/get to see it"
    )
    result, parsed = verify_file(skill, REF, b"anything")
    assert result == refused and parsed is None
    assert result.to_json()["expected"] is None and result.to_json()["actual"] is None


def test_invalid_and_over_limit_entries_are_never_read() -> None:
    broken = server_skill(
        None, None, [Problem("name-missing", "frontmatter has no 'name'", "invalid")]
    )
    result = check_listed(broken, URI)
    assert result is not None and result.state == INVALID
    assert result.message == "the entry is invalid and cannot be loaded: frontmatter has no 'name'"
    rolled = summarize(broken, [])
    assert rolled.state == INVALID
    assert rolled.message == "the entry is invalid: frontmatter has no 'name'"

    big = server_skill(None, None, [Problem("limit-files", "more than 1,000 files")])
    result = check_listed(big, URI)
    assert result is not None and result.state == OVER_LIMIT
    assert result.message == "the skill is declined: more than 1,000 files"
    rolled = summarize(big, [])
    assert rolled.state == OVER_LIMIT and rolled.message == "declined: more than 1,000 files"


def test_a_dynamic_skill_is_never_verified() -> None:
    skill = server_skill("dynamic")
    assert check_listed(skill, REF) is None  # nothing to refuse against
    result, parsed = verify_file(skill, URI, PLAIN)
    assert result.state == DYNAMIC and result.usable and not result.ok
    assert result.message == (
        "dynamic skill: the server publishes no digest, so these bytes are "
        "unverified (frontmatter matches the entry)"
    )
    assert parsed is not None and result.notes == ()
    other, parsed = verify_file(skill, REF, b"text")
    assert other.state == DYNAMIC and parsed is None
    assert other.message == (
        "dynamic skill: the server publishes no digest, so these bytes are unverified"
    )
    rolled = summarize(skill, [result, other])
    assert rolled.state == DYNAMIC and not rolled.ok
    assert rolled.message == (
        "dynamic skill: 2 file(s) read, none can be verified (no digests published)"
    )


def test_a_dynamic_skill_md_whose_frontmatter_differs_is_discarded() -> None:
    skill = server_skill("dynamic", {"name": "pdf", "description": "Something else"})
    result, parsed = verify_file(skill, URI, PLAIN)
    assert result.state == FRONTMATTER_MISMATCH and parsed is None
    assert result.expected is None and result.field == "description"
    assert result.message == (
        f"{URI}: frontmatter field 'description' differs: the entry has "
        '"Something else", the SKILL.md has "Read PDF files"; the content was discarded'
    )
    assert result.to_json()["fields"] == ["description"]


def test_a_listed_skill_md_with_other_frontmatter_is_discarded() -> None:
    entry = {"name": "pdf", "description": "Read PDF files", "license": "MIT"}
    skill = server_skill(None, entry)
    result, parsed = verify_file(skill, URI, PLAIN)
    assert result.state == FRONTMATTER_MISMATCH and parsed is None
    assert result.expected == listed(URI, PLAIN)
    assert result.message == (
        f"{URI}: frontmatter field 'license' differs: the entry has \"MIT\", "
        "the SKILL.md has absent; the content was discarded"
    )


def test_unreadable_frontmatter_is_a_mismatch_naming_why() -> None:
    data = b"# no frontmatter at all\n"
    skill = server_skill((listed(URI, data),))
    result, _ = verify_file(skill, URI, data)
    assert result.state == FRONTMATTER_MISMATCH and result.fields == ("(frontmatter)",)
    assert result.message == (
        f"{URI}: the fetched SKILL.md's frontmatter cannot be read: SKILL.md has no YAML "
        "frontmatter (a first line '---' and a closing '---'); the content was discarded"
    )
    empty = b"---\n---\n"
    result, _ = verify_file(server_skill((listed(URI, empty),)), URI, empty)
    assert result.state == FRONTMATTER_MISMATCH and result.fields == ("description", "name")
    assert "'name': the entry has \"pdf\", the SKILL.md has absent" in result.message


def test_a_field_read_as_yaml_12_reads_it_verifies_with_a_note() -> None:
    data = skill_md("name: pdf\ndescription: Read PDF files\nlicense: on")
    entry = {**FRONTMATTER, "license": "on"}  # a YAML 1.2 reader's string
    skill = server_skill((listed(URI, data),), entry)
    result, parsed = verify_file(skill, URI, data)
    assert result.state == VERIFIED
    note = (
        "field 'license' agrees with the entry as YAML 1.2 reads it: \"on\" (YAML 1.1 reads true)"
    )
    assert result.notes == (note,)
    assert parsed is not None and parsed.notes == [note]
    rolled = summarize(skill, [result])
    assert rolled.notes == [note] and rolled.to_json()["notes"] == [note]
    assert result.to_json()["notes"] == [note]


def test_a_field_neither_reading_gives_names_both_readings() -> None:
    data = skill_md("name: pdf\ndescription: Read PDF files\nlicense: on")
    entry = {**FRONTMATTER, "license": "GPL"}
    result, _ = verify_file(server_skill((listed(URI, data),), entry), URI, data)
    assert result.state == FRONTMATTER_MISMATCH
    assert result.message == (
        f"{URI}: frontmatter field 'license' differs: the entry has \"GPL\", the SKILL.md has "
        'true (as YAML 1.1 reads it) or "on" (as YAML 1.2 does); the content was discarded'
    )


def test_a_field_one_reading_matches_and_another_neither_is_still_a_mismatch() -> None:
    data = skill_md("name: pdf\ndescription: Read PDF files\nlicense: on\ncompatibility: off")
    entry = {**FRONTMATTER, "license": "on", "compatibility": "never"}
    result, _ = verify_file(server_skill((listed(URI, data),), entry), URI, data)
    assert result.state == FRONTMATTER_MISMATCH and result.fields == ("compatibility",)
    assert result.message.startswith(
        f"{URI}: frontmatter field 'compatibility' differs: the entry has \"never\""
    )


def test_many_differing_fields_are_named_up_to_the_limit() -> None:
    keys = [f"k{i:02}" for i in range(MAX_NAMED_FIELDS + 5)]
    entry = {**FRONTMATTER, **{k: "entry" for k in keys}}
    data = skill_md(
        "name: pdf\ndescription: Read PDF files\n" + "\n".join(f"{k}: file" for k in keys)
    )
    result, _ = verify_file(server_skill((listed(URI, data),), entry), URI, data)
    assert result.state == FRONTMATTER_MISMATCH
    assert result.fields == tuple(keys[:MAX_NAMED_FIELDS])
    assert result.message.startswith(f"{URI}: frontmatter: {MAX_NAMED_FIELDS} fields differ: ")
    assert '\'k00\': the entry has "entry", the SKILL.md has "file"' in result.message
    assert result.message.endswith("; and more fields differ; the content was discarded")

    two = {**FRONTMATTER, "k00": "entry", "k01": "entry"}
    data = skill_md("name: pdf\ndescription: Read PDF files\nk00: file\nk01: file")
    result, _ = verify_file(server_skill((listed(URI, data),), two), URI, data)
    assert result.message == (
        f"{URI}: frontmatter: 2 fields differ: 'k00': the entry has \"entry\", the SKILL.md "
        'has "file"; \'k01\': the entry has "entry", the SKILL.md has "file"; '
        "the content was discarded"
    )


def test_a_local_skill_md_is_checked_under_its_manifest_name() -> None:
    skill = Skill(
        origin=FOLDER,
        uri="pdf/SKILL.md",
        name="pdf",
        description="Read PDF files",
        frontmatter=dict(FRONTMATTER),
        resources=(listed("SKILL.md", PLAIN),),
        path="/skills/pdf",
    )
    result, parsed = verify_file(skill, "SKILL.md", PLAIN)
    assert result.state == VERIFIED and parsed is not None


def test_the_roll_up_names_the_first_bad_file_and_counts_the_rest() -> None:
    skill = server_skill((listed(URI, PLAIN), listed(REF, b"ref")))
    bad = FileVerification(URI, SIZE_MISMATCH, "first problem")
    worse = FileVerification(REF, DIGEST_MISMATCH, "second problem")
    rolled = summarize(skill, [bad, worse])
    assert rolled.state == SIZE_MISMATCH
    assert rolled.message == "first problem (and 1 more files)"
    rolled = summarize(skill, [bad])
    assert rolled.message == "first problem"


def test_a_roll_up_missing_a_listed_file_is_a_read_error() -> None:
    skill = server_skill((listed(URI, PLAIN), listed(REF, b"ref")))
    result, _ = verify_file(skill, URI, PLAIN)
    rolled = summarize(skill, [result])
    assert rolled.state == READ_ERROR and rolled.message == "not every listed file was read"


def test_first_difference_names_the_first_differing_field() -> None:
    assert first_difference({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}) == ("b[1]", 2, 3)
    assert first_difference({"a": 1}, {"a": 1}) is None


def test_the_files_read_so_far_say_how_far_verification_got() -> None:
    skill = server_skill((listed(URI, PLAIN), listed(REF, b"ref")))
    assert files_so_far(skill, {}) == ("", "")
    one, _ = verify_file(skill, URI, PLAIN)
    assert files_so_far(skill, {URI: one}) == (PARTIAL, "1 of 2 files verified")
    both, _ = verify_file(skill, REF, b"ref")
    assert files_so_far(skill, {URI: one, REF: both}) == (VERIFIED, "2 of 2 files verified")
    bad = FileVerification(REF, DIGEST_MISMATCH, "other bytes")
    assert files_so_far(skill, {URI: one, REF: bad}) == (DIGEST_MISMATCH, DIGEST_MISMATCH)
    dynamic = server_skill("dynamic")
    read, _ = verify_file(dynamic, URI, PLAIN)
    assert files_so_far(dynamic, {URI: read}) == (DYNAMIC, "dynamic: 1 read, unverifiable")

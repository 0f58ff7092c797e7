"""A skill's identity (I1): ids written and read in one place, one rule for the same
server, and approval keys and cache folders derived from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.approvals import ApprovalError, ApprovalKey
from desktop.core.identity import (
    LABEL_RE,
    Identity,
    ServerKey,
    SkillIdentity,
    SourceIdentity,
    Transport,
    is_server_uri,
    server_key,
    skill_id,
    split_label,
)
from desktop.core.model import Origin, Skill

SERVE = SourceIdentity("docs", "mcp", "stdio", "skill-catalog serve ${ROOT}/skills")
FOLDER = SourceIdentity("mine", "local", "folder", "/home/ann/skills")


# Every form of id the command line takes, and what it names.
ID_FORMS = [
    ("docs:skill://pdf/SKILL.md", "docs", "skill://pdf/SKILL.md"),
    ("docs:skill://acme/pdf/tools/SKILL.md", "docs", "skill://acme/pdf/tools/SKILL.md"),
    ("mine:pdf/SKILL.md", "mine", "pdf/SKILL.md"),
    ("mine:SKILL.md", "mine", "SKILL.md"),
    ("my.docs_v2-x:skill://a/SKILL.md", "my.docs_v2-x", "skill://a/SKILL.md"),
    ("0docs:team/pdf/SKILL.md", "0docs", "team/pdf/SKILL.md"),
    ("web:skill://host:8080/a:b/SKILL.md", "web", "skill://host:8080/a:b/SKILL.md"),
    ("mine:a:b/SKILL.md", "mine", "a:b/SKILL.md"),
    ("a" * 64 + ":skill://x/SKILL.md", "a" * 64, "skill://x/SKILL.md"),
]


@pytest.mark.parametrize(("text", "label", "uri"), ID_FORMS)
def test_every_id_form_round_trips(text: str, label: str, uri: str) -> None:
    ident = Identity.parse(text)
    assert (ident.label, ident.uri) == (label, uri)
    assert str(ident) == ident.id == skill_id(label, uri) == text
    assert Identity.parse(str(ident)) == ident
    assert split_label(text) == (label, uri)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no-separator", "there is no ':' between a label and a URI"),
        (":skill://x", "the label before ':' is empty"),
        ("bad label:x", "the label 'bad label' is not one"),
        ("-docs:x", "the label '-docs' is not one"),
        ("a" * 65 + ":x", "is not one"),
        ("docs\n:alpha/SKILL.md", "is not one"),
        ("dócs:x", "is not one"),
        ("docs:", "the URI after ':' is empty"),
        ("", "there is no ':'"),
    ],
)
def test_what_is_not_an_id_is_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(ValueError) as caught:
        Identity.parse(text)
    message = str(caught.value)
    assert message.startswith(f"not a skill id (expected LABEL:URI): {text!r}: ")
    assert why in message


def test_a_label_is_split_off_only_when_it_is_one() -> None:
    assert split_label("docs:pdf") == ("docs", "pdf")  # a qualified name splits the same way
    assert split_label("docs:") == ("docs", "")
    assert split_label("pdf") is None
    assert split_label("bad label:pdf") is None
    assert split_label("./pdf:x") is None
    assert not LABEL_RE.match("docs\n")


def test_a_server_uri_is_told_from_a_path_in_a_folder() -> None:
    assert is_server_uri("skill://pdf/SKILL.md")
    assert not is_server_uri("pdf/SKILL.md")
    assert not is_server_uri("a:b/SKILL.md")


def test_the_same_server_is_the_same_transport_and_endpoint_once_filled_in() -> None:
    home = {"ROOT": "/home/ann"}
    written = SourceIdentity("other", "mcp", "stdio", "skill-catalog serve /home/ann/skills")
    # Another label, the endpoint written out: the same server.
    assert SERVE.server(home) == ("stdio", "skill-catalog serve /home/ann/skills")
    assert SERVE.same_server(written, home)
    # The placeholder filled in otherwise: another server.
    assert not SERVE.same_server(written, {"ROOT": "/srv"})
    # An unset variable stays as written, a default applies.
    assert SERVE.server({}) == ("stdio", "skill-catalog serve '${ROOT}/skills'")
    dflt = SourceIdentity("d", "mcp", "stdio", "serve ${ROOT:-/opt}/skills")
    assert dflt.server({}) == ("stdio", "serve /opt/skills")
    # Keyring and input references name one secret whatever it holds: kept.
    web = SourceIdentity("web", "mcp", "http", "https://h/mcp?t=${keyring:tok}")
    assert web.server({"tok": "x"}) == ("http", "https://h/mcp?t=${keyring:tok}")
    # Same endpoint text over another transport: another server.
    url = "http://127.0.0.1:9/mcp"
    http = SourceIdentity("s", "mcp", "http", url)
    assert not http.same_server(SourceIdentity("s", "mcp", "stdio", url), {})
    # A folder's path is taken as it is, placeholders or not.
    odd = SourceIdentity("f", "local", "folder", "/tmp/${ROOT}")
    assert odd.server(home) == ("folder", "/tmp/${ROOT}")
    assert FOLDER.same_server(SourceIdentity("x", "local", "folder", "/home/ann/skills"), home)


def test_the_same_server_is_filled_from_the_process_environment_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ROOT", "/from/env")
    assert SERVE.server() == ("stdio", "skill-catalog serve /from/env/skills")
    origin = Origin(SERVE.label, SERVE.kind, SERVE.transport, SERVE.endpoint)
    assert origin.same_server(SERVE)  # an Origin is a source identity


def test_a_skill_identity_holds_its_source_and_uri() -> None:
    ident = SkillIdentity(SERVE, "skill://pdf/SKILL.md")
    assert ident.label == "docs"
    assert ident.id == Identity("docs", "skill://pdf/SKILL.md")
    assert str(ident) == "docs:skill://pdf/SKILL.md"
    assert Identity.parse(str(ident)) == ident.id


def test_a_skill_built_by_the_catalog_has_its_full_identity() -> None:
    origin = Origin("docs", "mcp", "stdio", "serve")
    skill = Skill(origin, "skill://pdf/SKILL.md", "pdf", "d", None, ())
    assert skill.full_identity == SkillIdentity(origin, "skill://pdf/SKILL.md")
    assert skill.full_identity.id == skill.identity
    assert str(skill.full_identity) == skill.id


@pytest.mark.parametrize(
    ("uri", "folder"),
    [
        ("SKILL.md", "/home/ann/skills"),
        ("pdf/SKILL.md", "/home/ann/skills/pdf"),
        ("team/pdf/SKILL.md", "/home/ann/skills/team/pdf"),
        ("pdf/README.md", None),
        ("pdf", None),
        ("../SKILL.md", None),
        ("a/./SKILL.md", None),
        ("a//SKILL.md", None),
        ("/SKILL.md", None),
    ],
)
def test_a_local_skill_lives_in_the_folder_its_uri_says(uri: str, folder: str | None) -> None:
    expected = folder.replace("/", os.sep) if folder else None
    assert SkillIdentity(FOLDER, uri).folder() == expected


def test_a_server_skill_has_no_folder() -> None:
    assert SkillIdentity(SERVE, "skill://pdf/SKILL.md").folder() is None


# Storage names of approvals as kept in users' keyrings: they must never change, or
# every approval made before would be lost. The first four are keys without a transport,
# as versions before the server key wrote them (the migration finds them by these names);
# the last two are keys with the server key.
PINNED = [
    (
        ApprovalKey("mcp", "docs", "skill-catalog serve /home/ann/skills", "skill://pdf/SKILL.md"),
        "approval-7a37388e5f99f849a26ab03274a08382bc234ec4",
    ),
    (
        ApprovalKey("mcp", "web", "https://skills.example/mcp", "skill://a:b/SKILL.md"),
        "approval-5a708ca2e77a41e2417d4f09bb9b6e8d78a2b3d3",
    ),
    (
        ApprovalKey("local", "", "", "/home/ann/skills/pdf"),
        "approval-8c98357c2fc7480e7b61f5ea8000481327a30a0b",
    ),
    (
        ApprovalKey("local", "", "", "/home/ann/skills/ünï code"),
        "approval-6a35adc8069e5f058a4f3392a14fd0f7f68663ee",
    ),
    (
        ApprovalKey(
            "mcp", "docs", "skill-catalog serve /home/ann/skills", "skill://pdf/SKILL.md", "stdio"
        ),
        "approval-8e32eb5527291abf10f0dd6554d17a6d1e7ef984",
    ),
    (
        ApprovalKey("mcp", "web", "https://skills.example/mcp", "skill://a:b/SKILL.md", "http"),
        "approval-6de221d4a2115beee84b2d8911b5a7ff61b3f742",
    ),
]


@pytest.mark.parametrize(("key", "name"), PINNED)
def test_storage_names_of_stored_approvals_stay_as_they_are(key: ApprovalKey, name: str) -> None:
    assert key.storage_name == name
    assert ApprovalKey.from_json(key.to_json()).storage_name == name


def test_approval_keys_derive_from_the_identity() -> None:
    home = {"ROOT": "/home/ann"}
    served = SkillIdentity(SERVE, "skill://pdf/SKILL.md")
    server = ApprovalKey.for_identity(served, None, home)
    assert server.storage_name == PINNED[4][1]
    # The key an older version stored the same approval under: no transport.
    assert ApprovalKey.legacy_for_identity(served, home) == PINNED[0][0]
    assert PINNED[0][0].moved_to(server) and not server.moved_to(PINNED[0][0])
    web = SourceIdentity("web", "mcp", "http", "https://skills.example/mcp")
    assert ApprovalKey.for_identity(SkillIdentity(web, "skill://a:b/SKILL.md")) == PINNED[5][0]
    # The URL as a client sends it: the same server, the same approval.
    loud = SourceIdentity("web", "mcp", "http", "HTTPS://Skills.Example:443/mcp#top")
    assert ApprovalKey.for_identity(SkillIdentity(loud, "skill://a:b/SKILL.md")) == PINNED[5][0]
    legacy = ApprovalKey.legacy_for_identity(SkillIdentity(web, "skill://a:b/SKILL.md"))
    assert legacy == PINNED[1][0]
    local = SkillIdentity(FOLDER, "pdf/SKILL.md")
    key = ApprovalKey.for_identity(local, "/home/ann/skills/pdf")
    assert key.storage_name == PINNED[2][1]
    # Another label on the same folder: the same approval (a folder's is its path).
    other = SkillIdentity(
        SourceIdentity("x", "local", "folder", "/home/ann"), "skills/pdf/SKILL.md"
    )
    assert ApprovalKey.for_identity(other, "/home/ann/skills/pdf") == key
    # Another label on the same server: another approval.
    moved = SkillIdentity(
        SourceIdentity("d2", "mcp", "stdio", SERVE.endpoint), "skill://pdf/SKILL.md"
    )
    assert ApprovalKey.for_identity(moved, None, home) != server
    with pytest.raises(ApprovalError, match="mine:pdf/SKILL.md: a local skill without a folder"):
        ApprovalKey.for_identity(local)


def vars_of(source: SourceIdentity) -> tuple[str, str, str, str]:
    return source.label, source.kind, source.transport, source.endpoint


def test_a_skill_key_is_the_key_of_its_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOT", "/home/ann")
    origin = Origin(*vars_of(SERVE))
    skill = Skill(origin, "skill://pdf/SKILL.md", "pdf", "d", None, ())
    assert ApprovalKey.for_skill(skill).storage_name == PINNED[4][1]
    local = Skill(Origin(*vars_of(FOLDER)), "pdf/SKILL.md", "pdf", "d", None, ())
    local.path = "/home/ann/skills/pdf"
    assert ApprovalKey.for_skill(local).storage_name == PINNED[2][1]


def test_cache_folders_follow_the_same_server_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.store.cache import SkillCache

    cache = SkillCache(tmp_path)
    # Named by the label and the server key; the names older versions gave (pinned:
    # what is cached there is moved on first use) are the legacy ones.
    plain = Origin("docs", "mcp", "stdio", "skill-catalog serve /home/ann/skills")
    assert cache.source_dir(plain).name == "docs-87e29fd9726c4710"
    assert cache.legacy_source_dir(plain).name == "docs-6c8742063eb0987b"
    web = Origin("web", "mcp", "http", "https://skills.example/mcp")
    assert cache.source_dir(web).name == "web-0ed086ca31a3fa8c"
    assert cache.legacy_source_dir(web).name == "web-d953ad87b3079e98"
    spaced = Origin("docs", "mcp", "stdio", "skill-catalog  serve '/home/ann/skills'")
    assert cache.source_dir(spaced) == cache.source_dir(plain)
    monkeypatch.setenv("ROOT", "/home/ann")
    assert cache.source_dir(Origin(*vars_of(SERVE))) == cache.source_dir(plain)
    monkeypatch.setenv("ROOT", "/srv")
    assert cache.source_dir(Origin(*vars_of(SERVE))) != cache.source_dir(plain)


def test_a_key_names_its_skill_and_storage_names_are_told_from_ids() -> None:
    server, _ = PINNED[0]
    assert server.skill_id == "docs:skill://pdf/SKILL.md"
    assert (
        server.describe() == "docs:skill://pdf/SKILL.md (at skill-catalog serve /home/ann/skills)"
    )
    local, _ = PINNED[2]
    assert local.skill_id == "/home/ann/skills/pdf"
    for key, name in PINNED:
        assert ApprovalKey.is_storage_name(name)
        assert not ApprovalKey.is_storage_name(key.skill_id)
    assert not ApprovalKey.is_storage_name("approval-docs:skill://a/SKILL.md")


@pytest.mark.parametrize(
    ("transport", "written", "key"),
    [
        ("http", "HTTPS://Skills.Example:443/mcp#frag", "https://skills.example/mcp"),
        ("http", "http://127.0.0.1:80", "http://127.0.0.1/"),
        ("http", "http://[::1]:8080/a/?q=1", "http://[::1]:8080/a/?q=1"),
        ("http", "https://u:${keyring:pw}@H/x", "https://u:${keyring:pw}@H/x"),
        ("http", "https://${input:HOST}/mcp", "https://${input:HOST}/mcp"),
        ("http", "not a url", "not a url"),
        ("stdio", "npx  -y   'server'", "npx -y server"),
        ("stdio", "run 'unclosed", "run 'unclosed"),
    ],
)
def test_a_server_key_is_the_transport_and_the_endpoint_as_a_client_uses_it(
    transport: Transport, written: str, key: str
) -> None:
    assert server_key("mcp", transport, written, {}) == ServerKey(transport, key)
    assert str(server_key("mcp", transport, written, {})) == f"{transport} {key}"


def test_a_folder_server_key_is_its_path_normalized() -> None:
    assert server_key("local", "folder", "/home/ann/./skills/", {}) == (
        "folder",
        os.path.normpath("/home/ann/skills"),
    )

"""`skill-catalog serve` against the official `mcp` client, over stdio and Streamable HTTP,
in both protocol eras: the extension is declared, listings page, entries match the files,
reads are byte-exact, directories read, unknown URIs are -32602."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers.serve import HttpServe, serve_stdio_params
from mcp import Client, MCPError
from mcp.client import advertise
from pydantic import TypeAdapter

from .sample_folder import CRLF_TEXT, SKILL_COUNT, files_on_disk, sha256

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

EXTENSION = "io.modelcontextprotocol/skills"
ANY_DICT = TypeAdapter(dict[str, Any])
MODES = ["legacy", "2026-07-28", "auto"]
TRANSPORTS = ["stdio", "http"]

EXPECTED_SKILLS = {
    "skill://acme/billing/refunds/SKILL.md",
    "skill://alpha/SKILL.md",
    "skill://byte-exact/SKILL.md",
    "skill://delta/SKILL.md",
    "skill://epsilon/SKILL.md",
    "skill://gamma/SKILL.md",
    "skill://gamma/inner/SKILL.md",
}


def client_for(mode: str, target: Any) -> Client:
    """An `mcp` client claiming the Skills extension; ``target`` is a URL or stdio params."""
    return Client(target, mode=mode, extensions=[advertise(EXTENSION)])


async def call(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    # Request[dict, str]: a bare types.Request(...) keeps only RequestParams' own fields
    # and would silently drop "cursor" and "uri".
    request = types.Request[dict[str, Any], str](method=method, params=params)
    return await client.session.send_request(request, ANY_DICT)


async def declared_extensions(client: Client, mode: str) -> dict[str, Any] | None:
    if mode == "2026-07-28":
        # A pinned client knows nothing of the server until it sends server/discover.
        raw = await client.session.send_discover("2026-07-28")
        return raw["capabilities"].get("extensions")
    return client.server_capabilities.extensions


async def list_all(client: Client) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await call(client, "skills/list", {} if cursor is None else {"cursor": cursor})
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            break
        assert len(pages) < 50, "the listing does not end"
    return [entry for page in pages for entry in page["skills"]], pages


def content_bytes(result: types.ReadResourceResult) -> tuple[bytes, str]:
    assert len(result.contents) == 1
    (content,) = result.contents
    if isinstance(content, types.TextResourceContents):
        return content.text.encode("utf-8"), "text"
    return base64.b64decode(content.blob), "blob"


async def check_declares_extension_and_resources(client: Client, mode: str, folder: Path) -> None:
    extensions = await declared_extensions(client, mode)
    assert extensions is not None and extensions.get(EXTENSION) == {"directoryRead": True}
    if mode == "legacy":
        assert client.protocol_version != "2026-07-28"
        assert client.server_capabilities.resources is not None
    else:
        assert client.protocol_version == "2026-07-28"


async def check_lists_every_skill_in_pages(client: Client, mode: str, folder: Path) -> None:
    disk = files_on_disk(folder)
    entries, pages = await list_all(client)
    assert len(pages) >= 3
    assert all(len(page["skills"]) <= 2 for page in pages)
    for page in pages:
        assert page["resultType"] == "complete"
        assert page["ttlMs"] == 0 and page["cacheScope"] == "public"
    uris = [entry["uri"] for entry in entries]
    assert len(uris) == len(set(uris)) == SKILL_COUNT
    assert set(uris) == EXPECTED_SKILLS
    assert "skill://broken/SKILL.md" not in uris and "skill://misnamed/SKILL.md" not in uris
    for entry in entries:
        skill_path = entry["uri"].removeprefix("skill://").removesuffix("/SKILL.md")
        assert entry["frontmatter"]["name"] == skill_path.rpartition("/")[2]
        listed = {r["uri"]: r for r in entry["resources"]}
        assert entry["uri"] in listed
        expected_files = {
            rel: data for rel, data in disk.items() if rel.startswith(skill_path + "/")
        }
        assert len(listed) == len(expected_files) == len(entry["resources"])
        for rel, data in expected_files.items():
            uri = "skill://" + rel.replace(" ", "%20")
            assert listed[uri]["digest"] == sha256(data)
            assert listed[uri]["size"] == len(data)
    gamma = next(e for e in entries if e["uri"] == "skill://gamma/SKILL.md")
    assert gamma["frontmatter"] == {
        "name": "gamma",
        "description": "A skill written for a test.",
        "license": "Apache-2.0",
        "metadata": {"a": "1"},
    }
    # Nested files belong to the enclosing skill's manifest too.
    assert "skill://gamma/inner/SKILL.md" in {r["uri"] for r in gamma["resources"]}


async def check_get_matches_listing_and_unknown_is_invalid_params(
    client: Client, mode: str, folder: Path
) -> None:
    entries, _ = await list_all(client)
    for entry in entries:
        got = await call(client, "skills/get", {"uri": entry["uri"]})
        assert got["skill"] == entry
        assert got["resultType"] == "complete" and "ttlMs" in got and "cacheScope" in got
    for unknown in (
        "skill://nope/SKILL.md",
        "skill://broken/SKILL.md",
        "skill://byte-exact/crlf.txt",
    ):
        with pytest.raises(MCPError) as caught:
            await call(client, "skills/get", {"uri": unknown})
        assert caught.value.error.code == -32602
        assert unknown in caught.value.error.message


async def check_reads_are_byte_exact(client: Client, mode: str, folder: Path) -> None:
    disk = files_on_disk(folder)
    got = await call(client, "skills/get", {"uri": "skill://byte-exact/SKILL.md"})
    kinds: dict[str, str] = {}
    for resource in got["skill"]["resources"]:
        data, kind = content_bytes(await client.read_resource(resource["uri"]))
        rel = resource["uri"].removeprefix("skill://").replace("%20", " ")
        assert data == disk[rel], resource["uri"]
        assert sha256(data) == resource["digest"] and len(data) == resource["size"]
        kinds[rel.removeprefix("byte-exact/")] = kind
    assert kinds["crlf.txt"] == "text"
    assert kinds["notes/bom.md"] == "text"
    assert kinds["assets/blob.bin"] == "blob"
    assert kinds["references/large.txt"] == "blob"
    assert kinds["odd/separators.txt"] == "blob"
    assert len(kinds) == 9


async def check_unknown_resource_is_invalid_params(client: Client, mode: str, folder: Path) -> None:
    for uri in (
        "skill://nope/SKILL.md",
        "skill://broken/SKILL.md",
        "skill://byte-exact/../alpha/SKILL.md",
        "skill://byte-exact",
    ):
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
        assert caught.value.error.code == -32602, uri


async def check_directory_read(client: Client, mode: str, folder: Path) -> None:
    root = await call(client, "resources/directory/read", {"uri": "skill://byte-exact"})
    assert root["resultType"] == "complete"
    children = {r["uri"]: r for r in root["resources"]}
    assert set(children) == {
        "skill://byte-exact/SKILL.md",
        "skill://byte-exact/crlf.txt",
        "skill://byte-exact/empty.txt",
        "skill://byte-exact/assets",
        "skill://byte-exact/notes",
        "skill://byte-exact/odd",
        "skill://byte-exact/references",
    }
    assert children["skill://byte-exact/assets"]["mimeType"] == "inode/directory"
    assert children["skill://byte-exact/SKILL.md"]["mimeType"] == "text/markdown"
    assert children["skill://byte-exact/crlf.txt"]["size"] == len(CRLF_TEXT)
    odd = await call(client, "resources/directory/read", {"uri": "skill://byte-exact/odd"})
    assert {r["name"] for r in odd["resources"]} == {
        "separators.txt",
        "lone-cr.txt",
        "with space.md",
    }
    # Prefix directories above skills are directories too.
    acme = await call(client, "resources/directory/read", {"uri": "skill://acme"})
    assert [r["uri"] for r in acme["resources"]] == ["skill://acme/billing"]
    for not_a_directory in ("skill://byte-exact/crlf.txt", "skill://nope", "skill://broken"):
        with pytest.raises(MCPError) as caught:
            await call(client, "resources/directory/read", {"uri": not_a_directory})
        assert caught.value.error.code == -32602, not_a_directory
        assert not_a_directory in caught.value.error.message


async def check_resources_list(client: Client, mode: str, folder: Path) -> None:
    disk = files_on_disk(folder)
    served = {rel for rel in disk if rel.split("/")[0] not in ("broken", "misnamed")}
    resources: list[types.Resource] = []
    cursor: str | None = None
    pages = 0
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await client.session.list_resources(params=params)
        resources += page.resources
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages > 3  # the same page size as skills/list
    by_uri = {r.uri: r for r in resources}
    assert len(by_uri) == len(resources) == len(served)
    assert {uri.removeprefix("skill://").replace("%20", " ") for uri in by_uri} == served
    skill_md = by_uri["skill://gamma/inner/SKILL.md"]
    assert skill_md.name == "inner" and skill_md.description == "A skill nested in gamma."
    assert skill_md.mime_type == "text/markdown"
    assert by_uri["skill://byte-exact/crlf.txt"].size == len(CRLF_TEXT)


CHECKS = [
    check_declares_extension_and_resources,
    check_lists_every_skill_in_pages,
    check_get_matches_listing_and_unknown_is_invalid_params,
    check_reads_are_byte_exact,
    check_unknown_resource_is_invalid_params,
    check_directory_read,
    check_resources_list,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("mode", MODES)
async def test_http(check: Any, mode: str, skills_folder: Path, http_server: HttpServe) -> None:
    """One server for the module; a fresh client per check."""
    async with client_for(mode, http_server.url) as client:
        await check(client, mode, skills_folder)


@pytest.mark.parametrize("mode", MODES)
async def test_stdio(mode: str, skills_folder: Path) -> None:
    """One stdio server per era (starting one costs seconds), every check on it."""
    params = serve_stdio_params(skills_folder, "--page-size", "2")
    async with client_for(mode, params) as client:
        for check in CHECKS:
            await check(client, mode, skills_folder)

"""The folder changes while `skill-catalog serve` runs: new listings, `skills/get` and reads
see the change; a listing walk in progress keeps its snapshot; links out are refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers.serve import serve_stdio_params, write_skill
from mcp import Client, MCPError
from mcp.client import advertise
from pydantic import TypeAdapter

from .sample_folder import sha256

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

ANY_DICT = TypeAdapter(dict[str, Any])
EXTENSION = "io.modelcontextprotocol/skills"


async def call(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    request = types.Request[dict[str, Any], str](method=method, params=params)
    return await client.session.send_request(request, ANY_DICT)


async def walk(client: Client, cursor: str | None = None) -> list[str]:
    uris: list[str] = []
    while True:
        page = await call(client, "skills/list", {} if cursor is None else {"cursor": cursor})
        uris += [entry["uri"] for entry in page["skills"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            return uris


async def read(client: Client, uri: str) -> bytes:
    result = await client.read_resource(uri)
    content = result.contents[0]
    assert isinstance(content, types.TextResourceContents)
    return content.text.encode("utf-8")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_changes_are_seen(mode: str, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("one", "two", "three"):
        write_skill(root, name, files={"notes.md": b"first version\n"})
    params = serve_stdio_params(root, "--page-size", "2")
    async with Client(params, mode=mode, extensions=[advertise(EXTENSION)]) as client:
        assert len(await walk(client)) == 3

        # A walk in progress keeps its snapshot; the next walk sees the new skill.
        first = await call(client, "skills/list", {})
        write_skill(root, "four")
        rest = await walk(client, first["nextCursor"])
        assert [e["uri"] for e in first["skills"]] + rest == [
            "skill://one/SKILL.md",
            "skill://three/SKILL.md",
            "skill://two/SKILL.md",
        ]
        assert "skill://four/SKILL.md" in await walk(client)

        # An edited file: skills/get gives the new digest, the read gives the new bytes.
        (root / "one" / "notes.md").write_bytes(b"second version, longer\n")
        entry = (await call(client, "skills/get", {"uri": "skill://one/SKILL.md"}))["skill"]
        notes = next(r for r in entry["resources"] if r["uri"] == "skill://one/notes.md")
        assert notes["digest"] == sha256(b"second version, longer\n")
        assert await read(client, "skill://one/notes.md") == b"second version, longer\n"

        # A file added since the last listing can be read at once.
        (root / "two" / "added.md").write_bytes(b"added later\n")
        assert await read(client, "skill://two/added.md") == b"added later\n"

        # A removed file is an invalid-params error, not a crash.
        (root / "two" / "notes.md").unlink()
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://two/notes.md")
        assert caught.value.error.code == -32602

        # A listed file swapped for a link leaving the folder is refused.
        outside = tmp_path / "secret.txt"
        outside.write_bytes(b"not for the client\n")
        (root / "three" / "notes.md").unlink()
        os.symlink(outside, root / "three" / "notes.md")
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://three/notes.md")
        assert caught.value.error.code == -32602

        # A listed file swapped for a FIFO is refused at once (an open of it would wait
        # for a writer for ever, and hold the server's exit too).
        (root / "one" / "notes.md").unlink()
        os.mkfifo(root / "one" / "notes.md")
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://one/notes.md")
        assert caught.value.error.code == -32602
        assert "no longer a regular file" in caught.value.error.message
        (root / "one" / "notes.md").unlink()

        # A folder holding no served file is no directory resource (it could not appear
        # in its parent's listing, which holds every child); a link out is none either.
        (root / "one" / "empty").mkdir()
        with pytest.raises(MCPError) as caught:
            await call(client, "resources/directory/read", {"uri": "skill://one/empty"})
        assert caught.value.error.code == -32602
        os.symlink(tmp_path, root / "one" / "out")
        with pytest.raises(MCPError) as caught:
            await call(client, "resources/directory/read", {"uri": "skill://one/out"})
        assert caught.value.error.code == -32602

        # A removed skill is gone from skills/get.
        for path in sorted((root / "four").iterdir()):
            path.unlink()
        (root / "four").rmdir()
        with pytest.raises(MCPError) as caught:
            await call(client, "skills/get", {"uri": "skill://four/SKILL.md"})
        assert caught.value.error.code == -32602


async def test_stale_and_forged_cursors_are_invalid_params(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("one", "two", "three"):
        write_skill(root, name)
    params = serve_stdio_params(root, "--page-size", "1")
    async with Client(params, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
        first = await call(client, "skills/list", {})
        for i in range(5):  # five new scans: the first walk's snapshot is dropped
            write_skill(root, f"extra-{i}")
            await call(client, "skills/list", {})
        with pytest.raises(MCPError) as caught:
            await call(client, "skills/list", {"cursor": first["nextCursor"]})
        assert caught.value.error.code == -32602
        assert "list again" in caught.value.error.message
        for forged in ("", "not-a-cursor", "LTE6MA"):
            with pytest.raises(MCPError) as caught:
                await call(client, "skills/list", {"cursor": forged})
            assert caught.value.error.code == -32602


async def test_links_leaving_the_folder_are_not_served(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "linked")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"outside the served folder\n")
    os.symlink(outside, root / "linked" / "leak.txt")
    params = serve_stdio_params(root)
    async with Client(params, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
        entry = (await call(client, "skills/get", {"uri": "skill://linked/SKILL.md"}))["skill"]
        assert [r["uri"] for r in entry["resources"]] == ["skill://linked/SKILL.md"]
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://linked/leak.txt")
        assert caught.value.error.code == -32602


async def test_nested_skills_a_root_skill_and_directories_are_one_namespace(
    tmp_path: Path,
) -> None:
    """A skill at the served folder's root encloses the others: their URIs start with its
    path, so a nested file has one URI. Every directory read lists each child it has, and
    a folder named like ``team:alpha`` is written as a reg-name in the authority."""
    root = tmp_path / "kit"
    write_skill(tmp_path, "kit", files={"notes.md": b"n\n"})
    write_skill(root, "sub", files={"guide.md": b"g\n"})
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_bytes(b"ref\n")
    (root / "sub" / "empty").mkdir()
    odd = tmp_path / "odd"
    write_skill(odd, "team:alpha/refunds")
    async with Client(
        serve_stdio_params(root), mode="2026-07-28", extensions=[advertise(EXTENSION)]
    ) as client:
        listed = {e["uri"]: e for e in (await call(client, "skills/list", {}))["skills"]}
        assert sorted(listed) == ["skill://kit/SKILL.md", "skill://kit/sub/SKILL.md"]
        outer = {r["uri"] for r in listed["skill://kit/SKILL.md"]["resources"]}
        inner = {r["uri"] for r in listed["skill://kit/sub/SKILL.md"]["resources"]}
        assert inner == {"skill://kit/sub/SKILL.md", "skill://kit/sub/guide.md"}
        assert inner < outer
        for uri in inner:
            assert await read(client, uri)

        async def children(uri: str) -> list[str]:
            page = await call(client, "resources/directory/read", {"uri": uri})
            return [r["uri"] for r in page["resources"]]

        assert await children("skill://kit") == [
            "skill://kit/SKILL.md",
            "skill://kit/notes.md",
            "skill://kit/sub",
        ]
        assert await children("skill://kit/sub") == [
            "skill://kit/sub/SKILL.md",
            "skill://kit/sub/guide.md",
        ]
        for hidden in ("skill://kit/.git", "skill://kit/sub/empty"):
            with pytest.raises(MCPError) as caught:
                await call(client, "resources/directory/read", {"uri": hidden})
            assert caught.value.error.code == -32602
    async with Client(
        serve_stdio_params(odd), mode="2026-07-28", extensions=[advertise(EXTENSION)]
    ) as client:
        (entry,) = (await call(client, "skills/list", {}))["skills"]
        assert entry["uri"] == "skill://team%3Aalpha/refunds/SKILL.md"
        got = await call(client, "skills/get", {"uri": entry["uri"]})
        assert got["skill"]["uri"] == entry["uri"]
        assert await read(client, entry["uri"])


async def test_links_leaving_their_skill_are_not_served(tmp_path: Path) -> None:
    """A link from one skill into another is not part of its manifest, and a listed file
    swapped for such a link is refused: the bound is the skill's folder, not the served
    one."""
    root = tmp_path / "skills"
    write_skill(root, "a", files={"notes.md": b"a's notes\n"})
    write_skill(root, "b", files={"secret.txt": b"b's own\n"})
    os.symlink(Path("..", "b", "secret.txt"), root / "a" / "link.txt")
    params = serve_stdio_params(root)
    async with Client(params, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
        entry = (await call(client, "skills/get", {"uri": "skill://a/SKILL.md"}))["skill"]
        assert [r["uri"] for r in entry["resources"]] == [
            "skill://a/SKILL.md",
            "skill://a/notes.md",
        ]
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://a/link.txt")
        assert caught.value.error.code == -32602

        assert await read(client, "skill://a/notes.md") == b"a's notes\n"
        (root / "a" / "notes.md").unlink()
        os.symlink(Path("..", "b", "secret.txt"), root / "a" / "notes.md")
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://a/notes.md")
        assert caught.value.error.code == -32602


def test_a_rescan_in_progress_does_not_hold_other_reads(tmp_path: Path) -> None:
    """While one request re-scans a large folder (in a worker thread), a read asked by
    another client is answered from the latest publication at once; it used to wait
    for the whole scan on the server's loop."""
    import threading

    from desktop.serve.folder_state import PublishedFolder, scan_with_folder_scanner

    root = tmp_path / "skills"
    write_skill(root, "one")
    started, release = threading.Event(), threading.Event()

    def slow_scanner(folder: Path) -> list[Any]:
        if folder_state.scans:  # the first scan is quick; the next one hangs
            started.set()
            release.wait(10)
        return scan_with_folder_scanner(folder)

    folder_state = PublishedFolder(root, slow_scanner)
    generation, _ = folder_state.current()
    write_skill(root, "two")
    rescan = threading.Thread(target=folder_state.refresh)
    rescan.start()
    try:
        assert started.wait(10)
        # Answered from the last scan while the next one hangs (waiting for it would
        # return the next generation).
        assert folder_state.current()[0] == generation
        assert folder_state.snapshot(generation) is not None
    finally:
        release.set()
        rescan.join(10)
    assert folder_state.current()[0] == generation + 1


async def test_files_are_read_no_further_than_listed(tmp_path: Path) -> None:
    """A skill over the 16 MiB limit is not published and its files are not read at all
    (no client can load it); a file that grew since the scan is sent as it now is, so
    the client sees the change."""
    root = tmp_path / "skills"
    write_skill(root, "big", files={"notes.md": b"small\n"})
    write_skill(root, "small", files={"notes.md": b"small\n"})
    os.truncate(_touch(root / "big" / "huge.bin"), 17 * 1024 * 1024)  # sparse: no disk spent
    params = serve_stdio_params(root)
    async with Client(params, mode="2026-07-28", extensions=[advertise(EXTENSION)]) as client:
        with pytest.raises(MCPError, match="No resource is served at skill://big/huge.bin"):
            await client.read_resource("skill://big/huge.bin")
        (root / "small" / "notes.md").write_bytes(b"small, and then some more\n")
        assert await read(client, "skill://small/notes.md") == b"small, and then some more\n"


def _touch(path: Path) -> Path:
    path.touch()
    return path

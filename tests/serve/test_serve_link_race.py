"""A listed file swapped back and forth with a link to a file outside the served folder,
while a client reads it over Streamable HTTP: not one byte of the outside file is sent
(the file is opened component by component without following a link, then checked),
and reads of the file itself still succeed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import mcp_types as types
import pytest
from helpers.serve import serve_http, write_skill
from mcp import Client, MCPError
from mcp.client import advertise

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]

EXTENSION = "io.modelcontextprotocol/skills"
# The same size: a read checked only against the listed size would not tell them apart.
INSIDE = b"inside the skill, as listed ..................................\n"
OUTSIDE = b"SECRET from outside the served folder ........................\n"
MAX_READS = 1500
REFUSALS_WANTED = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Swapper:
    """Swaps ``target`` between the file and a link to ``outside`` (each an atomic rename
    into place) in a thread, until stopped; counts the swaps."""

    def __init__(self, target: Path, staging: Path, outside: Path) -> None:
        self.target, self.staging, self.outside = target, staging, outside
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Swapper:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        link, plain = self.staging / "link", self.staging / "plain"
        while not self._stop.is_set():
            os.symlink(self.outside, link)
            os.replace(link, self.target)
            plain.write_bytes(INSIDE)
            os.replace(plain, self.target)
            self.swaps += 2


async def test_a_file_raced_with_a_link_out_never_serves_the_outside_file(
    tmp_path: Path,
) -> None:
    root = tmp_path / "served"
    write_skill(root, "racy", files={"notes.md": INSIDE})
    outside = tmp_path / "outside.txt"
    outside.write_bytes(OUTSIDE)
    staging = tmp_path / "staging"  # same file system: renames into the skill are atomic
    staging.mkdir()
    served = refused = 0
    with serve_http(root) as server:
        async with Client(server.url, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
            first = await client.read_resource("skill://racy/notes.md")  # before any swap
            assert isinstance(first.contents[0], types.TextResourceContents)
            with Swapper(root / "racy" / "notes.md", staging, outside) as swapper:
                for _ in range(MAX_READS):
                    try:
                        result = await client.read_resource("skill://racy/notes.md")
                    except MCPError as exc:
                        assert exc.error.code == -32602, exc.error.message
                        assert "SECRET" not in exc.error.message
                        refused += 1
                    else:
                        content = result.contents[0]
                        assert isinstance(content, types.TextResourceContents)
                        data = content.text.encode("utf-8")
                        assert b"SECRET" not in data, f"served the outside file after {served}"
                        assert data == INSIDE
                        served += 1
                    if refused >= REFUSALS_WANTED and served >= REFUSALS_WANTED:
                        break
    # The race was run: the swaps happened while reads were answered, both ways.
    assert swapper.swaps > 0
    assert served >= 1, f"no read succeeded in {MAX_READS} ({refused} refused)"
    assert refused >= 1, f"the link was never met in {served} reads ({swapper.swaps} swaps)"


async def test_links_to_files_inside_the_skill_are_still_served(tmp_path: Path) -> None:
    """A link to a file of the same skill (relative, absolute, through ``..``) is listed
    by the scan and served as that file; a link through a linked folder is not."""
    root = tmp_path / "served"
    skill = write_skill(root, "linked", files={"docs/real.md": INSIDE})
    os.symlink(Path("docs", "real.md"), skill / "relative.md")
    os.symlink(skill / "docs" / "real.md", skill / "absolute.md")
    os.symlink(Path("..", "docs", "real.md"), skill / "docs" / "up.md")
    with serve_http(root) as server:
        async with Client(server.url, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
            for name in ("relative.md", "absolute.md", "docs/up.md"):
                result = await client.read_resource(f"skill://linked/{name}")
                content = result.contents[0]
                assert isinstance(content, types.TextResourceContents), name
                assert content.text.encode("utf-8") == INSIDE, name


async def test_a_folder_on_the_way_swapped_for_a_link_out_is_refused(tmp_path: Path) -> None:
    """Not only the file's own name: a folder on its path replaced by a link to a folder
    outside holding a file of the same name and size is not entered."""
    root = tmp_path / "served"
    skill = write_skill(root, "deep", files={"docs/ref.md": INSIDE})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "ref.md").write_bytes(OUTSIDE)
    with serve_http(root) as server:
        async with Client(server.url, mode="legacy", extensions=[advertise(EXTENSION)]) as client:
            first = await client.read_resource("skill://deep/docs/ref.md")
            assert isinstance(first.contents[0], types.TextResourceContents)
            os.rename(skill / "docs", tmp_path / "docs-aside")
            os.symlink(outside, skill / "docs")
            with pytest.raises(MCPError) as caught:
                await client.read_resource("skill://deep/docs/ref.md")
            assert caught.value.error.code == -32602
            assert "SECRET" not in caught.value.error.message

"""Large files over Streamable HTTP: answers are plain JSON, so a file far over the `mcp`
client's 1 MiB cap on one server-sent event still arrives, byte-exact, in both eras."""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import mcp_types as types
import pytest
from helpers.serve import serve_http, write_skill
from mcp import Client

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_a_3_mib_file_reads_over_http_in_both_eras(tmp_path: Path) -> None:
    data = os.urandom(3 * 1024 * 1024)
    write_skill(tmp_path, "bulky", files={"assets/data.bin": data})
    with serve_http(tmp_path) as server:
        for mode in ("legacy", "2026-07-28"):
            async with Client(server.url, mode=mode) as client:
                result = await client.read_resource("skill://bulky/assets/data.bin")
            (content,) = result.contents
            assert isinstance(content, types.BlobResourceContents)
            received = base64.b64decode(content.blob)
            assert hashlib.sha256(received).digest() == hashlib.sha256(data).digest()

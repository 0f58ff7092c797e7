"""A Skills-extension publisher that reads frontmatter as YAML 1.2, for tests.

Run as ``python yaml12_publisher.py FOLDER [--record FILE] [--http PORT]``. Like the
publishers that re-read their folder on each request, every ``skills/list``,
``skills/get`` and ``resources/read`` walks FOLDER again: each directory holding a
``SKILL.md`` is the skill ``skill://<its path>/SKILL.md``, its frontmatter read with
ruamel.yaml's YAML 1.2 safe loader (so ``build: 017`` is 17 and ``enabled: yes`` the
string "yes"), every file listed with its SHA-256 digest and size. Every request
method it receives is appended, one a line, to ``--record``.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import re
from pathlib import Path
from typing import Any

import anyio
from mcp import MCPError, types
from mcp.server.lowlevel.server import Server
from pydantic import ConfigDict
from ruamel.yaml import YAML

EXT = "io.modelcontextprotocol/skills"


class Params(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    cursor: str | None = None
    uri: str | None = None


def _json(value: Any) -> Any:
    """What ruamel.yaml read, as JSON (a date becomes its ISO text)."""
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def frontmatter_12(data: bytes) -> dict[str, Any]:
    text = data.decode("utf-8").lstrip("\ufeff")
    match = re.match(r"---\r?\n(.*?)\r?\n---(?:\r?\n|$)", text, re.S)
    if match is None:
        return {}
    loaded = YAML(typ="safe", pure=True).load(match.group(1))  # YAML 1.2 by default
    return _json(loaded) if isinstance(loaded, dict) else {}


def scan(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Path]]:
    """Entries and files by URI, read from the folder now."""
    entries: list[dict[str, Any]] = []
    files: dict[str, Path] = {}
    for skill_md in sorted(folder.rglob("SKILL.md")):
        skill_dir = skill_md.parent
        base = "skill://" + skill_dir.relative_to(folder).as_posix()
        resources = []
        for path in sorted(p for p in skill_dir.rglob("*") if p.is_file()):
            data = path.read_bytes()
            uri = f"{base}/{path.relative_to(skill_dir).as_posix()}"
            files[uri] = path
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            resources.append({"uri": uri, "digest": digest, "size": len(data)})
        entries.append(
            {
                "uri": f"{base}/SKILL.md",
                "frontmatter": frontmatter_12(skill_md.read_bytes()),
                "resources": resources,
            }
        )
    return entries, files


def make_server(folder: Path, record: str | None) -> Server[Any]:
    def note(method: str) -> None:
        if record:
            with open(record, "a", encoding="utf-8") as fh:
                fh.write(method + "\n")

    async def skills_list(ctx: Any, params: Params) -> dict[str, Any]:
        entries, _files = scan(folder)
        return {"skills": entries, "ttlMs": 30000, "cacheScope": "public"}

    async def skills_get(ctx: Any, params: Params) -> dict[str, Any]:
        entries, _files = scan(folder)
        for entry in entries:
            if entry["uri"] == params.uri:
                return {"skill": entry, "ttlMs": 30000, "cacheScope": "public"}
        raise MCPError(code=-32602, message=f"No skill is served at {params.uri}")

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        _entries, files = scan(folder)
        path = files.get(uri)
        if path is None:
            raise MCPError(code=-32602, message=f"unknown resource {uri}")
        data = path.read_bytes()
        content: Any
        if uri.endswith(".md"):
            content = types.TextResourceContents(
                uri=uri, mime_type="text/markdown", text=data.decode()
            )
        else:
            content = types.BlobResourceContents(
                uri=uri, mime_type="application/octet-stream", blob=base64.b64encode(data).decode()
            )
        return types.ReadResourceResult(contents=[content])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="search", input_schema={})])

    server: Server[Any] = Server(
        "yaml12-publisher",
        on_list_tools=list_tools,
        on_read_resource=read_resource,
        on_list_resources=list_resources,
    )
    server.add_request_handler("skills/list", Params, skills_list)
    server.add_request_handler("skills/get", Params, skills_get)
    server.extensions = {EXT: {}}

    original = server._request_handlers.copy()

    class Recorder(dict):  # type: ignore[type-arg]
        def get(self, key: str, default: Any = None) -> Any:
            note(key)
            return super().get(key, default)

    server._request_handlers = Recorder(original)
    return server


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--record")
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    server = make_server(args.folder.resolve(), args.record)
    if args.http:
        import uvicorn

        config = uvicorn.Config(
            server.streamable_http_app(), host="127.0.0.1", port=args.http, log_level="warning"
        )
        await uvicorn.Server(config).serve()
        return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

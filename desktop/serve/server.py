"""The Skills-extension server: request handlers over a :class:`PublishedFolder`.

Built on the `mcp` SDK's low-level :class:`Server`, which answers both protocol
eras (the 2025 ``initialize`` handshake and the ``2026-07-28`` per-request era
with ``server/discover``). The extension ``io.modelcontextprotocol/skills`` is
declared with ``directoryRead: true`` in both: the SDK's handshake path sieves
``capabilities.extensions`` out of the ``initialize`` result, so a middleware
puts the declaration back into what goes on the wire.
"""

from __future__ import annotations

import base64
import binascii
import errno
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import anyio.to_thread
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from desktop import __version__
from desktop.core.manifest import MAX_BYTES
from desktop.serve.content import resource_contents
from desktop.serve.files import Outside, open_within
from desktop.serve.folder_state import PublishedFolder
from desktop.serve.publish import Publication, PublishedFile, resource_entry

EXTENSION_ID = "io.modelcontextprotocol/skills"
EXTENSION_SETTINGS: dict[str, Any] = {"directoryRead": True}
SERVER_NAME = "skill-catalog"
DEFAULT_PAGE_SIZE = 100
DEFAULT_TTL_MS = 0
# Directory reads are paginated too, but only very large directories span pages.
DIRECTORY_PAGE_SIZE = 1000
CACHE_SCOPE: Literal["public", "private"] = "public"


class ListSkillsParams(types.RequestParams):
    cursor: str | None = None


class GetSkillParams(types.RequestParams):
    uri: str


class ReadDirectoryParams(types.RequestParams):
    uri: str
    cursor: str | None = None


@dataclass(frozen=True, slots=True)
class ServeOptions:
    page_size: int = DEFAULT_PAGE_SIZE
    ttl_ms: int = DEFAULT_TTL_MS
    instructions: str | None = None


class _Resized(Exception):
    """A file's size on disk is no longer the size its scan found."""


def invalid_params(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


def encode_cursor(generation: int, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{generation}:{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        generation, offset = (int(part) for part in raw.split(":"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise invalid_params(f"not a cursor this server gave out: {cursor!r}") from None
    if generation < 0 or offset < 0:
        raise invalid_params(f"not a cursor this server gave out: {cursor!r}")
    return generation, offset


async def _add_extension_to_handshake(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Declare the extension in the ``initialize`` result the handshake sends."""
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict):
        capabilities = result.setdefault("capabilities", {})
        extensions = capabilities.setdefault("extensions", {})
        extensions[EXTENSION_ID] = dict(EXTENSION_SETTINGS)
    return result


class SkillsHandlers:
    """The request handlers, bound to one folder and one set of options."""

    def __init__(self, folder: PublishedFolder, options: ServeOptions) -> None:
        self.folder = folder
        self.options = options

    def _cache_fields(self) -> dict[str, Any]:
        return {"ttlMs": self.options.ttl_ms, "cacheScope": CACHE_SCOPE}

    async def _fresh(self) -> tuple[int, Publication]:
        return await anyio.to_thread.run_sync(self.folder.refresh)

    async def _page_source(self, cursor: str | None) -> tuple[int, Publication, int]:
        """Where a paginated walk stands: a fresh scan at its start, its snapshot after."""
        if cursor is None:
            generation, publication = await self._fresh()
            return generation, publication, 0
        generation, offset = decode_cursor(cursor)
        kept = self.folder.snapshot(generation)
        if kept is None:
            raise invalid_params(
                "the folder changed since this listing began; list again without a cursor"
            )
        return generation, kept, offset

    def _page(
        self, items: Sequence[Any], generation: int, offset: int, size: int | None = None
    ) -> tuple[Any, str | None]:
        end = offset + (size or self.options.page_size)
        next_cursor = encode_cursor(generation, end) if end < len(items) else None
        return items[offset:end], next_cursor

    async def list_skills(
        self, ctx: ServerRequestContext[Any, Any], params: ListSkillsParams
    ) -> dict[str, Any]:
        generation, publication, offset = await self._page_source(params.cursor)
        page, next_cursor = self._page(publication.skills, generation, offset)
        result: dict[str, Any] = {
            "resultType": "complete",
            "skills": [skill.entry for skill in page],
            **self._cache_fields(),
        }
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def get_skill(
        self, ctx: ServerRequestContext[Any, Any], params: GetSkillParams
    ) -> dict[str, Any]:
        _, publication = await self._fresh()
        skill = publication.skill(params.uri)
        if skill is None:
            raise invalid_params(f"No skill is served at {params.uri}")
        return {"resultType": "complete", "skill": skill.entry, **self._cache_fields()}

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> dict[str, Any]:
        cursor = params.cursor if params is not None else None
        generation, publication, offset = await self._page_source(cursor)
        page, next_cursor = self._page(publication.files, generation, offset)
        result: dict[str, Any] = {
            "resultType": "complete",
            "resources": [resource_entry(f, self._skill_entry(publication, f)) for f in page],
            **self._cache_fields(),
        }
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    @staticmethod
    def _skill_entry(publication: Publication, f: PublishedFile) -> dict[str, Any] | None:
        skill = publication.skill(f.uri) if f.name == "SKILL.md" else None
        return skill.entry if skill is not None else None

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = params.uri
        _, publication = self.folder.current()
        published = publication.file(uri)
        if published is None:
            _, publication = await self._fresh()
            published = publication.file(uri)
        if published is None:
            if publication.directory(uri) is not None:
                raise invalid_params(
                    f"{uri} is a directory resource; read it with resources/directory/read"
                )
            raise invalid_params(f"No resource is served at {uri}")
        # Read and encoded off the loop: other clients are answered meanwhile. No more is
        # read than the size the scan found; a file that has since changed size is
        # scanned again and sent as it now is (the client then sees it is not the
        # file its entry lists).
        try:
            contents = await anyio.to_thread.run_sync(self._read_contents, published)
        except _Resized:
            _, publication = await self._fresh()
            published = publication.file(uri)
            if published is None:
                raise invalid_params(f"{uri} no longer exists in the served folder") from None
            try:
                contents = await anyio.to_thread.run_sync(self._read_contents, published)
            except _Resized:
                raise invalid_params(f"{uri} is changing while it is read") from None
        return types.ReadResourceResult(
            contents=[contents],
            ttl_ms=self.options.ttl_ms,
            cache_scope=CACHE_SCOPE,
        )

    def _read_contents(self, published: PublishedFile) -> Any:
        return resource_contents(published.uri, self._read_bytes(published), published.mime)

    def _read_bytes(self, published: PublishedFile) -> bytes:
        if published.size > MAX_BYTES:
            # No client can load it (the extension's limit), and reading it whole would
            # cost the server its size several times over in memory.
            raise invalid_params(
                f"{published.uri} is {published.size:,} bytes, over the {MAX_BYTES:,}-byte "
                "limit of a skill: not served"
            )
        # The rule of the scan that listed it: no link out of the skill's own folder,
        # held by how the file is opened (component by component, no link followed out
        # of it), not by a check of its path made before the open.
        root = str(self.folder.root)
        try:
            fd = open_within(root, published.base or root, published.path)
            with open(fd, "rb") as handle:
                data = handle.read(published.size + 1)
                if len(data) != published.size:
                    raise _Resized(published.uri)
                return data
        except Outside:
            raise invalid_params(f"{published.uri} now points outside its skill's folder") from None
        except FileNotFoundError:
            raise invalid_params(f"{published.uri} no longer exists in the served folder") from None
        except IsADirectoryError:
            raise invalid_params(f"{published.uri} is now a directory") from None
        except OSError as exc:
            if exc.errno == errno.EINVAL:
                raise invalid_params(f"{published.uri} is no longer a regular file") from None
            raise MCPError(
                code=types.INTERNAL_ERROR, message=f"cannot read {published.uri}: {exc.strerror}"
            ) from None

    async def read_directory(
        self, ctx: ServerRequestContext[Any, Any], params: ReadDirectoryParams
    ) -> dict[str, Any]:
        if params.cursor is None:
            generation, publication = await self._fresh()
            offset = 0
        else:
            generation, publication, offset = await self._page_source(params.cursor)
        children = publication.directory(params.uri)
        if children is None:
            if publication.file(params.uri) is not None:
                raise invalid_params(f"{params.uri} is not a directory resource")
            raise invalid_params(f"No directory is served at {params.uri}")
        page, next_cursor = self._page(children, generation, offset, DIRECTORY_PAGE_SIZE)
        result: dict[str, Any] = {"resultType": "complete", "resources": list(page)}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result


def build_server(folder: PublishedFolder, options: ServeOptions | None = None) -> Server[Any]:
    """A low-level `mcp` Server publishing ``folder`` over the Skills extension."""
    options = options or ServeOptions()
    handlers = SkillsHandlers(folder, options)
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Skill Catalog (serve)",
        instructions=options.instructions,
        # The listing is answered as a plain result, which the SDK sends as it is.
        on_list_resources=cast(Any, handlers.list_resources),
        on_read_resource=handlers.read_resource,
    )
    server.extensions = {EXTENSION_ID: dict(EXTENSION_SETTINGS)}
    server.add_request_handler("skills/list", ListSkillsParams, handlers.list_skills)
    server.add_request_handler("skills/get", GetSkillParams, handlers.get_skill)
    server.add_request_handler(
        "resources/directory/read", ReadDirectoryParams, handlers.read_directory
    )
    server.middleware.append(_add_extension_to_handshake)
    return server

"""The MCP server kind (``--server``): a program started over stdio, or a URL.

Registered without loading the MCP client: its sources are made by
:class:`desktop.sources.mcp.source.McpSource`, imported when the first one is.
"""

from __future__ import annotations

from desktop.core.model import SourceSpec
from desktop.core.source_kinds import MCP_SERVER
from desktop.sources.base import Kind, Source, SourceContext


def _make(spec: SourceSpec, context: SourceContext) -> Source:
    from desktop.sources.mcp.source import McpSource

    return McpSource(spec, context)


def _from_fields(label: str, transport: str, where: str) -> SourceSpec:
    from desktop.sources.config.options import source_from_fields

    return source_from_fields(label, transport, where)


def _parse(value: str) -> SourceSpec:
    from desktop.sources.config.options import parse_server

    return parse_server(value)


KIND = Kind(
    MCP_SERVER,
    _make,
    _from_fields,
    option="--server",
    metavar="LABEL=COMMAND|URL",
    help="an MCP server: a command line (stdio) or an http(s):// URL (Streamable HTTP)",
    parse=_parse,
)

"""Running the server over stdio or Streamable HTTP (``/mcp``)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

HTTP_PATH = "/mcp"


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on stdin/stdout until stdin closes."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def parse_host_port(value: str) -> tuple[str, int]:
    """Split ``HOST:PORT`` (``[::1]:PORT`` for IPv6); raise ValueError when malformed."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected HOST:PORT, got {value!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"not a port number: {port_text!r}")
    return host, int(port_text)


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind a listening socket now, so port 0 resolves to a real port before serving."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def http_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{HTTP_PATH}"


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def allowed_hosts(sock: socket.socket, extra: Iterable[str] = ()) -> list[str]:
    """The ``Host`` header values the server answers: loopback names, the address it
    is bound to, the machine's own names when bound to every address, and ``extra``.

    A web page can point a name it controls at this machine (DNS rebinding) and read
    whatever answers to that name; a request naming any other host is refused (421),
    whichever address the server is bound to.
    """
    host, port = sock.getsockname()[:2]
    names = [*LOOPBACK_NAMES, f"[{host}]" if ":" in host else host]  # as the URL shown
    if host in WILDCARDS:
        names += [socket.gethostname(), socket.getfqdn()]
    for name in extra:
        names.append(f"[{name}]" if ":" in name and not name.startswith("[") else name)
    out: list[str] = []
    for name in names:
        if name and f"{name}:{port}" not in out:
            out.append(f"{name}:{port}")
    return out


def host_security(sock: socket.socket, extra: Iterable[str] = ()) -> Any:
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = allowed_hosts(sock, extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")],
    )


async def serve_http(
    server: Server[Any],
    sock: socket.socket,
    *,
    on_ready: Callable[[], None] | None = None,
    allow_hosts: Iterable[str] = (),
) -> None:
    """Serve Streamable HTTP at ``/mcp`` on an already bound socket."""
    import uvicorn

    host = sock.getsockname()[0]
    # Plain JSON responses, not SSE: the server sends nothing while a request runs, and
    # clients cap an SSE event (the `mcp` SDK at 1 MiB), which a large file would exceed.
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH,
        host=host,
        json_response=True,
        transport_security=host_security(sock, allow_hosts),
    )
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    web = uvicorn.Server(config)
    if on_ready is not None:
        on_ready()
    await web.serve(sockets=[sock])

"""An HTTP "MCP server" whose every answer is a body that never ends.

``endless_http.py json PORT``: ``application/json`` with no end; ``sse PORT``: an event
stream whose first event never ends; ``sse-pings PORT``: an event stream of keep-alive
comments without end, never an answer; ``gzip-bomb PORT``: 64 KiB of gzip that is 64 MiB
of zeros once decompressed; ``html PORT``: a short web page, as a URL that is not an MCP
endpoint gives. Written on plain sockets, because no MCP SDK would
send this.
"""

from __future__ import annotations

import socket
import sys
import threading
import zlib

CHUNK = b"x" * (1 << 16)


def bomb() -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(64)) + packer.flush()


def answer(conn: socket.socket, content_type: str, pings: bool) -> None:
    try:
        conn.recv(1 << 16)
        if content_type == "text/html":
            body = b"<html><body>Welcome</body></html>"
            head = (
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            conn.sendall(head.encode() + body)
            return
        if content_type == "gzip":
            body = bomb()
            head = (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"Content-Encoding: gzip\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            conn.sendall(head.encode() + body)
            conn.recv(1 << 16)  # holds the connection until the client gives up
            return
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode())
        if pings:
            while True:
                conn.sendall(b": ping\n\n" * 4096)
        if content_type == "text/event-stream":
            conn.sendall(b"event: message\ndata: ")
        while True:
            conn.sendall(CHUNK)
    except OSError:
        pass
    finally:
        conn.close()


def main() -> None:
    mode, port = sys.argv[1], int(sys.argv[2])
    content_type = {
        "sse": "text/event-stream",
        "sse-pings": "text/event-stream",
        "html": "text/html",
    }.get(mode, "")
    content_type = content_type or ("gzip" if mode == "gzip-bomb" else "application/json")
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        while True:
            conn, _ = server.accept()
            args = (conn, content_type, mode == "sse-pings")
            threading.Thread(target=answer, args=args, daemon=True).start()


if __name__ == "__main__":
    main()

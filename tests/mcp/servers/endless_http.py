"""An HTTP "MCP server" whose every answer is a body that never ends.

``endless_http.py json PORT``: ``application/json`` with no end; ``sse PORT``: an event
stream whose first event never ends. Written on plain sockets, because no MCP SDK would
send this.
"""

from __future__ import annotations

import socket
import sys
import threading

CHUNK = b"x" * (1 << 16)


def answer(conn: socket.socket, content_type: str) -> None:
    try:
        conn.recv(1 << 16)
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode())
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
    content_type = "text/event-stream" if mode == "sse" else "application/json"
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        while True:
            conn, _ = server.accept()
            threading.Thread(target=answer, args=(conn, content_type), daemon=True).start()


if __name__ == "__main__":
    main()

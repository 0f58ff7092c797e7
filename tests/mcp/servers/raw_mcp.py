"""A Skills-extension server written by hand, for inputs the SDK's servers cannot send.

Run as ``python raw_mcp.py SCENARIO [--http PORT] [--record FILE]``: JSON-RPC lines over
stdio, or a plain ``http.server`` on 127.0.0.1 answering each POST with one JSON body
(or an event stream where the scenario says so). It speaks the 2025-11-25 handshake
(``initialize``) and publishes one skill, ``skill://demo/SKILL.md``, with one file.
``--record`` appends each request method (and ``GET``/``DELETE`` over HTTP) a line.

Scenarios:
  ok             a correct server
  answers CODE   declares no extension and answers skills/list, skills/get and
                 tools/list with the JSON-RPC error CODE (-32602 as the Python SDK 1.x
                 answers an unknown method); over HTTP with status 400 (404 for -32601)
  declared CODE  the same answer from a server that declares the extension
  bad-notes N    N notifications/message with a log level no client knows, sent
                 before the answer to skills/list (over stdio)
  bad-notes-after N
                 the same N after the answer to skills/list, then one each 10 ms
  log-flood N    N valid notifications/message sent before the answer to skills/list
                 (over HTTP: in the answer's event stream)
  sse-bad-notes N
                 (HTTP) answers skills/list with an event stream of N events that are
                 not JSON-RPC (invalid JSON, and JSON that is not JSON-RPC), then the answer
  big-tools MB   tools/list answers with one page of about MB megabytes of tools
  dir-flood N    declares directoryRead; resources/directory/read answers pages of
                 5,000 entries each, N entries in all, each page with a next cursor
  dir-one-page N the same, all N entries in one page
  hang-reads     resources/read never answers (the skill lists 10 files)
  restart        (HTTP) answers each request in a session; once the marker file given
                 by --state exists, every session it did not open is unknown (404), as
                 a restarted server's would be
  sse-retry0     (HTTP) answers each POST with an event stream that carries ``retry: 0``
                 and an event id, then ends before the answer: a client that resumes
                 the stream with GET is told to reconnect at once, again and again
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

EXT = "io.modelcontextprotocol/skills"
SKILL_MD = b"---\nname: demo\ndescription: A demo skill\n---\n\n# Demo\n"
GUIDE = b"The guide.\n"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Raw:
    def __init__(self, scenario: str, arg: str | None, record: str | None, state: str | None):
        self.scenario = scenario
        self.arg = arg
        self.record = record
        self.state = state
        self.files = {"skill://demo/SKILL.md": SKILL_MD, "skill://demo/guide.md": GUIDE}
        if scenario == "hang-reads":
            for i in range(10):
                self.files[f"skill://demo/f{i}.md"] = b"x\n"
        self.write_lock = threading.Lock()

    def note(self, what: str) -> None:
        if self.record:
            with open(self.record, "a", encoding="utf-8") as fh:
                fh.write(what + "\n")

    def capabilities(self) -> dict[str, Any]:
        settings: dict[str, Any] = {}
        if self.scenario.startswith("dir-"):
            settings["directoryRead"] = True
        if self.scenario == "answers":
            return {"resources": {}, "tools": {}}
        return {"resources": {}, "tools": {}, "extensions": {EXT: settings}}

    def refusal(self, method: str) -> dict[str, Any] | None:
        """The error of the ``answers``/``declared`` scenarios, for the methods they refuse."""
        if self.scenario in ("answers", "declared") and method in (
            "skills/list",
            "skills/get",
            "tools/list",
        ):
            code = int(self.arg or "-32602")
            return {"code": code, "message": f"Unknown method: {method}"}
        return None

    def entry(self) -> dict[str, Any]:
        return {
            "uri": "skill://demo/SKILL.md",
            "name": "demo",
            "description": "A demo skill",
            "frontmatter": {"name": "demo", "description": "A demo skill"},
            "resources": [
                {"uri": uri, "digest": digest(data), "size": len(data)}
                for uri, data in self.files.items()
            ],
        }

    def answer(self, method: str, params: dict[str, Any]) -> tuple[Any, Any]:
        """(result, error) for one request; result ``...`` means never answer."""
        if method == "server/discover":
            return None, {"code": -32601, "message": "Method not found"}
        if method == "initialize":
            return {
                "protocolVersion": "2025-11-25",
                "capabilities": self.capabilities(),
                "serverInfo": {"name": "raw", "version": "1"},
            }, None
        if method == "ping":
            return {}, None
        if (refused := self.refusal(method)) is not None:
            return None, refused
        if method == "skills/list":
            return {"skills": [self.entry()]}, None
        if method == "tools/list":
            if self.scenario == "big-tools":
                return {"tools": _big_tools(int(self.arg or "45"))}, None
            return {"tools": [{"name": "search", "inputSchema": {"type": "object"}}]}, None
        if method == "resources/read":
            if self.scenario == "hang-reads":
                return ..., None
            uri = params.get("uri")
            data = self.files.get(uri) if isinstance(uri, str) else None
            if data is None:
                return None, {"code": -32002, "message": "Resource not found"}
            return {"contents": [{"uri": uri, "blob": base64.b64encode(data).decode()}]}, None
        if method == "resources/directory/read" and self.scenario.startswith("dir-"):
            total = int(self.arg or "300000")
            start = int(params.get("cursor") or 0)
            end = min(start + (5000 if self.scenario == "dir-flood" else total), total)
            page = [
                {"uri": f"skill://demo/many/f{i:06}.md", "name": f"f{i:06}.md"}
                for i in range(start, end)
            ]
            result: dict[str, Any] = {"resources": page}
            if end < total:
                result["nextCursor"] = str(end)
            return result, None
        return None, {"code": -32601, "message": "Method not found"}


def _big_tools(megabytes: int) -> list[dict[str, Any]]:
    """About ``megabytes`` MB of tools as JSON: many tools, each with a deep schema."""
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "d" * 20} for i in range(20)},
    }
    one = len(json.dumps({"name": "tool-00000", "inputSchema": schema}))
    return [
        {"name": f"tool-{i:05}", "inputSchema": schema} for i in range(megabytes * 1_000_000 // one)
    ]


def bad_note() -> bytes:
    return (
        b'{"jsonrpc":"2.0","method":"notifications/message",'
        b'"params":{"level":"shouting","data":"not a level"}}\n'
    )


def log_note(i: int) -> bytes:
    return (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",'
        b'"logger":"raw","data":"working on step %d"}}\n' % i
    )


def malformed_event(i: int) -> bytes:
    data = b"{not json %d" % i if i % 2 == 0 else b'{"jsonrpc":"1.0","surprise":%d}' % i
    return b"event: message\ndata: " + data + b"\n\n"


def serve_stdio(raw: Raw) -> None:
    out = sys.stdout.buffer

    def send(message: dict[str, Any]) -> None:
        with raw.write_lock:
            out.write(json.dumps(message).encode() + b"\n")
            out.flush()

    def trickle() -> None:
        while True:
            time.sleep(0.01)
            with raw.write_lock:
                out.write(bad_note())
                out.flush()

    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method = message.get("method")
        if not isinstance(method, str):
            continue
        raw.note(method)
        if "id" not in message:
            continue
        if method == "skills/list" and raw.scenario == "bad-notes":
            with raw.write_lock:
                out.write(bad_note() * int(raw.arg or "1"))
                out.flush()
        if method == "skills/list" and raw.scenario == "log-flood":
            with raw.write_lock:
                out.write(b"".join(log_note(i) for i in range(int(raw.arg or "1"))))
                out.flush()
        result, error = raw.answer(method, message.get("params") or {})
        if result is ...:
            continue
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if error is not None:
            reply["error"] = error
        else:
            reply["result"] = result
        send(reply)
        if method == "skills/list" and raw.scenario == "bad-notes-after":
            with raw.write_lock:
                out.write(bad_note() * int(raw.arg or "1"))
                out.flush()
            threading.Thread(target=trickle, daemon=True).start()


def serve_http(raw: Raw, port: int) -> None:
    sessions: set[str] = set()
    started = time.time()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _body(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _known(self) -> bool:
            sid = self.headers.get("mcp-session-id")
            if raw.scenario != "restart" or sid is None:
                return True
            # Restarted (the marker exists): the sessions opened before are gone.
            restarted = raw.state is not None and Path(raw.state).exists()
            return sid in sessions and (not restarted or sid.startswith("after-"))

        def do_GET(self) -> None:
            raw.note("GET")
            if raw.scenario == "sse-retry0" and self.headers.get("last-event-id"):
                stream = b"retry: 0\nid: e1\n: still nothing\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(stream)))
                self.end_headers()
                self.wfile.write(stream)
                return
            self._body(405, b"", {})

        def do_DELETE(self) -> None:
            raw.note("DELETE")
            self._body(200, b"", {})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                message = json.loads(self.rfile.read(length))
            except ValueError:
                self._body(400, b"", {})
                return
            method = message.get("method", "")
            raw.note(method)
            if not self._known():
                self._body(
                    404, b'{"error": "unknown session"}', {"Content-Type": "application/json"}
                )
                return
            headers = {"Content-Type": "application/json"}
            if method == "initialize":
                sid = uuid.uuid4().hex
                if raw.scenario == "restart" and raw.state and Path(raw.state).exists():
                    sid = "after-" + sid
                sessions.add(sid)
                headers["mcp-session-id"] = sid
            if "id" not in message:
                self._body(202, b"", {})
                return
            result, error = raw.answer(method, message.get("params") or {})
            if result is ...:
                time.sleep(3600)
                return
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            if error is not None:
                reply["error"] = error
            else:
                reply["result"] = result
            body = json.dumps(reply).encode()
            if method == "skills/list" and raw.scenario in ("log-flood", "sse-bad-notes"):
                count = int(raw.arg or "1")
                if raw.scenario == "log-flood":
                    first = b"".join(
                        b"event: message\ndata: " + log_note(i) + b"\n" for i in range(count)
                    )
                else:
                    first = b"".join(malformed_event(i) for i in range(count))
                stream = first + b"event: message\ndata: " + body + b"\n\n"
                self._body(200, stream, {"Content-Type": "text/event-stream"})
                return
            if error is not None and raw.refusal(method) is not None:
                # As the Python SDK's servers answer: the error at an HTTP status.
                self._body(404 if error["code"] == -32601 else 400, body, headers)
                return
            if raw.scenario == "sse-retry0" and method not in ("initialize", "server/discover"):
                # An event stream that names a resumable event, asks for reconnects at
                # once and ends before its answer.
                stream = b"retry: 0\nid: e1\ndata: \n\n"
                self._body(200, stream, {"Content-Type": "text/event-stream"})
                return
            self._body(200, body, headers)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    del started
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("arg", nargs="?")
    parser.add_argument("--http", type=int)
    parser.add_argument("--record")
    parser.add_argument("--state")
    args = parser.parse_args()
    raw = Raw(args.scenario, args.arg, args.record, args.state)
    if args.http:
        serve_http(raw, args.http)
    else:
        serve_stdio(raw)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()

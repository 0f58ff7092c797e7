"""`skill-catalog serve DIR`: publish a folder of skills over the Skills extension."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from functools import partial
from pathlib import Path

import anyio

from desktop.cli.output import fail_usage

NAME = "serve"
LONG_RUNNING = True  # keeps the garbage collector on
HELP = "publish a folder of skills as an MCP server (Skills extension), over stdio or HTTP"

DESCRIPTION = """\
Publish the skills in DIR over the MCP Skills extension (io.modelcontextprotocol/skills),
so you can see your folder as a host will. Serves stdio by default (stdout is the
protocol; messages go to stderr) or Streamable HTTP at /mcp with --http HOST:PORT
(port 0 picks a free port; the URL is printed as the first line of stdout).
Both protocol eras are answered. Skills without a usable name or description are
left out with a warning. So is, by default, a skill that breaks a rule strict clients
hold listings to (the official MCP TypeScript SDK client refuses a whole listing for
one such skill): a name that is not lowercase letters, digits and hyphens or differs
from its folder, a description over 1,024 characters, a compatibility over 500,
metadata values that are not text. Changes to the folder are picked up on the next
listing."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("dir", metavar="DIR", help="folder of skills to publish")
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP on HOST:PORT (e.g. 127.0.0.1:0) instead of stdio",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="with --http: also answer requests addressed to NAME (a name or address of "
        "this machine; by default only loopback names, the bound address and, bound to "
        "every address, the machine's own names are answered)",
    )
    parser.add_argument(
        "--page-size",
        type=int,
        default=100,
        metavar="N",
        help="entries per skills/list page (default: 100)",
    )
    parser.add_argument(
        "--ttl-ms",
        type=int,
        default=0,
        metavar="MS",
        help="freshness hint sent with listings, in milliseconds (default: 0)",
    )
    parser.add_argument(
        "--publish-nonconforming",
        action="store_true",
        help="also serve skills that break the rules strict clients check (each is warned "
        "of: such clients then refuse the whole listing)",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--instructions", metavar="TEXT", help="server instructions to send")
    group.add_argument(
        "--instructions-file", metavar="FILE", help="read the server instructions from FILE"
    )


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` says only that the client's end of a stream has gone."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_client_gone(e) for e in exc.exceptions)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError))


def _stop_on_interrupt() -> None:
    """Ctrl+C ends a server on stdio at once. The SDK reads its input in a thread that
    a pending read keeps alive, and the interpreter waits for it to end: until the next
    line or end of input, the server went on after Ctrl+C."""
    import signal

    def stop(_signum: int, _frame: object) -> None:
        sys.stderr.write("skill-catalog serve: stopped\n")
        sys.stderr.flush()
        os._exit(0)

    with contextlib.suppress(ValueError):  # not the main thread (tests call run())
        signal.signal(signal.SIGINT, stop)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from desktop.serve.folder_state import PublishedFolder
    from desktop.serve.server import ServeOptions, build_server
    from desktop.serve.transport import (
        bind_socket,
        http_url,
        parse_host_port,
        serve_http,
        serve_stdio,
    )

    root = Path(args.dir).expanduser()
    if not root.is_dir():
        fail_usage(f"not a folder: {args.dir}")
    if args.page_size < 1:
        fail_usage("--page-size must be at least 1")
    if args.ttl_ms < 0:
        fail_usage("--ttl-ms must not be negative")
    instructions = args.instructions
    if args.instructions_file is not None:
        try:
            instructions = Path(args.instructions_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail_usage(f"cannot read --instructions-file: {exc}")
    address = None
    if args.allow_host and args.http is None:
        fail_usage("--allow-host goes with --http")
    if args.http is not None:
        try:
            address = parse_host_port(args.http)
        except ValueError as exc:
            fail_usage(f"--http: {exc}")

    folder = PublishedFolder(root.resolve(), nonconforming=args.publish_nonconforming)
    folder.on_warning = _warn
    _, publication = folder.current()
    options = ServeOptions(page_size=args.page_size, ttl_ms=args.ttl_ms, instructions=instructions)
    server = build_server(folder, options)
    count = len(publication.skills)
    plural = "" if count == 1 else "s"
    left_out = f"; {publication.left_out} left out (see above)" if publication.left_out else ""

    if address is None and (sys.stdin is None or sys.__stdout__ is None):
        fail_usage(
            "standard input or output is closed: over stdio a client speaks to the server "
            "through both (start it from an MCP client, or give --http)"
        )
    try:
        if address is None:
            _stop_on_interrupt()  # before "serving" is said: a Ctrl+C right after it stops
            print(
                f"serving {count} skill{plural} from {root} over stdio{left_out}",
                file=sys.stderr,
                flush=True,
            )
            try:
                anyio.run(serve_stdio, server)
            except BaseException as exc:
                if _client_gone(exc):
                    return 0  # the client closed its end mid-answer: nothing left to say
                raise
            return 0
        try:
            sock = bind_socket(*address)
        except OSError as exc:
            print(f"skill-catalog serve: cannot listen on {args.http}: {exc}", file=sys.stderr)
            return 1
        url = http_url(sock)

        def announce() -> None:
            print(
                f"serving {count} skill{plural} from {root} at {url}{left_out} (Ctrl+C to stop)",
                file=sys.stderr,
                flush=True,
            )
            print(url, flush=True)

        anyio.run(partial(serve_http, server, sock, on_ready=announce, allow_hosts=args.allow_host))
        return 0
    except KeyboardInterrupt:
        return 0

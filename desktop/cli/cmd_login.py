"""``skill-catalog login LABEL``: sign in to a Streamable HTTP server that asks for it.

The authorization address is printed (and opened in a browser where one is available);
the command waits for the browser's answer on a loopback address, at most ``--timeout``
seconds. The tokens go to the OS keyring under the source's identity (label and URL);
without a usable keyring they last for this run only, which is said.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from desktop.cli.output import CheckFailed, fail_usage
from desktop.cli.sources_args import add_source_options, resolve_specs, say_source_notes
from desktop.core.model import SourceSpec
from desktop.core.visible import one_line

NAME = "login"
HELP = "sign in to a server that asks for it (OAuth, in your browser)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("label", metavar="LABEL", help="the server's label (see list)")
    parser.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address to open; do not start a browser",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long to wait for the sign-in in the browser (default 300)",
    )
    add_source_options(parser)


def find_http_source(args: argparse.Namespace) -> SourceSpec:
    """The Streamable HTTP source ``args.label`` names (a usage error otherwise)."""
    specs = resolve_specs(args)
    found = [s for s in specs if s.label == args.label]
    if not found:
        known = ", ".join(s.label for s in specs if s.kind_info.signs_in(s.transport)) or "none"
        fail_usage(f"no source is labelled {args.label!r} (HTTP servers: {known})")
    spec = found[0]
    if not spec.kind_info.signs_in(spec.transport):
        fail_usage(f"{args.label} is not a Streamable HTTP server; only those sign in")
    if spec.untrusted:
        say_source_notes()  # how to trust it
    return spec


def run(args: argparse.Namespace) -> int:
    from desktop.sources.mcp import signin

    spec = find_http_source(args)

    def open_browser(url: str) -> None:
        print(f"Open this address in your browser to sign in to {spec.label}:", file=sys.stderr)
        print(f"  {url}", file=sys.stderr)
        if not args.no_browser:
            import webbrowser

            # No browser here: the address is printed.
            with contextlib.suppress(Exception):
                webbrowser.open(url)
        print("Waiting for the sign-in in your browser…", file=sys.stderr, flush=True)

    seconds = args.timeout if args.timeout and args.timeout > 0 else signin.SIGN_IN_SECONDS
    try:
        done = asyncio.run(signin.sign_in(spec, open_browser, seconds=seconds))
    except signin.SignInError as exc:
        raise CheckFailed(f"skill-catalog login: {spec.label}: {exc}") from None
    who = f" as {one_line(done.account)}" if done.account else ""
    if done.remembered:
        print(f"Signed in to {spec.label}{who}. The sign-in is kept in the OS keyring.")
    else:
        print(
            f"Signed in to {spec.label}{who} for this run only: it will not be remembered "
            f"({done.why_not})."
        )
    return 0

"""``skill-catalog logout LABEL``: remove a server's sign-in from the OS keyring."""

from __future__ import annotations

import argparse

from desktop.cli.cmd_login import find_http_source
from desktop.cli.sources_args import add_source_options

NAME = "logout"
HELP = "sign out of a server: remove its tokens from the OS keyring"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("label", metavar="LABEL", help="the server's label (see list)")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    from desktop.sources.mcp import signin

    spec = find_http_source(args)
    if signin.sign_out(spec):
        print(f"Signed out of {spec.label}: its tokens were removed from the keyring.")
    else:
        print(f"{spec.label} was not signed in; nothing to remove.")
    return 0

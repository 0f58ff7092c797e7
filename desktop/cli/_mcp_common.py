"""Shared by the commands that talk to one MCP server by its label (get, instructions)."""

from __future__ import annotations

import argparse

from desktop.cli.output import fail_usage
from desktop.cli.sources_args import resolve_specs, say_source_notes
from desktop.core.model import SourceSpec


def server_spec(args: argparse.Namespace, label: str) -> SourceSpec:
    """The configured MCP server with this label, or a usage error naming the choices."""
    specs = resolve_specs(args)
    for spec in specs:
        if spec.label == label:
            if not spec.kind_info.runs_code:
                word = spec.kind_info.word_for(spec.transport)
                fail_usage(f"{label!r} is a {word}, not an MCP server")
            if spec.untrusted:
                say_source_notes()  # how to trust it
            return spec
    say_source_notes()  # a server not started may be the one asked for
    known = ", ".join(s.label for s in specs if s.kind_info.runs_code) or "none"
    fail_usage(f"no MCP server labelled {label!r} (servers: {known}); add --server {label}=...")

"""``skill-catalog sources log LABEL``: what a server wrote on its stderr in this run.

The server is started and listed as ``list`` would, then stopped; what it wrote on its
stderr meanwhile (its beginning and its end, bounded, every secret the catalog sent it
masked, control characters made visible) is printed. A server over HTTP runs
elsewhere: its output is not seen here, and the command says so.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from desktop.cli.output import err, fail_usage
from desktop.core.model import SourceSpec, SourceStatus
from desktop.core.visible import one_line, visible


def run(args: argparse.Namespace) -> int:
    from desktop.cli.sources_args import resolve_specs

    label = args.label
    specs = resolve_specs(args)
    spec = next((s for s in specs if s.label == label), None)
    if spec is None:
        known = ", ".join(s.label for s in specs if s.kind_info.runs_code) or "none"
        fail_usage(f"no server is labelled {one_line(label)!r} (the servers: {known})")
    if not spec.kind_info.runs_code:
        word = spec.kind_info.word_for(spec.transport)
        fail_usage(f"{one_line(label)} is a {word}: only a server writes output")
    if not spec.kind_info.shows_output(spec.transport):
        err(
            f"{one_line(label)} is a server over HTTP ({one_line(spec.shown_endpoint)}): it "
            "runs elsewhere, and what it writes is not seen here"
        )
        return 1
    started = time.strftime("%H:%M:%S")
    status, output = asyncio.run(_listed_output(spec))
    said = f"{status.status}: {status.message}" if status.message else status.status
    err(f"{one_line(label)}, started at {started}: {one_line(said)}")
    if not output:
        err(f"{one_line(label)} wrote nothing on its stderr in this run")
        return 0
    print(visible(output))
    return 0


async def _listed_output(spec: SourceSpec) -> tuple[SourceStatus, str]:
    from desktop.sources.budgets import DEFAULT_BUDGETS
    from desktop.sources.mcp.source import ServerHandle

    handle = ServerHandle(spec, DEFAULT_BUDGETS, None)
    try:
        status, _skills = await handle.discover(timeout=DEFAULT_BUDGETS.server_timeout)
    finally:
        await handle.close()
    return status, handle.server_output() or ""

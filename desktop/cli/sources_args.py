"""Source options shared by every command: ``--folder``, ``--server``, ``--config``.

When any source option is given, only those sources are used (no saved configuration,
no detected folders), so a run is reproducible. Without any, the saved and detected
sources are used.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from desktop.cli.output import err, fail_usage
from desktop.core.catalog import Catalog
from desktop.core.model import LABEL_RE, SourceSpec
from desktop.sources.folder import folder_label


def add_source_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sources (when any is given, only these are used)")
    group.add_argument(
        "--folder",
        action="append",
        default=[],
        metavar="[LABEL=]DIR",
        help="a local folder of skills",
    )
    group.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="LABEL=COMMAND|URL",
        help="an MCP server: a command line (stdio) or an http(s):// URL (Streamable HTTP)",
    )
    group.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP servers from a client's config file (Claude, VS Code, Cursor, Codex)",
    )


def _split_label(value: str) -> tuple[str | None, str]:
    label, sep, rest = value.partition("=")
    if sep and LABEL_RE.match(label):
        return label, rest
    return None, value


def parse_server(value: str) -> SourceSpec:
    label, rest = _split_label(value)
    if label is None or not rest.strip():
        fail_usage(f"--server needs LABEL=COMMAND or LABEL=URL, got {value!r}")
    rest = rest.strip()
    if rest.startswith(("http://", "https://")):
        return SourceSpec(label, "mcp", "http", rest)
    try:
        argv = tuple(shlex.split(rest))
    except ValueError as exc:
        fail_usage(f"--server {label}: cannot split the command line: {exc}")
    if not argv:
        fail_usage(f"--server {label}: empty command")
    return SourceSpec(label, "mcp", "stdio", shlex.join(argv), command=argv)


def parse_folder(value: str) -> SourceSpec:
    from pathlib import Path

    label, rest = _split_label(value)
    path = Path(rest).expanduser()
    if label is None:
        label = folder_label(path)
    return SourceSpec(label, "local", "folder", str(path.resolve()))


def _unique(specs: list[SourceSpec]) -> list[SourceSpec]:
    """Give folders whose base names clash distinct labels; refuse clashing server labels."""
    seen: set[str] = set()
    out: list[SourceSpec] = []
    for spec in specs:
        label = spec.label
        if label in seen:
            if spec.kind == "mcp":
                fail_usage(f"the label {label!r} is used twice; every source needs its own label")
            n = 2
            while f"{label}-{n}" in seen:
                n += 1
            label = f"{label}-{n}"
            spec = SourceSpec(**{**_fields(spec), "label": label})
        seen.add(label)
        out.append(spec)
    return out


def _fields(spec: SourceSpec) -> dict[str, Any]:
    return {f: getattr(spec, f) for f in SourceSpec.__dataclass_fields__}


def specs_from_args(args: argparse.Namespace) -> list[SourceSpec] | None:
    """The sources the options name, or ``None`` when no source option was given."""
    folders = getattr(args, "folder", []) or []
    servers = getattr(args, "server", []) or []
    configs = getattr(args, "config", []) or []
    if not (folders or servers or configs):
        return None
    specs: list[SourceSpec] = [parse_folder(v) for v in folders]
    specs.extend(parse_server(v) for v in servers)
    for path in configs:
        specs.extend(_from_config(path, [s.label for s in specs]))
    return _unique(specs)


def _from_config(path: str, taken: list[str]) -> list[SourceSpec]:
    from desktop.sources import config

    result = config.load_config_file(path, taken)
    for problem in result.problems:
        err(f"{problem[0]}: {problem[1]}" if isinstance(problem, tuple) else str(problem))
    return [server.spec for server in result.servers]


def resolve_specs(args: argparse.Namespace) -> list[SourceSpec]:
    specs = specs_from_args(args)
    if specs is not None:
        return specs
    try:
        from desktop.sources import config
    except ImportError:
        return []
    found = config.collect_sources()
    for file, reason in found.problems:
        err(f"{file}: {reason}")
    return found.specs


async def load_catalog(args: argparse.Namespace, budgets: Any = None) -> Catalog:
    from desktop.sources.registry import discover

    return await discover(resolve_specs(args), budgets=budgets)

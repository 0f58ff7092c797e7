"""``skill-catalog list``: every skill from every source, with its origin."""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from typing import Any

from desktop.cli.output import cells, emit_json, say_notices, table
from desktop.cli.sources_args import add_source_options, resolve_specs
from desktop.core.approval_states import NOT_APPROVED
from desktop.core.catalog import COLLISION_PREFIX, Catalog
from desktop.core.model import SourceSpec, SourceStatus
from desktop.core.states import Severity, SourceState
from desktop.core.visible import one_line
from desktop.core.words import count
from desktop.sources.config.known_folders import annotate_collisions, collision_views

NAME = "list"
HELP = "list every skill from every source"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    from desktop.cli import progress

    specs = resolve_specs(args)
    catalog = asyncio.run(progress.discover(specs, show=progress.wanted(args.json)))
    # The agents that read each detected folder (from their documentation).
    agents = {s.label: s.agent for s in specs if s.agent}
    data = catalog.to_json()
    by_label = {s.label: s for s in specs}
    for source in data.get("sources", []):
        if source.get("label") in agents:
            source["agents"] = agents[source["label"]]
        source.update(provenance(by_label.get(source.get("label", ""))))
    annotate_collisions(data.get("collisions", []), [s.origin for s in catalog.sources])
    if args.json:
        from desktop.cli.command_session import new_session

        approvals = new_session([]).approvals  # the approval states, read through a session
        states = asyncio.run(approvals.states(catalog.skills))
        for item in data.get("skills", []):
            state = states.get(item.get("id"))
            item["approval"] = state.to_json() if state else {"state": NOT_APPROVED}
        say_notices(NAME, approvals.take_notices())
        emit_json(data)
    else:
        print(render(catalog, agents, by_label))
    # A source named on the command line that could not be read is a failed check; the
    # saved and detected sources (no source option) may be down without failing a run.
    from desktop.sources import kinds

    named = bool(getattr(args, "config", None)) or any(
        getattr(args, kinds.option_dest(k), None) for k in kinds.with_options()
    )
    # A server that asks for a sign-in is not a failed check: the line says what to run.
    if named and any(
        s.status == SourceState.FAILED and not _asks_sign_in(s) for s in catalog.sources
    ):
        return 1
    if getattr(args, "unreadable_configs", None):
        return 1
    return 0


def _asks_sign_in(status: SourceStatus) -> bool:
    return status.sign_in_state.asks


def provenance(spec: SourceSpec | None) -> dict[str, Any]:
    """Where a source came from, for ``--json``: a bundled sample, or the client file
    a server was imported from."""
    out: dict[str, Any] = {}
    if spec is not None and spec.sample:
        out["sample"] = True
    if spec is not None and spec.imported_from is not None:
        out["imported_from"] = {"client": spec.imported_from[0], "file": spec.imported_from[1]}
    return out


def render(
    catalog: Catalog,
    agents: dict[str, str] | None = None,
    specs: dict[str, SourceSpec] | None = None,
) -> str:
    specs = specs or {}
    samples = {label for label, spec in specs.items() if spec.sample}
    lines: list[str] = ["Sources:"]
    for s in catalog.sources:
        extra = f" [{s.protocol_version}]" if s.protocol_version else ""
        msg = f": {one_line(s.message)}" if s.message else ""
        if _asks_sign_in(s):
            lines.append(f"  {one_line(s.origin.describe())}  {one_line(s.message)}")
            continue
        lines.append(
            f"  {one_line(s.origin.describe())}{extra}  {s.status}, "
            f"{count(s.skill_count, 'skill')}{msg}"
        )
        if agents and s.origin.label in agents:
            lines.append(f"    read by {agents[s.origin.label]}")
        spec = specs.get(s.origin.label)
        if spec is not None and spec.sample:
            lines.append(
                "    a bundled sample, shown while you have no source of your own "
                f"(skill-catalog sources remove {spec.label})"
            )
        if spec is not None and spec.imported_from is not None:
            lines.append(f"    imported from {spec.imported_from[0]}: {spec.imported_from[1]}")
        lines.extend(f"    note: {one_line(n)}" for n in s.notes)
        lines.extend(_plugin_lines(s, catalog))
    lines.append("")
    if not catalog.skills:
        lines.append("No skills.")
        return "\n".join(lines)
    rows = []
    for skill in catalog.skills:
        strategy = skill.loading.strategy + (
            "" if skill.loading.strategy_declared else " (default)"
        )
        files = "dynamic" if skill.is_dynamic else str(len(skill.files))
        rows.append(
            [
                skill.qualified_name,
                skill.state,
                skill.origin.label
                + (" (sample)" if skill.origin.label in samples else "")
                + (" (third-party)" if skill.kind_info.third_party else ""),
                strategy,
                files,
                skill.description,
            ]
        )
    lines.append(
        table(
            rows,
            ["NAME", "STATE", "ORIGIN", "STRATEGY", "FILES", "DESCRIPTION"],
            column_limits(rows, [40, 10, 36, 18, 7, 60]),
        )
    )
    lines.append("(show, verify, dir, approve and revoke take a NAME as shown, or an id)")
    if catalog.collisions:
        lines.append("")
        lines.append("Collisions:")
        for c in catalog.collisions:
            lines.append(f"  {one_line(c.describe())}: {one_line(c.copies())}")
            if c.kind == "same-name":  # precedence is an agent's rule for one name only
                origins = [s.origin for s in catalog.sources]
                lines.extend(
                    f"    {one_line(v.describe())}" for v in collision_views(c.ids, origins)
                )
    # A collision is said once, above, not again under each of its copies.
    shown = [
        (skill, p)
        for skill in catalog.skills
        for p in skill.problems
        if p.severity != Severity.INFO and not p.code.startswith(COLLISION_PREFIX)
    ]
    if shown:
        lines.append("")
        lines.append("Problems:")
        for skill, p in shown:
            lines.append(
                f"  {one_line(skill.qualified_name)} [{p.severity}] {p.code}: {one_line(p.message)}"
            )
    lines.append("")
    lines.append(severity_summary(catalog))
    return "\n".join(lines)


def _plugin_lines(status: SourceStatus, catalog: Catalog) -> list[str]:
    """The source's plugins read, each with its skills (one not read is a note)."""
    names = {s.uri: s.qualified_name for s in catalog.skills if s.origin == status.origin}
    lines: list[str] = []
    for plugin in status.plugins:
        if not plugin.get("read"):
            continue
        said = " ".join(str(plugin.get(k) or "") for k in ("name", "version")).strip()
        if plugin.get("author"):
            said += f" by {plugin['author']}"
        skills = [names.get(uri, uri) for uri in plugin.get("skills", [])]
        listed = f": {', '.join(skills)}" if skills else ""
        lines.append(
            f"    plugin {one_line(said)}, {count(len(skills), 'skill')}{one_line(listed)}"
        )
    return lines


def column_limits(rows: list[list[str]], limits: list[int]) -> list[int]:
    """``limits``, with the last column widened or narrowed to fill the terminal when
    standard output is one (a pipe or a file keeps the fixed widths)."""
    import shutil
    import sys

    if not sys.stdout.isatty():
        return limits
    width = shutil.get_terminal_size((80, 24)).columns
    used = [
        min(limit, max((cells(r[i]) for r in rows), default=0))
        for i, limit in enumerate(limits[:-1])
    ]
    room = width - sum(used) - 2 * len(used)
    return [*limits[:-1], max(20, room)]


def severity_summary(catalog: Catalog) -> str:
    """The closing line: skills, collisions and problems counted by severity."""
    by = Counter(
        p.level
        for skill in catalog.skills
        for p in skill.problems
        if not p.code.startswith(COLLISION_PREFIX)
    )
    parts = [
        count(len(catalog.skills), "skill"),
        count(len(catalog.collisions), "collision"),
        count(by[Severity.ERROR], "error"),
        count(by[Severity.WARNING], "warning"),
    ]
    line = ", ".join(parts)
    if by[Severity.INFO]:
        line += f"; {count(by[Severity.INFO], 'note')} not shown (see --json or skill-catalog lint)"
    return line

"""``skill-catalog approvals``: every approval stored in the OS keyring.

With source options, each approval also shows its skill's current state and, when
the files changed, the diff. ``--json`` is complete enough to keep as an audit
record: identity, every approved (uri, digest, size), set hash, grants, time, user.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from desktop.cli.output import emit_json, err, say_notices
from desktop.cli.sources_args import add_source_options, load_catalog, specs_from_args
from desktop.core.approvals import (
    DAMAGED_CODES,
    ApprovalError,
    ApprovalKey,
    ApprovalRecord,
    SetDiff,
    bind,
)
from desktop.core.audit import FORMATS, audit_rows, export
from desktop.core.catalog import Catalog
from desktop.core.grants import explain_tool
from desktop.core.secrets import mask_endpoint
from desktop.core.visible import one_line
from desktop.session.approval_service import current_user, now_utc

if TYPE_CHECKING:
    from desktop.session.approval_service import StoredApproval

NAME = "approvals"
HELP = "list the approvals stored in the OS keyring (with sources: their current state)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object (audit record)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="print every decision as a Markdown table or as CSV (an audit export)",
    )
    add_source_options(parser)


def describe_key(key: ApprovalKey, transport: str = "") -> str:
    # A folder's or a server's names, one line each: none can pass for a line of its own.
    if key.kind == "local":
        return f"local folder {one_line(key.uri)}"
    shown = f"{key.label}:{key.uri} from {transport or 'server'} {key.shown_endpoint}"
    return one_line(shown)


def describe_record(record: ApprovalRecord, indent: str = "") -> str:
    requested = ", ".join(record.requested_tools) or "none"
    granted = ", ".join(record.grants.tools) or "none"
    lines = [
        f"identity:  {describe_key(record.key, record.transport)}",
        f"files:     {record.file_count} ({record.total_size} bytes), set {record.set_hash}",
        f"read:      {record.evidence()}",
    ]
    if record.rejected:
        lines.append(f"rejected:  {record.approved_at} by {record.approved_by}")
        lines.append(f"reason:    {record.reason or '(none given)'}")
        return "\n".join(indent + one_line(line) for line in lines)
    lines.append(f"tools:     granted {granted} (requested: {requested})")
    # What each grant allows, in the words the window uses too.
    for tool in record.requested_tools:
        mark = "+" if tool in record.grants.tools else "-"
        lines.append(f"           {mark} {explain_tool(tool).explain()}")
    lines.append(f"scripts:   {'allowed' if record.grants.scripts else 'not allowed'}")
    if record.despite_problems:
        lines.append(f"despite:   {'; '.join(record.despite_problems)}")
    lines.append(f"approved:  {record.approved_at} by {record.approved_by}")
    return "\n".join(indent + one_line(line) for line in lines)


def describe_diff(diff: SetDiff, indent: str = "") -> str:
    """One line per file; a file's name (a skill author's or a server's) stays on it."""
    lines = [f"+ {c.uri}  {c.new_digest} ({c.new_size} bytes)" for c in diff.added]
    lines += [f"- {c.uri}  {c.old_digest} ({c.old_size} bytes)" for c in diff.removed]
    lines += [
        f"~ {c.uri}  {c.old_digest} ({c.old_size} bytes) -> {c.new_digest} ({c.new_size} bytes)"
        for c in diff.changed
    ]
    return "\n".join(indent + one_line(line) for line in lines)


def current_state(item: StoredApproval, catalog: Catalog) -> dict[str, Any]:
    """Where an approval stands against the sources given."""
    key = item.entry.key
    for skill in catalog.skills:
        try:
            # An approval stored by an older version under its key of then is the
            # skill's too (the next listing moves it under the server key).
            legacy = ApprovalKey.legacy_for_identity(skill.full_identity)
            if key not in (ApprovalKey.for_skill(skill), legacy):
                continue
        except ApprovalError:
            continue
        state = bind(skill, item.record, problem=item.problem)
        out = state.to_json()
        out["skill_id"] = skill.id
        return out
    if key.kind == "mcp":
        status = catalog.source(key.label)
        origin = status.origin if status is not None else None
        # The endpoint as a key holds it: the server the source reaches (as an older
        # version took it, for a key it wrote).
        now = None
        if origin is not None:
            server = origin.server()
            now = server.endpoint if key.transport else origin.legacy_endpoint()
            if key.transport and server.transport != key.transport:
                now = str(server)
        if origin is not None and origin.kind == "mcp" and now != key.endpoint:
            shown_now = mask_endpoint(origin.transport, now or "")
            if shown_now == key.shown_endpoint:
                # Two endpoints that differ only where a secret is masked.
                where = "an endpoint that differs from this approval's in a masked secret"
            else:
                where = f"{shown_now}; this approval belongs to {key.shown_endpoint}"
            return {
                "state": "moved",
                "message": f"the label {key.label} now points at {where}, so it does not apply",
            }
    return {"state": "missing", "message": "no source given lists this skill"}


def run(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import new_session

    approvals = new_session([]).approvals  # the stored decisions, through a session
    catalog = asyncio.run(load_catalog(args)) if specs_from_args(args) is not None else None
    try:
        backend = asyncio.run(approvals.backend_name())
        items = asyncio.run(approvals.records())
        say_notices(NAME, approvals.take_notices())
        if catalog is None and items and not args.format:
            # The sources in use tell whether each approval still holds: a change that
            # voided one shows without naming its source.
            catalog = asyncio.run(load_catalog(args))
    except ApprovalError as exc:
        if args.json:
            emit_json({"service": approvals.service, "approvals": [], "error": exc.to_json()})
        err(f"skill-catalog approvals: {exc.message}")
        return 1
    if args.format:
        print(export(audit_rows(items), args.format), end="")
        return 0
    rows = []
    for i, item in enumerate(items):
        current = current_state(item, catalog) if catalog is not None else None
        if current is not None and current.get("damaged") and item.problem is None:
            # Checked against its skill, the record grants what no reviewer could have
            # given: shown as damaged, with none of its grants.
            error = current["error"]
            item = items[i] = dataclasses.replace(
                item,
                record=None,
                problem=ApprovalError(error["code"], error["message"]),
                chunks=0,
            )
        row = item.to_json()
        if current is not None:
            row["current"] = current
        rows.append(row)
    if args.json:
        emit_json(
            {
                "service": approvals.service,
                "backend": backend,
                "exported_at": now_utc(),
                "exported_by": current_user(),
                "approvals": rows,
            }
        )
        return 0
    print(f"Approvals in the OS keyring ({backend}, service {approvals.service}): {len(items)}")
    for item, row in zip(items, rows, strict=True):
        print()
        title = item.record.skill_id if item.record else item.entry.skill_id
        print(one_line(title))
        if item.record is not None:
            print(describe_record(item.record, indent="  "))
        else:
            print(f"  identity:  {describe_key(item.entry.key)}")
        if item.problem is not None:
            print(
                f"  PROBLEM:   {one_line(item.problem.message)} "
                f"({'damaged, ' if item.problem.code in DAMAGED_CODES else ''}"
                "counts as not approved)"
            )
        current = row.get("current")
        if current is not None:
            msg = f" ({current['message']})" if current.get("message") else ""
            print(f"  now:       {current['state']}{one_line(msg)}")
            diff = current.get("diff")
            if diff and item.record is not None:
                skill = catalog.get(current["skill_id"]) if catalog else None
                if skill is not None:
                    print(describe_diff(bind(skill, item.record).diff or SetDiff(), "    "))
    return 0

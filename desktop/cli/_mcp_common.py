"""Shared by the commands that talk to MCP servers after discovery (get, show, verify, dir)."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable

from desktop.cli.output import fail_usage
from desktop.cli.sources_args import resolve_specs
from desktop.core.catalog import Catalog
from desktop.core.model import Identity, Skill, SourceSpec, SourceStatus


def parse_id(skill_id: str) -> Identity:
    """A skill id given on the command line (LABEL:URI), or a usage error saying why."""
    try:
        return Identity.parse(skill_id)
    except ValueError as exc:
        fail_usage(str(exc))


def sources_named(specs: list[SourceSpec], skill_ids: list[str]) -> list[SourceSpec]:
    """The sources the ids name (an id starts with its source's label): the others
    need not be started, and a slow one among them would only hold the command up."""
    labels = {parse_id(i).label for i in skill_ids}
    return [s for s in specs if s.label in labels]


def no_such_skill(skill_id: str, status: SourceStatus | None, where: str = "the catalog") -> str:
    """Why a named skill is not there: its source's failure, when the source failed."""
    why = f" ({status.status}: {status.message})" if status and status.status != "ok" else ""
    return f"no skill {skill_id!r} in {where}{why}"


async def find_skill(
    skill_id: str, catalog: Catalog, get: Callable[[str, str], Awaitable[Skill]]
) -> tuple[Skill | None, str]:
    """The named skill (by id, or by the qualified name `list` prints) as its source
    lists it or, on a server that answered but lists it not, as ``skills/get`` confirms
    it (D7: a listing is no proof of absence, and `get` hands out such ids).
    ``get(label, uri)`` asks the server. Otherwise ``None`` and why."""
    named = catalog.named(skill_id)
    if len(named) == 1:
        return named[0], ""
    if len(named) > 1:
        ids = ", ".join(sorted(s.id for s in named)[:5])
        return None, f"{skill_id!r} names {len(named)} skills; give one id: {ids}"
    ident = parse_id(skill_id)
    status = catalog.source(ident.label)
    if status is None or status.origin.kind != "mcp" or status.status == "error":
        return None, no_such_skill(skill_id, status)
    if "://" not in ident.uri or not ident.uri.endswith("/SKILL.md"):
        # Only a SKILL.md URI can be asked for with skills/get; a name is not one.
        return None, (
            f"{no_such_skill(skill_id, status, 'its listing')} (a skill its server does not "
            "list is asked for by the URI of its SKILL.md: LABEL:URI)"
        )
    from desktop.sources.mcp_session import SourceError

    try:
        return await get(ident.label, ident.uri), ""
    except SourceError as exc:
        return None, f"{no_such_skill(skill_id, status, 'its listing')}, nor by skills/get: {exc}"


def server_spec(args: argparse.Namespace, label: str) -> SourceSpec:
    """The configured MCP server with this label, or a usage error naming the choices."""
    specs = resolve_specs(args)
    for spec in specs:
        if spec.label == label:
            if spec.kind != "mcp":
                fail_usage(f"{label!r} is a local folder, not an MCP server")
            return spec
    known = ", ".join(s.label for s in specs if s.kind == "mcp") or "none"
    fail_usage(f"no MCP server labelled {label!r} (servers: {known}); add --server {label}=...")

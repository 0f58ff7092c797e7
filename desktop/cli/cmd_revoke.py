"""``skill-catalog revoke ID``: remove approvals (or rejections) from the OS keyring.

``ID`` is a skill id (``LABEL:URI``), a local skill folder, or a storage name
shown by ``approvals --json``. Without source options every stored approval that
matches is removed (all endpoints a label was approved at); with them, the
skill is resolved first and its exact approval is removed.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from desktop.cli.cmd_approvals import describe_key
from desktop.cli.output import err, say_notices
from desktop.cli.resolve import Resolver
from desktop.cli.sources_args import add_source_options, specs_from_args
from desktop.core.approvals import ApprovalError, ApprovalKey
from desktop.core.identity import Identity, SkillIdentity, SourceIdentity, is_server_uri
from desktop.core.model import SourceSpec
from desktop.core.visible import one_line

NAME = "revoke"
HELP = "remove a skill's approval or rejection from the OS keyring"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID", help="skill id LABEL:URI, local skill folder, or name")
    add_source_options(parser)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    from desktop.cli.command_session import command_session, new_session

    key: ApprovalKey | None = None
    specs = specs_from_args(args)
    if specs is None:  # no source options: the decisions alone, by what was typed
        session = new_session([])
    else:
        async with command_session(specs) as session:
            picked = await Resolver(session, listed=True).pick(args.id)  # the one rule for names
        skill = picked.skill
        if skill is not None:
            try:
                key = ApprovalKey.for_skill(skill)
            except ApprovalError:
                key = None
        elif not _names_one_approval(args.id):
            # The server may be down or no longer list it, the folder may have lost it:
            # the key is still known from the source given and the URI. Anything else
            # would widen the revocation to every endpoint and folder, which is what
            # leaving the source options out asks for.
            same = [s.id for s in picked.candidates]
            if len(same) > 1:
                err(
                    f"skill-catalog revoke: {args.id!r} names {len(same)} skills; "
                    f"give one id: {', '.join(same[:5])}"
                )
                return 1
            key = _key_of(args.id, specs)
            if key is None:
                err(
                    f"skill-catalog revoke: {args.id!r} is no skill of the sources given; "
                    "give LABEL:URI of one of them, or leave the source options out to "
                    "revoke every approval matching it"
                )
                return 1
    # With a key the approval is found by it; without, by what was typed.
    done = await session.remove_decisions(
        [args.id] if key is not None else _forms_of(args.id), key=key
    )
    say_notices(NAME, list(done.notices))
    if done.error:
        err(f"skill-catalog revoke: {done.error}")
        return 1
    if not done.removed:
        err(f"skill-catalog revoke: no stored approval matches {args.id!r} (see `approvals`)")
        return 1
    for entry in done.removed:
        kept = done.copies.get(entry.name)  # the approved copies go with the approval
        if kept:
            err(f"skill-catalog revoke: {kept}")
        print(f"Revoked {one_line(entry.skill_id or entry.name)}: {describe_key(entry.key)}")
        if entry.name in done.damaged:
            print(f"  (its stored record could not be used: {one_line(done.damaged[entry.name])})")
    return 0


def _key_of(given: str, specs: list[SourceSpec]) -> ApprovalKey | None:
    """The key of the skill the id ``given`` names in the sources given (a server's
    first, then a folder's, of its label); ``None`` when it names none of them."""
    try:
        ident = Identity.parse(given)
    except ValueError:
        return None
    named = sorted((s for s in specs if s.label == ident.label), key=lambda s: s.kind != "mcp")
    return next((k for s in named if (k := _key_at(s, ident.uri)) is not None), None)


def _names_one_approval(given: str) -> bool:
    """Whether ``given`` can name one stored approval only, whatever the sources: a local
    skill's folder (its key) or a storage name (``approvals --json``)."""
    if os.path.isabs(given) or os.path.isdir(given):
        return True
    return ApprovalKey.is_storage_name(given)


def _key_at(spec: SourceSpec, uri: str) -> ApprovalKey | None:
    """The key of the skill at ``uri`` in the source ``spec``, which may no longer list
    it: a server's skill by its ``skill://`` URI, a folder's by ``DIR/SKILL.md`` as `list`
    shows it (its folder's real path); ``None`` when ``uri`` names no such skill. A local
    skill's folder or id given with a server's label is revoked as typed (its key holds
    the folder alone, no endpoint)."""
    if spec.kind == "mcp":
        if not is_server_uri(uri):
            return None
        return ApprovalKey.for_identity(SkillIdentity(spec.origin, uri))
    source = SourceIdentity(spec.label, "local", "folder", os.path.realpath(spec.endpoint))
    folder = SkillIdentity(source, uri).folder()
    return ApprovalKey.for_identity(SkillIdentity(source, uri), folder) if folder else None


def _forms_of(given: str) -> list[str]:
    """``given``, and when it is a folder here, the absolute and the real path it may be
    stored under: a local skill's approval is keyed by its folder's absolute path, and a
    person may type it relative, with a trailing slash, or through a link."""
    forms = [given]
    if os.path.isdir(given):
        for form in (os.path.abspath(given), os.path.realpath(given)):
            if form not in forms:
                forms.append(form)
    return forms

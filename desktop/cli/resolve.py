"""The skill a command line names, by one rule for every command that takes a skill.

A skill is named by any of:

- its id, ``LABEL:URI`` (``docs:skill://pdf/SKILL.md``, ``mine:pdf/SKILL.md``): a server
  skill is asked for with ``skills/get`` alone (the specification's way to get one
  skill), so nothing else is listed and no tool list is asked for;
- its name as ``list`` shows it, ``LABEL:NAME`` or ``LABEL:PATH`` for a server skill,
  or a bare ``NAME``: the sources are listed (only the labelled one when a label is
  given) and the one skill of that name is picked, or the candidates are listed;
- a folder holding a ``SKILL.md`` (a path: ``./pdf``, ``~/skills/pdf``, ``/abs/pdf``;
  a bare word is a folder only when no skill has that name).

When the skill was named otherwise than by its id, :attr:`Picked.said` says which one
was picked. Approvals bind what the listing shows: for them an id is looked up in its
server's listing first (``listed``), and asked for with ``skills/get`` when it is not there.

Sources are listed and skills asked for through the command's catalog session
(:mod:`desktop.cli.command_session`), as the window reaches them through its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.output import CheckFailed, err
from desktop.cli.sources_args import say_source_notes
from desktop.core.catalog import Catalog, build_catalog
from desktop.core.identity import QUALIFIER, is_server_uri, split_label
from desktop.core.model import Skill, SourceSpec, SourceStatus
from desktop.core.visible import one_line

if TYPE_CHECKING:
    from desktop.session.catalog_session import CatalogSession

# How many candidates an ambiguous name lists.
MAX_CANDIDATES = 8
# The help of every command's skill argument.
SKILL_HELP = "a skill: its NAME or LABEL:NAME as list shows it, its id LABEL:URI, or its folder"


@dataclass(slots=True)
class Picked:
    """The skill a target names, or why none (``message``)."""

    target: str
    skill: Skill | None = None
    message: str = ""
    said: str = ""  # which skill was picked, when the target was not its id
    candidates: list[Skill] = field(default_factory=list)

    def chosen(self, command: str) -> Skill:
        """The skill for ``command``: it says which one on stderr when the target was
        not its id; with none, :class:`CheckFailed` says why (the command exits 1)."""
        if self.skill is None:
            say_source_notes()  # a source not read may be why it is not found
            raise CheckFailed(f"skill-catalog {command}: {self.message}")
        if self.said:
            err(f"skill-catalog {command}: {self.said}")
        return self.skill


def _is_path(target: str) -> bool:
    """A folder's path as people type one; a bare word or ``a/b`` is a folder when it
    holds a ``SKILL.md`` (a name with a colon never is: it names a source's skill)."""
    if target in (".", "..") or target.startswith(("~", "./", "../")) or os.path.isabs(target):
        return True
    return QUALIFIER not in target and os.path.isfile(os.path.join(target, "SKILL.md"))


def describe(skill: Skill) -> str:
    """A skill as a choice: what to type, its id and where it comes from."""
    where = one_line(skill.origin.describe())
    return f"{one_line(skill.qualified_name or skill.id)}  (id {one_line(skill.id)}, from {where})"


class Resolver:
    """Resolves targets against the sources of a catalog session, listing each source
    at most once.

    The session lists the sources (:meth:`CatalogSession.read_sources`, as it reads the
    catalog) and asks its servers for a skill by URI (:meth:`CatalogSession.ask_skill`),
    on the connections its reads then use.
    """

    def __init__(self, session: CatalogSession, *, listed: bool = False) -> None:
        self.session = session
        self.specs = [s for s in session.specs if s.enabled]
        # An id as its server lists it (what `list` showed, for approvals), and by
        # skills/get only when the listing lacks it.
        self.listed = listed
        self._listed: dict[str, tuple[SourceStatus, list[Skill]]] = {}
        self._catalogs: dict[tuple[str, ...], Catalog] = {}

    def spec(self, label: str) -> SourceSpec | None:
        return next((s for s in self.specs if s.label == label), None)

    async def pick(self, target: str) -> Picked:
        if _is_path(target):
            return await self._folder(target)
        label, rest = split_label(target) or ("", "")
        spec = self.spec(label) if label else None
        if spec is not None and rest:
            if spec.kind == "mcp" and is_server_uri(rest):
                if self.listed:
                    found = (await self._catalog([spec])).named(target)
                    if len(found) == 1:
                        return Picked(target, found[0])
                return await self._by_uri(target, spec, rest)
            catalog = await self._catalog([spec])
            found = catalog.named(target)
            if not found:  # LABEL:NAME of a skill whose shown name holds its path
                found = [s for s in catalog.skills if s.name == rest]
            picked = self._one(target, found, catalog, f"{label}'s listing")
            if picked.skill is None and not found and spec.kind == "mcp":
                picked.message += (
                    " (a skill its server does not list is asked for by the URI of its "
                    "SKILL.md: LABEL:URI)"
                )
            return picked
        catalog = await self._catalog(self.specs)
        # The name `list` shows first (a server skill's carries its label, so a local
        # skill's is never a server's); else every skill of that name.
        found = catalog.named(target) or [s for s in catalog.skills if s.name == target]
        return self._one(target, found, catalog, "the sources given")

    async def _by_uri(self, target: str, spec: SourceSpec, uri: str) -> Picked:
        from desktop.session.catalog_session import NOT_SERVED

        asked = await self.session.ask_skill(spec.label, uri)
        if asked.skill is not None:  # with its shown name, as `list` gives it
            return Picked(target, build_catalog([], [asked.skill]).skills[0])
        if asked.answer == NOT_SERVED:
            return Picked(target, message=f"no skill {target!r}: {one_line(asked.message)}")
        if not asked.connected:
            return Picked(target, message=f"{spec.label}: {one_line(asked.message)}")
        # A server that answers but not skills/get (-32601 to it included) may still
        # list it.
        catalog = await self._catalog([spec])
        found = catalog.named(target)
        if found:
            return Picked(target, found[0])
        return Picked(
            target,
            message=f"no skill {target!r}: skills/get answered {one_line(asked.message)}, "
            "and its listing has no such skill",
        )

    async def _catalog(self, specs: list[SourceSpec]) -> Catalog:
        todo = [s for s in specs if s.label not in self._listed]
        if todo:
            results = await self.session.read_sources(todo)
            for spec, result in zip(todo, results, strict=True):
                self._listed[spec.label] = result
        key = tuple(s.label for s in specs)
        if key not in self._catalogs:  # built once per set of sources
            chosen = [self._listed[s.label] for s in specs]
            skills = [skill for _, found in chosen for skill in found]
            self._catalogs[key] = build_catalog([status for status, _ in chosen], skills)
        return self._catalogs[key]

    async def _folder(self, target: str) -> Picked:
        from desktop.sources.folder import folder_label

        path = Path(target).expanduser()
        if not (path / "SKILL.md").is_file():
            return Picked(target, message=f"{target!r} is not a skill folder (no SKILL.md in it)")
        real = path.resolve()
        spec = SourceSpec(folder_label(real), "local", "folder", str(real))
        ((status, skills),) = await self.session.read_sources([spec])
        catalog = build_catalog([status], skills)
        found = [s for s in catalog.skills if s.uri == "SKILL.md"]
        if not found:
            return Picked(target, message=f"{target!r}: {one_line(status.message)}")
        return Picked(target, found[0], said=f"{target} is the skill folder {real}")

    def _one(self, target: str, found: list[Skill], catalog: Catalog, where: str) -> Picked:
        if len(found) == 1:
            skill = found[0]
            said = (
                ""
                if target == skill.id
                else f"{target} is {one_line(skill.id)} from {one_line(skill.origin.describe())}"
            )
            return Picked(target, skill, said=said)
        if found:
            found = sorted(found, key=lambda s: s.id)
            shown = "\n".join(f"  {describe(s)}" for s in found[:MAX_CANDIDATES])
            more = (
                f"\n  and {len(found) - MAX_CANDIDATES} more" if len(found) > MAX_CANDIDATES else ""
            )
            ids = ", ".join(one_line(s.id) for s in found[:MAX_CANDIDATES])
            return Picked(
                target,
                message=f"{target!r} names {len(found)} skills; give one id: {ids}\n{shown}{more}",
                candidates=found,
            )
        # A server not trusted is not started: it could not be read either.
        failed = [s for s in catalog.sources if s.state is not None and s.state.unread]
        why = "".join(
            f"; {one_line(s.origin.label)} could not be read: {one_line(s.message)}" for s in failed
        )
        return Picked(target, message=f"no skill {target!r} in {where} (see `list`){why}")


async def pick_skill(specs: list[SourceSpec], target: str, *, listed: bool = True) -> Picked:
    """``target`` resolved against ``specs`` by a session of its own (its connections
    closed after); ``listed``: an id as its server lists it (see :class:`Resolver`)."""
    from desktop.cli.command_session import command_session

    async with command_session(specs) as session:
        return await Resolver(session, listed=listed).pick(target)

"""The kinds of source, by name: the one place a kind is registered.

Each kind registers a :class:`~desktop.sources.base.Kind`: what it is in words and
icons (its :class:`~desktop.core.source_kinds.KindInfo`), its command-line option and
how its value is read, how a saved source of it is read, and the factory of its
sources. The session, the commands, the saved configuration and the views ask here
(or ask a spec's ``kind_info``) instead of comparing kind names.

A new kind is one module in ``desktop/sources/`` defining its ``KIND``, and one line
below (see ``docs/architecture.md``, "How to add a kind").
"""

from __future__ import annotations

from typing import Any

from desktop.core.model import SourceSpec
from desktop.core.source_kinds import describe_kind
from desktop.sources import folder_source, web_index, zip_archive
from desktop.sources.base import Kind, Source, SourceContext
from desktop.sources.git import kind as git_kind
from desktop.sources.mcp import kind as mcp_kind

_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> None:
    """Make ``kind`` known: to the registry, and its words and icons to every view."""
    if kind.option and any(k.option == kind.option for k in _KINDS.values()):
        raise ValueError(f"the option {kind.option} is taken")
    describe_kind(kind.info)
    _KINDS[kind.name] = kind


register(folder_source.KIND)
register(mcp_kind.KIND)
register(zip_archive.KIND)
register(git_kind.KIND)
register(web_index.KIND)


class UnknownKind(ValueError):
    """A kind or a transport no registered kind has."""


def all_kinds() -> tuple[Kind, ...]:
    """Every registered kind, in the order registered."""
    return tuple(_KINDS.values())


def kind_named(name: str) -> Kind:
    """The kind registered as ``name``; :class:`UnknownKind` saying so otherwise."""
    found = _KINDS.get(name)
    if found is None:
        raise UnknownKind(f"unknown kind of source {name!r}")
    return found


def kind_of_transport(transport: str) -> Kind:
    """The kind whose sources are reached by ``transport`` (``folder``, ``stdio``, …)."""
    for kind in _KINDS.values():
        if transport in kind.info.transports:
            return kind
    raise UnknownKind(f"unknown kind of source {transport!r}")


def with_options() -> tuple[Kind, ...]:
    """The kinds that have a command-line option, in the order registered."""
    return tuple(k for k in _KINDS.values() if k.option and k.parse is not None)


def option_dest(kind: Kind) -> str:
    """The attribute ``argparse`` keeps a kind's option values in (``--zip`` → ``zip``)."""
    return kind.option.lstrip("-").replace("-", "_")


def spec_from_fields(label: str, transport: str, where: str) -> SourceSpec:
    """A source of the kind reached by ``transport`` (``sources.json``, the dialog)."""
    return kind_of_transport(transport).from_fields(label, transport, where)


def open_source(spec: SourceSpec, context: SourceContext | None = None) -> Source:
    """A :class:`~desktop.sources.base.Source` of ``spec``, made by its kind."""
    return kind_named(spec.kind).make(spec, context or SourceContext())


def add_kind_options(group: Any) -> None:
    """Each kind's option (``--folder``, ``--server``, ``--zip``, …) added to an
    ``argparse`` group, values kept in a list each."""
    for kind in with_options():
        group.add_argument(
            kind.option,
            action="append",
            default=[],
            dest=option_dest(kind),
            metavar=kind.metavar,
            help=kind.help,
        )


def specs_from_kind_options(args: Any) -> list[SourceSpec]:
    """The sources the kinds' options in ``args`` name, in the kinds' order; a value
    that names none raises :class:`ValueError` saying which option and why."""
    specs: list[SourceSpec] = []
    for kind in with_options():
        assert kind.parse is not None
        for value in getattr(args, option_dest(kind), None) or []:
            try:
                specs.append(kind.parse(value))
            except ValueError as exc:
                said = str(exc)
                if said.startswith(kind.option):
                    raise
                raise type(exc)(f"{kind.option}: {said}") from None
    return specs

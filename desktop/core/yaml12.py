"""YAML 1.2 (core schema) readings through ruamel.yaml: single plain scalars, for the
fast reader, and whole frontmatter texts as an event stream, within the limits of
:mod:`desktop.core.frontmatter`. Imported only when a text holds a scalar YAML 1.1 and
1.2 may read differently (see :mod:`desktop.core.frontmatter_12`)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml import events as ruamel_events
from ruamel.yaml.error import YAMLError as RuamelYAMLError
from ruamel.yaml.nodes import ScalarNode

from desktop.core import frontmatter
from desktop.core.frontmatter import MERGE, Dialect, Refused, to_json_value
from desktop.core.frontmatter_fast import DECLINE, Reader
from desktop.core.model import Problem

_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_FAST_TAGS = frozenset(
    {
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:null",
    }
)
_PLAIN_IMPLICIT = (True, False)


class _Local(threading.local):
    """Per thread: a YAML instance for resolving single scalars (it never parses, so no
    document's ``%YAML`` directive changes its rules)."""

    def __init__(self) -> None:
        self.resolver_yaml = _new_yaml()
        self.resolver = self.resolver_yaml.resolver
        self.constructor = self.resolver_yaml.constructor


def _new_yaml() -> YAML:
    y = YAML(typ="safe", pure=True)
    y.version = (1, 2)
    return y


_LOCAL = _Local()


def _construct(tag: str, value: str, style: str | None) -> Any:
    constructor = _LOCAL.constructor
    fn = type(constructor).yaml_constructors.get(tag)
    if fn is None:
        raise Refused(
            Problem(
                "frontmatter-yaml", f"frontmatter uses the unsupported YAML tag {tag}", "invalid"
            )
        )
    return to_json_value(fn(constructor, ScalarNode(tag, value, style=style)))


def _tag_of(event: Any) -> str:
    tag = event.tag
    if tag is not None and tag != "!":
        return str(tag)
    if not event.implicit[0]:  # quoted or block scalar: a string
        return _STR
    return str(_LOCAL.resolver.resolve(ScalarNode, event.value, event.implicit))


def _scalar_12(event: Any) -> Any:
    tag = _tag_of(event)
    if tag == _MERGE_TAG:
        return MERGE
    if tag in (_STR, _TIMESTAMP):  # JSON has no dates: a timestamp stays its text
        return event.value
    return _construct(tag, event.value, event.style)


def _events(text: str) -> Iterable[Any]:
    events: Iterable[Any] = _new_yaml().parse(text)  # its own parser: a %YAML directive stays its
    return events


YAML_12 = Dialect(
    events=_events,
    scalar_event=ruamel_events.ScalarEvent,
    seq_start=ruamel_events.SequenceStartEvent,
    map_start=ruamel_events.MappingStartEvent,
    seq_end=ruamel_events.SequenceEndEvent,
    map_end=ruamel_events.MappingEndEvent,
    alias=ruamel_events.AliasEvent,
    scalar=_scalar_12,
    errors=(RuamelYAMLError,),
)


def _resolve_plain(value: str) -> Any:
    """A one-line plain scalar's YAML 1.2 value (for the fast reader), or DECLINE."""
    if not value or value[0] not in _IMPLICIT_FIRST:
        return value
    tag = str(_LOCAL.resolver.resolve(ScalarNode, value, _PLAIN_IMPLICIT))
    if tag in (_STR, _TIMESTAMP):
        return value
    if tag not in _FAST_TAGS:
        return DECLINE
    try:
        return _construct(tag, value, None)
    except (ValueError, TypeError, ArithmeticError):
        return DECLINE  # a scalar the library resolves but cannot build (".")


_IMPLICIT_FIRST = frozenset(k for k in _LOCAL.resolver.versioned_resolver if k)
FAST_READER = Reader(_resolve_plain, _IMPLICIT_FIRST)


def differs(text: str) -> bool:
    """Whether YAML 1.2 reads the plain scalar ``text`` otherwise than YAML 1.1 does."""
    other = _resolve_plain(text)
    if other is DECLINE:
        return True  # left to the full second reading
    mine = frontmatter._resolve_plain(text)
    return type(mine) is not type(other) or mine != other

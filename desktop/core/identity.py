"""A skill's identity: which source, which URI. The one place ids are written and read.

- :class:`SourceIdentity` is a source as the user configured it: its label, its kind
  (``local`` or ``mcp``), its transport (``folder``, ``stdio`` or ``http``) and its
  endpoint as written (a folder path, a command line or a URL, placeholders kept).
- :class:`Identity` is what an id says: a source label and a URI, written
  ``LABEL:URI`` (rule I1). :meth:`Identity.parse` reads one, ``str()`` writes it.
- :class:`SkillIdentity` is a source identity and a URI: the whole of what a skill
  is known by. Approval keys (:mod:`desktop.core.approvals`) and the cache's folders
  (:mod:`desktop.store.cache`) are derived from it.

**The same server.** Two sources reach the same server when they have the same
transport and the same endpoint once environment placeholders are filled in
(``${VAR}``, ``${env:VAR}``, ``${VAR:-default}``, from the environment the connection
is made in); keyring and input references stay as written, as they name one secret
whatever it holds. ``serve ${ROOT}`` is another server when ``ROOT`` changes. A folder
source's endpoint is its path, taken as it is. This is :meth:`SourceIdentity.server`;
a skill belongs to its label *and* its server, so a server that takes over a label
never inherits what was approved or cached for the one before.

Pure: no I/O; the environment is read only when none is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from desktop.core.placeholders import expand_env

SourceKind = Literal["local", "mcp"]
Transport = Literal["folder", "stdio", "http"]

# A source label: what the host calls a source. It never contains ':' so that
# "label:uri" ids and "label:name" qualified names split on the first ':'.
# Anchored with \Z (not $, which matches before a final line feed) for any match call.
LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")

# Joins a source label and a URI in an id, and a server label and a skill name in a
# qualified name (I2). The Agent Skills name pattern forbids it, so a qualified name
# can only have been built by the host.
QUALIFIER = ":"

SKILL_MD = "SKILL.md"


def skill_id(label: str, uri: str) -> str:
    """A skill's id: its source label and URI, joined by the qualifier (I1)."""
    return f"{label}{QUALIFIER}{uri}"


def qualified_name(label: str, name: str) -> str:
    """A server skill's name as lists show it: its label and its name (I2)."""
    return f"{label}{QUALIFIER}{name}"


def split_label(text: str) -> tuple[str, str] | None:
    """``(label, rest)`` when ``text`` starts with a source label and the qualifier (an
    id ``LABEL:URI`` or a qualified name ``LABEL:NAME``); ``None`` otherwise."""
    label, sep, rest = text.partition(QUALIFIER)
    if not sep or not LABEL_RE.match(label):
        return None
    return label, rest


def is_server_uri(uri: str) -> bool:
    """Whether ``uri`` is a server's URI (``skill://…``), not a path in a folder."""
    return "://" in uri


@dataclass(frozen=True, slots=True, order=True)
class Identity:
    """(source label, URI): the only key a skill is ever stored or looked up by (I1)."""

    label: str
    uri: str

    @property
    def id(self) -> str:
        return skill_id(self.label, self.uri)

    @classmethod
    def parse(cls, text: str) -> Identity:
        """The id ``text`` says; :class:`ValueError` saying what is wrong when it is none.

        The label ends at the first ``:`` (a label never holds one); the URI is the
        rest, colons included.
        """
        label, sep, uri = text.partition(QUALIFIER)
        if not sep:
            why = "there is no ':' between a label and a URI"
        elif not label:
            why = "the label before ':' is empty"
        elif not LABEL_RE.match(label):
            why = (
                f"the label {label!r} is not one (letters, digits, '.', '_' and '-', "
                "starting with a letter or digit, at most 64)"
            )
        elif not uri:
            why = "the URI after ':' is empty"
        else:
            return cls(label, uri)
        raise ValueError(f"not a skill id (expected LABEL:URI): {text!r}: {why}")

    def __str__(self) -> str:
        return self.id


@dataclass(frozen=True, slots=True)
class SourceIdentity:
    """A source as the user configured it: label, kind, transport, endpoint as written.

    ``endpoint`` is the resolved folder path, the command line, or the URL, with its
    placeholders as written.
    """

    label: str
    kind: SourceKind
    transport: Transport
    endpoint: str

    def server(self, environ: Mapping[str, str] | None = None) -> tuple[str, str]:
        """What the source reaches: (transport, endpoint with environment placeholders
        filled in from ``environ``, the process's by default). Two sources reach the
        same server when these are equal (the module's rule)."""
        if self.kind == "local":
            return self.transport, self.endpoint
        return self.transport, expand_env(self.endpoint, os.environ if environ is None else environ)

    def same_server(self, other: SourceIdentity, environ: Mapping[str, str] | None = None) -> bool:
        """Whether ``other`` reaches the server this source reaches (any label)."""
        return self.server(environ) == other.server(environ)


@dataclass(frozen=True, slots=True)
class SkillIdentity:
    """A skill's source (as configured) and its URI.

    ``uri`` is the ``SKILL.md`` URI of a server skill, or the path of ``SKILL.md``
    relative to the folder source for a local one.
    """

    source: SourceIdentity
    uri: str

    @property
    def label(self) -> str:
        return self.source.label

    @property
    def id(self) -> Identity:
        return Identity(self.source.label, self.uri)

    def __str__(self) -> str:
        return skill_id(self.source.label, self.uri)

    def folder(self) -> str | None:
        """The folder a local skill at this URI lives in (its source's endpoint joined
        with the URI's folders, ``DIR/SKILL.md`` as ids write it); ``None`` for a server
        skill or a URI that names no ``SKILL.md`` inside the folder source."""
        if self.source.kind != "local":
            return None
        if self.uri == SKILL_MD:
            return self.source.endpoint
        if not self.uri.endswith("/" + SKILL_MD):
            return None
        parts = self.uri[: -len(SKILL_MD) - 1].split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        return self.source.endpoint + os.sep + os.sep.join(parts)

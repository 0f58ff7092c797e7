"""A skill's identity: which source, which URI. The one place ids are written and read.

- :class:`SourceIdentity` is a source as the user configured it: its label, its kind
  (``local`` or ``mcp``), its transport (``folder``, ``stdio`` or ``http``) and its
  endpoint as written (a folder path, a command line or a URL, placeholders kept).
- :class:`Identity` is what an id says: a source label and a URI, written
  ``LABEL:URI``. :meth:`Identity.parse` reads one, ``str()`` writes it.
- :class:`SkillIdentity` is a source identity and a URI: the whole of what a skill
  is known by. Approval keys (:mod:`desktop.core.approvals`) and the cache's folders
  (:mod:`desktop.store.cache`) are derived from it.

**The same server.** A server is identified by how it is reached: its transport and its
endpoint, composed by :func:`server_key` into a :class:`ServerKey`. That one key names
the server in approval keys (:mod:`desktop.core.approvals`), in the cache's folder
names (:mod:`desktop.store.cache`) and in sign-in entries (:mod:`desktop.sources.mcp.signin`),
so the three never disagree on whether two sources reach the same server. Why these:

- The transport is part of it: a command line and a URL never name one server, and a
  text that reads as both (a path) must not make an ``http`` source inherit what a
  ``stdio`` one was granted.
- The endpoint is taken with environment placeholders filled in (``${VAR}``,
  ``${env:VAR}``, ``${VAR:-default}``, from the environment the connection is made in):
  ``serve ${ROOT}`` is another server when ``ROOT`` changes. Keyring and input
  references stay as written: they name one secret whatever it holds, and a secret's
  value never becomes part of a key.
- An HTTP endpoint is the URL as a client sends it: scheme and host in lower case, the
  scheme's default port left out, an empty path written ``/``, the fragment (never sent)
  dropped; the path and query are kept as written, as a server may tell them apart.
- A stdio endpoint is the command line split as a shell splits it and joined again, so
  spacing and quoting that run the same program the same way are one server.
- A folder's endpoint is its resolved path (resolved when the source is read; here
  only normalized, as this module does no I/O).

A skill belongs to its label *and* its server, so a server that takes over a label never
inherits what was approved or cached for the one before; the label is added by each
key that uses the server key, not by the server key itself. :meth:`SourceIdentity.server`
is a source's server key; :meth:`SourceIdentity.same_server` compares two.

Versions before the server key (up to 3f4c5c9) composed it three ways: approval keys
without the transport, cache folders with it, sign-in entries from the label and the
endpoint, none of them normalized. :func:`legacy_endpoint` is what they all took as
the endpoint; each store finds its older entries by it and moves them under the new key.

Pure: no I/O; the environment is read only when none is given.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from desktop.core.placeholders import expand_env

SourceKind = Literal["local", "mcp"]
Transport = Literal["folder", "stdio", "http"]

# A source label: what the host calls a source. It never contains ':' so that
# "label:uri" ids and "label:name" qualified names split on the first ':'.
# Anchored with \Z (not $, which matches before a final line feed) for any match call.
LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")

# Joins a source label and a URI in an id, and a server label and a skill name in a
# qualified name. The Agent Skills name pattern forbids it, so a qualified name
# can only have been built by the host.
QUALIFIER = ":"

SKILL_MD = "SKILL.md"


def skill_id(label: str, uri: str) -> str:
    """A skill's id: its source label and URI, joined by the qualifier."""
    return f"{label}{QUALIFIER}{uri}"


def qualified_name(label: str, name: str) -> str:
    """A server skill's name as lists show it: its label and its name."""
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
    """(source label, URI): the only key a skill is ever stored or looked up by."""

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

    def server(self, environ: Mapping[str, str] | None = None) -> ServerKey:
        """The server this source reaches (:func:`server_key`), environment placeholders
        filled in from ``environ``, the process's by default."""
        return server_key(self.kind, self.transport, self.endpoint, environ)

    def same_server(self, other: SourceIdentity, environ: Mapping[str, str] | None = None) -> bool:
        """Whether ``other`` reaches the server this source reaches (any label)."""
        return self.server(environ) == other.server(environ)

    def legacy_endpoint(self, environ: Mapping[str, str] | None = None) -> str:
        """The endpoint as versions before the server key took it (:func:`legacy_endpoint`)."""
        return legacy_endpoint(self.kind, self.endpoint, environ)


class ServerKey(NamedTuple):
    """What identifies a server: its transport and its normalized endpoint (the module's
    rule). ``str()`` is the text keys are derived from: ``TRANSPORT ENDPOINT``."""

    transport: str
    endpoint: str

    def __str__(self) -> str:
        return f"{self.transport} {self.endpoint}"


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _normal_url(url: str) -> str:
    """An HTTP(S) URL as a client sends it (see the module); anything that does not
    parse as one is kept as written."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or "${" in parts.netloc:
        return url  # a host still a placeholder is kept as written, case and all
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _normal_command(line: str) -> str:
    """A command line split as a shell splits it and joined again; kept as written when
    it does not split (an unclosed quote)."""
    try:
        argv = shlex.split(line)
    except ValueError:
        return line
    return shlex.join(argv) if argv else line


def server_key(
    kind: SourceKind, transport: Transport, endpoint: str, environ: Mapping[str, str] | None = None
) -> ServerKey:
    """The key of the server a source of this kind, transport and endpoint (as written)
    reaches: the one function approvals, the cache and sign-in derive their keys from.
    Environment placeholders are filled in from ``environ`` (the process's by default)."""
    if kind == "local":
        return ServerKey(transport, os.path.normpath(endpoint) if endpoint else endpoint)
    filled = expand_env(endpoint, os.environ if environ is None else environ)
    if transport == "http":
        return ServerKey(transport, _normal_url(filled))
    return ServerKey(transport, _normal_command(filled))


def legacy_endpoint(
    kind: SourceKind, endpoint: str, environ: Mapping[str, str] | None = None
) -> str:
    """The endpoint versions before the server key (up to 3f4c5c9) keyed by: a server's
    with environment placeholders filled in, not normalized; a folder's as written."""
    if kind == "local":
        return endpoint
    return expand_env(endpoint, os.environ if environ is None else environ)


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

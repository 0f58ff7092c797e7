"""Sources named by a person: ``--folder``/``--server`` values and the window's source dialog.

One rule for both the command line and the window: a folder is ``[LABEL=]DIR`` (the label
defaults to the folder's name), a server is ``LABEL=COMMAND ARGS...`` (stdio, split like a
shell line) or ``LABEL=http(s)://...`` (Streamable HTTP). A server always needs a label
of its own; folders whose names clash get ``-2``, ``-3``... appended.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from desktop.core.identity import LABEL_RE
from desktop.core.model import SourceSpec
from desktop.core.secrets import has_placeholders
from desktop.core.visible import cut_repr
from desktop.sources.folder import folder_label, parent_label

LABEL_RULE = "letters, digits, '.', '_' and '-' (no ':')"


class SourceOptionError(ValueError):
    """A source a person named cannot be used; the message says why."""


ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A header name is an HTTP token (RFC 9110).
HEADER_NAME_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
MAX_PAIRS = 100
MAX_PAIR_CHARS = 16 * 1024


def parse_pairs(values: Iterable[str], what: str) -> tuple[tuple[str, str], ...]:
    """``NAME=VALUE`` values (for headers ``Name: value`` too) as (name, value) pairs.

    ``what`` is ``env`` or ``header``. A name given twice, a name that is not a variable
    name or an HTTP header name, and a value with a line break or another control
    character are refused, with why."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    noun = "an environment value" if what == "env" else "a header"
    for raw in values:
        if len(out) >= MAX_PAIRS:
            raise SourceOptionError(f"more than {MAX_PAIRS} {what} values")
        if len(raw) > MAX_PAIR_CHARS:
            raise SourceOptionError(f"{noun} is longer than {MAX_PAIR_CHARS:,} characters")
        cut = [i for i in (raw.find("="), raw.find(":") if what == "header" else -1) if i > 0]
        if not cut:
            form = "NAME=VALUE" if what == "env" else "NAME=VALUE or NAME: VALUE"
            raise SourceOptionError(f"{noun} is written {form}, got {cut_repr(raw[:40])}")
        at = min(cut)
        name, value = raw[:at].strip(), raw[at + 1 :]
        if what == "header":
            value = value.strip()
        rule = ENV_NAME_RE if what == "env" else HEADER_NAME_RE
        if not rule.match(name):
            kind = "variable" if what == "env" else "header"
            raise SourceOptionError(f"{cut_repr(name)} is not a {kind} name")
        if any(ord(c) < 32 and c != "\t" or ord(c) == 127 for c in value):
            raise SourceOptionError(f"the value of {name} holds a line break or control character")
        key = name.casefold() if what == "header" else name
        if key in seen:
            raise SourceOptionError(f"{name} is given twice")
        seen.add(key)
        out.append((name, value))
    return tuple(out)


def source_from_fields(
    label: str,
    kind: str,
    where: str,
    *,
    env: Iterable[tuple[str, str]] = (),
    headers: Iterable[tuple[str, str]] = (),
) -> SourceSpec:
    """A source from a label, a kind (``folder``, ``stdio`` or ``http``) and where it is,
    with the environment values of a command's server and the headers of a URL's."""
    env, headers = tuple(env), tuple(headers)
    if env and kind != "stdio":
        raise SourceOptionError(
            "environment values are for a server started with a command, not a URL or folder"
        )
    if headers and kind != "http":
        raise SourceOptionError("headers are for a server at a URL, not a command or folder")
    spec = _source_from_fields(label, kind, where)
    return replace(spec, env=env, headers=headers) if env or headers else spec


def _source_from_fields(label: str, kind: str, where: str) -> SourceSpec:
    where = where.strip()
    label = label.strip()
    if not where:
        raise SourceOptionError("enter a folder, a command or a URL")
    if kind == "folder":
        path = Path(where).expanduser()
        label = label or folder_label(path)
        if not LABEL_RE.match(label):
            raise SourceOptionError(f"the label {label!r} may use {LABEL_RULE} only")
        return SourceSpec(label, "local", "folder", str(path.resolve()))
    if not label or not LABEL_RE.match(label):
        raise SourceOptionError(f"a server needs a label (LABEL=...) of {LABEL_RULE}")
    if kind == "http":
        if not where.startswith(("http://", "https://")):
            raise SourceOptionError("a server URL starts with http:// or https://")
        _check_url(where)
        return SourceSpec(label, "mcp", "http", where)
    try:
        argv = tuple(shlex.split(where))
    except ValueError as exc:
        raise SourceOptionError(f"cannot split the command line: {exc}") from None
    if not argv:
        raise SourceOptionError("enter the command that starts the server")
    return SourceSpec(label, "mcp", "stdio", shlex.join(argv), command=argv)


def _check_url(url: str) -> None:
    """A URL no connection could use is refused here, with why (a missing host, a port
    out of range), not reported later as a server that cannot be reached."""
    from urllib.parse import urlsplit

    if has_placeholders(url):
        return  # checked once its placeholders are filled in, at connect time
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise SourceOptionError(f"not a usable URL: {exc}") from None
    if not parts.hostname:
        raise SourceOptionError(f"the URL {url!r} names no host")
    if port == 0:
        raise SourceOptionError(f"the URL {url!r} names port 0")


def split_label(value: str) -> tuple[str, str]:
    """``LABEL=REST`` → (label, rest); without a valid label → ("", value)."""
    label, sep, rest = value.partition("=")
    if sep and LABEL_RE.match(label):
        return label, rest
    return "", value


def parse_folder(value: str) -> SourceSpec:
    """A ``--folder [LABEL=]DIR`` value."""
    label, rest = split_label(value)
    if not label:
        meant, sep, after = value.partition("=")
        if sep and not any(c in meant for c in "/\\ ~."):
            # A label was meant (no path reads like "name=..."); say what is wrong with it.
            if not meant:
                return source_from_fields("", "folder", after)
            raise SourceOptionError(f"the label {meant!r} may use {LABEL_RULE} only")
    return source_from_fields(label, "folder", rest)


def parse_server(value: str) -> SourceSpec:
    """A ``--server LABEL=COMMAND|URL`` value."""
    label, rest = split_label(value)
    meant, sep, _ = value.partition("=")
    if not label and sep and meant.strip() and " " not in meant.strip():
        raise SourceOptionError(f"--server: the label {meant!r} may use {LABEL_RULE} only")
    if not label or not rest.strip():
        raise SourceOptionError(f"--server needs LABEL=COMMAND or LABEL=URL, got {value!r}")
    kind = "http" if rest.strip().startswith(("http://", "https://")) else "stdio"
    try:
        return source_from_fields(label, kind, rest)
    except SourceOptionError as exc:
        raise SourceOptionError(f"--server {label}: {exc}") from None


def unique_labels(specs: Iterable[SourceSpec]) -> list[SourceSpec]:
    """Distinct labels: a clashing folder is named by its parent too (``copilot-skills``)
    or, failing that, numbered; clashing servers are refused."""
    seen: set[str] = set()
    out: list[SourceSpec] = []
    for spec in specs:
        label = spec.label
        if label in seen:
            if spec.kind_info.runs_code:
                raise SourceOptionError(
                    f"the label {label!r} is used twice; every source needs its own label"
                )
            named = parent_label(spec.endpoint, label) if spec.kind_info.folder_on_disk else ""
            if named and named not in seen:
                label = named
            else:
                n = 2
                while f"{label}-{n}" in seen:
                    n += 1
                label = f"{label}-{n}"
            spec = replace(spec, label=label)
        seen.add(label)
        out.append(spec)
    return out


def specs_from_options(
    folders: Iterable[str],
    servers: Iterable[str],
    configs: Iterable[str],
    report: Callable[[str], None],
    unreadable: list[str] | None = None,
    *,
    parsed: Iterable[SourceSpec] = (),
) -> list[SourceSpec] | None:
    """The sources the options name, or ``None`` when none was given.

    ``report`` receives one line per problem found in a client config file; the servers
    that could be read are still used. ``unreadable`` receives each config file of
    which no server could be read (the file is not understood, or every entry is bad).
    ``parsed`` are sources read already from their kinds' options
    (:func:`desktop.sources.kinds.specs_from_kind_options`).
    """
    folders, servers, configs, parsed = list(folders), list(servers), list(configs), list(parsed)
    if not (folders or servers or configs or parsed):
        return None
    specs = [parse_folder(v) for v in folders]
    specs.extend(parse_server(v) for v in servers)
    specs.extend(parsed)
    if configs:
        from desktop.sources.config import saved as config

        for path in configs:
            if not Path(path).expanduser().is_file():
                # Named on purpose: a mistake in the command, not a source that failed.
                raise SourceOptionError(f"--config {path}: no such file")
            result = config.load_config_file(path, [s.label for s in specs])
            if unreadable is not None and result.problems and not result.servers:
                unreadable.append(path)
            for problem in result.problems:
                report(
                    f"{problem[0]}: {problem[1]}" if isinstance(problem, tuple) else str(problem)
                )
            for server in result.servers:
                same = next((s for s in specs if config.same_server(s, server.spec)), None)
                if same is not None:
                    # One server configured in two files is one source, as detection has it.
                    report(f"{path}: server {server.server_id!r} is {same.label!r} already")
                    continue
                if server.label != server.server_id:
                    # Labels are part of a server's identity (approvals): never renamed silently.
                    sid, label = cut_repr(server.server_id), cut_repr(server.label)
                    report(f"{path}: server {sid} is labelled {label}")
                where = (server.client, str(server.source_file))
                specs.append(replace(server.spec, imported_from=where))
    return unique_labels(specs)

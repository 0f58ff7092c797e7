"""Shared parts of the importers: JSON with comments, labels, one server entry to a spec."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from desktop.core.identity import LABEL_RE
from desktop.core.model import SourceSpec
from desktop.core.trust import EntryTooDeep, entry_digest
from desktop.core.visible import cut_repr
from desktop.sources.config.importers.base import ImportedServer, ImportResult

# ~/.claude.json also keeps per-project history and grows to tens of MiB; every other
# client config is a short list of servers.
MAX_CONFIG_BYTES = 64 * 1024 * 1024
MAX_SERVER_LIST_BYTES = 4 * 1024 * 1024


def size_limit(path: Path) -> int:
    """How much of a config file is read: see :data:`MAX_CONFIG_BYTES`."""
    return MAX_CONFIG_BYTES if path.name == ".claude.json" else MAX_SERVER_LIST_BYTES


SSE_UNSUPPORTED = (
    "uses the SSE transport, which Skill Catalog does not speak (it speaks stdio and "
    "Streamable HTTP); if the server also serves Streamable HTTP, add its URL with --server"
)


class ConfigError(ValueError):
    """A whole file cannot be understood; the message says why."""


def read_text(path: Path) -> str:
    """The file's text, or :class:`ConfigError` with a reason a user can act on."""
    limit = size_limit(path)
    try:
        size = path.stat().st_size
        if size > limit:
            raise ConfigError(_too_large(size, limit))
        with path.open("rb") as fh:
            data = fh.read(limit + 1)  # a file growing meanwhile is read no further
        if len(data) > limit:
            raise ConfigError(_too_large(len(data), limit))
    except FileNotFoundError:
        raise ConfigError("file not found") from None
    except IsADirectoryError:
        raise ConfigError("is a directory, not a file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text") from None


def _too_large(size: int, limit: int) -> str:
    return (
        f"file is {size:,} bytes; a config file of this kind is read up to "
        f"{limit // (1024 * 1024)} MiB, so it is not read"
    )


def strip_jsonc(text: str) -> str:
    """JSON with ``//`` and ``/* */`` comments and trailing commas, as plain JSON.

    Characters inside strings are kept as they are; line numbers are preserved so
    that a parse error still points at the right line. Two regular-expression passes
    (each linear in the text: no pattern can backtrack over what it matched).
    """

    def uncomment(m: re.Match[str]) -> str:
        code, comment = m.group(1), m.group(2)
        if not comment or comment.startswith("//"):
            return code
        if not comment.endswith("*/") or len(comment) < 4:
            raise ConfigError("a /* comment is never closed")
        return code + "\n" * comment.count("\n")

    out = _COMMENT_RE.sub(uncomment, text)
    # Trailing commas are removed outside strings only.
    return _TRAILING_COMMA_RE.sub(r"\1", out)


# A JSON string; an unclosed one runs to the end, for the JSON parser to report.
_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?'
# Each match: a run without comments (strings in it are whole), then one comment (a
# line comment, a closed block comment, or an unclosed one to the end) or the end.
# Possessive: nothing matched is ever backtracked over, so each pass is linear.
_COMMENT_RE = re.compile(
    r"((?:[^\"/]++|" + _STRING + r"|/(?![/*]))*+)(//[^\n]*+|/\*.*?\*/|/\*.*+)?", re.DOTALL
)
# Each match: a run without trailing commas, then a comma before a closing bracket (or
# the end): every position is matched once.
_TRAILING_COMMA_RE = re.compile(
    r"((?:[^\",]++|" + _STRING + r"|,(?!\s*+[}\]]))*+)(?:,(?=\s*+[}\]])|\Z)", re.DOTALL
)


# A file nested deeper than the parser's recursion allows (a hostile project's config).
TOO_DEEP = "nested too deeply to read"


def parse_json(text: str) -> Any:
    """Parse JSON, allowing comments and trailing commas (VS Code's JSONC)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise ConfigError(TOO_DEEP) from None
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise ConfigError(TOO_DEEP) from None


def load_json_file(path: Path) -> Any:
    return parse_json(read_text(path))


def load_json_object(path: Path, result: ImportResult) -> dict[str, Any] | None:
    """The file's JSON object, or ``None`` with the reason added to ``result``'s problems."""
    try:
        data = load_json_file(path)
    except ConfigError as exc:
        result.problems.append((str(path), str(exc)))
        return None
    if not isinstance(data, dict):
        result.problems.append((str(path), "the file does not hold a JSON object"))
        return None
    return data


def app_config_paths(environ: Mapping[str, str], home: Path, *rel: str) -> list[Path]:
    """``rel`` under an application's config folder on Linux, macOS and Windows.

    All three places are looked at on every system (only existing files are read), so
    a config copied from another machine, or a test's fake APPDATA, is found.
    """
    xdg = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    paths = [Path(xdg, *rel), home.joinpath("Library", "Application Support", *rel)]
    if environ.get("APPDATA"):
        paths.append(Path(environ["APPDATA"], *rel))
    return paths


def proposed_label(server_id: str, fallback: str) -> str:
    """A label that matches LABEL_RE, made from the file's own name for the server."""
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", server_id).strip("-._")[:64]
    if not label or not LABEL_RE.match(label):
        label = fallback
    return label


class LabelAllocator:
    """Hands out labels unique among everything it has seen."""

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._taken = {t.casefold() for t in taken}

    def reserve(self, label: str) -> None:
        self._taken.add(label.casefold())

    def is_free(self, label: str) -> bool:
        return label.casefold() not in self._taken

    def take(self, base: str, hint: str = "") -> str:
        candidates = [base]
        if hint:
            candidates.append(f"{base}-{hint}")
        for c in candidates:
            c = c[:64]
            if self.is_free(c):
                self.reserve(c)
                return c
        n = 2
        while True:
            c = f"{base[:58]}-{n}"
            if self.is_free(c):
                self.reserve(c)
                return c
            n += 1


def _str_map(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be an object of names to values")
    out: list[tuple[str, str]] = []
    for k, v in value.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, int | float):
            v = str(v)
        if not isinstance(v, str):
            raise ConfigError(f"{what} {k!r} must be a string")
        out.append((str(k), v))
    return tuple(out)


def _str_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(f"{what} must be a list of strings")
    out: list[str] = []
    for v in value:
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = str(v)
        if not isinstance(v, str):
            raise ConfigError(f"{what} must be a list of strings")
        out.append(v)
    return out


def substitute_paths(value: str, variables: Mapping[str, str]) -> str:
    """Replace editor path variables (``${workspaceFolder}``, ``${userHome}``) we know."""
    for name, path in variables.items():
        value = value.replace("${" + name + "}", path)
    return value


def spec_from_entry(
    label: str,
    entry: Any,
    *,
    url_keys: tuple[str, ...] = ("url",),
    headers_key: str = "headers",
    path_vars: Mapping[str, str] | None = None,
) -> tuple[SourceSpec, list[str]]:
    """A :class:`SourceSpec` from one ``command``/``url`` server entry.

    Returns the spec and notes; raises :class:`ConfigError` with the reason when the
    entry cannot be understood (the caller records it as a problem for this server).
    """
    if not isinstance(entry, Mapping):
        raise ConfigError("the entry is not an object")
    notes: list[str] = []
    pv = path_vars or {}
    raw_type = entry.get("type", entry.get("transport"))
    if raw_type is not None and not isinstance(raw_type, str):
        raise ConfigError("'type' must be a string")
    kind = (raw_type or "").strip().lower().replace("_", "-")
    url = next((entry[k] for k in url_keys if k in entry), None)
    command = entry.get("command")
    if not kind:
        kind = "stdio" if command is not None else ("http" if url is not None else "")
    if kind in ("sse",):
        raise ConfigError(SSE_UNSUPPORTED)
    enabled = not bool(entry.get("disabled", False)) and entry.get("enabled", True) is not False
    if kind in ("stdio", "local"):
        if not isinstance(command, str) or not command.strip():
            raise ConfigError("a stdio server needs a 'command' string")
        args = _str_list(entry.get("args"), "'args'")
        argv = tuple(substitute_paths(a, pv) for a in [command, *args])
        env = tuple((k, substitute_paths(v, pv)) for k, v in _str_map(entry.get("env"), "env"))
        if entry.get("envFile"):
            notes.append("envFile is not read; set those variables in the environment")
        if entry.get("cwd"):
            notes.append("cwd is not applied; the server starts in the catalog's directory")
        spec = SourceSpec(
            label=label,
            kind="mcp",
            transport="stdio",
            endpoint=shlex.join(argv),
            command=argv,
            env=env,
            enabled=enabled,
        )
        return spec, notes
    if kind in ("http", "streamable-http", "streamablehttp", "remote"):
        if not isinstance(url, str) or not url.strip():
            raise ConfigError("an http server needs a 'url' string")
        url = substitute_paths(url.strip(), pv)
        if not re.match(r"^(https?://|\$\{)", url, re.IGNORECASE):
            raise ConfigError(f"the url must start with http:// or https:// (got {url[:60]!r})")
        headers = _str_map(entry.get(headers_key), headers_key)
        spec = SourceSpec(
            label=label,
            kind="mcp",
            transport="http",
            endpoint=url,
            headers=headers,
            enabled=enabled,
        )
        return spec, notes
    if not kind:
        raise ConfigError("neither 'command' nor 'url' is given")
    raise ConfigError(f"unknown transport type {raw_type!r}")


def import_server_map(
    servers: Any,
    *,
    client: str,
    file: Path,
    result: ImportResult,
    labels: LabelAllocator,
    label_hint: str,
    where: str = "mcpServers",
    adapt: Callable[[Any], tuple[Any, list[str]]] | None = None,
    **entry_kwargs: Any,
) -> None:
    """Import every ``id: entry`` of a server map into ``result``; bad entries become problems.

    ``adapt`` turns a client's own entry into the shape :func:`spec_from_entry` reads
    (with notes); trust stays bound to the entry as written."""
    if servers is None:
        return
    if not isinstance(servers, Mapping):
        result.problems.append((str(file), f"'{where}' is not an object"))
        return
    for server_id, entry in servers.items():
        sid = str(server_id)
        label = labels.take(proposed_label(sid, label_hint), label_hint)
        try:
            adapted, adapt_notes = adapt(entry) if adapt is not None else (entry, [])
            spec, notes = spec_from_entry(label, adapted, **entry_kwargs)
            notes = [*notes, *adapt_notes]
            digest = entry_digest(entry)
        except (ConfigError, EntryTooDeep) as exc:
            result.problems.append((str(file), f"server {cut_repr(sid)} in '{where}': {exc}"))
            continue
        result.servers.append(
            ImportedServer(
                label=label,
                spec=spec,
                source_file=str(file),
                client=client,
                server_id=sid,
                notes=tuple(notes),
                digest=digest,
            )
        )

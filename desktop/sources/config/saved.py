"""The user's saved sources, and the sources used when none are named.

The saved configuration is one JSON file, ``sources.json`` under the platform's user
config folder for ``skill-catalog`` (``$XDG_CONFIG_HOME/skill-catalog`` on Linux),
shared by the CLI and the window. It holds the folders and servers the user added or
kept from an import, with their enabled flags, and the detected sources the user
switched off.

:func:`default_sources` is what the CLI (with no source option) and the window use:
saved sources, then on a first run (nothing saved) the bundled samples, then the
detected skill folders, then the servers found in other clients' config files. Labels
are unique across all of them.

Secrets are never written to the file: a literal secret in a header or env value is
moved to the OS keyring and replaced by a ``${keyring:ENTRY}`` reference; without a
usable keyring the source is not saved and a message says why.

Kept as one module: the one reader and writer of ``sources.json``: its format, the first
run's samples, detection, imports and unique labels all decide what one saved list
holds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop.core.identity import LABEL_RE
from desktop.core.model import SourceSpec
from desktop.core.placeholders import find_placeholders
from desktop.core.source_kinds import is_known
from desktop.core.trust import ProjectServer, waiting
from desktop.core.visible import cut_repr, json_excerpt
from desktop.sources.config import importers
from desktop.sources.config.importers import ImportedServer, ImportResult, LabelAllocator
from desktop.sources.config.known_folders import KnownFolder, detect_known_folders, holds_a_skill
from desktop.sources.config.secrets import (
    KEYRING_SERVICE,
    KeyringSecrets,
    SecretStore,
    secret_entry,
    secret_lookup,
    secure_spec,
)
from desktop.sources.config.settings_file import locked, write_json
from desktop.sources.config.trust_store import TrustStore, load_trust
from desktop.sources.config.user_dirs import APP_NAME, config_dir
from desktop.sources.folder import parent_label
from desktop.sources.launchers import parse_timeout

__all__ = [
    "KEYRING_SERVICE",
    "Config",
    "KeyringSecrets",
    "SavedSource",
    "SecretStore",
    "SourceEntry",
    "Sources",
    "bundled_sources",
    "collect_sources",
    "config_path",
    "default_sources",
    "editing",
    "first_run_config",
    "load_config",
    "load_config_file",
    "resources_dir",
    "sample_server_command",
    "save_config",
    "secret_entry",
    "secret_lookup",
]

CONFIG_FILE = "sources.json"
FORMAT_VERSION = 1
SAMPLES_LABEL = "samples"
SAMPLE_SERVER_LABEL = "sample-server"


# --- where things are ---------------------------------------------------------------


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    return config_dir(environ) / CONFIG_FILE


def resources_dir() -> Path | None:
    """The bundled ``resources/`` folder: PyInstaller bundle, source checkout or install."""
    candidates: list[Path] = []
    env_dir = os.environ.get("SKILL_CATALOG_RESOURCES")
    if env_dir:
        candidates.append(Path(env_dir))
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        candidates.append(Path(meipass) / "resources")
    package = Path(__file__).resolve().parents[2]  # desktop/
    candidates += [
        package / "resources",  # resources shipped inside the package
        package.parent / "resources",  # a source checkout
        Path(sys.prefix) / "share" / APP_NAME / "resources",  # data files of an install
    ]
    for c in candidates:
        if (c / "skills").is_dir() or (c / "sample-server").is_dir():
            return c
    return None


def sample_server_command(folder: Path) -> tuple[str, ...]:
    """``skill-catalog serve FOLDER`` with this very program, frozen or not."""
    if getattr(sys, "frozen", False):
        exe = Path(sys.executable)
        # The bundle's window executable opens the window whatever its arguments: the
        # server is started with the command-line executable beside it.
        if exe.name.startswith("skill-catalog-window"):
            cli = exe.with_name("skill-catalog" + exe.suffix)
            if cli.exists():
                exe = cli
        return (str(exe), "serve", str(folder))
    return (sys.executable, "-m", "desktop", "serve", str(folder))


def bundled_sources() -> list[SourceSpec]:
    """The sample folder and the sample server shown on a first run (those that exist)."""
    res = resources_dir()
    if res is None:
        return []
    out: list[SourceSpec] = []
    if (res / "skills").is_dir():
        folder = str((res / "skills").resolve())
        out.append(SourceSpec(SAMPLES_LABEL, "local", "folder", folder, sample=True))
    if (res / "sample-server").is_dir():
        argv = sample_server_command((res / "sample-server").resolve())
        out.append(
            SourceSpec(SAMPLE_SERVER_LABEL, "mcp", "stdio", shlex.join(argv), argv, sample=True)
        )
    return out


# --- the saved file -----------------------------------------------------------------


@dataclass(slots=True)
class SavedSource:
    """A source the user added, kept from an import, or a bundled sample."""

    spec: SourceSpec
    bundled: str | None = None  # "samples" | "sample-server": resolved at load time
    imported_from: dict[str, str] | None = None  # file, client, server_id

    def to_json(self) -> dict[str, Any]:
        if self.bundled:
            return {"bundled": self.bundled, "label": self.spec.label, "enabled": self.spec.enabled}
        s = self.spec
        out: dict[str, Any] = {
            "label": s.label,
            "kind": s.kind,
            "transport": s.transport,
            "endpoint": s.endpoint,
            "enabled": s.enabled,
        }
        if s.command:
            out["command"] = list(s.command)
        if s.env:
            out["env"] = dict(s.env)
        if s.headers:
            out["headers"] = dict(s.headers)
        if s.agent:
            out["agent"] = s.agent
        if s.connect_timeout is not None:
            out["connect_timeout"] = s.connect_timeout
        if self.imported_from:
            out["imported_from"] = dict(self.imported_from)
        return out


@dataclass(slots=True)
class Config:
    """The saved configuration. ``exists`` is False on a first run."""

    sources: list[SavedSource] = field(default_factory=list)
    switched_off: set[str] = field(default_factory=set)
    exists: bool = False
    problems: list[str] = field(default_factory=list)
    # Saved entries this version could not use, written back as they were, so that
    # saving never loses what it did not understand.
    left_out: list[Any] = field(default_factory=list)
    # Why the file must not be written at all (it could not be read, or a newer
    # version wrote it): saving it would replace what it holds.
    unwritable: str | None = None

    def labels(self) -> list[str]:
        return [s.spec.label for s in self.sources]

    def get(self, label: str) -> SavedSource | None:
        return next((s for s in self.sources if s.spec.label == label), None)

    def add(self, spec: SourceSpec, imported_from: dict[str, str] | None = None) -> SourceSpec:
        """Add a source; its label is changed if taken. Returns the spec as added."""
        labels = LabelAllocator(self.labels())
        base = spec.label if LABEL_RE.match(spec.label) else "source"
        # A folder whose name is taken is named by its parent too: copilot-skills, not skills-2.
        named = parent_label(spec.endpoint, base) if spec.kind_info.folder_on_disk else ""
        if not labels.is_free(base) and named and labels.is_free(named):
            base = named
        spec = replace(spec, label=labels.take(base))
        self.sources.append(SavedSource(spec, imported_from=imported_from))
        return spec

    def keep_imported(self, server: ImportedServer) -> SourceSpec:
        """Keep an imported server as a saved source (the user picked it in the preview)."""
        origin = {
            "file": server.source_file,
            "client": server.client,
            "server_id": server.server_id,
        }
        return self.add(replace(server.spec, label=server.label), imported_from=origin)

    def remove(self, label: str, secrets: SecretStore | None = None) -> bool:
        """Remove a saved source and the keyring secrets it refers to (in its URL or
        command line as much as in its env values and headers)."""
        found = self.get(label)
        if found is None:
            return False
        self.sources.remove(found)
        store = secrets or KeyringSecrets()
        for name in _own_secrets(found.spec):
            store.delete(name)
        return True

    def edit(
        self, old_label: str, spec: SourceSpec, secrets: SecretStore | None = None
    ) -> SourceSpec:
        """Change a saved source to ``spec`` (what the source dialog gives: label, kind
        and where) in place. What the dialog does not show is kept: env values, headers
        and whether it is on, as long as it stays the same kind of source. A new label
        takes the source's keyring secrets along (under the new label's names); secrets
        no longer referred to are deleted. Returns the spec as saved."""
        found = self.get(old_label)
        if found is None:
            return self.add(spec)
        old = found.spec
        if (old.kind, old.transport) == (spec.kind, spec.transport):
            spec = replace(spec, env=old.env, headers=old.headers, enabled=old.enabled)
        at = self.sources.index(found)
        self.sources.remove(found)
        labels = LabelAllocator(self.labels())
        spec = replace(
            spec, label=labels.take(spec.label if LABEL_RE.match(spec.label) else "source")
        )
        store = secrets or KeyringSecrets()
        if spec.label != old_label:
            spec = _move_secrets(spec, old_label, store)
        kept = set(_own_secrets(spec))
        for name in _own_secrets(old):
            if name not in kept:
                store.delete(name)
        self.sources.insert(at, SavedSource(spec, None, found.imported_from))
        return spec

    def set_enabled(self, label_or_key: str, enabled: bool) -> None:
        """Switch a saved source (by label) or a detected one (by its key) on or off."""
        for i, s in enumerate(self.sources):
            if s.spec.label == label_or_key:
                self.sources[i] = SavedSource(
                    replace(s.spec, enabled=enabled), s.bundled, s.imported_from
                )
                return
        if enabled:
            self.switched_off.discard(label_or_key)
        else:
            self.switched_off.add(label_or_key)


def _secret_refs(spec: SourceSpec) -> list[str]:
    """Every ``${keyring:...}`` entry a spec refers to, wherever it is written."""
    texts = [spec.endpoint, *spec.command, *(v for _, v in (*spec.env, *spec.headers))]
    return [p.name for t in texts for p in find_placeholders(t) if p.kind == "keyring"]


def _own_secrets(spec: SourceSpec) -> list[str]:
    """The keyring entries saved for this source (``source/<label>/...``)."""
    return sorted({n for n in _secret_refs(spec) if n.startswith(f"source/{spec.label}/")})


def _move_secrets(spec: SourceSpec, old_label: str, store: SecretStore) -> SourceSpec:
    """``spec`` (relabelled) with the secrets saved under its old label moved to names
    under its new one: left where they were, a new source taking the old label would
    overwrite them, and two sources would share one secret."""
    old_prefix, new_prefix = f"source/{old_label}/", f"source/{spec.label}/"
    moved: dict[str, str] = {}
    for name in sorted(set(_secret_refs(spec))):
        if name.startswith(old_prefix):
            value = store.get(name)
            if value is None:
                continue  # gone already: the reference stays, and says so at connect
            new = new_prefix + name[len(old_prefix) :]
            store.set(new, value)
            store.delete(name)
            moved["${keyring:" + name + "}"] = "${keyring:" + new + "}"

    def ref(text: str) -> str:
        for a, b in moved.items():
            text = text.replace(a, b)
        return text

    if not moved:
        return spec
    return replace(
        spec,
        endpoint=ref(spec.endpoint),
        command=tuple(ref(a) for a in spec.command),
        env=tuple((k, ref(v)) for k, v in spec.env),
        headers=tuple((k, ref(v)) for k, v in spec.headers),
    )


class NothingSaved(Exception):
    """A change to the saved sources was not written at all; the message says why."""


class SavedSourcesUnwritable(NothingSaved):
    """The saved-sources file is not written: it could not be read whole, or a newer
    version wrote it. The message says which file and why."""


class SavedSourceError(ValueError):
    """One saved source cannot be understood; it is left out with this message."""


def _spec_from_json(raw: Any) -> SavedSource:
    if not isinstance(raw, dict):
        raise SavedSourceError("a source is not an object")
    label = raw.get("label")
    if not isinstance(label, str) or not LABEL_RE.match(label):
        raise SavedSourceError(f"bad label {label!r}")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        # "no", 0 or null: whether the user meant it on or off is a guess, so neither.
        raise SavedSourceError(
            f"source {label!r}: enabled is {json_excerpt(enabled)}, not true or false"
        )
    bundled = raw.get("bundled")
    if bundled is not None:
        found = next((b for b in bundled_sources() if b.label == bundled), None)
        if found is None:
            raise SavedSourceError(
                f"the bundled source {bundled!r} is not part of this installation"
            )
        return SavedSource(replace(found, label=label, enabled=enabled), bundled=str(bundled))
    kind, transport, endpoint = raw.get("kind"), raw.get("transport"), raw.get("endpoint")
    if not (isinstance(kind, str) and isinstance(transport, str) and is_known(kind, transport)):
        raise SavedSourceError(f"source {label!r}: unknown kind/transport {kind!r}/{transport!r}")
    if not isinstance(endpoint, str) or not endpoint:
        raise SavedSourceError(f"source {label!r}: no endpoint")
    command = raw.get("command") or []
    env = raw.get("env") or {}
    headers = raw.get("headers") or {}
    if not (isinstance(command, list) and all(isinstance(c, str) for c in command)):
        raise SavedSourceError(f"source {label!r}: command must be a list of strings")
    if transport == "stdio" and not command:
        raise SavedSourceError(f"source {label!r}: a stdio server needs a command")
    for what, m in (("env", env), ("headers", headers)):
        if not (isinstance(m, dict) and all(isinstance(v, str) for v in m.values())):
            raise SavedSourceError(f"source {label!r}: {what} must map names to strings")
    timeout = raw.get("connect_timeout")
    if timeout is not None:
        try:
            timeout = parse_timeout(timeout)
        except ValueError as exc:
            raise SavedSourceError(f"source {label!r}: connect_timeout {exc}") from None
    agent = raw.get("agent") if isinstance(raw.get("agent"), str) else None
    imported = raw.get("imported_from") if isinstance(raw.get("imported_from"), dict) else None
    spec = SourceSpec(
        label=label,
        kind=kind,
        transport=transport,
        endpoint=endpoint,
        command=tuple(command),
        env=tuple((str(k), v) for k, v in env.items()),
        headers=tuple((str(k), v) for k, v in headers.items()),
        enabled=enabled,
        agent=agent,
        connect_timeout=timeout,
    )
    return SavedSource(spec, imported_from=imported)


def load_config(path: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read the saved configuration; a damaged file gives problems, never an exception."""
    p = path or config_path(environ)
    if not p.exists():
        return Config(exists=False)
    cfg = Config(exists=True)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except RecursionError:
        cfg.problems.append(f"{p}: cannot read the saved sources (nested too deeply)")
        cfg.unwritable = "it could not be read (nested too deeply)"
        return cfg
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        cfg.problems.append(f"{p}: cannot read the saved sources ({exc}); using none of them")
        cfg.unwritable = f"it could not be read ({exc})"
        return cfg
    if not isinstance(data, dict) or not isinstance(data.get("sources", []), list):
        cfg.problems.append(f"{p}: not a saved-sources file; using none of it")
        cfg.unwritable = "it is not a saved-sources file"
        return cfg
    version = data.get("version", FORMAT_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version > FORMAT_VERSION:
        cfg.problems.append(
            f"{p}: written in format {json_excerpt(version)}, newer than this version's "
            f"{FORMAT_VERSION}; read as far as understood, and not changed"
        )
        cfg.unwritable = f"a newer version wrote it (format {json_excerpt(version)})"
    seen: set[str] = set()
    for raw in data.get("sources", []):
        try:
            saved = _spec_from_json(raw)
        except SavedSourceError as exc:
            cfg.problems.append(f"{p}: {exc}; that source is left out")
            cfg.left_out.append(raw)
            continue
        if saved.spec.label.casefold() in seen:
            cfg.problems.append(
                f"{p}: the label {saved.spec.label!r} is used twice; the second is left out"
            )
            cfg.left_out.append(raw)
            continue
        seen.add(saved.spec.label.casefold())
        cfg.sources.append(saved)
    off = data.get("switched_off", [])
    if isinstance(off, list):
        cfg.switched_off = {k for k in off if isinstance(k, str)}
    return cfg


def save_config(
    cfg: Config,
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
    secrets: SecretStore | None = None,
    *,
    all_or_nothing: bool = False,
) -> list[str]:
    """Write the configuration (atomically, private to the user); returns messages.

    Literal secrets go to the keyring first and ``cfg`` is updated to the references;
    a source whose secret cannot go there is left out of the file (and said so), or,
    with ``all_or_nothing`` (one change made in the window), nothing is written and
    :class:`NothingSaved` says why: an edited source would otherwise lose its saved
    version too.
    """
    p = path or config_path(environ)
    if cfg.unwritable is not None:
        raise SavedSourcesUnwritable(
            f"{p} was not changed: {cfg.unwritable}. Mend the file or move it aside; "
            "nothing was saved"
        )
    store = secrets or KeyringSecrets()
    messages: list[str] = []
    kept: list[Any] = []
    for i, saved in enumerate(cfg.sources):
        if saved.bundled:
            kept.append(saved.to_json())
            continue
        secured, msgs = secure_spec(saved.spec, store)
        messages += msgs
        if secured is None:
            if all_or_nothing:
                raise NothingSaved("; ".join(messages))
            continue
        cfg.sources[i] = SavedSource(secured, saved.bundled, saved.imported_from)
        kept.append(cfg.sources[i].to_json())
    kept += cfg.left_out  # as they were: a later version may understand them
    data = {"version": FORMAT_VERSION, "sources": kept, "switched_off": sorted(cfg.switched_off)}
    with locked(p):
        write_json(p, data)
    cfg.exists = True
    return messages


def editing(path: Path | None = None, environ: Mapping[str, str] | None = None) -> Any:
    """The saved sources' lock, held around a read-modify-write of the file::

        with editing():
            cfg = load_config()
            cfg.add(spec)
            save_config(cfg)

    Another command's change made meanwhile is read, kept, and not undone. Raises
    ``OSError`` (:class:`~desktop.sources.config.settings_file.SettingsBusy`) when the lock
    cannot be had."""
    return locked(path or config_path(environ))


def first_run_config() -> Config:
    """What a first run starts from: the bundled samples, as if they had been saved."""
    return Config(
        sources=[SavedSource(s, bundled=s.label) for s in bundled_sources()], exists=False
    )


# --- all sources together -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceEntry:
    """One source in use, with where it came from (for the window's sources panel).

    ``origin``: ``saved``, ``bundled``, ``detected-folder``, ``imported`` or
    ``untrusted`` (a project's server not trusted: never started); ``key``
    is what :meth:`Config.set_enabled` takes to switch a detected source off.
    """

    spec: SourceSpec
    origin: str
    key: str
    detail: str = ""


@dataclass(slots=True)
class Sources:
    entries: list[SourceEntry] = field(default_factory=list)
    folders: list[KnownFolder] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    first_run: bool = False
    samples_shown: bool = False
    """The bundled samples are shown: nothing of the user's own was found."""
    # Servers a project folder's config files ask for that the user has not trusted
    # (as written now) and that would start once trusted: listed, never started.
    untrusted: list[ProjectServer] = field(default_factory=list)
    # Every server the project folder's config files ask for, judged (the skipped ones
    # say why they are not started whatever their trust).
    project: list[ProjectServer] = field(default_factory=list)

    @property
    def specs(self) -> list[SourceSpec]:
        return [e.spec for e in self.entries]


def same_server(a: SourceSpec, b: SourceSpec) -> bool:
    """Whether two specs start or reach the same server with the same settings (labels
    aside): the one server key of :mod:`desktop.core.identity`, which approvals, the cache
    and sign-in use too, and the same env and headers (an entry that sets others is a
    source of its own)."""
    if not (a.kind_info.runs_code and b.kind_info.runs_code):
        return False
    if not a.origin.same_server(b.origin):
        return False
    return dict(a.env) == dict(b.env) and dict(a.headers) == dict(b.headers)


def collect_sources(
    environ: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    *,
    config: Config | None = None,
    detect: bool = True,
) -> Sources:
    """Saved (or first-run) sources, detected folders and imported servers, labelled uniquely."""
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    cfg = config if config is not None else load_config(environ=env)
    out = Sources(first_run=not cfg.exists)
    saved_at = str(config_path(env))
    # Each problem is paired with its file: the message names it already.
    out.problems += [(saved_at, m.removeprefix(f"{saved_at}: ")) for m in cfg.problems]
    base = cfg.sources if cfg.exists else first_run_config().sources
    samples = [s for s in base if s.bundled]
    base = [s for s in base if not s.bundled]
    labels = LabelAllocator()
    saved_folders: set[Path] = set()
    # Folders listed already, by resolved path: a detected folder inside one is not
    # listed again (its skills would be listed twice, and clash with themselves).
    folder_paths: dict[Path, str] = {}
    # Imported servers the user kept (their secrets may since have moved to the keyring).
    kept = {
        f"import:{s.imported_from.get('file')}#{s.imported_from.get('server_id')}"
        for s in base
        if s.imported_from
    }
    # The samples' labels stay theirs, so that no detected source is labelled
    # differently once the samples are removed.
    for label in (*(s.spec.label for s in [*base, *samples]), SAMPLES_LABEL, SAMPLE_SERVER_LABEL):
        labels.reserve(label)
    for saved in base:
        detail, spec = "", saved.spec
        if saved.imported_from:
            client = str(saved.imported_from.get("client"))
            file = str(saved.imported_from.get("file"))
            detail = f"kept from {client}: {file}"
            spec = replace(spec, imported_from=(client, file))
        out.entries.append(SourceEntry(spec, "saved", f"saved:{spec.label}", detail))
        if saved.spec.kind_info.folder_on_disk:
            real = Path(os.path.realpath(saved.spec.endpoint))
            saved_folders.add(real)
            if saved.spec.enabled:
                folder_paths[real] = saved.spec.label
    if detect:
        _add_detected(out, env, here, cfg, labels, saved_folders, folder_paths, kept)
    if not any(_users_own(e) for e in out.entries):
        # Nothing of the user's own: the bundled samples show what the catalog does.
        # An agent's folder that holds no skill stays listed beside them.
        out.samples_shown = bool(samples)
        for saved in samples:
            spec = replace(saved.spec, sample=True)
            out.entries.append(SourceEntry(spec, "bundled", f"saved:{spec.label}", "sample"))
    return out


def _users_own(entry: SourceEntry) -> bool:
    """Whether a source counts as the user's own catalog (and so hides the samples):
    any source but a detected agent folder holding no skill."""
    if entry.origin != "detected-folder":
        return True
    return holds_a_skill(Path(entry.spec.endpoint))


def _add_detected(
    out: Sources,
    env: Mapping[str, str],
    here: Path,
    cfg: Config,
    labels: LabelAllocator,
    saved_folders: set[Path],
    folder_paths: dict[Path, str],
    kept: set[str],
) -> None:
    """The detected skill folders and the servers of the user's clients, into ``out``."""
    for folder in detect_known_folders(env, here, out.problems):
        if folder.path in saved_folders:
            continue  # the user's own source: listed once, under the user's label
        holder = next((p for p in folder_paths if folder.path.is_relative_to(p)), None)
        if holder is not None:
            why = (
                f"inside the source {folder_paths[holder]!r} ({holder}), which lists its "
                f"skills already; {folder.label} not added again"
            )
            out.problems.append((str(folder.path), why))
            continue
        label = labels.take(folder.label)
        spec = replace(folder.spec(), label=label, enabled=folder.key not in cfg.switched_off)
        if spec.enabled:
            folder_paths[folder.path] = label
        out.folders.append(replace(folder, label=label))
        out.entries.append(
            SourceEntry(spec, "detected-folder", folder.key, f"read by {spec.agent}")
        )
    imported = importers.import_detected(env, here, LabelAllocator())
    out.problems += imported.problems
    trust: TrustStore | None = None
    # The user's own configs first: a project's file can neither take their labels nor
    # stand in for one of their servers (and so make it untrusted).
    ordered = sorted(imported.servers, key=lambda s: s.project is not None)
    for server in ordered:
        if server.key in kept or any(same_server(server.spec, e.spec) for e in out.entries):
            if server.project is not None:
                trust = trust or _trust_for(out, env)
                out.project.append(
                    replace(
                        trust.judge(project_server(server)),
                        skipped="the same server as one listed already",
                    )
                )
            continue
        label = labels.take(server.label, _client_hint(server.client))
        spec = replace(
            server.spec,
            label=label,
            enabled=server.spec.enabled and server.key not in cfg.switched_off,
        )
        spec = replace(spec, imported_from=(server.client, str(server.source_file)))
        detail = f"from {server.client}: {server.source_file}"
        if label != server.server_id:
            detail += f", where it is called {cut_repr(server.server_id)}"
            # Labels are part of a server's identity (approvals): never renamed silently.
            out.problems.append(
                (
                    str(server.source_file),
                    f"server {cut_repr(server.server_id)} is labelled {cut_repr(label)}",
                )
            )
        if server.notes:
            detail += " (" + "; ".join(server.notes) + ")"
        origin = "imported"
        if server.project is not None:
            trust = trust or _trust_for(out, env)
            judged = trust.judge(project_server(server, spec))
            if not spec.enabled:
                judged = replace(judged, skipped="switched off")
            out.project.append(judged)
            if not judged.trusted:
                spec = replace(spec, untrusted=judged.reason())
                origin = "untrusted"
        out.entries.append(SourceEntry(spec, origin, server.key, detail))
    out.untrusted = waiting(out.project)


def _trust_for(out: Sources, env: Mapping[str, str]) -> TrustStore:
    trust = load_trust(environ=env)
    if trust.problem:
        out.problems.append((str(trust.path), f"nothing is trusted: {trust.problem}"))
    return trust


def project_server(server: ImportedServer, spec: SourceSpec | None = None) -> ProjectServer:
    """A project file's imported server, for judging its trust (not yet judged)."""
    return ProjectServer(
        server.project or "",
        str(_resolved(Path(server.source_file))),
        server.server_id,
        server.digest,
        spec or server.spec,
    )


def project_servers(
    environ: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> tuple[Path, list[ProjectServer], list[tuple[str, str]], TrustStore]:
    """The project folder of ``cwd`` (resolved: a link to it is the folder itself), every
    server its config files ask for judged against the trust file as ``list`` and the
    window judge it (:func:`desktop.core.trust.waiting` counts them), the problems met
    reading its files and the trust file, and the trust file."""
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    project = importers.project_root(here)
    found = collect_sources(env, here)
    trust = load_trust(environ=env)
    mine = {str(trust.path)}
    problems = [
        (file, why)
        for file, why in found.problems
        if file in mine or _resolved(Path(file)).is_relative_to(project)
    ]
    return project, found.project, problems, trust


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _client_hint(client: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", client.lower()).strip("-")


def default_sources(
    environ: Mapping[str, str] | None = None, cwd: Path | str | None = None
) -> list[SourceSpec]:
    """The sources used when none are named: see the module docstring."""
    return collect_sources(environ, cwd).specs


def load_config_file(path: str | Path, taken: Iterable[str] = ()) -> ImportResult:
    """Servers from one client config file (``--config FILE``), any supported format.

    Every project's servers in a ``~/.claude.json`` are read. Labels avoid ``taken``.
    """
    return importers.load_file(Path(path), LabelAllocator(taken))

"""Plugin marketplaces and plugin manifests, read from any tree of files.

A tree of files (a folder here, a repository at a commit) may publish plugins:

- a **marketplace**: ``.claude-plugin/marketplace.json`` (Claude Code),
  ``.agents/plugins/marketplace.json`` (Codex), ``.github/plugin/marketplace.json``
  (Copilot), each listing plugins by ``name`` with a ``source``;
- a **plugin** at the root: ``plugin.json`` (Agent Plugins) or
  ``.claude-plugin/plugin.json`` (Claude Code).

A plugin's ``source`` is a path inside the tree (``"./plugins/pdf"``, or Codex's
``{"source": "local", "path": …}``), which is read; or a repository elsewhere
(``github``, ``url``, ``git-subdir``), which is not read with this tree (it may be
added as a git source of its own); or
an ``npm`` package, which is not read (a registry's package, not files of this tree).
A plugin's own ``plugin.json`` (in its folder or its ``.claude-plugin/``) gives what
the marketplace leaves out: its description, version and author.

:func:`read_plugins` takes a way to read one file by its path relative to the tree's
root (``None`` when there is none), so the folder kind and a repository's kind read
the same way. Every file is bounded (:data:`MAX_MANIFEST_BYTES`), every path judged
(nothing leaves the tree), every field taken only when it has the expected type.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.core.model import Skill, SourceStatus

MAX_MANIFEST_BYTES = 1024 * 1024
MAX_PLUGINS = 1_000

MARKETPLACES = (
    ".claude-plugin/marketplace.json",
    ".agents/plugins/marketplace.json",
    ".github/plugin/marketplace.json",
)
ROOT_PLUGINS = ("plugin.json", ".claude-plugin/plugin.json")
PLUGIN_MANIFESTS = (".claude-plugin/plugin.json", "plugin.json")

NEEDS_GIT = "another repository, not read yet (plugins elsewhere are not fetched with this one)"
NPM = (
    "an npm package: not readable yet (the catalog reads files, and an npm package is "
    "fetched and installed by a package manager)"
)

ReadFile = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class Plugin:
    """One plugin as published: what it says of itself, and whether its skills are read.

    ``path`` is its folder relative to the tree's root ("" for the root) when it is in
    the tree; ``reason`` says why it is not read otherwise. ``skill_dirs`` are the
    folders it declares its skills in (relative to the tree's root)."""

    name: str
    description: str = ""
    version: str = ""
    author: str = ""
    marketplace: str = ""
    manifest: str = ""  # the file that lists it
    source: str = "path"  # path | github | url | git-subdir | npm | what else it says
    where: str = ""  # the repository, URL or package it comes from, as written
    path: str | None = None
    reason: str = ""
    skill_dirs: tuple[str, ...] = ()

    @property
    def read(self) -> bool:
        """Whether its skills are in this tree and read with it."""
        return self.path is not None

    def holds(self, rel_path: str) -> bool:
        """Whether the file ``rel_path`` (relative to the tree's root) is the plugin's."""
        if self.path is None:
            return False
        dirs = self.skill_dirs or ((self.path,) if self.path else ("",))
        return any(not d or rel_path == d or rel_path.startswith(d + "/") for d in dirs)

    def in_words(self) -> str:
        """``pdf-tools 1.2 by Ada``."""
        text = self.name + (f" {self.version}" if self.version else "")
        return text + (f" by {self.author}" if self.author else "")

    def to_json(self, skills: Iterable[str] = ()) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "author": self.author,
            "marketplace": self.marketplace,
            "manifest": self.manifest,
            "source": self.source,
            "read": self.read,
        }
        if self.where:
            out["from"] = self.where
        if self.path is not None:
            out["path"] = self.path
        if self.reason:
            out["reason"] = self.reason
        out["skills"] = sorted(skills)
        return out

    def provenance(self) -> dict[str, str]:
        """What a skill of the plugin carries in its ``provenance``."""
        out = {"plugin": self.name}
        for key, value in (
            ("plugin_version", self.version),
            ("plugin_author", self.author),
            ("plugin_description", self.description),
            ("marketplace", self.marketplace),
        ):
            if value:
                out[key] = value
        return out


@dataclass(slots=True)
class Plugins:
    """Every plugin a tree publishes, and what could not be read, in words."""

    plugins: list[Plugin] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def owner(self, rel_path: str) -> Plugin | None:
        """The plugin whose skill ``rel_path`` is (the innermost folder wins)."""
        found = [p for p in self.plugins if p.holds(rel_path)]
        return max(found, key=lambda p: len(p.path or ""), default=None)


def _json(read: ReadFile, path: str, notes: list[str]) -> dict[str, Any] | None:
    try:
        data = read(path)
    except OSError as exc:
        notes.append(f"{path}: cannot be read: {exc}")
        return None
    if data is None:
        return None
    if len(data) > MAX_MANIFEST_BYTES:
        notes.append(f"{path}: over {MAX_MANIFEST_BYTES:,} bytes; not read")
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        notes.append(f"{path}: not JSON: {str(exc)[:120]}")
        return None
    if not isinstance(doc, dict):
        notes.append(f"{path}: not a JSON object")
        return None
    return doc


def _text(value: Any, limit: int = 1000) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def _author(value: Any) -> str:
    if isinstance(value, dict):
        return _text(value.get("name"), 200)
    return _text(value, 200)


def inside(base: str, rel: str) -> str | None:
    """``rel`` joined to ``base`` (both relative to the root), or ``None`` when the
    result is absolute or leaves the tree."""
    if not isinstance(rel, str) or any(c in rel for c in "\\\0\n\r") or rel.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(base, rel)) if rel.strip() else base
    if joined in (".", ""):
        return ""
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def read_plugins(read: ReadFile) -> Plugins:
    """Every plugin the tree publishes (its marketplaces, then a plugin at its root);
    never raises for what the files hold."""
    out = Plugins()
    for manifest in MARKETPLACES:
        doc = _json(read, manifest, out.notes)
        if doc is not None:
            _marketplace(read, manifest, doc, out)
    if not out.plugins:
        for manifest in ROOT_PLUGINS:
            doc = _json(read, manifest, out.notes)
            if doc is not None:
                out.plugins.append(_plugin_at(read, "", manifest, doc, "", out.notes))
                break
    return out


def _marketplace(read: ReadFile, manifest: str, doc: dict[str, Any], out: Plugins) -> None:
    market = _text(doc.get("name"), 200) or manifest
    listed = doc.get("plugins")
    if not isinstance(listed, list):
        out.notes.append(f"{manifest}: lists no plugins")
        return
    metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    root = _text(metadata.get("pluginRoot"), 500) if metadata else ""
    for n, entry in enumerate(listed[:MAX_PLUGINS]):
        name = _text(entry.get("name"), 200) if isinstance(entry, dict) else ""
        if not name:
            out.notes.append(f"{manifest}: plugin #{n + 1} has no name; left out")
            continue
        if any(p.name == name and p.marketplace == market for p in out.plugins):
            out.notes.append(f"{manifest}: {name!r} is listed twice; the first is read")
            continue
        out.plugins.append(_listed(read, manifest, market, root, entry, out.notes))
    if len(listed) > MAX_PLUGINS:
        out.notes.append(
            f"{manifest}: lists {len(listed):,} plugins; the first {MAX_PLUGINS:,} are read"
        )


def _listed(
    read: ReadFile,
    manifest: str,
    market: str,
    root: str,
    entry: dict[str, Any],
    notes: list[str],
) -> Plugin:
    name = _text(entry.get("name"), 200)
    said: dict[str, Any] = {
        "name": name,
        "description": _text(entry.get("description")),
        "version": _text(entry.get("version"), 100),
        "author": _author(entry.get("author")),
        "marketplace": market,
        "manifest": manifest,
    }
    source = entry.get("source")
    if isinstance(source, dict):
        form = _text(source.get("source"), 40) or "unknown"
        if form in ("local", "path", "relative"):
            source = source.get("path")
        else:
            repo = _text(source.get("repo"), 300)
            url = f"https://github.com/{repo}" if form == "github" and repo else ""
            url = url or _text(source.get("url"), 500)
            where = repo or url or _text(source.get("package"), 500)
            if form == "git-subdir" and _text(source.get("path"), 500):
                where += f" ({_text(source.get('path'), 500)})"
            pin = _text(source.get("sha") or source.get("ref"), 100)
            where += f" at {pin}" if pin else ""
            if form in ("github", "url", "git", "git-subdir"):
                reason = f"from {where or 'a repository'}: {NEEDS_GIT}"
                if url and not url.startswith("-"):
                    reason += f"; add it as a source: --git {url}" + (f"#{pin}" if pin else "")
            elif form == "npm":
                reason = NPM
            else:
                reason = f"its source {form!r} is not a kind the catalog reads"
            return Plugin(**said, source=form, where=where, reason=reason)
    if not isinstance(source, str):
        return Plugin(**said, source="unknown", reason="it says no source")
    if source.startswith(("https://", "http://", "git@", "git://")):
        reason = f"from {source}: {NEEDS_GIT}; add it as a source: --git {source}"
        return Plugin(**said, source="url", where=source, reason=reason)
    base = inside("", root) if root and not source.startswith((".", "/")) else ""
    path = inside(base or "", source) if base is not None else None
    if path is None:
        return Plugin(**said, source="path", where=source, reason="its path leaves the folder")
    own = _own_manifest(read, path, notes)
    return _plugin_at(read, path, manifest, own or {}, market, notes, said, entry)


def _own_manifest(read: ReadFile, path: str, notes: list[str]) -> dict[str, Any] | None:
    for name in PLUGIN_MANIFESTS:
        doc = _json(read, posixpath.join(path, name) if path else name, notes)
        if doc is not None:
            return doc
    return None


def _plugin_at(
    read: ReadFile,
    path: str,
    manifest: str,
    doc: dict[str, Any],
    market: str,
    notes: list[str],
    said: dict[str, str] | None = None,
    entry: dict[str, Any] | None = None,
) -> Plugin:
    """A plugin in the tree at ``path``: the marketplace's words first, its own
    manifest's where the marketplace says nothing."""
    said = dict(said or {})
    for key, value in (
        ("name", _text(doc.get("name"), 200)),
        ("description", _text(doc.get("description"))),
        ("version", _text(doc.get("version"), 100)),
        ("author", _author(doc.get("author"))),
    ):
        if not said.get(key):
            said[key] = value
    said.setdefault("marketplace", market)
    said.setdefault("manifest", manifest)
    declared: list[str] = []
    for raw in (entry or {}).get("skills"), doc.get("skills"):
        values = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        for value in values:
            where = inside(path, value) if isinstance(value, str) else None
            if where is not None and path and where != path and not where.startswith(path + "/"):
                where = None
            if where is None:
                notes.append(
                    f"{said['name'] or path}: a skills path leaves the plugin's folder; left out"
                )
            elif where not in declared:
                declared.append(where)
    dirs = (posixpath.join(path, "skills") if path else "skills", *declared) if declared else ()
    return Plugin(
        name=said["name"] or posixpath.basename(path) or "plugin",
        description=said["description"],
        version=said["version"],
        author=said["author"],
        marketplace=said["marketplace"],
        manifest=said["manifest"],
        source="path",
        where=path or ".",
        path=path,
        skill_dirs=tuple(dirs),
    )


def folder_reader(root: str) -> ReadFile:
    """A :data:`ReadFile` over the folder ``root``: a file inside it, read without
    following a link out of it, at most one byte past :data:`MAX_MANIFEST_BYTES`."""
    import os

    real_root = os.path.realpath(root)

    def read(rel: str) -> bytes | None:
        path = os.path.join(real_root, *rel.split("/"))
        real = os.path.realpath(path)
        if not real.startswith(real_root + os.sep) or not os.path.isfile(real):
            return None
        with open(real, "rb") as f:
            return f.read(MAX_MANIFEST_BYTES + 1)

    return read


def _marked(
    read: ReadFile | None, skills: list[Skill]
) -> tuple[Plugins, dict[str, list[str]], list[Skill]]:
    found = read_plugins(read) if read is not None else Plugins()
    owned: dict[str, list[str]] = {p.name: [] for p in found.plugins}
    marked: list[Skill] = []
    for skill in skills:
        plugin = found.owner(skill.uri)
        if plugin is None:
            marked.append(skill)
            continue
        owned[plugin.name].append(skill.uri)
        marked.append(replace(skill, provenance={**skill.provenance, **plugin.provenance()}))
    return found, owned, marked


def _folder(root: str) -> ReadFile | None:
    import os

    return folder_reader(root) if os.path.isdir(root) else None


def plugin_skills(root: str, skills: list[Skill]) -> list[Skill]:
    """The skills of the folder ``root``, each marked with the plugin it belongs to
    (in its ``provenance``)."""
    return _marked(_folder(root), skills)[2]


def with_plugins(
    root: str, status: SourceStatus, skills: list[Skill]
) -> tuple[SourceStatus, list[Skill]]:
    """:func:`apply_plugins` over the folder ``root``."""
    return apply_plugins(_folder(root), status, skills)


def apply_plugins(
    read: ReadFile | None, status: SourceStatus, skills: list[Skill]
) -> tuple[SourceStatus, list[Skill]]:
    """The skills of the tree ``read`` reads (skill URIs being paths from its root), each
    marked with the plugin it belongs to (``provenance``), and ``status`` given the
    plugins, with a note for each plugin not read; unchanged when the tree publishes no
    plugin."""
    found, owned, marked = _marked(read, skills)
    if not found.plugins and not found.notes:
        return status, skills
    notes = [f"plugin {p.name}: {p.reason}" for p in found.plugins if not p.read]
    status = replace(
        status,
        notes=[*status.notes, *notes, *found.notes][:40],
        plugins=[p.to_json(owned[p.name]) for p in found.plugins],
    )
    return status, marked

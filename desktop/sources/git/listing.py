"""The skills of one commit of a repository, read from its tree, never checked out.

A ``SKILL.md`` makes a skill of its folder where publishers put them:
``skills/*/``, ``skills/*/*/``, ``*/``, ``plugins/*/skills/*/`` and the agent folders
a repository carries (``.claude/skills/*/``, ``.github/skills/*/``,
``.agents/skills/*/`` and the like). A file belongs to the innermost skill folder
holding it. Each skill's manifest is computed from the committed blobs (path, size,
SHA-256 of the blob's bytes); its URI and its files' URIs are their paths in the
repository.

Links (mode 120000) are recorded as links, with their target, and never followed: they
are no part of a manifest. Submodules are named and never fetched. A repository's
``.mcp.json`` or ``mcpServers`` are never read here, so nothing they name is started.

Budgets: :data:`MAX_TREE_ENTRIES` entries in the commit, :data:`MAX_FILES_PER_SKILL`
files and :data:`MAX_DEPTH` folders deep in a skill, :data:`MAX_TOTAL` bytes hashed in
all, and each file within the manifest's own size limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from desktop.core.identity import SKILL_MD
from desktop.core.manifest import MAX_BYTES, check_limits, sha256_digest
from desktop.core.model import Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.states import SourceState
from desktop.sources.git import runner
from desktop.sources.git.remote import Remote

AGENT_FOLDERS = (".claude", ".github", ".agents", ".codex", ".cursor", ".gemini", ".opencode")
MAX_TREE_ENTRIES = 200_000
MAX_FILES_PER_SKILL = 512
MAX_DEPTH = 12
MAX_TOTAL = 256 * 1024 * 1024


def is_skill_md(path: str) -> bool:
    """Whether ``path`` is a ``SKILL.md`` where publishers put skills (see the module)."""
    parts = path.split("/")
    if parts[-1] != SKILL_MD:
        return False
    folders = parts[:-1]
    n = len(folders)
    return (
        n == 1
        or (folders[0] == "skills" and n in (2, 3))
        or (n == 4 and folders[0] == "plugins" and folders[2] == "skills")
        or (n == 3 and folders[0] in AGENT_FOLDERS and folders[1] == "skills")
    )


def _unsafe(path: str) -> str:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path) or "\\" in path:
        return "its name holds a control character or a backslash"
    if any(part in ("", ".", "..", ".git") for part in path.split("/")):
        return "its name leaves its folder"
    return ""


@dataclass
class _Folder:
    rel: str
    files: list[runner.TreeEntry] = field(default_factory=list)
    links: list[runner.TreeEntry] = field(default_factory=list)
    submodules: list[runner.TreeEntry] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def _skill_dir(path: str) -> str:
    return path[: -len(SKILL_MD)].rstrip("/")


def list_commit(spec: SourceSpec, remote: Remote, repo: Path, commit: str) -> list[Skill]:
    """The skills of ``commit`` (see the module); :class:`runner.GitFailed` when the
    commit cannot be read or is over a budget."""
    entries = runner.ls_tree(repo, commit, MAX_TREE_ENTRIES)
    dirs = sorted(
        {
            _skill_dir(e.path)
            for e in entries
            if e.type == "blob" and not e.is_link and is_skill_md(e.path)
        }
    )
    folders = {d: _Folder(d) for d in dirs}
    for entry in entries:
        folder = _owner(folders, entry.path)
        if folder is None:
            continue
        why = _unsafe(entry.path)
        if why:
            folder.left_out.append(f"{entry.path[:200]!r} left out: {why}")
        elif entry.is_submodule:
            folder.submodules.append(entry)
        elif entry.is_link:
            folder.links.append(entry)
        elif entry.type == "blob":
            folder.files.append(entry)
    wanted: list[str] = []
    budget = MAX_TOTAL
    for folder in folders.values():
        wanted += [e.oid for e in folder.links]
        wanted += [e.oid for e in folder.files if e.path == f"{folder.rel}/{SKILL_MD}"]
        if len(folder.files) > MAX_FILES_PER_SKILL:
            continue
        for e in folder.files:
            if e.size <= MAX_BYTES and e.size <= budget:
                budget -= e.size
                wanted.append(e.oid)
    blobs = runner.cat_blobs(repo, sorted(set(wanted)), MAX_BYTES)
    return [_skill(spec, remote, commit, folders[d], blobs) for d in dirs]


def _owner(folders: dict[str, _Folder], path: str) -> _Folder | None:
    """The innermost skill folder holding ``path``."""
    head = path
    while "/" in head:
        head = head.rsplit("/", 1)[0]
        found = folders.get(head)
        if found is not None:
            return found
    return None


def _skill(
    spec: SourceSpec, remote: Remote, commit: str, folder: _Folder, blobs: dict[str, bytes]
) -> Skill:
    from desktop.core.checks import check_frontmatter
    from desktop.core.loading import read_loading
    from desktop.core.skill_md import parse_skill_md
    from desktop.core.visible import cut, one_line

    rel = folder.rel
    skill_md = f"{rel}/{SKILL_MD}"
    problems: list[Problem] = [Problem("git-left-out", note, "warning") for note in folder.left_out]
    files: list[SkillFile] = []
    over = False
    if len(folder.files) > MAX_FILES_PER_SKILL:
        over = True
        problems.append(
            Problem(
                "limit-files",
                f"the skill has {len(folder.files):,} files; at most {MAX_FILES_PER_SKILL:,} "
                "are read from a repository",
                "error",
            )
        )
    md_entry = next((e for e in folder.files if e.path == skill_md), None)
    md_bytes = blobs.get(md_entry.oid, b"") if md_entry is not None else b""
    for entry in () if over else folder.files:
        shown = entry.path[len(rel) + 1 :]
        depth = shown.count("/")
        if depth > MAX_DEPTH:
            over = True
            problems.append(
                Problem(
                    "limit-depth",
                    f"{cut(one_line(shown), 120)} is {depth} folders deep; at most "
                    f"{MAX_DEPTH} are read",
                    "error",
                )
            )
            continue
        data = blobs.get(entry.oid)
        if data is None or len(data) != entry.size:
            over = True
            problems.append(
                Problem(
                    "limit-bytes",
                    f"{cut(one_line(shown), 120)} is {entry.size:,} bytes, over the "
                    f"{MAX_BYTES:,} bytes one file may have (or the {MAX_TOTAL:,} of a "
                    "whole listing)",
                    "error",
                )
            )
            continue
        files.append(SkillFile(entry.path, sha256_digest(data), len(data)))
    for link in folder.links:
        target = blobs.get(link.oid, b"").decode("utf-8", "replace")
        problems.append(
            Problem(
                "symlink",
                f"{cut(one_line(link.path[len(rel) + 1 :]), 120)} is a link to "
                f"{cut(one_line(target), 120)!r}; links are recorded, never followed, and "
                "are no part of the manifest",
                "warning",
            )
        )
    for sub in folder.submodules:
        problems.append(
            Problem(
                "submodule",
                f"{cut(one_line(sub.path[len(rel) + 1 :]), 120)} is a submodule (commit "
                f"{sub.oid[:7]}); submodules are not fetched",
                "warning",
            )
        )
    parsed = parse_skill_md(md_bytes)
    problems.extend(parsed.problems)
    frontmatter = parsed.frontmatter
    dir_name = rel.rsplit("/", 1)[-1]
    if frontmatter is not None:
        problems.extend(check_frontmatter(frontmatter, dir_name))
    loading, loading_problems = read_loading(frontmatter, None)
    problems.extend(loading_problems)
    problems.extend(check_limits(files))
    fm = frontmatter or {}
    declared = fm.get("name")
    name = declared if isinstance(declared, str) else dir_name
    description = fm.get("description")
    return Skill(
        origin=spec.origin,
        uri=skill_md,
        name=str(name),
        description=description if isinstance(description, str) else "",
        frontmatter=frontmatter,
        resources=None if over else tuple(files),
        loading=loading,
        problems=problems,
        qualified_name=str(name),
        provenance={"repository": provenance_url(remote), "commit": commit, "path": rel},
    )


def provenance_url(remote: Remote) -> str:
    """The repository's address as provenance gives it (a user name in it dropped)."""
    from urllib.parse import urlsplit, urlunsplit

    if "://" not in remote.url:
        return remote.url
    parts = urlsplit(remote.url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def status_of(spec: SourceSpec, remote: Remote, commit: str, skills: list[Skill]) -> SourceStatus:
    from desktop.core.words import count

    files = sum(len(s.files) for s in skills)
    where = f"{remote.name} at {commit[:7]}"
    if not skills:
        return SourceStatus(
            spec.origin, SourceState.NO_SKILLS, f"no SKILL.md where skills are kept in {where}"
        )
    notes = [
        f"{s.uri}: {p.message}"
        for s in skills
        for p in s.problems
        if p.code in ("symlink", "submodule")
    ]
    return SourceStatus(
        spec.origin,
        SourceState.OK,
        f"{count(len(skills), 'skill')} of {count(files, 'file')} in {where} (pinned)",
        notes=notes[:20],
        skill_count=len(skills),
    )

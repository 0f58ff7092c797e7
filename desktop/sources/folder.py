"""Local folders as a source.

A folder is walked for skill directories (a directory holding ``SKILL.md``), nested
ones included. Each skill gets the manifest a server would publish: every file below
its directory (its nested skills' files too, as the Skills extension requires), with
byte size and ``sha256:`` digest of the raw bytes.

Symlinks are never followed out of a skill: a linked directory is not entered, and a
linked file counts only when it resolves inside the folder of the innermost skill
holding the link (the link's own folder for a ``SKILL.md``; the scanned folder for a
link in no skill). So a skill's manifest is the same whichever folder is scanned, and
every file in it reads back through :func:`read_local_file`, which checks the same.

Budgets: sizes come from the directory walk, so a skill over the 512-file or 16 MiB
limit is known before any of its files is read; such a skill's manifest is not built
(only its ``SKILL.md`` is read, at most 16 MiB of it, for its name and description).
Skills nested more than :data:`MAX_NESTING` deep inside other skills are not read as
skills of their own (their files stay in the enclosing skills' manifests), and the
source's notes say how many. FIFOs, sockets and devices are never opened: each is a
problem of the skill it is in.

Kept as one module: one walk of a folder: the symlink rules, the limits, the manifests
and the rescans of changed regions share the walk's state and its budget, and splitting
them would pass that state between modules.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from desktop.core.checks import check_frontmatter
from desktop.core.collector import collector_paused
from desktop.core.loading import read_loading
from desktop.core.manifest import MAX_BYTES, MAX_FILES, check_limits, limit_problems
from desktop.core.model import Problem, Skill, SkillFile, SourceSpec, SourceStatus
from desktop.core.skill_md import parse_skill_md
from desktop.core.words import count

SKILL_MD = "SKILL.md"
_SKILL_MD_TAIL = "/" + SKILL_MD
SKIPPED_DIRS = frozenset({".git"})
_CHUNK = 1 << 20
_FIRST_READ = 1 << 16
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
_SHOWN_NAMES = 20  # file names that are not UTF-8 named one by one, per skill
HashResult = tuple[int, str, bytes | None] | str  # size, digest, small bytes | error
MAX_NESTING = 16
"""Skills inside skills read as skills of their own, counted from the outermost. Each
file is part of the manifest of every skill enclosing it, so a chain of n nested skills
costs n² manifest entries: 1,000 of them took 1.4 GB and wrote 424 MB of JSON."""


def entry_path(directory: str, name: str) -> str:
    return directory + os.sep + name


def relative_inside(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both real, absolute) as a POSIX path, when it lies
    strictly inside it; else ``None``. A root of ``/`` holds every other path."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if path == root or not path.startswith(prefix):
        return None
    return PurePosixPath(Path(path[len(prefix) :])).as_posix()


class _Tree:
    """One walk of a folder: each directory's files, relative to the root."""

    def __init__(self, root: Path, skip_real: str | None = None, start: str = "") -> None:
        self.root = root
        self.start = start  # the folder walked, relative to root ("": all of it)
        self.real_root = os.path.realpath(root)
        # A directory never entered (the private cache of verified bytes), relative to root.
        self.skip_rel = relative_inside(skip_real, self.real_root) if skip_real else None
        self.files: dict[str, list[str]] = {}  # rel dir ("" for root) -> file names
        # rel dir -> (name, the rel dir it leaves, whether it leaves the scanned folder)
        self.outside: dict[str, list[tuple[str, str, bool]]] = {}
        self.linked_dirs: dict[str, list[str]] = {}  # rel dir -> links to folders inside
        self.errors: list[str] = []
        self.unread: list[tuple[str, str]] = []  # (rel path, why) of what could not be read
        self.sizes: dict[str, int] = {}  # rel path -> size, from the walk (lstat)
        # rel dir -> (name, what it is) of FIFOs, sockets and devices: never opened
        self.special: dict[str, list[tuple[str, str]]] = {}
        # rel dir -> what its SKILL.md is when it is no regular file (a folder, a FIFO)
        self.bad_skill_md: dict[str, str] = {}
        self._links: dict[str, list[tuple[str, str]]] = {}  # rel dir -> (name, real target)
        self._dirs: list[str] | None = None
        self._walk()
        self._place_links()

    def _walk(self) -> None:
        """Walk with ``os.scandir``: entry types come with the listing, no extra stat."""
        start = self.start
        top = root_path(self.root, start) if start else str(self.root)
        if start and (not os.path.isdir(top) or os.path.realpath(top) != self._real(start)):
            return  # no longer a folder of its own in the tree (gone, or a link now)
        pending = [(top, start)]
        while pending:
            full_dir, rel = pending.pop()
            kept: list[str] = []
            subdirs: list[str] = []
            try:
                with os.scandir(full_dir) as it:
                    entries = list(it)
            except OSError as exc:
                self._onerror(exc, rel)
                continue
            base = rel + "/" if rel else ""
            for entry in entries:
                name = entry.name
                try:
                    if entry.is_file(follow_symlinks=False):
                        kept.append(name)
                        # The size from the walk: a skill over its limit is known before
                        # any file is read (a sparse 64 GiB file costs nothing to list).
                        self.sizes[base + name] = entry.stat(follow_symlinks=False).st_size
                    elif entry.is_dir(follow_symlinks=False):
                        if name == SKILL_MD:
                            self.bad_skill_md[rel] = "a folder"
                        if name not in SKIPPED_DIRS:
                            subdirs.append(name)
                    elif entry.is_symlink():
                        # placed once the skills are known: its bound is the skill it is in
                        self._links.setdefault(rel, []).append((name, os.path.realpath(entry.path)))
                    else:
                        kind = _kind(entry.stat(follow_symlinks=False).st_mode)
                        if name == SKILL_MD:
                            self.bad_skill_md[rel] = kind
                        else:
                            self.special.setdefault(rel, []).append((name, kind))
                except OSError as exc:
                    self._onerror(exc, f"{rel}/{name}" if rel else name)
            self.files[rel] = kept
            for name in sorted(subdirs, reverse=True):
                sub_rel = f"{rel}/{name}" if rel else name
                if sub_rel != self.skip_rel:
                    pending.append((entry_path(full_dir, name), sub_rel))

    def _real(self, rel_dir: str) -> str:
        """The real path of a walked directory (no link is entered, so no resolving)."""
        return self.real_root + os.sep + rel_dir.replace("/", os.sep) if rel_dir else self.real_root

    def _place_links(self) -> None:
        """Keep each link to a file inside the folder of the innermost skill holding it;
        note the others. A ``SKILL.md`` link is bound by its own folder, which it would
        make a skill: so the skills are known before any other link is placed."""
        skills = {d for d, names in self.files.items() if SKILL_MD in names}
        skills.update(self.bad_skill_md)
        for rel, links in self._links.items():
            for name, target in links:
                if name == SKILL_MD and _inside(target, self._real(rel)) and os.path.isfile(target):
                    skills.add(rel)
        for rel, links in self._links.items():
            bound = next((d for d in (rel, *reversed(_ancestors(rel))) if d in skills), None)
            for name, target in links:
                own = rel if name == SKILL_MD else bound
                real_bound = self.real_root if own is None else self._real(own)
                if not _inside(target, real_bound):
                    leaves_root = not _inside(target, self.real_root)
                    self.outside.setdefault(rel, []).append((name, own or "", leaves_root))
                elif os.path.isfile(target):
                    self.files[rel].append(name)
                    with contextlib.suppress(OSError):
                        self.sizes[f"{rel}/{name}" if rel else name] = os.stat(target).st_size
                elif os.path.isdir(target):
                    # never entered (a loop, or the same files twice): noted
                    self.linked_dirs.setdefault(rel, []).append(name)
        for names in self.files.values():
            names.sort()

    def _onerror(self, exc: OSError, rel: str) -> None:
        self.errors.append(f"{exc.filename}: {exc.strerror}")
        self.unread.append((rel, exc.strerror or str(exc)))

    def skill_dirs(self) -> list[str]:
        found = {d for d, names in self.files.items() if SKILL_MD in names}
        return sorted(found | self.bad_skill_md.keys())

    def count_under(self, rel_dir: str) -> tuple[int, int]:
        """How many files lie at or below ``rel_dir``, and their bytes (from the walk)."""
        files = size = 0
        sizes = self.sizes
        for d in self.dirs_under(rel_dir):
            names = self.files.get(d, ())
            files += len(names)
            base = d + "/" if d else ""
            size += sum(sizes.get(base + n, 0) for n in names)
        return files, size

    def dirs_under(self, rel_dir: str) -> list[str]:
        """``rel_dir`` and every directory below it (sorted lookup, no full scan)."""
        if not rel_dir:
            return self._sorted_dirs()
        dirs = self._sorted_dirs()
        prefix = rel_dir + "/"
        start = bisect.bisect_left(dirs, prefix)
        end = bisect.bisect_left(dirs, rel_dir + "0")  # '0' sorts right after '/'
        return [rel_dir, *dirs[start:end]]

    def _sorted_dirs(self) -> list[str]:
        if self._dirs is None:
            self._dirs = sorted(self.files)
        return self._dirs

    def files_under(self, rel_dir: str) -> list[str]:
        """Every file (relative to the root) at or below ``rel_dir``."""
        out: list[str] = []
        for d in self.dirs_under(rel_dir):
            base = d + "/" if d else ""
            out.extend(base + n for n in self.files.get(d, ()))
        return sorted(out)


def _hash_file(path: str, keep: bool) -> tuple[int, str, bytes | None]:
    """Size, digest, and (when ``keep``) the bytes, to parse SKILL.md without a re-read.

    ``os.read`` with a small first read: most skill files are a few KiB, and a large
    buffer per file costs more than the reading. Non-blocking, so a file swapped for
    a FIFO after the walk cannot hang the scan. Never more than one byte past the
    16 MiB limit is read (a file that grew since the walk): its skill is then over it.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            # Swapped since the walk (for a link to /dev/zero, say): never read.
            raise OSError(0, "no longer a regular file")
        data = os.read(fd, _FIRST_READ)
        h = hashlib.sha256(data)
        size = len(data)
        if size == _FIRST_READ:
            parts = [data] if keep else None
            kept = size
            while size <= MAX_BYTES and (chunk := os.read(fd, min(_CHUNK, MAX_BYTES + 1 - size))):
                h.update(chunk)
                size += len(chunk)
                # Kept to read the frontmatter, up to the limit of a whole skill: a skill
                # past it cannot be loaded, and a 300 MB SKILL.md cost three times its
                # size in memory.
                if parts is not None and kept <= MAX_BYTES:
                    parts.append(chunk)
                    kept += len(chunk)
            if parts is not None:
                data = b"".join(parts)
                if kept < size:
                    data = _whole_characters(data[: MAX_BYTES + 1])
    finally:
        os.close(fd)
    return size, "sha256:" + h.hexdigest(), data if keep else None


def _whole_characters(data: bytes) -> bytes:
    """``data`` cut short of a UTF-8 character split at its end, if any."""
    end = len(data)
    for back in range(1, 4):
        if end - back < 0:
            break
        byte = data[end - back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: a character starts here
            need = 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
            return data if byte < 0x80 or back >= need else data[: end - back]
    return data


def cache_real_path() -> str | None:
    """Where verified server bytes are cached: never scanned as a skill folder."""
    try:
        from desktop.store.cache import default_cache_root

        return os.path.realpath(default_cache_root())
    except Exception:  # noqa: BLE001 - no cache location: nothing to skip
        return None


def _label_word(name: str) -> str:
    # Labels are ASCII (LABEL_RE): other letters become dashes like spaces do.
    return "".join(c if (c.isascii() and c.isalnum()) or c in "._-" else "-" for c in name).strip(
        "-._"
    )


def folder_label(path: str | os.PathLike[str]) -> str:
    """A label for a folder the user names on the command line: its base name."""
    name = Path(path).resolve().name or "folder"
    return (_label_word(name) or "folder")[:64]


def parent_label(path: str | os.PathLike[str], label: str) -> str:
    """``label`` led by the folder's parent's name, for a folder whose own name is taken:
    ``~/.copilot/skills`` as ``copilot-skills`` rather than ``skills-2``. ``""`` when the
    parent has no usable name (the root)."""
    parent = Path(path).resolve().parent
    word = _label_word(parent.name) if parent != parent.parent else ""
    if not word:
        return ""
    return f"{word[: 63 - min(len(label), 40)]}-{label[:40]}"


def scan_folder(spec: SourceSpec) -> tuple[SourceStatus, list[Skill]]:
    """Scan one local folder. Never raises for bad input: problems become values."""
    from desktop.sources.marketplace import with_plugins

    with collector_paused():
        status, skills = _scan_folder(spec)
    return with_plugins(spec.endpoint, status, skills)


def _scan_folder(spec: SourceSpec) -> tuple[SourceStatus, list[Skill]]:
    origin = spec.origin
    root = Path(spec.endpoint)
    status = SourceStatus(origin)
    if not root.exists():
        status.status, status.message = "error", f"folder {root} does not exist"
        return status, []
    if not root.is_dir():
        status.status, status.message = "error", f"{root} is not a folder"
        return status, []
    cache_real = cache_real_path()
    real = os.path.realpath(root)
    if cache_real and (real == cache_real or relative_inside(real, cache_real) is not None):
        status.status = "error"
        status.message = (
            f"{root} is the catalog's private cache of verified bytes, not a skill folder"
        )
        return status, []
    tree = _Tree(root, cache_real)
    root_prefix = str(root) + os.sep
    skill_dirs = tree.skill_dirs()
    # Each file is read and hashed once, in this thread: worker threads were measured
    # slower here, because small files keep handing the GIL back and forth with the
    # YAML parsing (the whole scan already runs off the window's loop thread).
    hashed: dict[str, HashResult] = {}

    def digest_of(rel: str) -> HashResult:
        result = hashed.get(rel)
        if result is None:
            keep = rel == SKILL_MD or rel.endswith(_SKILL_MD_TAIL)
            result = hashed[rel] = _hash_or_error(root_prefix + rel, keep)
        return result

    return _collect(spec, root, tree, skill_dirs, digest_of, status)


def scan_regions(spec: SourceSpec, regions: Iterable[str]) -> tuple[list[Skill], list[str]] | None:
    """The skills inside some folders of a local source, as a scan of the whole source
    reads them; and what could not be read there.

    Each region is a folder (relative to the source's, ``/``-separated) with no skill
    folder above it: an outermost skill, or a folder in no skill. A region that is gone
    holds no skills. ``None`` when the source's folder itself cannot be scanned (gone,
    not a folder, the private cache) or a region is the whole folder (``""``): read
    the whole source then.
    """
    with collector_paused():
        chosen = sorted(set(regions))
        root = Path(spec.endpoint)
        if not chosen or "" in chosen or not root.is_dir():
            return None
        cache_real = cache_real_path()
        real = os.path.realpath(root)
        if cache_real and (real == cache_real or relative_inside(real, cache_real) is not None):
            return None
        root_prefix = str(root) + os.sep
        skills: list[Skill] = []
        errors: list[str] = []
        for region in chosen:
            tree = _Tree(root, cache_real, start=region)
            hashed: dict[str, HashResult] = {}

            def digest_of(rel: str, hashed: dict[str, HashResult] = hashed) -> HashResult:
                result = hashed.get(rel)
                if result is None:
                    keep = rel == SKILL_MD or rel.endswith(_SKILL_MD_TAIL)
                    result = hashed[rel] = _hash_or_error(root_prefix + rel, keep)
                return result

            found, _too_deep = _read_skills(spec, root, tree, tree.skill_dirs(), digest_of)
            skills.extend(found)
            errors.extend(f"could not read {e}" for e in tree.errors[:20])
    from desktop.sources.marketplace import plugin_skills

    return plugin_skills(spec.endpoint, skills), errors


def _ancestors(rel_dir: str) -> list[str]:
    """The directories enclosing ``rel_dir``, the folder itself ("") included."""
    if not rel_dir:
        return []
    parts = rel_dir.split("/")
    return ["", *("/".join(parts[:i]) for i in range(1, len(parts)))]


def _inside(real: str, real_dir: str) -> bool:
    """Whether the real path ``real`` is ``real_dir`` or lies below it."""
    try:
        return os.path.commonpath([real, real_dir]) == real_dir
    except ValueError:  # another drive
        return False


def _hash_or_error(path: str, keep: bool) -> HashResult:
    try:
        return _hash_file(path, keep)
    except OSError as exc:
        return exc.strerror or str(exc)


def _collect(
    spec: SourceSpec,
    root: Path,
    tree: _Tree,
    skill_dirs: list[str],
    digest_of: Callable[[str], HashResult],
    status: SourceStatus,
) -> tuple[SourceStatus, list[Skill]]:
    skills, too_deep = _read_skills(spec, root, tree, skill_dirs, digest_of)
    if too_deep:
        status.notes.append(
            f"{count(too_deep, 'skill folder')} nested more than {MAX_NESTING} deep inside "
            "other skills were not read as skills (the limit on nesting); their files are "
            "part of the enclosing skills"
        )
    status.skill_count = len(skills)
    if not skills:
        status.status = "no-skills"
        status.message = f"no skill folders (a folder holding {SKILL_MD}) under {root}"
    if tree.errors:
        status.notes.extend(f"could not read {e}" for e in tree.errors[:20])
    # Links leaving their skill are not followed. Inside a skill its problems say so;
    # elsewhere (a skill folder, or a SKILL.md, that is such a link) a note does.
    for d, links in sorted(tree.outside.items()):
        if any(_within(d, s) for s in skill_dirs):
            continue
        for name, bound, leaves_root in links[:20]:
            shown = f"{d}/{name}" if d else name
            left = "the folder" if leaves_root or not bound else bound
            status.notes.append(f"{shown} is a link leaving {left}; it was not followed")
    return status, skills


def _read_skills(
    spec: SourceSpec,
    root: Path,
    tree: _Tree,
    skill_dirs: list[str],
    digest_of: Callable[[str], HashResult],
) -> tuple[list[Skill], int]:
    """The skills of ``skill_dirs`` (sorted), each with its enclosing skill; and how
    many were too deeply nested to read."""
    skills: list[Skill] = []
    by_dir: dict[str, Skill] = {}
    depth: dict[str, int] = {}  # rel dir -> skills enclosing it
    too_deep = 0
    for rel_dir in skill_dirs:
        # nested_in: the closest enclosing skill directory (sorted: it came first)
        parent = rel_dir
        enclosing: str | None = None
        while parent:
            parent = parent.rpartition("/")[0]
            if parent in depth:
                enclosing = parent
                break
        level = depth[enclosing] + 1 if enclosing is not None else 0
        depth[rel_dir] = level
        if level >= MAX_NESTING:
            too_deep += 1
            continue
        skill = _scan_skill(spec, root, tree, rel_dir, digest_of)
        if enclosing is not None:
            skill.nested_in = by_dir[enclosing].id
        by_dir[rel_dir] = skill
        skills.append(skill)
    return skills, too_deep


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(name: str) -> str:
    """A file name with each byte that is not UTF-8 written as ``\\xNN``."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _within(rel: str, rel_dir: str) -> bool:
    """Whether the relative path ``rel`` is ``rel_dir`` or lies below it."""
    return not rel_dir or rel == rel_dir or rel.startswith(rel_dir + "/")


def _scan_skill(
    spec: SourceSpec,
    root: Path,
    tree: _Tree,
    rel_dir: str,
    digest_of: Callable[[str], HashResult],
) -> Skill:
    skill_md_rel = f"{rel_dir}/{SKILL_MD}" if rel_dir else SKILL_MD
    skill_path = (
        tree.real_root + os.sep + rel_dir.replace("/", os.sep) if rel_dir else tree.real_root
    )
    dir_name = os.path.basename(skill_path)
    problems: list[Problem] = []
    files: list[SkillFile] = []
    skill_md_bytes: bytes | None = None
    md_error: str | None = None  # why SKILL.md could not be read
    prefix_len = len(rel_dir) + 1 if rel_dir else 0
    not_utf8: list[str] = []
    n_files, n_bytes = tree.count_under(rel_dir)
    over = n_files > MAX_FILES or n_bytes > MAX_BYTES
    if rel_dir in tree.bad_skill_md:
        md_error = f"it is {tree.bad_skill_md[rel_dir]}, not a file; not opened"
    if over:
        # Known from the walk: the manifest is not built, no file but SKILL.md is read
        # (for its name and description), and that one at most to the limit.
        problems.extend(limit_problems(n_files, n_bytes, unread=True))
        if md_error is None:
            try:
                skill_md_bytes = _read_head(root_path(root, skill_md_rel), MAX_BYTES)
            except OSError as exc:
                md_error = exc.strerror or str(exc)
    for rel in () if over else tree.files_under(rel_dir):
        result = digest_of(rel)
        if isinstance(result, str):
            if rel == skill_md_rel:
                md_error = result
                continue
            problems.append(Problem("file-unreadable", f"cannot read {rel[prefix_len:]}: {result}"))
            continue
        size, digest, data = result
        files.append(SkillFile(rel[prefix_len:], digest, size))
        if not rel.isascii() and not _utf8(rel):
            not_utf8.append(rel[prefix_len:])
        if rel == skill_md_rel:
            skill_md_bytes = data
    # A name of bytes that are not UTF-8 (read as lone surrogates) fits in no URI: no
    # server can publish the skill, and serve leaves it out.
    for name in not_utf8[:_SHOWN_NAMES]:
        problems.append(
            Problem(
                "file-name-not-utf8",
                f"file name {_escaped(name)} is not UTF-8, which no URI can carry: "
                "no server can publish this skill",
            )
        )
    if len(not_utf8) > _SHOWN_NAMES:
        problems.append(
            Problem(
                "file-name-not-utf8",
                f"{len(not_utf8) - _SHOWN_NAMES} more file names are not UTF-8",
            )
        )
    for d in tree.dirs_under(rel_dir) if tree.special else ():
        for n, kind in tree.special.get(d, ())[:_SHOWN_NAMES]:
            shown = f"{d}/{n}"[prefix_len:] if d else n
            problems.append(
                Problem(
                    "file-special",
                    f"{shown} is {kind}, not a regular file: it was not opened and is not "
                    "part of the manifest",
                    "error",
                )
            )
    for unread, why in tree.unread:
        if _within(unread, rel_dir):
            # What could not be listed is missing from the manifest: an author must know.
            shown = unread[prefix_len:] or "."
            problems.append(
                Problem(
                    "folder-unreadable",
                    f"could not read {shown}: {why}; the manifest may be missing files",
                    "error",
                )
            )
    # Links the walk did not follow, each a warning of the skill they are in.
    for d in tree.dirs_under(rel_dir) if tree.linked_dirs else ():
        for n in tree.linked_dirs.get(d, ()):
            shown = f"{d}/{n}"[prefix_len:] if d else n
            problems.append(
                Problem(
                    "symlink-directory",
                    f"{shown} is a link to a folder; it was not followed, so no file under it "
                    "is part of the manifest",
                    "warning",
                )
            )
    for d in tree.dirs_under(rel_dir) if tree.outside else ():
        for n, bound, _leaves_root in tree.outside.get(d, ()):
            shown = f"{d}/{n}"[prefix_len:] if d else n
            # the folder it leaves: this skill's, or a nested one's (or a SKILL.md's own)
            left = "the skill's folder" if bound == rel_dir else bound[prefix_len:]
            problems.append(
                Problem(
                    "symlink-outside",
                    f"{shown} is a link leaving {left}; it was not followed",
                    "warning",
                )
            )
    if skill_md_bytes is None and md_error is None:
        try:
            skill_md_bytes = _read_head(root_path(root, skill_md_rel), MAX_BYTES + 1)
        except OSError as exc:
            md_error = exc.strerror or str(exc)
    frontmatter = None
    if md_error is not None or skill_md_bytes is None:
        # Said once, as what it is: an unreadable file is not an empty one.
        problems.append(
            Problem("skill-md-unreadable", f"cannot read {SKILL_MD}: {md_error}", "invalid")
        )
    else:
        parsed = parse_skill_md(skill_md_bytes)
        problems.extend(parsed.problems)
        frontmatter = parsed.frontmatter
    if frontmatter is not None:
        problems.extend(check_frontmatter(frontmatter, dir_name))
    loading, loading_problems = read_loading(frontmatter, None)
    problems.extend(loading_problems)
    if not over:
        problems.extend(check_limits(files))
    fm = frontmatter or {}
    declared_name, declared_description = fm.get("name"), fm.get("description")
    name = declared_name if isinstance(declared_name, str) else dir_name
    description = declared_description if isinstance(declared_description, str) else ""
    return Skill(
        origin=spec.origin,
        uri=skill_md_rel,
        name=name,
        description=description,
        frontmatter=frontmatter,
        # Over a limit: no manifest at all, rather than an empty one taken for complete.
        resources=None if over else tuple(files),
        loading=loading,
        problems=problems,
        path=skill_path,
        qualified_name=name,
    )


def root_path(root: Path, rel: str) -> str:
    return str(root) + os.sep + rel.replace("/", os.sep)


def _read_head(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file (never a FIFO or device: not read)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(0, f"it is {_kind(mode)}, not a regular file; not read")
        parts: list[bytes] = []
        while limit > 0 and (chunk := os.read(fd, min(limit, _CHUNK))):
            parts.append(chunk)
            limit -= len(chunk)
    finally:
        os.close(fd)
    return _whole_characters(b"".join(parts))


def read_local_file(skill: Skill, rel_uri: str) -> bytes:
    """Read one file of a local skill, refusing anything that is not inside its folder.

    Raises ``PermissionError`` for a path outside the skill and ``OSError`` when the
    file cannot be read or is no regular file. Whether the file is listed is the
    verifier's question; at most one byte past its listed size is read (past
    16 MiB when it is not listed), enough to tell a size mismatch.
    """
    if skill.path is None:
        raise PermissionError("not a local skill")
    base = os.path.realpath(skill.path)
    target = os.path.realpath(os.path.join(base, *PurePosixPath(rel_uri).parts))
    if os.path.commonpath([base, target]) != base or PurePosixPath(rel_uri).is_absolute():
        raise PermissionError(f"{rel_uri} is outside the skill folder")
    listed = skill.file(rel_uri)
    limit = (listed.size if listed is not None else MAX_BYTES) + 1
    # Non-blocking, so a file swapped for a FIFO cannot hold the read for ever; no
    # following of a link put in place of the resolved path since it was resolved.
    fd = os.open(target, _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{rel_uri} is {_kind(mode)}, not a regular file; not read")
        parts: list[bytes] = []
        while limit > 0 and (chunk := os.read(fd, min(limit, _CHUNK))):
            parts.append(chunk)
            limit -= len(chunk)
    finally:
        os.close(fd)
    return b"".join(parts)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "something else"

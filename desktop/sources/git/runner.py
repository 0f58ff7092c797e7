"""git, run for the git kind: fetched into a bare repository of the private cache, read
from by commit, and nothing from the repository ever run.

The catalog never checks anything out: it fetches into a bare repository, lists a
commit's tree (``git ls-tree``) and reads blobs (``git cat-file --batch``). So a
repository's hooks, filters (``.gitattributes``), LFS smudging and submodules never
apply; they are also switched off for every git run here, and git runs with:

- only the ``https``, ``ssh``, ``git`` and ``file`` transports (``protocol.allow=never``
  and one ``protocol.<name>.allow=always`` each, and ``GIT_ALLOW_PROTOCOL``), after
  :mod:`desktop.sources.git.remote` refused every other address before git started;
- ``--`` before every address, so nothing typed is read as an option;
- no system or global configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL`` set
  to the null device), no prompt (``GIT_TERMINAL_PROMPT=0``, ssh in batch mode), no
  hooks (``core.hooksPath`` the null device), no submodules, no LFS smudge, no
  automatic gc, and an environment of its own (no ``GIT_*`` variable of the caller's);
- within a time (:data:`FETCH_TIMEOUT_S`, :data:`GIT_TIMEOUT_S`; the process group is
  ended past it) and, for a fetch, a size (:data:`MAX_FETCH_BYTES`: the objects it has
  written are measured while it runs and it is ended past the size).

Two programs fetching the same repository at once take turns (a lock file beside it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.sources.git.remote import Remote

FETCH_TIMEOUT_S = 300.0
GIT_TIMEOUT_S = 60.0
MAX_FETCH_BYTES = 512 * 1024 * 1024
LOCK_WAIT_S = 120.0
_POLL_S = 0.05

SAFE_CONFIG: tuple[str, ...] = (
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "protocol.git.allow=always",
    "protocol.file.allow=always",
    f"core.hooksPath={os.devnull}",
    "core.fsmonitor=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "credential.helper=",
    "gc.auto=0",
    "maintenance.auto=false",
    "core.sshCommand=ssh -o BatchMode=yes",
)
_KEPT_ENV = (
    "PATH",
    "HOME",
    "SSH_AUTH_SOCK",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "SYSTEMROOT",
    "http_proxy",
    "https_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "no_proxy",
    "NO_PROXY",
    "all_proxy",
    "ALL_PROXY",
)

FETCHED_REF = "refs/catalog/fetched"
PIN_REFS = "refs/catalog/pins/"


class GitFailed(RuntimeError):
    """git could not do what was asked; the message says why in plain words."""


def git_env() -> dict[str, str]:
    """The environment every git run has (see the module)."""
    env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_ALLOW_PROTOCOL="https:ssh:git:file",
        GIT_PROTOCOL_FROM_USER="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
    )
    return env


def git_argv(repo: Path | None, args: Sequence[str]) -> list[str]:
    """``git`` with the safe configuration, on ``repo`` (a bare repository)."""
    argv = ["git"]
    for item in SAFE_CONFIG:
        argv += ["-c", item]
    if repo is not None:
        argv.append(f"--git-dir={repo}")
    return [*argv, *args]


def cache_root() -> Path:
    """Where fetched repositories are kept: the private cache (platformdirs' user cache
    folder), outside every folder skills are discovered in."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("skill-catalog", appauthor=False)) / "git"


def repo_dir(remote: Remote) -> Path:
    """The bare repository that holds what was fetched of ``remote``'s URL."""
    digest = hashlib.sha256(remote.url.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return cache_root() / f"{digest}.git"


@contextlib.contextmanager
def repo_lock(repo: Path) -> Iterator[None]:
    """Hold ``repo``'s lock (another program fetching it waits its turn)."""
    import filelock

    repo.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = filelock.FileLock(str(repo.with_name(repo.name + ".lock")), mode=0o600)
    try:
        lock.acquire(timeout=LOCK_WAIT_S)
    except filelock.Timeout:
        raise GitFailed(
            f"another Skill Catalog has been fetching this repository for {LOCK_WAIT_S:g} s"
        ) from None
    try:
        yield
    finally:
        lock.release()


@dataclass(frozen=True, slots=True)
class Ran:
    returncode: int
    stdout: bytes
    stderr: str


def _end(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()
    proc.communicate()  # reaped, its pipes closed


def run_git(
    repo: Path | None,
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    timeout: float | None = None,
) -> Ran:
    """Run git on ``repo`` within ``timeout`` seconds; :class:`GitFailed` past it."""
    timeout = GIT_TIMEOUT_S if timeout is None else timeout
    proc = subprocess.Popen(
        git_argv(repo, args),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=git_env(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _end(proc)
        raise GitFailed(f"git took longer than {timeout:g} s and was stopped") from None
    return Ran(proc.returncode, out, err.decode("utf-8", "replace"))


def _size_of(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def _fetch_watched(repo: Path, args: Sequence[str]) -> Ran:
    """Run a fetch, measuring the objects it writes; ended past :data:`MAX_FETCH_BYTES`
    or :data:`FETCH_TIMEOUT_S`, and the cached repository then dropped whole."""
    objects = repo / "objects"
    before = _size_of(objects)
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            git_argv(repo, args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=git_env(),
            start_new_session=True,
        )
        deadline = time.monotonic() + FETCH_TIMEOUT_S
        ended = False
        while not ended:
            try:
                proc.wait(timeout=_POLL_S)
                ended = True
            except subprocess.TimeoutExpired:
                pass
            why = _over_budget(_size_of(objects) - before, deadline)
            if why:
                if not ended:
                    _end(proc)
                _drop(repo)
                raise GitFailed(why)
        errors.seek(0)
        said = errors.read(64 * 1024).decode("utf-8", "replace")
    return Ran(proc.returncode, b"", said)


def _over_budget(grown: int, deadline: float) -> str:
    if grown > MAX_FETCH_BYTES:
        return (
            f"the repository is larger than the {MAX_FETCH_BYTES:,} bytes a fetch may bring; "
            "the fetch was stopped and nothing of it is shown"
        )
    if time.monotonic() > deadline:
        return f"the fetch took longer than {FETCH_TIMEOUT_S:g} s and was stopped"
    return ""


def _drop(repo: Path) -> None:
    """Remove a cached repository a fetch over its budget wrote to (it is a cache: the
    pinned commits in it are fetched again when needed)."""
    import shutil

    shutil.rmtree(repo, ignore_errors=True)


def ensure_repo(repo: Path) -> None:
    """A bare repository at ``repo`` (made when missing)."""
    if (repo / "HEAD").is_file():
        return
    repo.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    ran = run_git(None, ["init", "--bare", "--quiet", "--", str(repo)])
    if ran.returncode != 0:
        raise GitFailed(f"cannot make the cache repository: {_said(ran.stderr)}")


def _said(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    picked = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines
    from desktop.core.visible import cut, one_line

    return cut(one_line(" ".join(picked[-2:])), 300) or "git said nothing"


def fetch(remote: Remote, repo: Path) -> str:
    """Fetch ``remote``'s REF (its default branch when none) into ``repo`` and return
    the commit it names. Call it holding :func:`repo_lock`."""
    ensure_repo(repo)
    wanted = remote.ref or "HEAD"
    common = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head"]
    ran = _fetch_watched(repo, [*common, "--depth=1", "--", remote.url, f"+{wanted}:{FETCHED_REF}"])
    if ran.returncode != 0 and remote.ref and not remote.is_commit and _hexish(remote.ref):
        # A short commit id: the branches are fetched whole, and the id looked up in them.
        ran = _fetch_watched(
            repo, [*common, "--", remote.url, "+refs/heads/*:refs/catalog/heads/*"]
        )
        if ran.returncode == 0:
            return resolve(repo, remote.ref)
    if ran.returncode != 0:
        raise GitFailed(f"cannot fetch {remote.name}: {_said(ran.stderr)}")
    return resolve(repo, FETCHED_REF)


def _hexish(ref: str) -> bool:
    return 4 <= len(ref) < 40 and all(c in "0123456789abcdef" for c in ref)


def resolve(repo: Path, name: str) -> str:
    """The commit ``name`` names in ``repo``."""
    ran = run_git(
        repo, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"]
    )
    commit = ran.stdout.decode("ascii", "replace").strip()
    if ran.returncode != 0 or len(commit) != 40:
        raise GitFailed(f"{name} names no commit of the repository")
    return commit


def has_commit(repo: Path, commit: str) -> bool:
    if not (repo / "HEAD").is_file():
        return False
    ran = run_git(repo, ["cat-file", "-e", f"{commit}^{{commit}}"])
    return ran.returncode == 0


def keep(repo: Path, key: str, commit: str) -> None:
    """Keep ``commit`` in ``repo`` under a ref of its own (a pin), so it stays."""
    name = PIN_REFS + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    ran = run_git(repo, ["update-ref", name, commit])
    if ran.returncode != 0:
        raise GitFailed(f"cannot keep commit {commit[:7]}: {_said(ran.stderr)}")


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a commit's tree: its mode, type (``blob``, ``commit``), object id,
    size (``-1`` for a submodule) and path."""

    mode: str
    type: str
    oid: str
    size: int
    path: str

    @property
    def is_link(self) -> bool:
        return self.mode == "120000"

    @property
    def is_submodule(self) -> bool:
        return self.type == "commit"


def ls_tree(repo: Path, commit: str, max_entries: int) -> list[TreeEntry]:
    """Every entry of ``commit``'s tree (recursively); :class:`GitFailed` past
    ``max_entries``."""
    ran = run_git(repo, ["ls-tree", "-r", "-l", "-z", "--full-tree", commit])
    if ran.returncode != 0:
        raise GitFailed(f"cannot list commit {commit[:7]}: {_said(ran.stderr)}")
    records = ran.stdout.split(b"\0")
    if len(records) > max_entries + 1:
        raise GitFailed(
            f"the commit holds more than {max_entries:,} files; a repository that large is not read"
        )
    out: list[TreeEntry] = []
    for record in records:
        if not record:
            continue
        head, _tab, path = record.partition(b"\t")
        mode, kind, oid, size = head.decode("ascii", "replace").split(None, 3)
        out.append(
            TreeEntry(
                mode,
                kind,
                oid,
                int(size) if size.strip().isdigit() else -1,
                path.decode("utf-8", "surrogateescape"),
            )
        )
    return out


def cat_blobs(repo: Path, names: Sequence[str], limit: int) -> dict[str, bytes]:
    """The bytes of each object ``names`` names (an id or ``commit:path``), at most
    ``limit`` bytes each (more is left out); a name that is no blob is left out."""
    if not names:
        return {}
    ran = run_git(repo, ["cat-file", "--batch"], stdin="".join(n + "\n" for n in names).encode())
    if ran.returncode != 0:
        raise GitFailed(f"cannot read the repository: {_said(ran.stderr)}")
    out: dict[str, bytes] = {}
    data = ran.stdout
    at = 0
    for name in names:
        end = data.index(b"\n", at)
        header = data[at:end].decode("ascii", "replace").split()
        at = end + 1
        if len(header) != 3:  # "<name> missing" or "ambiguous"
            continue
        _oid, kind, size_text = header
        size = int(size_text)
        if kind == "blob" and size <= limit:
            out[name] = data[at : at + size]
        at += size + 1
    return out

"""What a person types for a git source, read and checked before git ever starts.

A remote is ``URL[#REF]``. The URL is ``https://``, ``ssh://``, ``git://``,
``file://``, an scp-like ``user@host:path`` (ssh), or a local path (made absolute);
REF is a branch, a tag or a commit (empty: the remote's default branch).

Refused here, so git never sees them: a transport helper (``ext::sh -c …``, ``fd::``,
anything with ``::``), any other scheme (``http://``, ``ftp://``…), a URL or a REF
starting with ``-`` (read by git as an option: ``--upload-pack=…``), a host starting
with ``-`` (read by ssh as an option), a password written in the URL, control
characters and spaces, and a REF that could be read as a refspec (``:``, ``+``, ``^``,
``~``, ``..``, ``*``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from desktop.core.provenance import repository_name, repository_page

SCHEMES = ("https", "ssh", "git", "file")
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SCP_RE = re.compile(r"^(?:([^@/:]+)@)?([^/:]+):(.*)$")
_REF_RE = re.compile(r"^[A-Za-z0-9_./-]{1,255}$")
_COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")


class RemoteError(ValueError):
    """A git source's URL or REF that is not used, with why in plain words."""


@dataclass(frozen=True, slots=True)
class Remote:
    """A checked remote: ``url`` as git is given it (a local path made absolute), the
    ``ref`` asked for (empty: the default branch)."""

    url: str
    ref: str = ""

    @property
    def endpoint(self) -> str:
        """The saved form, ``URL`` or ``URL#REF``."""
        return f"{self.url}#{self.ref}" if self.ref else self.url

    @property
    def is_commit(self) -> bool:
        return bool(_COMMIT_RE.match(self.ref))

    @property
    def local(self) -> bool:
        return self.url.startswith("/")

    @property
    def web_url(self) -> str:
        """The repository's page for a person to open (https URLs only), else empty."""
        return repository_page(self.url)

    @property
    def name(self) -> str:
        """The repository in a few words: ``owner/repo`` for a URL, the path for a folder."""
        return repository_name(self.url)


def parse_remote(text: str) -> Remote:
    """``URL[#REF]`` checked (see the module); :class:`RemoteError` says why not."""
    text = text.strip()
    url, sep, ref = text.rpartition("#") if "#" in text else (text, "", "")
    if sep and not ref:
        raise RemoteError("nothing follows '#': give a branch, a tag or a commit after it")
    return Remote(check_url(url), check_ref(ref))


def check_ref(ref: str) -> str:
    """A branch, tag or commit name that git can only read as a name."""
    if not ref:
        return ""
    if ref.startswith("-"):
        raise RemoteError(f"the ref {ref[:60]!r} starts with '-'; it is not used")
    if (
        not _REF_RE.match(ref)
        or ".." in ref
        or "//" in ref
        or ref.startswith("/")
        or ref.endswith(("/", ".", ".lock"))
    ):
        raise RemoteError(
            f"the ref {ref[:60]!r} is not a branch, tag or commit name "
            "(letters, digits, '.', '_', '-' and '/')"
        )
    return ref


def check_url(url: str) -> str:
    """The URL as git is to be given it; :class:`RemoteError` for what is refused."""
    if not url:
        raise RemoteError("enter the address of a git repository (https, ssh, git:// or a path)")
    if url.startswith("-"):
        raise RemoteError(f"{url[:60]!r} starts with '-'; git would read it as an option")
    if "::" in url:
        helper = url.split("::", 1)[0][:30]
        raise RemoteError(
            f"{helper}:: addresses are not used: they run a program to reach the repository; "
            "only https, ssh, git:// and local paths are read"
        )
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise RemoteError("the address holds spaces or control characters")
    scheme = _SCHEME_RE.match(url)
    if scheme:
        name = scheme.group(1).lower()
        if name not in SCHEMES:
            raise RemoteError(f"{name}:// is not read; only https, ssh, git:// and local paths are")
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError as exc:
            raise RemoteError(f"the address cannot be read: {exc}") from None
        if name != "file" and not host:
            raise RemoteError("the address names no host")
        if host.startswith("-") or (parts.username or "").startswith("-"):
            raise RemoteError("the address's host starts with '-'; it is not used")
        if parts.password is not None:
            raise RemoteError(
                "the address holds a password; it is not kept: use ssh, or a public address"
            )
        return url
    scp = _SCP_RE.match(url)
    if scp and not Path(url).expanduser().exists():
        user, host, _path = scp.groups()
        if host.startswith("-") or (user or "").startswith("-"):
            raise RemoteError("the address's host starts with '-'; it is not used")
        return url
    path = Path(url).expanduser().resolve()
    if not path.is_dir():
        raise RemoteError(f"no git repository at {path}")
    return str(path)


def default_label(remote: Remote) -> str:
    """A label for a source of ``remote``: the repository's name, made a valid label."""
    last = remote.name.rstrip("/").rsplit("/", 1)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip(".-")
    return cleaned[:60] or "git"

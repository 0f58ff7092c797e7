"""A published skill's provenance in words, for the page: where its bytes come from.

A git source's skill carries ``{"repository", "commit", "path"}``: said as
"anthropics/skills at 9d2f1ae, skills/pdf", with the repository's page for a person
to open when the repository is an https address. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def repository_name(url: str) -> str:
    """``owner/repo`` of a repository's address (``.git`` dropped); a path as it is."""
    if url.startswith("/"):
        return url
    path = urlsplit(url).path if _SCHEME_RE.match(url) else url.rpartition(":")[2]
    parts = [p for p in path.split("/") if p]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1][:-4]
    return "/".join(parts[-2:]) or url


def repository_page(url: str) -> str:
    """The page a person may open for an https repository (``.git`` dropped); else empty."""
    if not url.startswith("https://"):
        return ""
    page = url[:-4] if url.endswith(".git") else url
    return page.rstrip("/")


def provenance_words(provenance: Mapping[str, str]) -> str:
    """The provenance in words; empty when there is none."""
    repository, commit = provenance.get("repository", ""), provenance.get("commit", "")
    if repository and commit:
        path = provenance.get("path", "")
        said = f"{repository_name(repository)} at {commit[:7]}"
        return f"{said}, {path}" if path else said
    return ", ".join(f"{k} {v}" for k, v in sorted(provenance.items()))


def provenance_link(provenance: Mapping[str, str]) -> str:
    """The repository's page for a person to open (https only); else empty."""
    return repository_page(provenance.get("repository", ""))

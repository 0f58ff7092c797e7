"""A published skill's provenance in words, for the page: where its bytes come from.

A git source's skill carries ``{"repository", "commit", "path"}``: said as
"anthropics/skills at 9d2f1ae, skills/pdf", with the repository's page for a person
to open when the repository is an https address. A web index's skill carries
``{"index", "url", "digest"}``: said as the index it is listed by and the digest it was
checked against (or that the index vouches for none). A skill a plugin publishes also
carries ``"plugin"`` (and its version, author, description and marketplace): said as
"Part of plugin pdf-tools 1.2 by Ada". Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from desktop.core.visible import one_line

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
DIGEST_SHOWN = 19  # "sha256:" and twelve hex digits
PLUGIN_KEYS = ("plugin", "plugin_version", "plugin_author", "plugin_description", "marketplace")


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


def plugin_words(provenance: Mapping[str, str]) -> str:
    """``Part of plugin pdf-tools 1.2 by Ada`` (empty when no plugin)."""
    name = provenance.get("plugin", "")
    if not name:
        return ""
    text = f"Part of plugin {name}"
    if provenance.get("plugin_version"):
        text += f" {provenance['plugin_version']}"
    if provenance.get("plugin_author"):
        text += f" by {provenance['plugin_author']}"
    return one_line(text)


def source_words(provenance: Mapping[str, str]) -> str:
    """Where the bytes come from: the repository, its commit and the path, or the index
    and the digest it vouches for; what else it holds, as it is."""
    repository, commit = provenance.get("repository", ""), provenance.get("commit", "")
    if repository and commit:
        path = provenance.get("path", "")
        said = f"{repository_name(repository)} at {commit[:7]}"
        return f"{said}, {path}" if path else said
    if provenance.get("index"):
        digest = provenance.get("digest", "")
        vouched = (
            f"checked against its digest {digest[:DIGEST_SHOWN]}…"
            if digest
            else "the index vouches for no digest (the catalog pinned what it first read)"
        )
        return one_line(f"Listed by the index {provenance['index']}; {vouched}")
    rest = {k: v for k, v in provenance.items() if k not in PLUGIN_KEYS}
    return ", ".join(f"{k} {v}" for k, v in sorted(rest.items()))


def provenance_words(provenance: Mapping[str, str]) -> str:
    """The provenance in words, its sentences joined with " · "; empty when none."""
    return " · ".join(p for p in (source_words(provenance), plugin_words(provenance)) if p)


def provenance_link(provenance: Mapping[str, str]) -> str:
    """The repository's page for a person to open (https only); else empty."""
    return repository_page(provenance.get("repository", ""))

"""A skill's provenance in words: where a published skill's bytes come from.

``Skill.provenance`` holds it as data (``list --json`` gives it): for a web index
``{"index", "url", "digest"}``, for a repository ``{"repository", "commit", "path"}``,
and ``"plugin"`` (with its version, author, description and marketplace) for a skill
that a plugin publishes. Here it becomes the sentences the skill page shows.
"""

from __future__ import annotations

from collections.abc import Mapping

from desktop.core.visible import one_line

DIGEST_SHOWN = 19  # "sha256:" and twelve hex digits


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
    """Where the bytes come from: the index and the digest it vouches for, or the
    repository, its commit and the path (empty when neither)."""
    if provenance.get("index"):
        digest = provenance.get("digest", "")
        vouched = (
            f"checked against its digest {digest[:DIGEST_SHOWN]}…"
            if digest
            else "the index vouches for no digest (the catalog pinned what it first read)"
        )
        return one_line(f"Listed by the index {provenance['index']}; {vouched}")
    if provenance.get("repository"):
        text = provenance["repository"]
        if provenance.get("commit"):
            text += f" at {provenance['commit'][:7]}"
        if provenance.get("path"):
            text += f", {provenance['path']}"
        return one_line(text)
    return ""


def provenance_words(provenance: Mapping[str, str]) -> str:
    """Every sentence of it, joined with " · " (empty when it has none)."""
    return " · ".join(p for p in (source_words(provenance), plugin_words(provenance)) if p)

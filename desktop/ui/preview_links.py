"""What a click on a link in a skill's preview means (P3). Pure: no Qt.

- a relative link to a file the skill lists: open that file, verified, in the pane;
- a link naming another skill's ``SKILL.md`` (a server URI): open that skill, after a
  confirmation naming both servers when it belongs to another server;
- anything else (web pages, mail, files outside the skill or not listed): shown, not
  opened.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from desktop.core.catalog import Catalog
from desktop.core.entry import skill_md_uri
from desktop.core.model import Skill

FILE = "file"
SKILL = "skill"
SHOWN = "shown"


@dataclass(frozen=True, slots=True)
class LinkTarget:
    kind: str  # file | skill | shown
    href: str
    uri: str = ""  # the file's manifest URI (file) or the other skill's id (skill)
    reason: str = ""
    other_server: str | None = None  # set when a skill link leaves this skill's server


def _split(uri: str) -> tuple[str, str]:
    scheme, sep, rest = uri.partition("://")
    return (scheme, rest) if sep else ("", uri)


def _join(root_uri: str, base_uri: str, href: str) -> str | None:
    """Resolve ``href`` against ``base_uri``'s directory; None if it leaves the skill.

    ``root_uri`` is the skill's ``SKILL.md`` URI: a result must stay in its directory.
    """
    scheme, rest = _split(base_uri)
    _, root_rest = _split(root_uri)
    root = root_rest.rpartition("/")[0]
    directory = rest.rpartition("/")[0]
    joined = posixpath.normpath(posixpath.join(directory, href))
    if joined in (".", "..") or joined.startswith(("../", "/")):
        return None
    if root and not joined.startswith(root + "/"):
        return None
    return f"{scheme}://{joined}" if scheme else joined


def resolve_link(
    skill: Skill, href: str, catalog: Catalog, current_uri: str | None = None
) -> LinkTarget:
    """Decide what a link in ``skill``'s file ``current_uri`` (default SKILL.md) targets."""
    href = href.strip()
    parts = urlsplit(href)
    if not href or href.startswith("#"):
        return LinkTarget(SHOWN, href, reason="an anchor inside the page")
    if parts.scheme:
        # A skill URI is scoped to its server: the linking skill's own server first, and
        # another server's skill of that URI only when its own serves none (asked first).
        same = [s for s in catalog.skills if s.uri == href and s.origin.kind == "mcp"]
        if same:
            other = min(same, key=lambda s: s.origin.label != skill.origin.label)
            if other.id == skill.id:
                return LinkTarget(FILE, href, uri=skill_md_uri(skill))
            leaves = other.origin.label != skill.origin.label
            return LinkTarget(
                SKILL,
                href,
                uri=other.id,
                other_server=other.origin.label if leaves else None,
            )
        if skill.file(href) is not None:
            return LinkTarget(FILE, href, uri=href)
        if parts.scheme in ("http", "https", "mailto"):
            return LinkTarget(SHOWN, href, reason="an outside address: not opened by the preview")
        return LinkTarget(SHOWN, href, reason="not a file of this skill, nor a listed skill")
    path = unquote(parts.path)
    root = skill_md_uri(skill)
    joined = _join(root, current_uri or root, path)
    if joined is None:
        return LinkTarget(SHOWN, href, reason="points outside the skill's folder")
    if skill.file(joined) is not None:
        return LinkTarget(FILE, href, uri=joined)
    return LinkTarget(SHOWN, href, reason=f"{joined} is not a listed file of this skill")

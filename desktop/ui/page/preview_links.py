"""What a click on a link in a skill's preview means. Pure: no Qt.

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


def _dir(uri: str) -> str:
    """The folder part of a URI without its scheme, percent-decoded."""
    return unquote(_split(uri)[1]).rpartition("/")[0]


def _listed(skill: Skill, uri: str) -> str | None:
    """The manifest URI naming ``uri``: the same string, or the same once percent-decoded
    (a server writes ``a%20b.md`` where the link says ``a b.md`` or ``a%20b.md``)."""
    if skill.file(uri) is not None:
        return uri
    wanted = unquote(uri)
    return next((f.uri for f in skill.files if unquote(f.uri) == wanted), None)


def _bases(skill: Skill, current_uri: str) -> list[str]:
    """The folders a relative link in ``current_uri`` is resolved against, in order.

    First the root of the skill the file belongs to, as the specification says: the
    nearest folder at or above the file's own that holds a listed ``SKILL.md`` (a nested
    skill's references resolve against its own root). Then the file's own folder, as
    Markdown links are written, for a link the root does not resolve to a listed file.
    """
    scheme = _split(current_uri)[0]
    prefix = f"{scheme}://" if scheme else ""
    root = _dir(skill_md_uri(skill))
    own = folder = _dir(current_uri)
    while folder != root and folder.startswith(root + "/" if root else ""):
        if _listed(skill, f"{prefix}{folder}/SKILL.md") is not None:
            break
        folder = folder.rpartition("/")[0] if "/" in folder else root
    else:
        folder = root
    return [folder] if folder == own else [folder, own]


def _join(skill: Skill, base: str, path: str) -> str | None:
    """``path`` resolved against the folder ``base``; None if it leaves the skill."""
    scheme = _split(skill_md_uri(skill))[0]
    root = _dir(skill_md_uri(skill))
    joined = posixpath.normpath(posixpath.join(base, path))
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
    bases = _bases(skill, current_uri or skill_md_uri(skill))
    joins = [_join(skill, base, path) for base in bases]
    for joined in joins:
        listed = _listed(skill, joined) if joined is not None else None
        if listed is not None:
            return LinkTarget(FILE, href, uri=listed)
    if joins[0] is None:
        return LinkTarget(SHOWN, href, reason="points outside the skill's folder")
    return LinkTarget(SHOWN, href, reason=f"{joins[0]} is not a listed file of this skill")

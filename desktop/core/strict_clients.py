"""The Agent Skills rules strict clients hold a `skills/list` entry to, and who refuses.

The official MCP TypeScript SDK client (``@modelcontextprotocol/client`` 2.4, its
``SkillsClient``) checks every entry of a listing and, by default, refuses the whole
listing when one entry breaks a rule: a host built on it then gets none of a server's
skills. fastmcp 4.1.3's client does the same for metadata that is not text. These are
the rules as those clients apply them (lengths counted in characters, as they count
them), so that ``serve`` can leave such an entry out and ``lint`` can say which clients
would refuse it. A lenient reader (this catalog) still reads such a skill.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from desktop.core.checks import COMPATIBILITY_MAX, DESCRIPTION_MAX, NAME_MAX, NAME_RE
from desktop.core.visible import cut_repr

TYPESCRIPT_CLIENT = "the official MCP TypeScript SDK client"
FASTMCP_CLIENT = "fastmcp 4.1.3's client"

# The problem codes of `core.checks` that these rules restate for strict clients.
CHECK_CODES = frozenset(
    {
        "name-too-long",
        "name-pattern",
        "name-mismatch",
        "description-too-long",
        "compatibility-type",
        "compatibility-empty",
        "compatibility-too-long",
        "metadata-type",
        "metadata-not-text",
    }
)
STRICT_CLIENTS_CODE = "strict-clients-refuse"
# How many metadata values one breach names.
_NAMED_VALUES = 3


@dataclass(frozen=True, slots=True)
class Breach:
    """One rule an entry breaks, in plain words, and the clients that refuse it."""

    rule: str  # name, description, compatibility, metadata, frontmatter, resources
    message: str
    clients: tuple[str, ...] = (TYPESCRIPT_CLIENT,)


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a true/false value"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def frontmatter_breaches(frontmatter: Mapping[str, Any], folder_name: str | None) -> list[Breach]:
    """The rules ``frontmatter`` breaks for strict clients; ``folder_name`` is the name of
    the skill's folder (the last segment of its URI), which the name must equal."""
    out: list[Breach] = []
    name = frontmatter.get("name")
    if not isinstance(name, str) or not (1 <= len(name) <= NAME_MAX) or not NAME_RE.match(name):
        out.append(
            Breach(
                "name",
                f"its name {cut_repr(name, 80)} is not 1-{NAME_MAX} lowercase letters, digits "
                "and single hyphens",
            )
        )
    elif folder_name is not None and name != folder_name:
        out.append(
            Breach("name", f"its name {name!r} differs from its folder name {folder_name!r}")
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description:
        out.append(Breach("description", "it has no description text"))
    elif len(description) > DESCRIPTION_MAX:
        out.append(
            Breach(
                "description",
                f"its description is {len(description):,} characters, over {DESCRIPTION_MAX:,}",
            )
        )
    if "compatibility" in frontmatter:
        compat = frontmatter["compatibility"]
        if not isinstance(compat, str):
            out.append(Breach("compatibility", f"its compatibility is {_kind(compat)}, not text"))
        elif not compat:
            out.append(Breach("compatibility", "its compatibility is empty"))
        elif len(compat) > COMPATIBILITY_MAX:
            out.append(
                Breach(
                    "compatibility",
                    f"its compatibility is {len(compat):,} characters, over {COMPATIBILITY_MAX}",
                )
            )
    if "metadata" in frontmatter:
        breach = _metadata_breach(frontmatter["metadata"])
        if breach is not None:
            out.append(breach)
    if "__proto__" in frontmatter:
        out.append(Breach("frontmatter", "its frontmatter has a field named '__proto__'"))
    return out


def _metadata_breach(metadata: Any) -> Breach | None:
    clients = (TYPESCRIPT_CLIENT, FASTMCP_CLIENT)
    if not isinstance(metadata, dict):
        return Breach("metadata", f"its metadata is {_kind(metadata)}, not a mapping", clients)
    odd = [(k, v) for k, v in metadata.items() if not isinstance(v, str)]
    if not odd:
        return None
    named = ", ".join(f"{k!s} is {_kind(v)}" for k, v in odd[:_NAMED_VALUES])
    more = f" and {len(odd) - _NAMED_VALUES} more" if len(odd) > _NAMED_VALUES else ""
    hint = (
        ' (loading values can be written as text: nimblebrain.triggers: "a, b")'
        if any(k == "nimblebrain" for k, _ in odd)
        else ""
    )
    message = f"its metadata values must be text, but {named}{more}{hint}"
    return Breach("metadata", message, clients)


def resource_breaches(skill_md_uri: str, resource_uris: Iterable[str]) -> list[Breach]:
    """The rules a listed manifest breaks: each file inside the skill's folder, the
    ``SKILL.md`` listed, no file twice, no query or fragment."""
    root = skill_md_uri.removesuffix("/SKILL.md")
    out: list[str] = []
    seen: set[str] = set()
    has_self = False
    for uri in resource_uris:
        if "?" in uri or "#" in uri:
            out.append(f"its file {uri} has a query or fragment")
            continue
        key = unquote(uri)
        if key in seen:
            out.append(f"its file {uri} is listed twice")
        seen.add(key)
        if uri == skill_md_uri:
            has_self = True
        elif not uri.startswith(root + "/") or any(
            unquote(s) in ("", ".", "..") or "/" in unquote(s) or "\0" in unquote(s)
            for s in uri[len(root) + 1 :].split("/")
        ):
            out.append(f"its file {uri} lies outside the skill's folder")
    if not has_self:
        out.append("its own SKILL.md is not listed")
    return [Breach("resources", message) for message in out[:_NAMED_VALUES]]


def entry_breaches(entry: Mapping[str, Any]) -> list[Breach]:
    """The rules a `skills/list` entry (``uri``, ``frontmatter``, ``resources``) breaks."""
    uri = str(entry.get("uri", ""))
    folder = uri.removesuffix("/SKILL.md").rpartition("/")[2]  # or the authority alone
    frontmatter = entry.get("frontmatter")
    if not isinstance(frontmatter, Mapping):
        return [Breach("frontmatter", "it has no frontmatter mapping")]
    out = frontmatter_breaches(frontmatter, unquote(folder))
    resources = entry.get("resources")
    if isinstance(resources, list):
        out += resource_breaches(uri, (str(r.get("uri", "")) for r in resources))
    return out


def refusal_summary(breaches: list[Breach]) -> str:
    """One sentence: who refuses a whole listing holding this entry, and why."""
    reasons = "; ".join(b.message for b in breaches)
    ts_only = [b for b in breaches if FASTMCP_CLIENT not in b.clients]
    text = f"{TYPESCRIPT_CLIENT} refuses a server's whole skill listing that holds it ({reasons})"
    if len(ts_only) < len(breaches):
        text += f"; {FASTMCP_CLIENT} likewise for its metadata"
    return text

"""Turn a server's wire ``Skill`` entry into a :class:`Skill`, checking it first.

An entry comes from an arbitrary server, so nothing in it is trusted: every field is
checked for type, the frontmatter is bounded in size and depth before it is kept, and
an entry that breaks a rule of its shape is kept as an *invalid* skill with its problems
(shown, never loadable) rather than dropped or raised.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from desktop.core.checks import check_frontmatter, display_text
from desktop.core.frontmatter import MAX_DEPTH, MAX_FRONTMATTER_BYTES, MAX_NODES
from desktop.core.identity import qualified_name
from desktop.core.loading import read_loading
from desktop.core.manifest import DIGEST_RE, check_limits
from desktop.core.model import DYNAMIC_RESOURCES, Origin, Problem, Skill, SkillFile

SKILL_MD = "SKILL.md"
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
SKILL_MD_SUFFIX = "/" + SKILL_MD
MAX_URI_LENGTH = 2048
# A manifest longer than this is not walked entry by entry: the limit check
# already declines it, and a hostile server could send millions of entries.
MAX_RESOURCES_READ = 4096


def _invalid(code: str, message: str) -> Problem:
    return Problem(code, message, "invalid")


def short(value: Any, limit: int = 80) -> str:
    """A bounded, printable rendering of an untrusted value for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def frontmatter_bounds_problem(value: Any) -> Problem | None:
    """Refuse a frontmatter object that is too deep, too large, or not JSON data.

    The same limits as a parsed ``SKILL.md`` frontmatter (depth, values, bytes), so a
    hostile entry cannot blow up comparisons or JSON output later.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    size = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            return _invalid(
                "frontmatter-too-deep", f"frontmatter nests deeper than {MAX_DEPTH} levels"
            )
        if nodes > MAX_NODES:
            return _invalid(
                "frontmatter-too-large", f"frontmatter has more than {MAX_NODES} values"
            )
        if isinstance(item, dict):
            for k, v in item.items():
                if not isinstance(k, str):
                    return _invalid("frontmatter-type", "frontmatter keys must be strings")
                size += len(k) + 4
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            size += len(item) + 2
        elif item is None or isinstance(item, bool | int | float):
            size += 8
        else:
            return _invalid(
                "frontmatter-type", f"frontmatter holds a non-JSON value ({type(item).__name__})"
            )
        if size > MAX_FRONTMATTER_BYTES:
            return _invalid(
                "frontmatter-too-large",
                f"frontmatter is over {MAX_FRONTMATTER_BYTES} bytes; larger ones are refused",
            )
    return None


def _bad_segment(segment: str) -> bool:
    decoded = unquote(segment)
    return segment in ("", ".", "..") or decoded in (".", "..") or "/" in decoded or "\\" in decoded


def split_skill_uri(uri: str) -> tuple[str, str] | None:
    """Return (skill directory URI, last segment) for a ``.../<name>/SKILL.md`` URI."""
    if not uri.endswith(SKILL_MD_SUFFIX):
        return None
    skill_dir = uri[: -len(SKILL_MD_SUFFIX)]
    _scheme, sep, rest = skill_dir.partition("://")
    path = rest if sep else skill_dir
    if not path:
        return None
    last = path.rsplit("/", 1)[-1]
    if not last:
        return None
    return skill_dir, last


def resource_problem(skill_dir: str, uri: str, skill_uri: str) -> str | None:
    """Why a resource URI is not the SKILL.md or a file under the skill directory, or None."""
    if uri == skill_uri:
        return None
    prefix = skill_dir + "/"
    if not uri.startswith(prefix):
        return f"{short(uri)} is outside the skill directory {short(prefix)}"
    rest = uri[len(prefix) :]
    if "?" in rest or "#" in rest:
        return f"{short(uri)} carries a query or fragment"
    if any(_bad_segment(s) for s in rest.split("/")):
        return f"{short(uri)} has an empty, '.' or '..' path segment"
    return None


def _check_uri(uri: Any) -> tuple[str | None, list[Problem]]:
    if not isinstance(uri, str) or not uri:
        return None, [_invalid("entry-uri", f"entry has no string 'uri' (got {short(uri)})")]
    if len(uri) > MAX_URI_LENGTH or _CONTROL_RE.search(uri):
        return None, [
            _invalid(
                "entry-uri", f"entry uri is over-long or holds control characters: {short(uri)}"
            )
        ]
    return uri, []


def _read_resources(
    raw: Any, skill_uri: str | None, skill_dir: str | None
) -> tuple[tuple[SkillFile, ...] | str | None, list[Problem]]:
    if raw == DYNAMIC_RESOURCES:
        return DYNAMIC_RESOURCES, [
            Problem(
                "dynamic",
                'resources is "dynamic": the server publishes no digests, so nothing '
                "of this skill can be verified",
                "warning",
            )
        ]
    if raw is None:
        return None, [
            _invalid("resources-missing", "entry has no 'resources' (an array or \"dynamic\")")
        ]
    if not isinstance(raw, list):
        return None, [
            _invalid(
                "resources-type",
                f"'resources' must be an array or \"dynamic\","
                f" got {type(raw).__name__} {short(raw, 40)}",
            )
        ]
    problems: list[Problem] = []
    if len(raw) > MAX_RESOURCES_READ:
        # Count what we can from sizes alone for the limit message; never walk further.
        files = tuple(SkillFile(f"#{i}", "", 0) for i in range(len(raw)))
        return files, [
            _invalid(
                "resources-too-many",
                f"the entry lists {len(raw)} resources"
                f"; more than {MAX_RESOURCES_READ} are not read",
            )
        ]
    files_out: list[SkillFile] = []
    seen: dict[str, str] = {}
    skill_md_count = 0
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            problems.append(_invalid("resource-type", f"resources[{i}] is not an object"))
            continue
        uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(uri, str) or not uri:
            problems.append(_invalid("resource-uri", f"resources[{i}] has no string 'uri'"))
            continue
        key = _uri_key(uri)
        if key in seen:
            first = seen[key]
            same = "" if first == uri else f" (as {short(first)}: the same URI, spelt otherwise)"
            problems.append(
                _invalid("resource-duplicate", f"{short(uri)} is listed more than once{same}")
            )
            continue
        seen[key] = uri
        if skill_uri is not None and uri == skill_uri:
            skill_md_count += 1
        if skill_dir is not None and skill_uri is not None:
            why = resource_problem(skill_dir, uri, skill_uri)
            if why:
                problems.append(_invalid("resource-outside", why))
        if not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest):
            problems.append(
                _invalid(
                    "resource-digest",
                    f"{short(uri)}: digest {short(digest, 40)}"
                    " is not 'sha256:' and 64 lowercase hex digits",
                )
            )
            digest = ""
        if isinstance(size, float) and size.is_integer():
            size = int(size)  # JSON has one number type: 5.0 is the integer 5
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            problems.append(
                _invalid(
                    "resource-size",
                    f"{short(uri)}: size {short(size, 40)} is not a non-negative integer",
                )
            )
            size = 0
        files_out.append(SkillFile(uri, digest, size))
    if skill_uri is not None and skill_md_count == 0:
        problems.append(
            _invalid("skill-md-unlisted", f"the SKILL.md {short(skill_uri)} is not in resources")
        )
    return tuple(files_out), problems


_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _uri_key(uri: str) -> str:
    """A URI as RFC 3986 compares it: escapes of unreserved characters decoded, other
    escapes in upper case (``%53KILL.md`` and ``SKILL.md`` are one file)."""

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(one, uri) if "%" in uri else uri


def one_per_uri(skills: list[Skill]) -> list[Skill]:
    """One skill per URI of a source's listing, since its label and URI are its
    identity: two entries for one URI would be two skills with one id, and which
    of them an approval or a read meant could not be told.

    A URI listed again with the same entry is kept once, with a warning. Listed with
    different entries, it is kept once as invalid: which one the server means cannot be
    told, so neither is loaded. URIs are compared as RFC 3986 does (``%53KILL.md`` is
    ``SKILL.md``).
    """
    groups: dict[str, list[Skill]] = {}
    for skill in skills:
        groups.setdefault(_uri_key(skill.uri), []).append(skill)
    if len(groups) == len(skills):
        return skills
    out: list[Skill] = []
    for copies in groups.values():
        first = copies[0]
        if len(copies) > 1:
            times = f"{short(first.uri)} {len(copies)} times"
            same = all(
                c.uri == first.uri
                and c.frontmatter == first.frontmatter
                and c.resources == first.resources
                for c in copies[1:]
            )
            if same:
                first.problems.append(
                    Problem(
                        "entry-repeated",
                        f"the server lists {times}, the same entry each time; shown once",
                        "warning",
                    )
                )
            else:
                first.problems.append(
                    _invalid(
                        "entry-repeated",
                        f"the server lists {times} with different entries; which one it "
                        "serves cannot be told, so none is used",
                    )
                )
        out.append(first)
    return out


def parse_entry(raw: Any, origin: Origin) -> Skill:
    """Build a :class:`Skill` from one wire entry, with every problem of shape and limits.

    Never raises on bad input. An entry that breaks a rule of its shape gets ``invalid``
    problems (state ``invalid``, never loadable); one over a limit gets
    ``limit-*`` problems (state ``over-limit``).
    """
    problems: list[Problem] = []
    if not isinstance(raw, dict):
        return _broken(origin, f"#entry-{type(raw).__name__}", "entry is not an object", raw)
    uri, uri_problems = _check_uri(raw.get("uri"))
    problems.extend(uri_problems)
    if uri is None:
        return _broken(
            origin, f"#bad-uri-{short(raw.get('uri'), 40)}", uri_problems[0].message, raw
        )

    split = split_skill_uri(uri)
    skill_dir: str | None = None
    last: str | None = None
    if split is None:
        problems.append(
            _invalid("entry-uri-not-skill-md", f"uri {short(uri)} does not name a SKILL.md")
        )
    else:
        skill_dir, last = split

    fm_raw = raw.get("frontmatter")
    frontmatter: dict[str, Any] | None = None
    if not isinstance(fm_raw, dict):
        problems.append(
            _invalid(
                "frontmatter-missing",
                f"entry has no 'frontmatter' object (got {type(fm_raw).__name__})",
            )
        )
    else:
        bounds = frontmatter_bounds_problem(fm_raw)
        if bounds:
            problems.append(bounds)
        else:
            frontmatter = fm_raw

    name = ""
    description = ""
    if frontmatter is not None:
        fm_problems = check_frontmatter(frontmatter, last)
        for p in fm_problems:
            # The URI's last segment must equal the name: invalid, not a style issue.
            if p.code == "name-mismatch":
                p = _invalid(
                    "name-uri-mismatch",
                    f"frontmatter name {short(frontmatter.get('name'))} is not the uri's last "
                    f"segment {short(last)}",
                )
            problems.append(p)
        if isinstance(frontmatter.get("name"), str):
            name = frontmatter["name"]
        if isinstance(frontmatter.get("description"), str):
            description = frontmatter["description"]
    if not name:
        name = last or ""

    resources, res_problems = _read_resources(
        raw.get("resources"), uri if split else None, skill_dir
    )
    problems.extend(res_problems)
    if isinstance(resources, tuple):
        problems.extend(check_limits(resources))

    loading, loading_problems = read_loading(frontmatter, origin.label)
    problems.extend(loading_problems)
    return Skill(
        origin=origin,
        uri=uri,
        name=display_text(name, 200),
        description=display_text(description, 2000),
        frontmatter=frontmatter,
        resources=resources,  # type: ignore[arg-type]
        loading=loading,
        problems=problems,
        qualified_name=qualified_name(origin.label, display_text(name, 200)),
    )


def _broken(origin: Origin, uri: str, message: str, raw: Any) -> Skill:
    return Skill(
        origin=origin,
        uri=uri,
        name="",
        description="",
        frontmatter=None,
        resources=None,
        problems=[_invalid("entry-malformed", f"{message}: {short(raw)}")],
        qualified_name=qualified_name(origin.label, "?"),
    )


# Some clients keep only this many characters of a server's instructions.
INSTRUCTIONS_KEPT = 2048
_SKILL_URI_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>()\[\]`]+/SKILL\.md")


def mentioned_skill_uris(text: str) -> list[str]:
    """Skill URIs (``.../SKILL.md``) a text names, in order, once each (for ``skills/get``)."""
    return list(skill_uri_positions(text))


def skill_uri_positions(text: str) -> dict[str, int]:
    """Each skill URI a text names, in order, with where it first appears. One pass: a
    server's instructions may name tens of thousands (a list and ``str.index`` per URI
    took minutes on 2 MB)."""
    seen: dict[str, int] = {}
    for m in _SKILL_URI_RE.finditer(text):
        seen.setdefault(m.group(0), m.start())
    return seen


def skill_md_uri(skill: Skill) -> str:
    """The URI under which a skill's own SKILL.md appears in its manifest."""
    return SKILL_MD if skill.origin.kind == "local" else skill.uri

"""What each host does with a skill: whether it loads it, and how it lists it to a model.

One :class:`HostProfile` per host the catalog can model. Every rule says where it comes
from (a documentation page, a file of the host's code at a commit, or the rules this
catalog already holds for a client), and a fact nobody has published is ``None`` and
said "unknown", never guessed. ``docs/hosts.md`` lists every rule with its source;
``tests/core/test_hosts.py`` checks each rule with one skill it accepts and one it
refuses, against the YAML readers the hosts use (PyYAML for 1.1, ruamel.yaml for 1.2).

Pure: a skill is given as its frontmatter text and folder name (:class:`SkillText`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.checks import NAME_RE
from desktop.core.host_profiles import (
    CHARS_PER_TOKEN,
    DEFAULT_CONTEXT,
    PROFILES,
    HostProfile,
    Listing,
    OnFailure,
    Reader,
    Rule,
    profile,
)

# The profiles' names, kept here for those who judge by them.
__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_CONTEXT",
    "PROFILES",
    "HostProfile",
    "Listing",
    "OnFailure",
    "Reader",
    "Rule",
    "profile",
    "SkillText",
    "read_lines",
    "read_as",
    "load_problems",
    "listing_text",
    "HostVerdict",
    "Budget",
    "judge",
    "unknown_words",
]


@dataclass(frozen=True, slots=True)
class SkillText:
    """A skill as a host meets it: its frontmatter text, its folder's name, its path."""

    name: str
    path: str
    folder: str
    frontmatter: str | None  # None: the file has no frontmatter
    fields: Mapping[str, Any] | None = None  # already read (a server's listing): not parsed

    def read(self, reader: Reader | None) -> tuple[Mapping[str, Any] | None, str]:
        if self.fields is not None:
            return self.fields, ""
        if self.frontmatter is None:
            return None, "it has no frontmatter"
        return read_as(reader, self.frontmatter)


def _line_scalar(value: str) -> Any:
    text = value.strip()
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
        return float(text) if "." in text else int(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def read_lines(text: str) -> dict[str, Any]:
    """Frontmatter as a line-by-line reader reads it (the skills CLI's): ``key: value`` on
    one line; an indented ``key: value`` or ``- item`` under a key with no value; every
    other line (a block value's text, a continued value) is skipped."""
    root: dict[str, Any] = {}
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indented = line[0] in " \t"
        if indented and current is not None:
            holder = root[current]
            if stripped.startswith("- "):
                if not isinstance(holder, list):
                    holder = root[current] = []
                holder.append(_line_scalar(stripped[2:]))
            elif ":" in stripped and isinstance(holder, dict):
                key, _, value = stripped.partition(":")
                holder[key.strip()] = _line_scalar(value)
            continue
        current = None
        if indented or ":" not in stripped:
            continue
        key, _, value = stripped.partition(":")
        if value.strip():
            root[key.strip()] = _line_scalar(value)
        else:
            current = key.strip()
            root[current] = {}
    return root


def read_as(reader: Reader | None, text: str) -> tuple[dict[str, Any] | None, str]:
    """The frontmatter as ``reader`` reads it, or ``None`` and why."""
    from desktop.core.frontmatter import parse_frontmatter_text
    from desktop.core.frontmatter_12 import parse_frontmatter_text_12

    if reader == "lines":
        return read_lines(text), ""
    if reader == "yaml-1.1":
        fields, problems = parse_frontmatter_text(text)
    else:  # 1.2, JSON (a server sends what its own reader made) and unknown readers
        fields, problems = parse_frontmatter_text_12(text)
    if fields is None:
        why = problems[0].message if problems else "it is not a mapping"
        return None, f"its frontmatter does not parse: {why}"
    return fields, ""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def load_problems(p: HostProfile, skill: SkillText) -> list[str]:
    """Why ``p`` would not load ``skill`` (empty: it loads, as far as is known)."""
    fields, why = skill.read(p.reader)
    if fields is None:
        return [why]
    out: list[str] = []
    name, description = fields.get("name"), fields.get("description")
    if p.strings_only:
        for key, value in (("name", name), ("description", description)):
            if value is not None and not isinstance(value, str):
                out.append(f"its {key} is {_kind(value)}, not text")
    text_name = name if isinstance(name, str) else ""
    if p.name_max is not None and len(text_name) > p.name_max:
        out.append(f"its name is {len(text_name)} characters, over {p.name_max}")
    if p.name_pattern and text_name and not NAME_RE.match(text_name):
        out.append(f"its name {text_name!r} is not lowercase letters, digits and hyphens")
    if p.name_is_folder and text_name and text_name != skill.folder:
        out.append(f"its name {text_name!r} is not its folder's name {skill.folder!r}")
    if p.strings_only and not description:
        out.append("it has no description")
    if (
        p.description_max is not None
        and isinstance(description, str)
        and len(description) > p.description_max
    ):
        out.append(
            f"its description is {len(description):,} characters, over {p.description_max:,}"
        )
    metadata = fields.get("metadata")
    if (
        p.metadata_strings
        and metadata is not None
        and (
            not isinstance(metadata, dict) or any(not isinstance(v, str) for v in metadata.values())
        )
    ):
        out.append("its metadata is not a mapping of text to text")
    if p.nested_mappings is False:
        nested = [k for k, v in fields.items() if isinstance(v, dict)]
        if nested:
            out.append(f"its field {nested[0]!r} holds a mapping")
    return out


def listing_text(p: HostProfile, fields: Mapping[str, Any], name: str) -> str:
    """What ``p`` lists of a skill for the model (its name and the listed fields)."""
    parts = [name]
    for key in p.listing_fields or ("name", "description"):
        value = fields.get(key)
        if key != "name" and isinstance(value, str) and value:
            parts.append(value)
    return ": ".join(parts[:2]) + "".join(f" {x}" for x in parts[2:])


@dataclass(frozen=True, slots=True)
class HostVerdict:
    """One host on one skill: loads or why not; how it is listed; the numbers."""

    loads: bool | None  # None: the host's rules are not known
    listing: Listing | None
    why: str = ""
    length: int = 0  # characters its listing takes

    def to_json(self) -> dict[str, Any]:
        return {"loads": self.loads, "listing": self.listing, "why": self.why}


@dataclass(frozen=True, slots=True)
class Budget:
    """One host's listing budget against what the skills it loads need."""

    host: str
    limit: int | None
    used: int
    cut: int  # skills whose descriptions are lost (name only) or cut
    context: int | None

    def to_json(self) -> dict[str, Any]:
        return {"limit": self.limit, "used": self.used, "cut": self.cut}

    def sentence(self, title: str, skills: int) -> str:
        need = f"these {skills:,} skills need {self.used:,}"
        if self.limit is None:
            return f"{title}: no listing budget is known; {need} characters"
        at = f" at {self.context // 1000}K context" if self.context else ""
        lose = f"; {self.cut:,} lose their descriptions" if self.cut else "; all fit"
        return f"{title}{at}: about {self.limit:,} characters for skill listings; {need}{lose}"


def judge(
    skills: Sequence[SkillText], hosts: Iterable[HostProfile], context: int | None = DEFAULT_CONTEXT
) -> tuple[list[dict[str, HostVerdict]], dict[str, Budget]]:
    """Each skill's verdict per host, and each host's budget, for the skills in order."""
    hosts = tuple(hosts)
    verdicts: list[dict[str, HostVerdict]] = [{} for _ in skills]
    budgets: dict[str, Budget] = {}
    for p in hosts:
        known = p.reader is not None or p.on_failure is not None or p.name_max is not None
        lengths: list[tuple[int, int]] = []  # (skill index, characters)
        for i, skill in enumerate(skills):
            problems = load_problems(p, skill)
            if problems and p.on_failure is None:
                # A rule it breaks, with what the host then does not published.
                why = "; ".join(problems) + f"; what {p.title} does then is unknown"
                verdicts[i][p.slug] = HostVerdict(None, None, why)
                continue
            if problems:
                verdicts[i][p.slug] = HostVerdict(False, "dropped", "; ".join(problems))
                continue
            fields, _ = skill.read(p.reader)
            text = listing_text(p, fields or {}, skill.name)
            length = len(text)
            listing: Listing = "full"
            why = ""
            if p.entry_cut is not None and length > p.entry_cut:
                listing, why, length = "cut", f"cut at {p.entry_cut:,} characters", p.entry_cut
            if p.reader == "lines" and skill.frontmatter is not None and not why:
                why = _lines_differ(skill.frontmatter, fields or {})
            verdicts[i][p.slug] = HostVerdict(True if known else None, listing, why, length)
            lengths.append((i, length))
        if p.on_failure == "refuse-listing" and any(
            v.get(p.slug) and v[p.slug].loads is False for v in verdicts
        ):
            bad = [skills[i].name for i, v in enumerate(verdicts) if v[p.slug].loads is False]
            for v in verdicts:
                if v[p.slug].loads:
                    v[p.slug] = HostVerdict(
                        False, "dropped", f"the whole listing is refused for {bad[0]}"
                    )
            lengths = []
        limit = p.budget(context)
        used = sum(n for _, n in lengths)
        cut = 0
        if limit is not None and used > limit:
            # Names are kept; descriptions go from the end of the listing (the catalog
            # knows no use counts, so the last listed stand for the least used).
            names_only = sum(len(skills[i].name) for i, _ in lengths)
            room = limit - names_only
            for i, n in lengths:
                extra = n - len(skills[i].name)
                if room >= extra:
                    room -= extra
                    continue
                cut += 1
                verdicts[i][p.slug] = HostVerdict(
                    verdicts[i][p.slug].loads,
                    "name-only",
                    "the listing is over its budget: only the name is shown",
                    len(skills[i].name),
                )
                room = max(room, 0)
        budgets[p.slug] = Budget(p.slug, limit, used, cut, context if p.budget_share else None)
    return verdicts, budgets


def _lines_differ(text: str, seen: Mapping[str, Any]) -> str:
    """What a line reader gets wrong of the description YAML gives, or ``""``."""
    from desktop.core.visible import cut_repr

    fields, _ = read_as("yaml-1.2", text)
    meant = (fields or {}).get("description")
    got = seen.get("description")
    if isinstance(meant, str) and meant != got:
        return f"it reads the description as {cut_repr(got, 40)}, not the text YAML gives"
    return ""


def unknown_words(p: HostProfile) -> list[str]:
    """The facts about ``p`` nobody has published, as words (for docs and tooltips)."""
    out = []
    for label, value in (
        ("its YAML reader", p.reader),
        ("its name limit", p.name_max),
        ("its description limit", p.description_max),
        ("what it does with a broken skill", p.on_failure),
        ("its listing budget", p.budget_share),
    ):
        if value is None:
            out.append(label)
    return out

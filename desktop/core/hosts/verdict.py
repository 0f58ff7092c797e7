"""Per skill and host: does it load, and how does it appear in the host's listing.

Pure: frontmatter (and, for line readers, the raw frontmatter text) in, verdicts out.
``loads`` is ``yes``, ``no`` or ``unknown``; a listing entry is ``full``, ``cut`` (at
the host's per-entry limit), ``name-only`` (its description dropped to fit the
budget), ``dropped`` (not listed at all), or ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.checks import NAME_RE
from desktop.core.hosts import LISTING_REFUSED, MISREAD, SKIPPED, UNKNOWN, HostProfile

YES = "yes"
NO = "no"

FULL = "full"
CUT = "cut"
NAME_ONLY = "name-only"
DROPPED = "dropped"


@dataclass(frozen=True, slots=True)
class HostVerdict:
    loads: str  # YES, NO or UNKNOWN
    why: tuple[str, ...] = ()


def _text_len(value: str) -> int:
    return len(" ".join(value.split()))


def _broken_rules(p: HostProfile, fm: Mapping[str, Any], folder: str | None) -> list[str]:
    out: list[str] = []
    name = fm.get("name")
    if p.name_rule != UNKNOWN:
        if not isinstance(name, str) or not name.strip():
            out.append("it has no name text")
        elif p.name_rule == "spec" and not NAME_RE.match(name):
            out.append(f"its name {name[:80]!r} is not lowercase letters, digits and hyphens")
        elif p.name_max is not None and _text_len(name) > p.name_max:
            out.append(f"its name is {_text_len(name)} characters, over {p.name_max}")
        elif p.name_equals_folder and folder is not None and name != folder:
            out.append(f"its name {name!r} differs from its folder name {folder!r}")
    if p.description_max is not None:
        description = fm.get("description")
        if not isinstance(description, str) or not description.strip():
            out.append("it has no description text")
        elif _text_len(description) > p.description_max:
            out.append(
                f"its description is {_text_len(description):,} characters, "
                f"over {p.description_max:,}"
            )
    if p.compatibility_max is not None and "compatibility" in fm:
        compat = fm["compatibility"]
        if not isinstance(compat, str) or not compat:
            out.append("its compatibility is not text")
        elif len(compat) > p.compatibility_max:
            out.append(
                f"its compatibility is {len(compat):,} characters, over {p.compatibility_max}"
            )
    if p.metadata_text_only and "metadata" in fm:
        metadata = fm["metadata"]
        if not isinstance(metadata, dict):
            out.append("its metadata is not a mapping")
        else:
            odd = sorted(str(k) for k, v in metadata.items() if not isinstance(v, str))
            if odd:
                out.append(f"its metadata values are not all text ({', '.join(odd[:3])})")
    if p.short_description_max is not None:
        metadata = fm.get("metadata")
        short = metadata.get("short-description") if isinstance(metadata, dict) else None
        if isinstance(short, str) and _text_len(short) > p.short_description_max:
            out.append(
                f"its metadata.short-description is {_text_len(short)} characters, "
                f"over {p.short_description_max}"
            )
    return out


_KEY_LINE = re.compile(r"^([^\s:#][^:]*):(?:\s*(.*))?$")


def line_reader_misreads(raw: str) -> list[str]:
    """What a reader of one line per key (the ``skills`` CLI's) reads differently from
    YAML: block values, plain values continued on more lines, deeper nesting."""
    out: list[str] = []
    key: str | None = None
    nested_key: str | None = None
    for line in raw.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            match = _KEY_LINE.match(line.strip())
            key, nested_key = None, None
            if match is None:
                continue
            value = (match.group(2) or "").strip()
            if value == "":
                key = match.group(1).strip()
            elif re.fullmatch(r"[|>][+-]?\d*", value):
                out.append(f"{match.group(1).strip()}: its block value is read as {value!r}")
            else:
                nested_key = match.group(1).strip()  # a plain value: lines under it are lost
            continue
        if nested_key is not None:
            out.append(f"{nested_key}: only its first line is read")
            nested_key = None
            continue
        if key is not None and indent > 2 and not line.strip().startswith("- "):
            out.append(f"{key}: its mappings nested two levels deep are flattened")
            key = None
    return out


def host_verdict(
    p: HostProfile, fm: Mapping[str, Any] | None, folder: str | None, raw: str | None = None
) -> HostVerdict:
    """Whether host ``p`` loads a skill with frontmatter ``fm`` in folder ``folder``."""
    if fm is None:
        return HostVerdict(
            NO if p.failure in (SKIPPED, LISTING_REFUSED) else UNKNOWN,
            ("its frontmatter could not be read",),
        )
    if p.failure == MISREAD:
        if raw is None:
            return HostVerdict(YES, (f"how {p.title} reads its text is not checked here",))
        return HostVerdict(YES, tuple(f"read differently: {m}" for m in line_reader_misreads(raw)))
    broken = _broken_rules(p, fm, folder)
    if not broken:
        if p.name_rule == UNKNOWN and p.description_max is None and not p.metadata_text_only:
            return HostVerdict(UNKNOWN, (f"{p.title}'s rules are not known",))
        return HostVerdict(YES)
    if p.failure == SKIPPED:
        return HostVerdict(NO, tuple(f"skipped: {b}" for b in broken))
    if p.failure == LISTING_REFUSED:
        return HostVerdict(
            NO, tuple(f"the whole listing holding it is refused: {b}" for b in broken)
        )
    return HostVerdict(
        UNKNOWN,
        tuple(f"{b} (what {p.title} then does is not known)" for b in broken),
    )


@dataclass(frozen=True, slots=True)
class ListedSkill:
    """What one skill needs in a listing: its name and the text after it."""

    name: str
    description: str
    when_to_use: str = ""


@dataclass(slots=True)
class Budget:
    """A host's listing budget against what the skills need (characters)."""

    host: str
    limit: int | None
    need: int = 0
    used: int = 0
    cut: int = 0  # skills that lose their description (name-only or dropped)
    listing: list[str] = field(default_factory=list)  # one mode per skill, in order

    def to_json(self) -> dict[str, Any]:
        return {"limit": self.limit, "need": self.need, "used": self.used, "cut": self.cut}


def budget_limit(p: HostProfile, context: int | None) -> int | None:
    """The characters host ``p`` gives skill listings at ``context`` tokens."""
    lst = p.listing
    if not lst.known or lst.fraction is None:
        return None
    if context is None:
        return lst.fallback
    return int(context * lst.fraction * lst.chars_per_token)


def _entry(skill: ListedSkill) -> str:
    text = " ".join(f"{skill.description} {skill.when_to_use}".split())
    return f"- {skill.name}: {text}" if text else f"- {skill.name}"


def listing_plan(
    p: HostProfile, skills: Sequence[ListedSkill | None], context: int | None
) -> Budget:
    """How each skill appears in host ``p``'s listing (``None``: the host does not load
    it). Skills keep their full entries in order until the budget runs out; then the
    last ones (the host drops the least used first; usage is not known here) keep
    their names only, and if even the names do not fit, the last are dropped."""
    limit = budget_limit(p, context)
    budget = Budget(p.id, limit)
    if not p.listing.known:
        budget.listing = [DROPPED if s is None else UNKNOWN for s in skills]
        return budget
    cut_at = p.listing.entry_cut
    sizes: list[tuple[int, int]] = []  # (full size, name-only size)
    modes: list[str] = []
    for s in skills:
        if s is None:
            sizes.append((0, 0))
            modes.append(DROPPED)
            continue
        entry = _entry(s)
        size = len(entry)
        if cut_at is not None and size > cut_at:
            size = cut_at
            modes.append(CUT)
        else:
            modes.append(FULL)
        sizes.append((size + 1, len(s.name) + 3))  # a line end each
    budget.need = sum(full for full, _ in sizes)
    if limit is None or budget.need <= limit:
        budget.used = budget.need
        budget.listing = modes
        return budget
    listed = [i for i, m in enumerate(modes) if m != DROPPED]
    used = budget.need
    for i in reversed(listed):
        if used <= limit:
            break
        used -= sizes[i][0] - sizes[i][1]
        modes[i] = NAME_ONLY
    for i in reversed(listed):
        if used <= limit:
            break
        used -= sizes[i][1]
        modes[i] = DROPPED
    budget.used = used
    budget.cut = sum(1 for i in listed if modes[i] in (NAME_ONLY, DROPPED))
    budget.listing = modes
    return budget


def budget_sentence(p: HostProfile, budget: Budget, context: int | None, total: int) -> str:
    """'Claude Code at 200K context: about 8,000 characters for skill listings; these
    183 skills need 31,700; 140 lose their descriptions'."""
    if budget.limit is None:
        return f"{p.title}: listing budget unknown"
    at = f" at {context // 1000}K context" if context else " (context size not given)"
    text = (
        f"{p.title}{at}: about {budget.limit:,} characters for skill listings; "
        f"{'this skill needs' if total == 1 else f'these {total} skills need'} {budget.need:,}"
    )
    if budget.cut:
        lose = "loses its description" if budget.cut == 1 else "lose their descriptions"
        text += f"; {budget.cut} {lose}"
    else:
        text += "; all fit"
    return text

"""The catalog: every source's skills merged, named and checked for collisions.

- Qualified names: a server skill is ``label:name``; ``:`` is forbidden in skill
  names, so such a name can only have been built here and never equals a local one.
- Two entries of one source with the same name are told apart by their paths.
- Names equal as written, after case folding, after NFKC normalisation, or once their
  invisible characters (tag and zero-width ones) are removed are reported as collisions,
  never silently resolved: every copy stays in the catalog.
- Server skills nest by URI prefix (the listing is flat); local nesting comes from the
  folder scan.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from desktop.core.identity import QUALIFIER, qualified_name
from desktop.core.model import Problem, Skill, SourceStatus
from desktop.core.visible import without_invisible


@dataclass(frozen=True, slots=True)
class Collision:
    """Skills whose names clash. ``kind``: ``same-name``, ``case``, ``unicode`` or
    ``invisible``."""

    kind: str
    key: str
    ids: tuple[str, ...]
    names: tuple[str, ...]
    # Each copy's qualified name (what `list` shows and a command takes), as ``ids``.
    qualified: tuple[str, ...] = ()

    def describe(self) -> str:
        what = {
            "same-name": "share the name",
            "case": "have names equal after case folding:",
            "unicode": "have names equal after Unicode (NFKC) normalisation:",
            "invisible": "have names that differ only by invisible characters:",
        }[self.kind]
        shown = self.key if self.kind == "same-name" else ", ".join(sorted(set(self.names)))
        return f"{len(self.ids)} skills {what} {shown}"

    def copies(self) -> str:
        """Each copy by its qualified name and its id."""
        shown = self.qualified or self.ids
        return ", ".join(
            f"{q} ({i})" if q != i else i for q, i in zip(shown, self.ids, strict=True)
        )

    def to_json(self) -> dict[str, Any]:
        shown = self.qualified or self.ids
        return {
            "kind": self.kind,
            "name": self.key,
            "ids": list(self.ids),
            "names": list(self.names),
            "skills": [
                {"qualified_name": q, "id": i} for q, i in zip(shown, self.ids, strict=True)
            ],
        }


@dataclass(slots=True)
class Catalog:
    sources: list[SourceStatus] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    collisions: list[Collision] = field(default_factory=list)
    _by_id: dict[str, Skill] = field(default_factory=dict, repr=False)

    def get(self, skill_id: str) -> Skill | None:
        if len(self._by_id) != len(self.skills):
            self._by_id = {s.id: s for s in self.skills}
        return self._by_id.get(skill_id)

    def named(self, target: str) -> list[Skill]:
        """The skills ``target`` names on a command line: the one with that id, else
        every one with that qualified name (the name `list` prints; one, or a clash)."""
        skill = self.get(target)
        if skill is not None:
            return [skill]
        return [s for s in self.skills if s.qualified_name == target]

    def source(self, label: str) -> SourceStatus | None:
        for status in self.sources:
            if status.origin.label == label:
                return status
        return None

    def collisions_of(self, skill_id: str) -> list[Collision]:
        return [c for c in self.collisions if skill_id in c.ids]

    def to_json(self) -> dict[str, Any]:
        details: dict[int, str] = {}  # each origin described once, not once per skill
        return {
            "sources": [s.to_json() for s in self.sources],
            "skills": [skill_json(s, details) for s in self.skills],
            "collisions": [c.to_json() for c in self.collisions],
        }


def skill_dir_of(uri: str) -> str:
    """The skill's directory part of a SKILL.md URI or relative path."""
    return uri[: -len("/SKILL.md")] if uri.endswith("/SKILL.md") else ""


def _assign_names(skills: list[Skill]) -> None:
    by_source: dict[str, dict[str, list[Skill]]] = defaultdict(lambda: defaultdict(list))
    for skill in skills:
        by_source[skill.origin.label][skill.name].append(skill)
    for named in by_source.values():
        for name, group in named.items():
            paths = [(skill_dir_of(s.uri) or s.uri).split("://", 1)[-1] for s in group]
            for skill, path in zip(group, paths, strict=True):
                if len(group) == 1:
                    # A server skill published under a deeper path than its name's own
                    # folder (skill://documents/pdf/) shows that path.
                    key = path if skill.kind_info.third_party and path != name else name
                elif paths.count(path) == 1:  # in-listing duplicates, told apart by path
                    key = path
                else:  # the same path under two schemes: the whole URI tells them apart
                    key = skill_dir_of(skill.uri) or skill.uri
                _qualify(skill, key)
        # A name and a path can still meet (a name holding a "/", which breaks the name
        # rules; a broken entry named "x" at "y/" beside one named "y"): those show their
        # whole URIs.
        shown: dict[str, list[Skill]] = defaultdict(list)
        for group in named.values():
            for skill in group:
                shown[skill.qualified_name].append(skill)
        for same in shown.values():
            if len(same) > 1:
                for skill in same:
                    _qualify(skill, skill.uri)


def _qualify(skill: Skill, key: str) -> None:
    if skill.kind_info.third_party:
        skill.qualified_name = qualified_name(skill.origin.label, key)
    else:
        # The qualifier marks a server's skill: a local name holding it (which
        # breaks the name rules anyway) shows it as its code, so it can never read as,
        # or sort beside, a server skill's qualified name.
        skill.qualified_name = key.replace(QUALIFIER, f"\\u{ord(QUALIFIER):04x}")


def _nest_server_skills(skills: list[Skill]) -> None:
    by_source: dict[str, list[Skill]] = defaultdict(list)
    for skill in skills:
        if skill.kind_info.third_party:
            by_source[skill.origin.label].append(skill)
    for group in by_source.values():
        dirs = {skill_dir_of(s.uri): s for s in group if skill_dir_of(s.uri)}
        for skill in group:
            d = skill_dir_of(skill.uri)
            while "/" in d:
                d = d.rpartition("/")[0]
                parent = dirs.get(d)
                if parent is not None and not d.endswith(":/") and d != "skill:/":
                    skill.nested_in = parent.id
                    break


def fold(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def find_collisions(skills: Iterable[Skill]) -> list[Collision]:
    skills = list(skills)
    out: list[Collision] = []
    exact: dict[str, list[Skill]] = defaultdict(list)
    cased: dict[str, list[Skill]] = defaultdict(list)
    folded: dict[str, list[Skill]] = defaultdict(list)
    seen: dict[str, list[Skill]] = defaultdict(list)
    for s in skills:
        exact[s.name].append(s)
        cased[s.name.casefold()].append(s)
        key = fold(s.name)
        folded[key].append(s)
        bare = without_invisible(s.name)
        seen[key if bare is s.name else fold(bare)].append(s)
    for name, group in exact.items():
        if len(group) > 1:
            out.append(Collision("same-name", name, *_copies(group)))
    for key, group in cased.items():
        if len({s.name for s in group}) > 1:
            out.append(Collision("case", key, *_copies(group)))
    for key, group in folded.items():
        if len({s.name.casefold() for s in group}) > 1:
            out.append(Collision("unicode", key, *_copies(group)))
    for key, group in seen.items():
        if len({fold(s.name) for s in group}) > 1:
            out.append(Collision("invisible", key, *_copies(group)))
    return out


def _copies(group: list[Skill]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    return (
        tuple(s.id for s in group),
        tuple(s.name for s in group),
        tuple(s.qualified_name or s.id for s in group),
    )


COLLISION_PREFIX = "collision-"


def build_catalog(sources: list[SourceStatus], skills: list[Skill]) -> Catalog:
    """Merge sources into one catalog: names, nesting, collisions.

    A pure function of its inputs: the skills and statuses given are left as they are.
    The catalog holds copies carrying what merging found: each skill's qualified name,
    a server skill's nesting, a collision note on each copy that clashes, and each
    source's skill count. Collision notes already on the inputs (a skill taken from an
    earlier catalog) are replaced by the ones found now, so building a catalog again
    from a catalog's own skills gives the same catalog.
    """
    copies = [
        replace(
            s,
            problems=[p for p in s.problems if not p.code.startswith(COLLISION_PREFIX)],
            nested_in=None if s.kind_info.third_party else s.nested_in,
        )
        for s in skills
    ]
    _assign_names(copies)
    _nest_server_skills(copies)
    collisions = find_collisions(copies)
    by_id = {s.id: s for s in copies} if collisions else {}
    for collision in collisions:
        for sid in collision.ids:
            others = [by_id[o] for o in collision.ids if o != sid]
            where = "; ".join(f"{o.qualified_name} from {o.origin.describe()}" for o in others[:5])
            if len(others) > 5:
                where += f"; and {len(others) - 5} more"
            by_id[sid].problems.append(
                Problem(
                    f"{COLLISION_PREFIX}{collision.kind}",
                    f"{collision.describe()}: also {where}",
                    "warning",
                )
            )
    counts: dict[str, int] = defaultdict(int)
    for s in copies:
        counts[s.origin.label] += 1
    statuses = [replace(st, skill_count=counts.get(st.origin.label, 0)) for st in sources]
    return Catalog(sources=statuses, skills=copies, collisions=collisions)


def skill_json(skill: Skill, details: dict[int, str] | None = None) -> dict[str, Any]:
    """A skill as the CLI's ``--json`` shows it (``details``: origin descriptions so far)."""
    origin = skill.origin
    # Keyed by the origin object itself (alive as long as its skills): no hashing of
    # its four fields per skill.
    detail = details.get(id(origin)) if details is not None else None
    if detail is None:
        detail = origin.describe()
        if details is not None:
            details[id(origin)] = detail
    resources: Any = skill.resources  # "dynamic" or None when not a manifest
    if isinstance(resources, tuple):
        resources = [f.to_json() for f in resources]
    local = origin.kind_info.folder_on_disk
    out: dict[str, Any] = {
        "id": skill.id,
        "origin": origin.label,
        "origin_detail": detail,
        "kind": origin.kind,
    }
    if local:
        out["path"] = skill.path
    out["uri"] = skill.uri
    out["name"] = skill.name
    out["qualified_name"] = skill.qualified_name
    out["description"] = skill.description
    out["frontmatter"] = skill.frontmatter
    out["resources"] = resources
    out["loading"] = skill.loading.to_json()
    out["allowed_tools"] = skill.allowed_tools()
    out["third_party"] = origin.kind_info.third_party
    out["nested_in"] = skill.nested_in
    out["state"] = skill.state
    out["problems"] = [p.to_json() for p in skill.problems]
    if skill.provenance:
        out["provenance"] = dict(skill.provenance)
    return out

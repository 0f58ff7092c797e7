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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.checks import NAME_RE

Reader = Literal["yaml-1.1", "yaml-1.2", "json"]
OnFailure = Literal["skip", "refuse-listing", "warn"]
Listing = Literal["full", "cut", "name-only", "dropped"]

# Characters per token, for budgets a host gives in tokens (the usual rough figure).
CHARS_PER_TOKEN = 4
DEFAULT_CONTEXT = 200_000  # tokens


@dataclass(frozen=True, slots=True)
class Rule:
    """One fact about a host, in words, with its source."""

    topic: str  # reader, name, folder, description, types, nesting, failure, listing, budget
    says: str
    source: str


@dataclass(frozen=True, slots=True)
class HostProfile:
    """What one host requires of a skill and how it lists skills (``None``: unknown)."""

    slug: str
    title: str
    reader: Reader | None
    name_max: int | None
    name_pattern: bool | None  # lowercase letters, digits and single hyphens
    name_is_folder: bool | None  # the name must equal the folder's
    description_max: int | None
    strings_only: bool | None  # name and description must be text (not a number, a date…)
    metadata_strings: bool | None  # metadata: a mapping of text to text
    nested_mappings: bool | None  # False: a field holding a mapping is refused
    on_failure: OnFailure | None
    listing_fields: tuple[str, ...] | None  # the fields a listing shows
    entry_cut: int | None  # characters of one skill's listing kept
    budget_share: float | None  # of the context window, for all skill listings
    budget_fallback: int | None  # characters, when the context is not known
    drops: str | None  # what goes first when the listing overflows
    rules: tuple[Rule, ...] = field(default=())

    def budget(self, context_tokens: int | None) -> int | None:
        """Characters the host gives all skill listings at ``context_tokens`` of context."""
        if self.budget_share is None:
            return None
        if context_tokens is None:
            return self.budget_fallback
        return int(context_tokens * self.budget_share * CHARS_PER_TOKEN)


CLAUDE_DOCS = "https://code.claude.com/docs/en/skills"
CODEX_LOADER = "openai/codex codex-rs/core/src/skills/loader.rs (f793618)"
CODEX_RENDER = "openai/codex codex-rs/core/src/skills/render.rs (02be9c5)"
SPEC = "https://agentskills.io/specification"
TS_SDK = "@modelcontextprotocol/client 2.4.0, SkillsClient (desktop/core/strict_clients.py)"
FASTMCP = "fastmcp 4.1.3 client (desktop/core/strict_clients.py)"
SKILLS_CLI = "vercel-labs/skills: its frontmatter reader refuses nested mappings"
GH_SKILL = "https://cli.github.com/manual/gh_skill"
COPILOT_DOCS = "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills"
CURSOR_DOCS = "https://cursor.com/docs/context/skills"
GEMINI_DOCS = "https://geminicli.com/docs/cli/skills/"

PROFILES: tuple[HostProfile, ...] = (
    HostProfile(
        "claude-code",
        "Claude Code",
        reader="yaml-1.2",
        name_max=64,
        name_pattern=True,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=None,
        on_failure=None,
        listing_fields=("name", "description", "when_to_use"),
        entry_cut=1536,
        budget_share=0.01,
        budget_fallback=8000,
        drops="the descriptions of the least-used skills (name only)",
        rules=(
            Rule(
                "listing", "a skill is listed by its name, description and when_to_use", CLAUDE_DOCS
            ),
            Rule("listing", "one skill's listing is cut at 1,536 characters", CLAUDE_DOCS),
            Rule(
                "budget",
                "all listings share about 1% of the context window (8,000 "
                "characters when it is not known; SLASH_COMMAND_TOOL_CHAR_BUDGET sets it)",
                CLAUDE_DOCS,
            ),
            Rule(
                "budget",
                "past the budget, the least-used skills lose their descriptions "
                "first and keep their names",
                CLAUDE_DOCS,
            ),
            Rule(
                "name", "a name is lowercase letters, digits and hyphens, at most 64", CLAUDE_DOCS
            ),
            Rule(
                "failure",
                "what happens to a skill whose frontmatter does not parse is unknown",
                CLAUDE_DOCS,
            ),
        ),
    ),
    HostProfile(
        "codex",
        "Codex",
        reader="yaml-1.2",
        name_max=64,
        name_pattern=False,
        name_is_folder=False,
        description_max=1024,
        strings_only=True,
        metadata_strings=None,
        nested_mappings=True,
        on_failure="skip",
        listing_fields=("name", "description"),
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule("reader", "frontmatter is read with serde_yaml (YAML 1.2)", CODEX_LOADER),
            Rule(
                "types",
                "name and description must be text; another type fails the skill",
                CODEX_LOADER,
            ),
            Rule("name", "a name is at most 64 characters, made one line", CODEX_LOADER),
            Rule(
                "description",
                "a description is at most 1,024 characters, made one line",
                CODEX_LOADER,
            ),
            Rule(
                "failure", "a SKILL.md that fails is skipped and reported as an error", CODEX_LOADER
            ),
            Rule(
                "listing",
                "every loaded skill is listed as '- name: description (file: "
                "path)'; no budget applies",
                CODEX_RENDER,
            ),
        ),
    ),
    HostProfile(
        "copilot",
        "GitHub Copilot",
        reader=None,
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=None,
        on_failure=None,
        listing_fields=("name", "description"),
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule("listing", "a skill is chosen by its name and description", COPILOT_DOCS),
            Rule(
                "failure",
                "its reader, limits and what it does with a broken skill are unknown",
                COPILOT_DOCS,
            ),
        ),
    ),
    HostProfile(
        "cursor",
        "Cursor",
        reader=None,
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=None,
        on_failure=None,
        listing_fields=("name", "description"),
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule("listing", "a skill is chosen by its name and description", CURSOR_DOCS),
            Rule(
                "failure",
                "its reader, limits and what it does with a broken skill are unknown",
                CURSOR_DOCS,
            ),
        ),
    ),
    HostProfile(
        "gemini",
        "Gemini CLI",
        reader=None,
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=None,
        on_failure=None,
        listing_fields=("name", "description"),
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule(
                "listing",
                "skills are listed by name and description and activated with a tool",
                GEMINI_DOCS,
            ),
            Rule(
                "failure",
                "its limits and what it does with a broken skill are unknown",
                GEMINI_DOCS,
            ),
        ),
    ),
    HostProfile(
        "skills-cli",
        "the skills CLI",
        reader="yaml-1.2",
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=False,
        on_failure="skip",
        listing_fields=None,
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule(
                "nesting",
                "its strict reader refuses a field holding a mapping (nested metadata included)",
                SKILLS_CLI,
            ),
            Rule("failure", "a skill it cannot read is not installed", SKILLS_CLI),
        ),
    ),
    HostProfile(
        "gh-skill",
        "gh skill",
        reader=None,
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=True,
        on_failure=None,
        listing_fields=None,
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule(
                "nesting",
                "it writes metadata.github-repo and github-ref into the "
                "frontmatter, so it reads nested metadata",
                GH_SKILL,
            ),
            Rule("failure", "its limits are unknown", GH_SKILL),
        ),
    ),
    HostProfile(
        "mcp-ts-sdk",
        "the official MCP TypeScript SDK",
        reader="json",
        name_max=64,
        name_pattern=True,
        name_is_folder=True,
        description_max=1024,
        strings_only=True,
        metadata_strings=True,
        nested_mappings=True,
        on_failure="refuse-listing",
        listing_fields=("name", "description"),
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule(
                "name",
                "a name matches ^[a-z0-9]+(-[a-z0-9]+)*$, is at most 64 "
                "characters and equals its folder",
                TS_SDK,
            ),
            Rule("description", "a description is 1-1,024 characters", TS_SDK),
            Rule("types", "compatibility is text of 1-500; metadata maps text to text", TS_SDK),
            Rule(
                "failure", "one entry that breaks a rule refuses the server's whole listing", TS_SDK
            ),
        ),
    ),
    HostProfile(
        "fastmcp",
        "fastmcp's client",
        reader="json",
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=True,
        nested_mappings=True,
        on_failure="refuse-listing",
        listing_fields=None,
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule("types", "metadata values must be text", FASTMCP),
            Rule("failure", "such an entry refuses the server's whole listing", FASTMCP),
        ),
    ),
)


def profile(slug: str) -> HostProfile:
    for p in PROFILES:
        if p.slug == slug:
            return p
    raise KeyError(f"unknown host {slug!r}: known are {', '.join(p.slug for p in PROFILES)}")


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


def read_as(reader: Reader | None, text: str) -> tuple[dict[str, Any] | None, str]:
    """The frontmatter as ``reader`` reads it, or ``None`` and why."""
    from desktop.core.frontmatter import parse_frontmatter_text
    from desktop.core.frontmatter_12 import parse_frontmatter_text_12

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

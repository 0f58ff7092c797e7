"""The host profiles: what each host the catalog models requires of a skill and how it
lists skills, as data, every rule with its source (see :mod:`desktop.core.hosts`, which
judges skills by them, and ``docs/hosts.md``, which lists them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Reader = Literal["yaml-1.1", "yaml-1.2", "json", "lines"]
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
SKILLS_CLI = "vercel-labs/skills src/frontmatter.ts (28415ff)"
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
        reader="lines",
        name_max=None,
        name_pattern=None,
        name_is_folder=None,
        description_max=None,
        strings_only=None,
        metadata_strings=None,
        nested_mappings=None,
        on_failure=None,
        listing_fields=None,
        entry_cut=None,
        budget_share=None,
        budget_fallback=None,
        drops=None,
        rules=(
            Rule(
                "reader",
                "frontmatter is read line by line, not as YAML: a block value (description: "
                ">-) is read as '>-', a value continued on the next lines keeps its first "
                "line, and nothing is refused",
                SKILLS_CLI,
            ),
            Rule(
                "failure",
                "what it does with a skill missing a name or description is unknown",
                SKILLS_CLI,
            ),
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

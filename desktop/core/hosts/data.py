"""The host profiles, as data. Each rule names its source; ``unknown`` is said, not guessed.

Sources are public: documentation pages, code paths in the host's repository (at the
time of writing), or the package whose behaviour the rule restates.
"""

from __future__ import annotations

from desktop.core.hosts import (
    LISTING_REFUSED,
    MISREAD,
    SKIPPED,
    UNKNOWN,
    HostProfile,
    Listing,
    Rule,
)

_SPEC = "https://agentskills.io/specification"
_CLAUDE_DOCS = "https://code.claude.com/docs/en/skills"
_CLAUDE_BUDGET = "https://claudefa.st/blog/guide/mechanics/skill-listing-budget"
_CLAUDE_CUT = "https://claudecodeguides.com/claude-skills-performance-optimization/"
_CODEX = "github.com/openai/codex codex-rs/core/src/skills/loader.rs"
_SKILLS_CLI = "github.com/vercel-labs/skills src/frontmatter.ts"
_TS_SDK = (
    "@modelcontextprotocol/client 2.4, SkillsClient (restated in desktop/core/strict_clients.py)"
)
_FASTMCP = "fastmcp 4.1.3 client (restated in desktop/core/strict_clients.py)"


def _unknown_rules(title: str) -> tuple[Rule, ...]:
    return (
        Rule("reader", f"{title}'s YAML reader: unknown", UNKNOWN),
        Rule("name", f"{title}'s name and folder rules: unknown", UNKNOWN),
        Rule("failure", f"what {title} does with a skill that breaks a rule: unknown", UNKNOWN),
        Rule("listing", f"{title}'s skill listing format and budget: unknown", UNKNOWN),
    )


def _unknown_host(host_id: str, title: str) -> HostProfile:
    return HostProfile(
        id=host_id,
        title=title,
        reader=UNKNOWN,
        name_rule=UNKNOWN,
        name_max=None,
        name_equals_folder=None,
        description_max=None,
        compatibility_max=None,
        metadata_text_only=None,
        short_description_max=None,
        failure=UNKNOWN,
        listing=Listing(UNKNOWN, known=False),
        rules=_unknown_rules(title),
    )


CLAUDE_CODE = HostProfile(
    id="claude-code",
    title="Claude Code",
    reader=UNKNOWN,
    name_rule="spec",
    name_max=64,
    name_equals_folder=None,
    description_max=1024,
    compatibility_max=None,
    metadata_text_only=None,
    short_description_max=None,
    failure=UNKNOWN,
    listing=Listing(
        "one entry per skill: name, description and when_to_use",
        fraction=0.01,
        chars_per_token=4,
        fallback=8000,
        entry_cut=1536,
    ),
    rules=(
        Rule("reader", "YAML reader: unknown", UNKNOWN),
        Rule(
            "name",
            "name: lowercase letters, digits and hyphens, at most 64 characters",
            _CLAUDE_DOCS,
        ),
        Rule("field", "description: at most 1,024 characters", _CLAUDE_DOCS),
        Rule("name", "whether the name must equal the folder's: unknown", UNKNOWN),
        Rule("failure", "what happens to a skill that breaks a rule: unknown", UNKNOWN),
        Rule(
            "listing",
            "the skill listing gets 1% of the context window (setting "
            "skillListingBudgetFraction); over it, the least-used skills lose their "
            "descriptions and keep their names",
            _CLAUDE_BUDGET,
        ),
        Rule(
            "listing",
            "each skill's name, description and when_to_use are cut at 1,536 characters; "
            "8,000 characters when the context size is not known",
            _CLAUDE_CUT,
        ),
        Rule(
            "listing",
            "which skills are least used is known only to the host: the catalog takes "
            "the last in name order",
            UNKNOWN,
        ),
    ),
)

CODEX = HostProfile(
    id="codex",
    title="Codex",
    reader="serde_yaml",
    name_rule="text",
    name_max=64,
    name_equals_folder=False,
    description_max=1024,
    compatibility_max=None,
    metadata_text_only=None,
    short_description_max=500,
    failure=SKIPPED,
    listing=Listing("name, description and path per skill", known=False),
    rules=(
        Rule("reader", "YAML read by serde_yaml into name and description text", _CODEX),
        Rule(
            "name",
            "name: text, non-empty after runs of spaces and line ends become one space, "
            "at most 64 characters; no pattern, need not equal the folder",
            _CODEX,
        ),
        Rule("field", "description: text, non-empty, at most 1,024 characters", _CODEX),
        Rule("field", "metadata.short-description: at most 500 characters", _CODEX),
        Rule("type", "name and description must be text", _CODEX),
        Rule(
            "failure",
            "a SKILL.md that breaks a rule is skipped, with an error; the others load",
            _CODEX,
        ),
        Rule("listing", "listing budget: unknown", UNKNOWN),
    ),
)

SKILLS_CLI = HostProfile(
    id="skills-cli",
    title="the skills CLI",
    reader="simple-lines",
    name_rule=UNKNOWN,
    name_max=None,
    name_equals_folder=None,
    description_max=None,
    compatibility_max=None,
    metadata_text_only=None,
    short_description_max=None,
    failure=MISREAD,
    listing=Listing(UNKNOWN, known=False),
    rules=(
        Rule(
            "reader",
            "its own line reader, not a YAML library: one level of nesting, quoted or "
            "plain one-line values",
            _SKILLS_CLI,
        ),
        Rule(
            "reader",
            "a block value (literal or folded style) is read as its style marker alone",
            _SKILLS_CLI,
        ),
        Rule(
            "reader", "a plain value continued on further lines keeps its first line", _SKILLS_CLI
        ),
        Rule("reader", "mappings nested two levels deep are flattened", _SKILLS_CLI),
        Rule("failure", "such a skill is installed with the text read differently", _SKILLS_CLI),
        Rule("name", "name and length rules: unknown", UNKNOWN),
    ),
)

MCP_TS_SDK = HostProfile(
    id="mcp-ts-sdk",
    title="the MCP TypeScript SDK client",
    reader="server's JSON",
    name_rule="spec",
    name_max=64,
    name_equals_folder=True,
    description_max=1024,
    compatibility_max=500,
    metadata_text_only=True,
    short_description_max=None,
    failure=LISTING_REFUSED,
    listing=Listing("the host built on it decides", known=False),
    rules=(
        Rule(
            "name",
            "name: ^[a-z0-9]+(-[a-z0-9]+)*$, 1-64 characters, equal to the folder's",
            _TS_SDK,
        ),
        Rule("field", "description: 1-1,024 characters", _TS_SDK),
        Rule("field", "compatibility: text, 1-500 characters", _TS_SDK),
        Rule("type", "metadata: a mapping of text to text", _TS_SDK),
        Rule(
            "failure",
            "one entry breaking a rule makes it refuse the server's whole skill listing",
            _TS_SDK,
        ),
    ),
)

FASTMCP = HostProfile(
    id="fastmcp",
    title="fastmcp's client",
    reader="server's JSON",
    name_rule=UNKNOWN,
    name_max=None,
    name_equals_folder=None,
    description_max=None,
    compatibility_max=None,
    metadata_text_only=True,
    short_description_max=None,
    failure=LISTING_REFUSED,
    listing=Listing("the host built on it decides", known=False),
    rules=(
        Rule("type", "metadata values must be text", _FASTMCP),
        Rule("failure", "metadata that is not text makes it refuse the whole listing", _FASTMCP),
        Rule("name", "name and length rules: unknown", UNKNOWN),
    ),
)

PROFILES: tuple[HostProfile, ...] = (
    CLAUDE_CODE,
    CODEX,
    _unknown_host("copilot", "GitHub Copilot"),
    _unknown_host("cursor", "Cursor"),
    _unknown_host("gemini", "Gemini CLI"),
    SKILLS_CLI,
    _unknown_host("gh-skill", "gh skill"),
    MCP_TS_SDK,
    FASTMCP,
)

SPEC_SOURCE = _SPEC

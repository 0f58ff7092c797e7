"""What each grant an approval can give allows, in plain words, by risk.

A skill asks for tools in ``allowed-tools``; approving it can grant each one. The
names are an agent's tool names: :func:`explain_tool` says what granting one lets
the skill do. A name this table does not know is treated as powerful, and said so:
a reviewer should never take an unfamiliar name for a harmless one. The window's
review and the command line's ``approve`` both use this table.

Scripts are a separate grant, offered only when the skill bundles scripts
(:func:`script_files`): files an agent would run on this machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop.core.model import Skill, SkillFile

# Risk levels, highest first.
RUNS_CODE = "runs-code"
UNKNOWN = "unknown"
CHANGES_FILES = "changes-files"
NETWORK = "network"
SERVER_TOOL = "server-tool"
READS = "reads"
HARMLESS = "harmless"
LEVELS: tuple[str, ...] = (RUNS_CODE, UNKNOWN, CHANGES_FILES, NETWORK, SERVER_TOOL, READS, HARMLESS)

# How each level is named to people.
LEVEL_WORDS: dict[str, str] = {
    RUNS_CODE: "high risk",
    UNKNOWN: "high risk (unknown tool)",
    CHANGES_FILES: "changes files",
    NETWORK: "network",
    SERVER_TOOL: "a server's tool",
    READS: "reads files",
    HARMLESS: "low risk",
}

# Known tool names: (level, what granting it allows).
KNOWN_TOOLS: dict[str, tuple[str, str]] = {
    "Bash": (RUNS_CODE, "run any command on this machine, with your permissions"),
    "BashOutput": (READS, "read the output of commands it started"),
    "KillShell": (RUNS_CODE, "stop commands running on this machine"),
    "Task": (RUNS_CODE, "start other agents, which use the tools granted to them"),
    "Write": (CHANGES_FILES, "create and overwrite files"),
    "Edit": (CHANGES_FILES, "change files"),
    "MultiEdit": (CHANGES_FILES, "change files"),
    "NotebookEdit": (CHANGES_FILES, "change notebooks"),
    "WebFetch": (NETWORK, "reach the network: fetch any web address, send what it puts in it"),
    "WebSearch": (NETWORK, "search the web (what it searches for leaves this machine)"),
    "Read": (READS, "read any file you can read"),
    "Grep": (READS, "search the contents of files"),
    "Glob": (READS, "list files by name"),
    "LS": (READS, "list folders"),
    "NotebookRead": (READS, "read notebooks"),
    "TodoWrite": (HARMLESS, "keep a to-do list for the task"),
    "TodoRead": (HARMLESS, "read its to-do list"),
}

# ``Bash(git status:*)``: a tool limited to what the parentheses name.
_SCOPED = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\((.*)\)\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ToolRisk:
    """What granting one requested tool allows."""

    name: str  # as the skill wrote it
    level: str
    allows: str  # plain words: what granting it lets the skill do
    known: bool = True

    @property
    def powerful(self) -> bool:
        return self.level in (RUNS_CODE, UNKNOWN)

    @property
    def level_words(self) -> str:
        return LEVEL_WORDS[self.level]

    def explain(self) -> str:
        """One line: ``Bash: run any command on this machine (high risk)``."""
        return f"{self.name}: {self.allows} ({self.level_words})"

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "level": self.level,
            "allows": self.allows,
            "known": self.known,
        }


def explain_tool(name: str) -> ToolRisk:
    """What granting the tool ``name`` (an ``allowed-tools`` item) allows."""
    if name in KNOWN_TOOLS:
        level, allows = KNOWN_TOOLS[name]
        return ToolRisk(name, level, allows)
    scoped = _SCOPED.match(name)
    if scoped and scoped.group(1) in KNOWN_TOOLS:
        base, scope = scoped.group(1), scoped.group(2).strip()
        level, allows = KNOWN_TOOLS[base]
        if base == "Bash":
            allows = f"run commands matching {scope!r} on this machine"
        else:
            allows = f"{allows}, limited to {scope!r}"
        return ToolRisk(name, level, allows)
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__") :].partition("__")
        if server and tool:
            return ToolRisk(
                name,
                SERVER_TOOL,
                f"call the tool {tool!r} of the server {server!r}: whatever that tool does",
            )
        if server and not tool:
            return ToolRisk(
                name, SERVER_TOOL, f"call every tool of the server {server!r}: whatever they do"
            )
    return ToolRisk(
        name,
        UNKNOWN,
        "not a tool this program knows; treated as powerful, as it could do anything",
        known=False,
    )


def requested_risks(skill: Skill) -> list[ToolRisk]:
    """The tools ``skill`` requests, each with what it allows, highest risk first
    (in the order written within a level)."""
    tools = list(dict.fromkeys(skill.allowed_tools()))
    risks = [explain_tool(t) for t in tools]
    return sorted(risks, key=lambda r: LEVELS.index(r.level))


# Files an agent would run rather than read.
SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php"}
    | {".ps1", ".bat", ".cmd", ".exe", ".lua", ".r", ".jar", ".go", ".rs", ".swift", ".kts"}
)


def is_script(uri: str) -> bool:
    """Whether a manifest file is code an agent would run: anything under a
    ``scripts/`` folder, or a file whose name says it is a program."""
    rel = uri.split("://", 1)[-1]
    parts = rel.split("/")
    if "scripts" in parts[:-1]:
        return True
    name = parts[-1].lower()
    dot = name.rfind(".")
    return dot > 0 and name[dot:] in SCRIPT_SUFFIXES


def script_files(skill: Skill) -> list[SkillFile]:
    """The files of ``skill`` that are code an agent would run (sorted by URI)."""
    return sorted((f for f in skill.files if is_script(f.uri)), key=lambda f: f.uri)


def has_scripts(skill: Skill) -> bool:
    return any(is_script(f.uri) for f in skill.files)

"""What a host would hand a model for the current sources. Pure: no Qt.

One line per loadable skill: qualified name, origin tag and description; server
skills are marked third-party. Its length against the listing budget a host gives
skills (:data:`LISTING_BUDGET`); per server, the length of its ``instructions`` against
the 2048-character cut many clients apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.core.catalog import Catalog
from desktop.core.checks import DESCRIPTION_MAX as DESCRIPTION_LIMIT
from desktop.core.entry import INSTRUCTIONS_KEPT as INSTRUCTIONS_CUT
from desktop.core.model import Skill
from desktop.core.words import budget

# The characters a host spends on its listing of skills (names and descriptions) before
# it leaves skills out of it: Claude Code's fallback budget, which grows with the model's
# context window (about 1% of it) and which SLASH_COMMAND_TOOL_CHAR_BUDGET overrides.
LISTING_BUDGET = 8_000
LISTING_TIP = (
    "The skill listing a host hands the model (one line per skill: name and description) "
    f"shares a budget: Claude Code keeps about {LISTING_BUDGET:,} characters by default "
    "(more with a larger context window); past it, skills are left out of the listing and "
    "the model cannot choose them"
)


@dataclass(frozen=True, slots=True)
class ServerInstructions:
    label: str
    length: int
    cut: bool

    def describe(self) -> str:
        if self.length == 0:
            return f"{self.label}: no instructions"
        if self.cut:
            return (
                f"{self.label}: {self.length:,} characters; clients keeping the first "
                f"{INSTRUCTIONS_CUT} lose {self.length - INSTRUCTIONS_CUT:,}"
            )
        return f"{self.label}: {self.length:,} characters (within {INSTRUCTIONS_CUT})"


@dataclass(slots=True)
class RegistryView:
    lines: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # 1-based line of the registry text: the warning of its skill (a description
    # longer than hosts keep).
    marked: dict[int, str] = field(default_factory=dict)
    servers: list[ServerInstructions] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def length(self) -> int:
        return len(self.text)


def origin_tag(skill: Skill) -> str:
    if skill.kind_info.third_party:
        return f"third-party, from server {skill.origin.label}"
    return f"local, {skill.kind_info.word_for(skill.origin.transport)} {skill.origin.label}"


def registry_line(skill: Skill) -> str:
    description = " ".join(skill.description.split())
    return f"- {skill.qualified_name} [{origin_tag(skill)}]: {description}"


def model_registry(catalog: Catalog) -> RegistryView:
    view = RegistryView()
    for skill in sorted(catalog.skills, key=lambda s: (s.kind_info.third_party, s.qualified_name)):
        if not skill.loadable:
            view.left_out.append(f"{skill.qualified_name}: {skill.state}, not offered to a model")
            continue
        view.lines.append(registry_line(skill))
        length = len(skill.description)
        if length > DESCRIPTION_LIMIT:
            view.marked[len(view.lines)] = (
                f"description: {budget(length, DESCRIPTION_LIMIT)}; hosts may keep only "
                f"the first {DESCRIPTION_LIMIT:,}"
            )
            view.warnings.append(
                f"{skill.qualified_name}: description is {length:,} characters; hosts may keep "
                f"only the first {DESCRIPTION_LIMIT:,}, ending at "
                f"“…{skill.description[DESCRIPTION_LIMIT - 40 : DESCRIPTION_LIMIT]}”"
            )
    for status in catalog.sources:
        if not status.origin.kind_info.runs_code:  # only a server gives instructions
            continue
        length = len(status.instructions or "")
        view.servers.append(
            ServerInstructions(status.origin.label, length, length > INSTRUCTIONS_CUT)
        )
    return view

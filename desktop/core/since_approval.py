"""What a skill changed since its approval puts before its reviewer again.

The earlier decision (who approved, when, which tools were granted and whether its
scripts may run) beside the new evidence: the files added, changed and removed, the
scripts among them, and the tools it asks for now that it did not ask for then. The
review shows it; it is a value, so it is tested without Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.approvals import CHANGED, ApprovalState, SetDiff
from desktop.core.grants import is_script
from desktop.core.model import Skill


@dataclass(frozen=True, slots=True)
class SinceApproval:
    """The approval a change voided, and what the change brings."""

    approved_by: str
    approved_at: str
    granted_tools: tuple[str, ...]
    scripts_allowed: bool
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    new_scripts: tuple[str, ...] = ()  # scripts added or changed
    new_tools: tuple[str, ...] = ()  # tools requested now, not when approved

    def granted(self) -> str:
        """The grants of the earlier approval, in plain words."""
        tools = ", ".join(self.granted_tools) if self.granted_tools else "no tools"
        scripts = "its scripts allowed to run" if self.scripts_allowed else "scripts not allowed"
        return f"{tools}; {scripts}"


def since_approval(skill: Skill, state: ApprovalState | None) -> SinceApproval | None:
    """The earlier approval and the change, for a skill changed since it was approved
    (``None`` for any other state, or an earlier decision that was a rejection)."""
    if state is None or state.state != CHANGED or state.record is None or state.record.rejected:
        return None
    record = state.record
    diff = state.diff or SetDiff()  # none: only the frontmatter changed
    added = tuple(c.uri for c in diff.added)
    changed = tuple(c.uri for c in diff.changed)
    removed = tuple(c.uri for c in diff.removed)
    before = set(record.requested_tools)
    return SinceApproval(
        approved_by=record.approved_by,
        approved_at=record.approved_at,
        granted_tools=tuple(record.grants.tools),
        scripts_allowed=record.grants.scripts,
        added=added,
        changed=changed,
        removed=removed,
        new_scripts=tuple(uri for uri in (*added, *changed) if is_script(uri)),
        new_tools=tuple(t for t in dict.fromkeys(skill.allowed_tools()) if t not in before),
    )

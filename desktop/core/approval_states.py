"""The states a skill's approval can be in, by name.

A module of its own so that what shows the states (the list's rows, the filters) does
not load the approval rules in :mod:`desktop.core.approvals` before they are needed.
"""

from __future__ import annotations

NOT_APPROVED = "not-approved"
APPROVED = "approved"
CHANGED = "changed"
UNAPPROVABLE = "unapprovable"
REJECTED = "rejected"
APPROVAL_STATES: tuple[str, ...] = (NOT_APPROVED, APPROVED, CHANGED, UNAPPROVABLE, REJECTED)

"""The states a skill's approval can be in, by name (:class:`Approval` members).

A module of its own so that what shows the states (the list's rows, the filters) does
not load the approval rules in :mod:`desktop.core.approvals` before they are needed.
"""

from __future__ import annotations

from desktop.core.states import Approval

NOT_APPROVED = Approval.NOT_APPROVED
APPROVED = Approval.APPROVED
CHANGED = Approval.CHANGED
UNAPPROVABLE = Approval.UNAPPROVABLE
REJECTED = Approval.REJECTED
APPROVAL_STATES: tuple[str, ...] = tuple(Approval)

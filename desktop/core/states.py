"""Every state the product tells apart, as a type, with what goes with it.

Each state is a ``StrEnum`` whose values are the words written in ``--json`` output and
in stored records, so a member compares equal to its word and prints as it. Beside the
values, in this one place: the plain word people read (one per state, the same in every
pane and command), its rank (the order lists sort it in, gravest or most urgent first),
the name of its icon (views turn it into a picture; see ``desktop/ui/widgets/state_icons.py``),
and the rules that ask about a state (:attr:`Approval.needs_decision`, ...).

A view never compares a state with a string literal: it asks the member
(``problem.level.is_error``) or compares with a member (``status.status ==
SourceState.FAILED``). ``tests/test_state_literals.py`` keeps it so.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

E = TypeVar("E", bound=StrEnum)


def member(kind: type[E], word: str | None) -> E | None:
    """The state of type ``kind`` that ``word`` names; ``None`` when none does."""
    try:
        return kind(word)  # type: ignore[arg-type]  # None names no state: ValueError
    except ValueError:
        return None


class Severity(StrEnum):
    """How grave a problem is."""

    INVALID = "invalid"  # the entry can never be loaded (unparseable, no name)
    ERROR = "error"  # the format's rules are broken; a lenient reader still loads it
    WARNING = "warning"  # worth fixing; nothing breaks
    INFO = "info"  # worth knowing (unknown fields, defaults applied)

    @property
    def label(self) -> str:
        """The word people read before the problem's message."""
        return _SEVERITY[self][0]

    @property
    def rank(self) -> int:
        """The order problems are listed in: the gravest first."""
        return _SEVERITY[self][1]

    @property
    def icon(self) -> str:
        return _SEVERITY[self][2]

    @property
    def is_error(self) -> bool:
        """An error a user must see (counted as a problem), not a warning or a note."""
        return self in (Severity.INVALID, Severity.ERROR)

    @property
    def mark(self) -> Severity:
        """The level a line marked with it carries: invalid shows as an error."""
        return Severity.ERROR if self is Severity.INVALID else self


_SEVERITY: dict[Severity, tuple[str, int, str]] = {
    Severity.INVALID: ("Invalid", 0, "dialog-error"),
    Severity.ERROR: ("Error", 1, "dialog-error"),
    Severity.WARNING: ("Warning", 2, "dialog-warning"),
    Severity.INFO: ("Note", 3, "dialog-information"),
}


class EntryState(StrEnum):
    """The state of a listed skill's entry (the ``state`` field of ``list --json``)."""

    LISTED = "listed"
    INVALID = "invalid"
    OVER_LIMIT = "over-limit"
    DYNAMIC = "dynamic"

    @property
    def label(self) -> str:
        return _ENTRY[self][0]

    @property
    def rank(self) -> int:
        return _ENTRY[self][1]

    @property
    def icon(self) -> str:
        return _ENTRY[self][2]

    @property
    def loadable(self) -> bool:
        """Whether files may be read against the entry (not invalid, not over a limit)."""
        return self in (EntryState.LISTED, EntryState.DYNAMIC)

    @property
    def is_problem(self) -> bool:
        """The entry itself is a problem (invalid or over a limit)."""
        return not self.loadable


_ENTRY: dict[EntryState, tuple[str, int, str]] = {
    EntryState.INVALID: ("Cannot be loaded", 0, "dialog-error"),
    EntryState.OVER_LIMIT: ("Too large", 1, "dialog-error"),
    EntryState.DYNAMIC: ("Files not listed", 2, "dialog-information"),
    EntryState.LISTED: ("Listed", 3, "emblem-ok"),
}


class SourceState(StrEnum):
    """What reading a source came to (the ``status`` field of ``sources --json``)."""

    OK = "ok"
    NO_SKILLS = "no-skills"
    FAILED = "error"
    PENDING = "pending"
    UNTRUSTED = "untrusted"
    CANCELLED = "cancelled"

    @property
    def label(self) -> str:
        return _SOURCE[self][0]

    @property
    def rank(self) -> int:
        """Failed first: what needs a hand comes before what is fine."""
        return _SOURCE[self][1]

    @property
    def icon(self) -> str:
        return _SOURCE[self][2]

    @property
    def failed(self) -> bool:
        return self is SourceState.FAILED

    @property
    def unread(self) -> bool:
        """Nothing of it was read: it failed, or it is not trusted to start."""
        return self in (SourceState.FAILED, SourceState.UNTRUSTED)

    @property
    def busy(self) -> bool:
        """Being read (or not read at all yet)."""
        return self is SourceState.PENDING


_SOURCE: dict[SourceState, tuple[str, int, str]] = {
    SourceState.FAILED: ("Failed", 0, "dialog-error"),
    SourceState.UNTRUSTED: ("Not trusted", 1, "media-playback-pause"),
    SourceState.CANCELLED: ("Stopped", 2, "dialog-information"),
    SourceState.PENDING: ("Reading…", 3, "view-refresh"),
    SourceState.NO_SKILLS: ("No skills", 4, "dialog-information"),
    SourceState.OK: ("Ready", 5, "emblem-ok"),
}


class SignIn(StrEnum):
    """Where an HTTP server's sign-in stands (``""`` when none was asked)."""

    NONE = ""
    REQUIRED = "required"
    AGAIN = "again"
    SIGNED_IN = "signed-in"

    @property
    def label(self) -> str:
        return _SIGN_IN[self][0]

    @property
    def rank(self) -> int:
        return _SIGN_IN[self][1]

    @property
    def icon(self) -> str:
        return _SIGN_IN[self][2]

    @property
    def asks(self) -> bool:
        """The server asks the user to sign in (first time or again)."""
        return self in (SignIn.REQUIRED, SignIn.AGAIN)

    @property
    def held(self) -> bool:
        """A sign-in is stored for the server (one may sign out)."""
        return self in (SignIn.SIGNED_IN, SignIn.AGAIN)


_SIGN_IN: dict[SignIn, tuple[str, int, str]] = {
    SignIn.REQUIRED: ("Sign in required", 0, "dialog-error"),
    SignIn.AGAIN: ("Sign in again", 1, "dialog-error"),
    SignIn.SIGNED_IN: ("Signed in", 2, "emblem-ok"),
    SignIn.NONE: ("", 3, ""),
}


class Approval(StrEnum):
    """A skill's approval state (the ``approval.state`` field of ``--json`` output)."""

    NOT_APPROVED = "not-approved"
    APPROVED = "approved"
    CHANGED = "changed"
    UNAPPROVABLE = "unapprovable"
    REJECTED = "rejected"

    @property
    def label(self) -> str:
        return _APPROVAL[self][0]

    @property
    def tip(self) -> str:
        """What the state means, in a sentence (a tooltip)."""
        return _APPROVAL[self][1]

    @property
    def rank(self) -> int:
        """The review queue's order: changed skills first, then those never approved."""
        return _APPROVAL[self][2]

    @property
    def icon(self) -> str:
        return _APPROVAL[self][3]

    @property
    def needs_decision(self) -> bool:
        """Waiting for a reviewer: nobody approved it yet, or it changed since."""
        return self in (Approval.NOT_APPROVED, Approval.CHANGED)

    @property
    def approved(self) -> bool:
        return self is Approval.APPROVED


_APPROVAL: dict[Approval, tuple[str, str, int, str]] = {
    Approval.CHANGED: (
        "Changed",
        "Its files changed since they were approved: review the change",
        0,
        "dialog-warning",
    ),
    Approval.NOT_APPROVED: ("To review", "Nobody approved this skill yet", 1, "dialog-question"),
    Approval.REJECTED: (
        "Rejected",
        "A reviewer rejected exactly these files; it is to review again once they change",
        2,
        "action-unavailable",
    ),
    Approval.UNAPPROVABLE: (
        "Cannot approve",
        "This entry cannot be bound to files (invalid, dynamic or over a limit)",
        3,
        "dialog-cancel",
    ),
    Approval.APPROVED: ("Approved", "Approved for exactly the files it lists now", 4, "emblem-ok"),
}


def needs_decision(state: str | None) -> bool:
    """Whether a skill in approval ``state`` (``None``: not known yet) waits for a
    reviewer. The one rule behind "To review", the review's queue and its filter."""
    return state is not None and state in _NEEDS_DECISION


_NEEDS_DECISION = frozenset(a for a in Approval if a.needs_decision)


class Verification(StrEnum):
    """What checking a skill's bytes against its entry found."""

    VERIFIED = "verified"
    PARTIAL = "partial"
    SIZE_MISMATCH = "size-mismatch"
    DIGEST_MISMATCH = "digest-mismatch"
    FRONTMATTER_MISMATCH = "frontmatter-mismatch"
    UNLISTED_FILE = "unlisted-file"
    READ_ERROR = "read-error"

    @property
    def label(self) -> str:
        return _VERIFICATION[self][0]

    @property
    def tip(self) -> str:
        return _VERIFICATION[self][1]

    @property
    def rank(self) -> int:
        """Mismatches first, then what could not be read, then what matches."""
        return _VERIFICATION[self][2]

    @property
    def icon(self) -> str:
        return _VERIFICATION[self][3]

    @property
    def matches(self) -> bool:
        """The bytes read so far match the entry."""
        return self in (Verification.VERIFIED, Verification.PARTIAL)

    @property
    def mismatch(self) -> bool:
        """Bytes were read that are not the ones listed."""
        return self in _MISMATCHES


_VERIFICATION: dict[Verification, tuple[str, str, int, str]] = {
    Verification.SIZE_MISMATCH: (
        "Files differ",
        "A file's size is not the one the source listed",
        0,
        "dialog-error",
    ),
    Verification.DIGEST_MISMATCH: (
        "Files differ",
        "A file's sha256 digest is not the one listed",
        0,
        "dialog-error",
    ),
    Verification.FRONTMATTER_MISMATCH: (
        "Files differ",
        "The SKILL.md frontmatter read is not the one the listing described",
        0,
        "dialog-error",
    ),
    Verification.UNLISTED_FILE: (
        "Unlisted file",
        "A file was served that the listing does not name",
        0,
        "dialog-error",
    ),
    Verification.READ_ERROR: ("Could not read", "Reading a file failed", 1, "dialog-error"),
    Verification.PARTIAL: (
        "Not all files checked",
        "Partly verified: the files read so far match what the source listed (size and "
        "SHA-256); the others are not read yet",
        2,
        "emblem-ok",
    ),
    Verification.VERIFIED: (
        "Checked",
        "Verified: every file's size and SHA-256 digest match what the source listed "
        "(integrity, not safety)",
        3,
        "emblem-ok",
    ),
}
_MISMATCHES = frozenset(
    (
        Verification.SIZE_MISMATCH,
        Verification.DIGEST_MISMATCH,
        Verification.FRONTMATTER_MISMATCH,
        Verification.UNLISTED_FILE,
    )
)


class TrustState(StrEnum):
    """Whether a project's server config is trusted to start (as its file writes it now)."""

    NEW = "new"  # never trusted
    CHANGED = "changed"  # trusted once, written otherwise since
    TRUSTED = "trusted"

    @property
    def label(self) -> str:
        """Said after the server's name, in a sentence: "(not trusted)"."""
        return _TRUST[self][0]

    @property
    def rank(self) -> int:
        return _TRUST[self][1]

    @property
    def icon(self) -> str:
        return _TRUST[self][2]

    @property
    def trusted(self) -> bool:
        return self is TrustState.TRUSTED


_TRUST: dict[TrustState, tuple[str, int, str]] = {
    TrustState.CHANGED: ("changed since you trusted it", 0, "dialog-warning"),
    TrustState.NEW: ("not trusted", 1, "dialog-question"),
    TrustState.TRUSTED: ("trusted", 2, "emblem-ok"),
}


class TeamReview(StrEnum):
    """A skill's state in its repository's signed review records (``audit``)."""

    REVIEWED = "reviewed"
    UNREVIEWED = "unreviewed"
    CHANGED = "changed"
    REJECTED = "rejected"

    @property
    def label(self) -> str:
        return _TEAM_REVIEW[self][0]

    @property
    def tip(self) -> str:
        return _TEAM_REVIEW[self][1]

    @property
    def rank(self) -> int:
        """Rejected first, then changed, then unreviewed: what fails an audit first."""
        return _TEAM_REVIEW[self][2]

    @property
    def icon(self) -> str:
        return _TEAM_REVIEW[self][3]

    @property
    def passes(self) -> bool:
        """Enough valid approvals for exactly these bytes, and no rejection."""
        return self is TeamReview.REVIEWED


_TEAM_REVIEW: dict[TeamReview, tuple[str, str, int, str]] = {
    TeamReview.REJECTED: (
        "Rejected",
        "An allowed reviewer rejected exactly these files",
        0,
        "action-unavailable",
    ),
    TeamReview.CHANGED: (
        "Changed",
        "Reviews exist for earlier files of this skill, not for these",
        1,
        "view-refresh",
    ),
    TeamReview.UNREVIEWED: (
        "Unreviewed",
        "Not enough valid approvals for these files",
        2,
        "dialog-question",
    ),
    TeamReview.REVIEWED: (
        "Reviewed",
        "Approved for exactly these files by enough allowed reviewers",
        3,
        "emblem-ok",
    ),
}


class Installed(StrEnum):
    """Whether a skill in an agent's folder is still what a person approved."""

    DRIFTED = "drifted"  # its files on disk changed since the catalog installed them
    CHANGED_UPSTREAM = "changed-upstream"  # its source publishes other bytes now
    NOT_APPROVED = "not-approved"  # installed by the catalog; its approval is gone
    UNMANAGED = "unmanaged"  # not installed by the catalog
    APPROVED = "approved"  # the bytes on disk are the approved ones

    @property
    def label(self) -> str:
        """The plain words people read for it."""
        return _INSTALLED[self][0]

    @property
    def rank(self) -> int:
        return _INSTALLED[self][1]

    @property
    def icon(self) -> str:
        return _INSTALLED[self][2]

    @property
    def ok(self) -> bool:
        """Whether nothing needs doing: the approved bytes are the ones installed."""
        return self is Installed.APPROVED


_INSTALLED: dict[Installed, tuple[str, int, str]] = {
    Installed.DRIFTED: ("Changed on disk", 0, "dialog-error"),
    Installed.CHANGED_UPSTREAM: ("Update to review", 1, "dialog-warning"),
    Installed.NOT_APPROVED: ("No longer approved", 2, "dialog-warning"),
    Installed.UNMANAGED: ("Installed by something else", 3, "dialog-question"),
    Installed.APPROVED: ("As approved", 4, "emblem-ok"),
}

# Every state type, for the test that keeps their words out of views.
STATE_TYPES: tuple[type[StrEnum], ...] = (
    Severity,
    EntryState,
    SourceState,
    SignIn,
    Approval,
    Verification,
    TrustState,
    TeamReview,
    Installed,
)

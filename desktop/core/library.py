"""The library's views and the words the window says of a skill or a source.

A *view* is one of the sidebar's Library rows (All, To review, ...): a predicate over a
skill and its approval state. Counts, predicates and state words live here so the window
and the command line say the same thing, and so they are tested without Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from desktop.core.model import Origin, Skill, SourceSpec, SourceStatus
from desktop.core.states import (
    Approval,
    EntryState,
    Severity,
    SignIn,
    SourceState,
    Verification,
    member,
    needs_decision,
)
from desktop.core.visible import cut

ALL = "all"
TO_REVIEW = "to-review"
CHANGED = "changed"
PROBLEMS = "problems"
APPROVED = "approved"

# (key, label, tooltip) in sidebar order.
VIEWS: tuple[tuple[str, str, str], ...] = (
    (ALL, "All skills", "Every skill from every source that is on"),
    (
        TO_REVIEW,
        "To review",
        "Skills nobody approved yet, or changed since they were approved",
    ),
    (
        CHANGED,
        "Changed since approval",
        "Approved skills whose files are no longer the ones approved",
    ),
    (
        PROBLEMS,
        "Has problems",
        "Skills whose entry is invalid, over a limit, or breaks a rule of the format",
    ),
    (APPROVED, "Approved", "Skills approved for exactly the files they list now"),
)
VIEW_KEYS = frozenset(key for key, _, _ in VIEWS)

# A skill page's tabs in order: (title with its mnemonic, tooltip). The Problems tab's
# title gains the count of problems, as "Problems (3)".
PAGE_TABS: tuple[tuple[str, str], ...] = (
    ("&Overview", "The rendered SKILL.md, once its bytes are checked"),
    ("F&iles", "The skill's files; choose one to read it, once checked"),
    ("So&urce", "The raw text of the file shown, its problems marked"),
    ("&Details", ""),
    ("Pro&blems", ""),
    ("&Review", "Read the evidence, choose the grants, then approve or reject"),
)
PROBLEMS_TAB = 4
REVIEW_TAB = 5


def has_problems(skill: Skill) -> bool:
    """Whether the skill has a problem worth a user's eye (an error, not a note)."""
    return skill.has_errors() or skill.state.is_problem


def in_view(view: str, skill: Skill, approval: str | None) -> bool:
    """Whether ``skill`` (with its approval state, if known) belongs to ``view``."""
    if view in ("", ALL):
        return True
    if view == TO_REVIEW:
        return needs_decision(approval)
    if view == CHANGED:
        return approval == Approval.CHANGED
    if view == APPROVED:
        return approval == Approval.APPROVED
    if view == PROBLEMS:
        return has_problems(skill)
    return False


def view_counts(skills: Iterable[Skill], approvals: Mapping[str, str]) -> dict[str, int]:
    """How many skills each view holds."""
    counts = dict.fromkeys((key for key, _, _ in VIEWS), 0)
    for skill in skills:
        approval = approvals.get(skill.id)
        counts[ALL] += 1
        if needs_decision(approval):
            counts[TO_REVIEW] += 1
        if approval == Approval.CHANGED:
            counts[CHANGED] += 1
        if approval == Approval.APPROVED:
            counts[APPROVED] += 1
        if has_problems(skill):
            counts[PROBLEMS] += 1
    return counts


# -- sources ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceWords:
    """What the sidebar says of a source: its kind, a status word and a mark."""

    kind: str  # "folder" | "local process" | "remote server"
    status: str  # a short word: "Ready", "Reading…", "Failed", "Off", "No skills"
    mark: str  # the name of the state's icon (desktop.core.states)
    detail: str  # the whole status, for a tooltip or a status line
    ready: bool = False  # read, with skills: the sidebar shows their count, no mark


# The mark of a source that is turned off (as one not trusted to start: not read).
OFF_ICON = SourceState.UNTRUSTED.icon
# What a source's status says when its message says nothing.
_SOURCE_DETAIL = {
    SourceState.FAILED: "Could not be read.",
    SourceState.NO_SKILLS: "Holds no skills.",
    SourceState.UNTRUSTED: "Not started.",
    SourceState.CANCELLED: "Reading was stopped.",
}


def kind_word(spec: SourceSpec) -> str:
    """The plain word for the source's kind: "folder", "local process", "zip archive"."""
    return spec.kind_info.word_for(spec.transport)


def source_words(spec: SourceSpec, status: SourceStatus | None) -> SourceWords:
    kind = kind_word(spec)
    if not spec.enabled:
        return SourceWords(kind, "Off", OFF_ICON, "Turned off: its skills are not shown.")
    if status is None or status.status == SourceState.PENDING:
        return SourceWords(kind, SourceState.PENDING.label, SourceState.PENDING.icon, "Being read.")
    message = status.message
    state = status.state
    sign_in = status.sign_in_state
    if sign_in.asks:
        return SourceWords(kind, sign_in.label, sign_in.icon, message)
    if state is None:  # a word no state has: shown as it is
        return SourceWords(kind, status.status.capitalize(), "dialog-information", message)
    if state is not SourceState.OK:
        return SourceWords(kind, state.label, state.icon, message or _SOURCE_DETAIL[state])
    n = status.skill_count
    detail = f"{n} skill{'s' if n != 1 else ''}"
    # A message that starts with the count says it already ("3 skills in 2 pages").
    detail = message if message.startswith(detail) else detail + (f"; {message}" if message else "")
    if sign_in is SignIn.SIGNED_IN:
        detail += "; signed in"
    return SourceWords(kind, state.label, state.icon, detail, ready=True)


# -- a skill's row ------------------------------------------------------------------

# Verification states in plain words, and the precise meaning for a tooltip.
VERIFICATION_WORDS: dict[str, tuple[str, str]] = {v: (v.label, v.tip) for v in Verification}
NOT_READ = ("Not read yet", "Its files have not been read and checked against the listing")

APPROVAL_WORDS: dict[str, tuple[str, str]] = {a: (a.label, a.tip) for a in Approval}


@dataclass(frozen=True, slots=True)
class Mark:
    """One status mark on a skill's row: a key for the icon, a word, a tooltip."""

    key: str  # approved | to-review | changed | unapprovable | rejected | problems | mismatch
    word: str
    tip: str
    icon: str = ""  # the name of its icon (desktop.core.states)


# The icon of a row's problems mark: the mark counts errors (see problem_count).
PROBLEMS_ICON = Severity.ERROR.icon


def origin_chip(skill: Skill) -> tuple[str, bool]:
    """The short origin shown beside the name, and whether it is third-party."""
    if skill.kind_info.third_party:
        return f"{skill.origin.label} · server", True
    return skill.origin.label, False


def problem_count(skill: Skill) -> int:
    return sum(1 for p in skill.problems if p.level.is_error)


def row_marks(skill: Skill, approval: str | None, verification: str | None) -> list[Mark]:
    """The marks a skill's row carries, in the order they are drawn."""
    marks: list[Mark] = []
    checked = member(Verification, verification)
    if checked is not None and not checked.matches:
        marks.append(Mark("mismatch", checked.label, checked.tip, checked.icon))
    n = problem_count(skill)
    if n:
        first = next(p.message for p in skill.problems if p.level.is_error)
        word = f"{n} problem{'s' if n != 1 else ''}"
        marks.append(Mark("problems", word, f"{word}; the first: {first}", PROBLEMS_ICON))
    state = member(Approval, approval)
    if state is not None:
        key = TO_REVIEW if state is Approval.NOT_APPROVED else str(state)
        marks.append(Mark(key, state.label, state.tip, state.icon))
    return marks


def verification_words(skill: Skill, verification: str | None) -> tuple[str, str]:
    """The verification state in a word or two, and its meaning."""
    state = skill.state
    if state is EntryState.INVALID:
        return state.label, "Invalid entry: it breaks the format, so nothing can be read"
    if state is EntryState.OVER_LIMIT:
        return state.label, "Over a limit: the entry is larger than allowed, so nothing is read"
    if state is EntryState.DYNAMIC:
        return state.label, (
            "Dynamic skill: the server lists no files or digests, so its files cannot be checked"
        )
    if not verification:
        return NOT_READ
    return VERIFICATION_WORDS.get(verification, (verification, verification))


# -- empty states ---------------------------------------------------------------------

SKILL_FOLDER_HELP = (
    "A skill is a folder holding a SKILL.md file: YAML frontmatter between two '---' "
    "lines with at least a name (the folder's own name, in lower case with hyphens) and "
    "a description of when to use it, then Markdown instructions. Scripts and references "
    "sit beside it. A source folder holds such skill folders, at any depth."
)

EMPTY_VIEWS = {
    TO_REVIEW: ("Nothing to review", "Every skill shown has a decision."),
    CHANGED: ("Nothing changed since approval", "Approved skills still hold the files approved."),
    PROBLEMS: ("No problems found", "Every skill's entry follows the format."),
    APPROVED: ("Nothing approved yet", "Approve a skill from its page: Review and approve."),
}


@dataclass(frozen=True, slots=True)
class EmptyState:
    title: str
    detail: str
    action: str  # "" | "clear" | "add" | "retry" | "refresh" | "explain"
    action_text: str = ""


def empty_state(
    *,
    text: str,
    view: str,
    others: bool,
    total: int,
    source: SourceSpec | None,
    status: SourceStatus | None,
    sources: int,
    failed: Sequence[tuple[str, str]] = (),
    waiting: int = 0,
    unread: int = 0,
) -> EmptyState:
    """What the list says when it shows nothing, and the one action that helps.

    ``text`` is the search text, ``view`` the Library view, ``others`` whether other
    filters are chosen, ``total`` the skills of the catalog, ``source`` the source the
    list is limited to (with its ``status``) and ``sources`` how many sources there are;
    ``failed`` holds the sources that could not be read (label, why) and ``waiting`` counts those
    still being read and ``unread`` those not read (stopped, or not trusted to start):
    the catalog's summary, so the list never says the sources hold nothing while one
    failed, is still read or was not read.
    """
    if text.strip() or others:
        what = f"No skills match '{text.strip()}'" if text.strip() else "No skills match"
        return EmptyState(what, "Nothing passes the chosen filters.", "clear", "Clear filters")
    if source is not None:
        if not source.enabled:
            return EmptyState(f"{source.label} is turned off", "Its skills are not shown.", "")
        if status is not None and status.status == SourceState.FAILED:
            return EmptyState(f"{source.label} could not be read", status.message, "retry", "Retry")
        if status is None or status.status == SourceState.PENDING:
            return EmptyState(f"Reading {source.label}…", "", "")
        if source.kind_info.folder_on_disk:
            return EmptyState(
                "This folder holds no skills",
                source.endpoint,
                "explain",
                "What a skill folder looks like",
            )
        return EmptyState("This server lists no skills", status.message, "retry", "List again")
    if view in EMPTY_VIEWS and total:
        title, detail = EMPTY_VIEWS[view]
        return EmptyState(title, detail, "")
    if not sources:
        return EmptyState(
            "No sources yet", "Add a folder of skills or an MCP server.", "add", "Add source…"
        )
    if failed:
        n = len(failed)
        title = f"{n} source{'s' if n != 1 else ''} could not be read"
        if n == 1:
            label, why = failed[0]
            return EmptyState(title, cut(f"{label}: {why or 'no reason given'}"), "retry", "Retry")
        names = ", ".join(label for label, _ in failed[:3]) + ("…" if n > 3 else "")
        detail = f"{names}: choose one among the sources to read why."
        return EmptyState(title, detail, "retry", "Retry")
    if waiting:
        return EmptyState("Reading the sources…", "Their skills show as they are read.", "")
    if unread:
        what = f"{unread} source{'s were' if unread != 1 else ' was'} not read"
        detail = "Reading was stopped, or a server waits to be trusted."
        return EmptyState(f"No skills shown: {what}", detail, "refresh", "Read again")
    return EmptyState(
        "No skills found", "The sources are read and hold no skills.", "add", "Add source…"
    )


# -- a skill's page -------------------------------------------------------------------

SCRIPT_SUFFIXES: tuple[str, ...] = (".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".ts")
SCRIPT_SUFFIXES += (".rb", ".pl", ".ps1", ".bat", ".cmd", ".exe", ".php", ".lua")


def is_script(uri: str) -> bool:
    """Whether a skill's file looks like something meant to run (marked in its list)."""
    path = uri.rsplit("?", 1)[0].lower()
    return path.startswith("scripts/") or "/scripts/" in path or path.endswith(SCRIPT_SUFFIXES)


def primary_action(approval: str | None) -> tuple[str, str]:
    """The one button a skill's page leads with, and its tooltip."""
    if approval == Approval.NOT_APPROVED:
        return "Review and approve…", "Read what it asks for, then approve it or not"
    if approval == Approval.CHANGED:
        return "Review changes…", "Its files changed since approval: see what changed"
    if approval == Approval.UNAPPROVABLE:
        return "Why can't I approve?", "See why this entry cannot be bound to files"
    if approval == Approval.REJECTED:
        return "Review again…", "It was rejected for these files: review it again"
    return "Review approval…", "See what was approved, or revoke it"


# How long the short form of a server's command line may be.
BRIEF_LIMIT = 60


def brief_path(path: str, home: str | None = None) -> str:
    """A folder's path in a sentence: the home folder as ``~``."""
    import os.path

    home = os.path.expanduser("~") if home is None else home
    if home and home != os.sep and (path == home or path.startswith(home.rstrip(os.sep) + os.sep)):
        return "~" + path[len(home.rstrip(os.sep)) :]
    return path


def brief_endpoint(transport: str, shown_endpoint: str) -> str:
    """A server's endpoint in a sentence, as people recognise it: a command's program
    by its name and its folder arguments by their last part (``python -m pkg serve
    …/skills``), an address by its host and path. ``shown_endpoint`` is the masked one
    (secrets never reach this); the whole is for tooltips and the review."""
    import shlex
    from urllib.parse import urlsplit

    if transport == "http":
        try:
            parts = urlsplit(shown_endpoint)
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            return cut(shown_endpoint, BRIEF_LIMIT)
        if not host:
            return cut(shown_endpoint, BRIEF_LIMIT)
        path = "" if parts.path in ("", "/") else parts.path
        return cut(f"{host}{port}{path}", BRIEF_LIMIT)
    try:
        argv = shlex.split(shown_endpoint)
    except ValueError:
        argv = shown_endpoint.split()
    if not argv:
        return shown_endpoint
    words = [argv[0].rstrip("/").rsplit("/", 1)[-1] or argv[0]]
    for arg in argv[1:]:
        # A path, alone or as an option's value (--root=/srv/skills); a package name
        # such as @scope/name is not one.
        key, eq, value = arg.partition("=") if arg.startswith("-") else ("", "", arg)
        last = value.rstrip("/").rsplit("/", 1)[-1]
        if value.startswith(("/", "~/", "./", "../")) and last:
            words.append(f"{key}{eq}…/{last}")
        else:
            words.append(arg)
    return cut(" ".join(words), BRIEF_LIMIT)


def server_line(origin: Origin) -> str:
    """A source in a heading: its label and, briefly, what it is (a server's program by
    its name and its folders by their last part, an address by its host). The whole
    command or address is for a tooltip."""
    if not origin.kind_info.runs_code:
        word = origin.kind_info.word_for(origin.transport)
        return f"{cut(origin.label)} ({word} {brief_path(origin.endpoint)})"
    how = f"a {origin.kind_info.word_for(origin.transport)}"
    return f"{cut(origin.label)} ({how}: {brief_endpoint(origin.transport, origin.shown_endpoint)})"


def origin_line(skill: Skill) -> str:
    """Where a skill comes from, in a sentence (the whole endpoint goes in a tooltip)."""
    o = skill.origin
    if o.kind_info.third_party:
        how = f"a {o.kind_info.word_for(o.transport)}"
        brief = brief_endpoint(o.transport, o.shown_endpoint)
        return (
            f"Third-party · from the server {o.label} ({how}: {brief}), "
            "written by the server's publisher"
        )
    word = o.kind_info.word_for(o.transport)
    return f"From the {word} {o.label} ({brief_path(skill.path or o.shown_endpoint)})"


# -- how to fix a missing keyring -------------------------------------------------------


def keyring_steps(platform: str) -> str:
    """What a person does when no OS keyring can be used, on ``platform`` (``sys.platform``)."""
    if platform == "darwin":
        steps = [
            "Open Keychain Access and make sure the login keychain is there and unlocked.",
            "Quit Skill Catalog and start it again.",
        ]
    elif platform.startswith("win"):
        steps = [
            "Open Services and make sure Credential Manager is running.",
            "Quit Skill Catalog and start it again.",
        ]
    else:
        steps = [
            "Install a Secret Service: GNOME Keyring (the gnome-keyring package), KWallet, "
            "or KeePassXC with its Secret Service integration switched on.",
            "Log in to a desktop session, which starts and unlocks it; without one (over "
            "SSH, in a container), start it in a D-Bus session: dbus-run-session, then "
            "gnome-keyring-daemon --unlock --components=secrets.",
            "Quit Skill Catalog and start it again.",
        ]
    return "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))

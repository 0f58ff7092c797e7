"""A recorded decision signed for the team: after an approval or a rejection is stored
here, the same decision on the same bytes written as a signed review record into a
repository's review folder (``approve … --attest DIR``, ``reject … --attest DIR``).

The key is the one given, or the one git signs commits with in that repository; with
none, nothing is signed and the outcome says why (the decision stored here stands).
Signing is ``ssh-keygen``'s: the private key never enters this process.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.review_record import (
    PAYLOAD_TYPE,
    REVIEWS_DIR,
    Judgement,
    RecordError,
    Review,
    ReviewStatement,
    describe_review,
    envelope_text,
    judge,
    pae,
    parse_allowed_signers,
    safe_name,
    set_digest,
    signature_info,
    skill_files,
)
from desktop.core.states import Approval, member
from desktop.session.decisions import Decision
from desktop.sources.config.known_folders import repo_root
from desktop.sources.team_reviews import read_reviews, read_trust, write_record
from desktop.store.review_signing import (
    SigningError,
    default_key,
    git_email,
    sign,
    signing_key,
)

if TYPE_CHECKING:
    from desktop.core.approvals import ApprovalRecord
    from desktop.core.model import Skill
    from desktop.session.catalog_session import CatalogSession


_DECIDED = (Approval.APPROVED, Approval.REJECTED)  # a decision on exactly these bytes


@dataclass(frozen=True, slots=True)
class Attestation:
    """What signing a decision for the team did: the record written, or why none was.
    ``failed`` is True when a key was there but signing or writing failed (``why``)."""

    path: Path | None = None
    reviewer: str = ""
    why: str = ""
    failed: bool = False


def statement_for(skill: Skill, record: ApprovalRecord, reviewer: str) -> ReviewStatement:
    """The statement of ``record`` (a decision stored here) on ``skill``'s files."""
    origin = skill.origin
    source = {
        "label": origin.label,
        "kind": origin.kind,
        "transport": origin.transport,
        "endpoint": origin.shown_endpoint,
        "uri": skill.uri,
    }
    return ReviewStatement(
        name=skill.name,
        files=skill_files(skill),
        decision=record.decision,
        reviewer=reviewer,
        time=record.approved_at,
        tools=tuple(record.grants.tools) if not record.rejected else (),
        scripts=bool(record.grants.scripts) and not record.rejected,
        all_files_read=record.files_read is True,
        reason=record.reason,
        source=source,
        provenance=dict(skill.provenance),
    )


def _reviewer(folder: Path, public: str) -> str:
    """Who the record names: the principal ``allowed_signers`` gives this key (git's
    ``user.email`` when it is one of them or the key has none there)."""
    email = git_email(folder)
    try:
        text = (folder / ".skill-reviews" / "allowed_signers").read_text(errors="replace")
    except OSError:
        text = ""
    signers = [s for s in parse_allowed_signers(text) if s.key == public]
    if email and (not signers or any(s.allows(email) for s in signers)):
        return email
    plain = [p for s in signers for p in s.principals if not any(c in p for c in "*?!")]
    return plain[0] if plain else email


def _attest(skill: Skill, record: ApprovalRecord, folder: Path, key: str | None) -> Attestation:
    if not skill.files:
        return Attestation(why="the skill lists no files to sign for")
    if not key:
        key, why = default_key(folder)
        if not key:
            return Attestation(why=why)
    with tempfile.TemporaryDirectory(prefix="skill-review-key-") as temp:
        try:
            chosen = signing_key(key, Path(temp))
            reviewer = _reviewer(folder, chosen.public)
            if not reviewer:
                return Attestation(
                    why="who you are is not known: set git's user.email, or add your key "
                    "to .skill-reviews/allowed_signers",
                    failed=True,
                )
            statement = statement_for(skill, record, reviewer)
            payload = statement.payload()
            sig = sign(chosen, pae(PAYLOAD_TYPE, payload))
            keyid = signature_info(sig).fingerprint
        except (SigningError, RecordError) as exc:
            return Attestation(why=f"nothing was signed: {exc}", failed=True)
    try:
        path = write_record(folder, statement, keyid, envelope_text(payload, keyid, sig))
    except OSError as exc:
        return Attestation(
            why=f"the record could not be written: {exc.strerror or exc}", failed=True
        )
    trust = read_trust(folder)
    known = any(s.key == chosen.public and s.allows(reviewer) for s in trust.signers)
    note = (
        ""
        if known
        else "your key is not in .skill-reviews/allowed_signers: audit will not count it"
    )
    return Attestation(path, reviewer, note)


async def attest(
    skill: Skill, record: ApprovalRecord, folder: Path, key: str | None = None
) -> Attestation:
    """Sign ``record`` (just stored for ``skill``) for the team into ``folder``'s review
    folder with ``key`` (default: git's signing key there). Never raises."""
    return await asyncio.to_thread(_attest, skill, record, folder, key)


# --- the team's decisions on a skill, and adopting one -----------------------------------


@dataclass(frozen=True, slots=True)
class TeamDecisions:
    """What a local skill's repository's review records say of its exact bytes."""

    repository: Path
    judgement: Judgement

    @property
    def current(self) -> tuple[Review, ...]:
        """The valid, counted reviews of exactly these bytes: rejections first."""
        return tuple(r for r in self.judgement.reviews if r.valid and not r.why)

    @property
    def adoptable(self) -> tuple[Review, ...]:
        """The approvals among them, which one may take as one's own in one step."""
        return tuple(r for r in self.current if r.approves)

    def lines(self) -> list[str]:
        """What the skill page says: each decision on these bytes, or that reviews
        exist for earlier bytes and which files changed since."""
        out = [describe_review(r) for r in self.current]
        if self.judgement.changed:
            changed = ", ".join(f"{p} ({c})" for p, c in self.judgement.changed[:20])
            out.append(f"A team review exists for earlier bytes; changed since: {changed}")
        return out


def team_decisions(skill: Skill) -> TeamDecisions | None:
    """The team's decisions on ``skill`` (a skill in a folder of a repository with a
    review folder); ``None`` when there is no such repository. Runs ``ssh-keygen``:
    call it off the window's thread (:func:`read_team_decisions`)."""
    if not skill.kind_info.folder_on_disk or not skill.path or not skill.files:
        return None
    root = repo_root(Path(skill.path))
    if root is None or not (root / REVIEWS_DIR).is_dir():
        return None
    trust = read_trust(root)
    reviews = read_reviews(root, trust).get(safe_name(skill.name), [])
    return TeamDecisions(root, judge(skill_files(skill), reviews, trust.policy))


async def read_team_decisions(skill: Skill) -> TeamDecisions | None:
    return await asyncio.to_thread(team_decisions, skill)


async def adopt(session: CatalogSession, skill: Skill, review: Review) -> Decision:
    """Take a valid team approval of exactly ``skill``'s bytes as one's own local
    approval, with its grants (those the skill requests), through the session."""
    st = review.statement
    if not review.valid or st is None or not st.approves:
        return Decision(None, "only a valid team approval can be adopted")
    if st.digest != set_digest(skill_files(skill)):
        return Decision(None, "the team approval is for other bytes than the skill shown")
    requested = set(skill.allowed_tools())
    return await session.record_approval(
        skill,
        grant_tools=[t for t in st.tools if t in requested],
        allow_scripts=st.scripts,
    )


async def adopt_and_say(session: CatalogSession, skill: Skill, review: Review) -> bool:
    """The window's one step: :func:`adopt`, said as a notice, and the skill's approval
    state read again (the list and the page show it); whether it was adopted."""
    done = await adopt(session, skill, review)
    name = skill.qualified_name or skill.name
    for notice in done.notices:
        session.notifier.info(f"approvals: {notice}")
    if done.record is None:
        session.notifier.error(f"adopt the team approval of {name}: {done.error}")
        return False
    session.notifier.info(f"approved {name} as {review.signer} did (a signed team review)")
    await session.load_approvals([skill])
    return True


async def sign_and_say(session: CatalogSession, skill: Skill, folder: Path) -> bool:
    """The window's *Sign for the team*: the decision stored here on ``skill`` (approval
    or rejection of exactly these bytes) signed with git's signing key into ``folder``'s
    review folder, said as a notice; whether a record was written."""
    name = skill.qualified_name or skill.name
    state = (await session.approvals.states([skill])).get(skill.id)
    record = state.record if state is not None else None
    decided = state is not None and member(Approval, state.state) in _DECIDED
    if state is None or record is None or not decided:
        session.notifier.error(f"sign {name} for the team: decide on these files first")
        return False
    done = await attest(skill, record, folder)
    if done.path is None:
        session.notifier.error(f"sign {name} for the team: {done.why}")
        return False
    session.notifier.info(f"signed {name} for the team as {done.reviewer}: {done.path}")
    if done.why:
        session.notifier.warning(done.why)
    session.events.approvals_changed()  # the page reads the team's decisions again
    return True

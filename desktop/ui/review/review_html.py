"""The review's text: a skill's summary, a file as verified, a coloured diff.

Everything here quotes third parties (names, descriptions, file contents, server
messages): each piece is escaped, with control and bidirectional characters shown
as codes, and shown in a browser that loads nothing (:mod:`desktop.ui.page.safe_browser`).

Colours follow the palette: each tone has a light and a dark shade, and the one with
the higher contrast against the palette's background is used (at least 4.5:1 on the
light and the dark palettes, ``tests/ui/test_review_mode.py``). Text on a shade of
its own (a diff's lines, the script banner) takes the pair made for that shade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtGui import QColor, QGuiApplication, QPalette

from desktop.core.approvals import (
    APPROVED,
    CHANGED,
    REJECTED,
    ApprovalState,
    error_problems,
    file_set_hash,
    unapprovable_reason,
)
from desktop.core.grants import LEVEL_WORDS, ToolRisk, requested_risks, script_files
from desktop.core.library import brief_path
from desktop.core.manifest import format_size
from desktop.core.model import Problem, Skill, SkillFile
from desktop.core.review import DiffLine, diff_counts
from desktop.core.since_approval import SinceApproval, since_approval
from desktop.core.states import Severity
from desktop.core.verify import FileVerification
from desktop.core.visible import visible
from desktop.core.words import count, moment
from desktop.ui.page.markdown_render import escape

SHOW_LIMIT = 256 * 1024  # characters of one file shown in place
# Text colours by what they mark: (on a light background, on a dark one).
TONES = {
    "danger": ("#b42318", "#ff8a80"),
    "caution": ("#93370d", "#fdb022"),
    "server": ("#6941c6", "#c4b5fd"),
    "quiet": ("#344054", "#d0d5dd"),
    "alarm": ("#a63d00", "#ff9f5a"),  # changed since approval (as the list's rows)
}
RISK_TONES = {
    "runs-code": "danger",
    "unknown": "danger",
    "changes-files": "caution",
    "network": "caution",
    "server-tool": "server",
    "reads": "quiet",
    "harmless": "quiet",
}
# Text on a shade of its own: (background, text), on a light and on a dark palette.
SHADES = {
    "+": (("#e6ffec", "#116329"), ("#12361f", "#7ee2a8")),
    "-": (("#ffebe9", "#b42318"), ("#4a1b17", "#ffb4ab")),
    "@": (("#ddf4ff", "#0550ae"), ("#0c2d4a", "#9ecbff")),
    "script": (("#fef3f2", "#b42318"), ("#4a1b17", "#ffb4ab")),
}
MONO = "font-family: monospace; white-space: pre-wrap;"


def luminance(colour: QColor) -> float:
    """WCAG's relative luminance of ``colour``."""

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in (colour.redF(), colour.greenF(), colour.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: QColor, b: QColor) -> float:
    """WCAG's contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def dark_background(palette: QPalette | None = None) -> bool:
    """Whether the review's background (the palette's Base) is dark."""
    base = (palette or QGuiApplication.palette()).color(QPalette.ColorRole.Base)
    return luminance(base) < 0.18


def tone(name: str, palette: QPalette | None = None) -> str:
    """The shade of tone ``name`` that reads best on the palette's background."""
    return TONES[name][dark_background(palette)]


def line_styles(dark: bool) -> dict[str, str]:
    """A diff's line styles by kind, for a light or a dark background."""
    styles = {k: f"background-color:{bg}; color:{fg};" for k, ((bg, fg), _) in SHADES.items()}
    if dark:
        styles = {k: f"background-color:{bg}; color:{fg};" for k, (_, (bg, fg)) in SHADES.items()}
    styles["!"] = f"color:{TONES['caution'][dark]};"
    styles[" "] = ""  # context lines in the palette's own text colour
    return styles


def _origin(skill: Skill) -> str:
    """Where the skill comes from: a folder by its whole path (the home folder as ~), a
    server by its whole command or URL (secrets masked), as a reviewer must see it."""
    o = skill.origin
    if o.kind_info.path_endpoint:
        return f"{o.label} ({o.kind_info.word_for(o.transport)} {brief_path(o.endpoint)})"
    return o.describe()


def esc(text: str) -> str:
    return escape(visible(text))


def sorted_problems(problems: Sequence[Problem]) -> list[Problem]:
    """Errors first (invalid, then error), then warnings, then notes."""
    return sorted(problems, key=lambda p: p.level.rank)


def risk_html(risk: ToolRisk) -> str:
    colour = tone(RISK_TONES.get(risk.level, "danger"))
    return (
        f"<code>{esc(risk.name)}</code>: {esc(risk.allows)} "
        f'<span style="color:{colour}"><b>{escape(LEVEL_WORDS[risk.level])}</b></span>'
    )


def _uris(names: Sequence[str], scripts: Sequence[str]) -> str:
    """File names (relative to the skill's folder), each script said to be one."""
    danger = tone("danger")
    shown = [
        f"<code>{esc(n)}</code>"
        + (f' <span style="color:{danger}"><b>script</b></span>' if n in scripts else "")
        for n in names[:20]
    ]
    more = f", … and {len(names) - 20} more" if len(names) > 20 else ""
    return ", ".join(shown) + more


def since_html(since: SinceApproval, skill: Skill, evidence: str = "") -> str:
    """The approval a change voided beside what the change brings, in two columns."""
    alarm = tone("alarm")
    root = skill.uri.rsplit("/", 1)[0] + "/"
    short = [u.removeprefix(root) for u in since.new_scripts]

    def files(label: str, uris: tuple[str, ...]) -> str:
        if not uris:
            return ""
        names = [u.removeprefix(root) for u in uris]
        return f"<li>{count(len(uris), 'file')} {label}: {_uris(names, short)}</li>"

    new: list[str] = [
        files("added", since.added),
        files("changed", since.changed),
        files("removed", since.removed),
    ]
    if since.new_scripts:
        new.append(
            f'<li><span style="color:{tone("danger")}"><b>'
            f"{count(len(since.new_scripts), 'script')} new or changed</b></span>: "
            "code that would run on this machine if allowed</li>"
        )
    if since.new_tools:
        tools = ", ".join(f"<code>{esc(t)}</code>" for t in since.new_tools)
        new.append(f"<li>Asks for tools it did not ask for then: {tools}</li>")
    if not any(new):
        new.append("<li>Its frontmatter changed</li>")
    before = (
        f"<ul><li>By {esc(since.approved_by)}</li>"
        f"<li>On {esc(moment(since.approved_at))}</li>"
        f"<li>Granted: {esc(since.granted())}</li>"
        + (f"<li>Files: {esc(evidence)}</li>" if evidence else "")
        + "</ul>"
    )
    return (
        f'<h3 style="color:{alarm}">&#9888; Changed since approval</h3>'
        '<table cellspacing="0" cellpadding="4" width="100%"><tr>'
        f'<td width="45%" valign="top"><b>The earlier approval</b>{before}</td>'
        f'<td valign="top"><b>What changed since</b><ul>{"".join(new)}</ul></td>'
        "</tr></table>"
    )


def decision_html(state: ApprovalState | None, skill: Skill | None = None) -> str:
    """What the stored decision says, and on what evidence it was taken."""
    if state is None:
        return "<p>Reading the keyring…</p>"
    if state.damaged and state.problem is not None:
        return f"<p><b>The stored decision is damaged</b>: {esc(state.problem.message)}</p>"
    if state.problem is not None:
        return f"<p><b>Decisions cannot be stored or read now.</b> {esc(state.problem.message)}</p>"
    rec = state.record
    if rec is None:
        return "<p>No decision recorded yet.</p>"
    when = f"by {esc(rec.approved_by)} on {esc(moment(rec.approved_at))}"
    evidence = esc(rec.evidence())
    if state.state == REJECTED:
        why = esc(rec.reason) if rec.reason else "no reason given"
        return f"<p><b>Rejected</b> {when}: {why}. Files: {evidence}.</p>"
    if rec.rejected:
        return (
            f"<p>Rejected {when} ({esc(rec.reason or 'no reason given')}); its files changed "
            "since, so it waits for a decision again.</p>"
        )
    despite = (
        f"<p>Approved despite: {esc('; '.join(rec.despite_problems))}</p>"
        if rec.despite_problems
        else ""
    )
    since = since_approval(skill, state) if skill is not None else None
    if since is not None and skill is not None:
        return since_html(since, skill, rec.evidence()) + despite
    verb = "Approved" if state.state == APPROVED else "Was approved"
    out = f"<p><b>{verb}</b> {when}. Files: {evidence}.</p>" + despite
    if state.state == CHANGED:
        what = state.diff.summary() if state.diff else ""
        if state.diff is not None and not state.diff and state.reason:
            what = state.reason
        out += f"<p><b>Changed since approval:</b> {esc(what)}</p>"
    return out


def summary_html(skill: Skill, state: ApprovalState | None, read_line: str) -> str:
    third = (
        f' <span style="color:{tone("caution")}"><b>third-party server</b></span>'
        if skill.kind_info.third_party
        else ""
    )
    errors = len(error_problems(skill)) + sum(
        p.severity == Severity.INVALID for p in skill.problems
    )
    parts = [f"<h2>{esc(skill.qualified_name or skill.name)}</h2>"]
    if errors:
        # Said before the description, which may be long: errors are what block.
        parts.append(
            f'<p style="color:{tone("danger")}"><b>{count(errors, "error")}</b>: '
            "see Problems below.</p>"
        )
    decision = decision_html(state, skill)
    if since_approval(skill, state) is not None:
        # What changed since the approval is what this review is about: said first.
        parts += [decision, f"<p>{esc(skill.description)}</p>"]
        parts.append(f"<p><b>From</b> {esc(_origin(skill))}{third}</p>")
    else:
        parts += [
            f"<p>{esc(skill.description)}</p>",
            f"<p><b>From</b> {esc(_origin(skill))}{third}</p>",
            decision,
        ]
    reason = unapprovable_reason(skill)
    if reason:
        parts.append(
            f"<p><b>This skill cannot be approved:</b> {esc(reason[:1].upper() + reason[1:])}.</p>"
        )
    problems = sorted_problems(skill.problems)
    if problems:
        head = f"Problems ({count(errors, 'error')})" if errors else "Problems"
        items = "".join(
            f"<li><b>{escape(p.level.label)}</b>: {esc(p.message)}</li>" for p in problems[:50]
        )
        more = f"<li>… and {len(problems) - 50} more</li>" if len(problems) > 50 else ""
        parts.append(f"<h3>{head}</h3><ul>{items}{more}</ul>")
    else:
        parts.append("<h3>Problems</h3><p>None.</p>")
    risks = requested_risks(skill)
    parts.append("<h3>Requests</h3>")
    if risks:
        parts.append(
            "<p>Tools in <code>allowed-tools</code> (a request is not a permission; each is "
            "granted separately below):</p><ul>"
            + "".join(f"<li>{risk_html(r)}</li>" for r in risks)
            + "</ul>"
        )
    else:
        parts.append("<p>No tools requested.</p>")
    scripts = script_files(skill)
    if scripts:
        names = ", ".join(f"<code>{esc(f.uri)}</code>" for f in scripts[:20])
        parts.append(
            f'<p><span style="color:{tone("danger")}"><b>{count(len(scripts), "script")}</b>'
            "</span> "
            f"that would run on this machine if allowed: {names}</p>"
        )
    else:
        parts.append("<p>No scripts.</p>")
    if skill.files:
        files = sorted(skill.files, key=lambda f: f.uri)
        parts.append(
            f"<p>{esc(read_line)}; {count(len(files), 'file')} "
            f"({escape(format_size(skill.total_size))}), set "
            f"<code>{escape(file_set_hash(files))}</code>.</p>"
        )
    return "".join(parts)


def mismatch_html(mismatches: Sequence[FileVerification]) -> str:
    """What the reads of this entry found against it: the digests an approval would bind
    are ones the server's bytes did not match."""
    if not mismatches:
        return ""
    items = "".join(f"<li>{esc(vf.message)}</li>" for vf in mismatches[:20])
    more = f"<li>… and {len(mismatches) - 20} more</li>" if len(mismatches) > 20 else ""
    return (
        f"<p><b>The server's bytes did not match this entry</b> when "
        f"{'a file was' if len(mismatches) == 1 else f'{len(mismatches)} files were'} "
        f"read:</p><ul>{items}{more}</ul><p>An approval binds the files listed, not what "
        "the server sent. Refresh the entry in the preview (skills/get) to see what it "
        "serves now.</p>"
    )


def _text_block(text: str) -> str:
    shown = text[:SHOW_LIMIT]
    cut = (
        f"<p><i>Only the first {SHOW_LIMIT // 1024} KiB are shown.</i></p>"
        if len(text) > SHOW_LIMIT
        else ""
    )
    return f'<pre style="{MONO}">{esc(shown)}</pre>{cut}'


def binary_html(f: SkillFile, what: str = "Binary file") -> str:
    return (
        f"<p>{escape(what)}: {f.size:,} bytes, digest <code>{escape(f.digest)}</code>. "
        "Not shown as text.</p>"
    )


def script_banner() -> str:
    background, text = SHADES["script"][dark_background()]
    return (
        f'<p style="background-color:{background}; color:{text}"><b>Code that would run on '
        "this machine</b> if you allow the skill's scripts. Read all of it.</p>"
    )


def file_html(f: SkillFile, data: bytes, *, script: bool, binary: bool) -> str:
    head = f"<p><code>{esc(f.uri)}</code> — verified ({f.size:,} bytes)</p>"
    banner = script_banner() if script else ""
    if binary:
        return head + banner + binary_html(f)
    return head + banner + _text_block(data.decode("utf-8", "replace"))


def diff_html(
    f: SkillFile,
    old: SkillFile,
    lines: Sequence[DiffLine],
    *,
    script: bool,
    styles: Mapping[str, str] | None = None,
    banner: str = "",
) -> str:
    """The diff of ``f``; ``styles`` and ``banner`` are made on the GUI thread (they
    read the palette), this may run on a worker."""
    added, removed = diff_counts(lines)
    head = (
        f"<p><code>{esc(f.uri)}</code> — changed since approval: {added} line"
        f"{'s' if added != 1 else ''} added, {removed} removed "
        f"({old.size:,} → {f.size:,} bytes)</p>"
    )
    styles = styles if styles is not None else line_styles(False)
    banner = (banner or script_banner()) if script else ""
    if not lines:
        return head + banner + "<p>The lines are the same (only line ends or bytes differ).</p>"
    rows = []
    for line in lines:
        style = styles.get(line.kind, "")
        mark = "" if line.kind in "@!" else line.kind
        rows.append(f'<span style="{style}">{escape(mark)}{esc(line.text)}</span>')
    return head + banner + f'<pre style="{MONO}">' + "\n".join(rows) + "</pre>"


def no_earlier_html(f: SkillFile, old: SkillFile) -> str:
    return (
        f"<p><code>{esc(f.uri)}</code> — changed since approval "
        f"({old.size:,} → {f.size:,} bytes, was <code>{escape(old.digest[:23])}…</code>).</p>"
        "<p><b>No earlier content to compare:</b> the approval was given without its files "
        "read, so the approved bytes were never kept. Read the file as it is now below.</p>"
    )


def not_read_html(f: SkillFile, *, server: bool, script: bool) -> str:
    how = (
        "It is read from the server, and verified, when you press Read."
        if server
        else "It is being read from the folder and verified."
    )
    banner = script_banner() if script else ""
    return (
        f"<p><code>{esc(f.uri)}</code> — <b>not read yet</b> ({f.size:,} bytes). {how}</p>" + banner
    )


def removed_html(old: SkillFile, data: bytes | None, *, binary: bool) -> str:
    head = (
        f"<p><code>{esc(old.uri)}</code> — <b>removed</b> since approval "
        f"({old.size:,} bytes, <code>{escape(old.digest[:23])}…</code>).</p>"
    )
    if data is None:
        return head + "<p>The approved bytes were not kept (the files were not read then).</p>"
    if binary:
        return head + binary_html(old, "It was a binary file")
    return head + "<p>As approved:</p>" + _text_block(data.decode("utf-8", "replace"))

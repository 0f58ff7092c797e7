"""The detail pane's content for one skill, as escaped HTML.

Every value that came from a skill or a server is escaped. Links use schemes the
detail widget handles itself: ``skill:<id>`` selects another skill (collisions,
nesting), ``file:<uri>`` opens a file in the preview, ``dir:<uri>`` lists a folder as
the server does, ``show:all`` shows the values left out.

Unless asked for all of them, the page holds only what the skill declares or what
differs from the default; a sentence names the values left out. A description over
the limit is marked where hosts cut it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from desktop.core.approvals import APPROVED, ApprovalState
from desktop.core.catalog import Catalog
from desktop.core.checks import DESCRIPTION_MAX
from desktop.core.loading import affinity_report
from desktop.core.manifest import format_size
from desktop.core.model import DYNAMIC, Skill
from desktop.core.states import EntryState
from desktop.core.verify import NOT_READ, VERIFIED, FileVerification
from desktop.core.visible import quoted
from desktop.core.words import count
from desktop.ui.page.markdown_render import escape

THIRD_PARTY = (
    "Third-party content: published by the server {label}. Nothing it declares (priority, "
    "loading strategy, allowed-tools) is granted or promoted by the host on its own."
)
FILE_STATE_TEXT: dict[str, str] = {
    VERIFIED: "verified: matches what the source listed",
    DYNAMIC: "dynamic: no digest published, unverifiable",
}


def skill_link(skill_id: str, text: str) -> str:
    return f'<a href="skill:{quote(skill_id, safe="")}">{escape(text)}</a>'


def _row(label: str, value_html: str) -> str:
    return f"<tr><th align='left' valign='top'>{escape(label)}</th><td>{value_html}</td></tr>"


def description_html(description: str) -> str:
    """The description, marked where a host cuts it when it is over the limit."""
    if len(description) <= DESCRIPTION_MAX:
        return escape(description)
    kept, rest = description[:DESCRIPTION_MAX], description[DESCRIPTION_MAX:]
    return (
        escape(kept)
        + f"<br><b>✂ ⚠ Cut here: hosts read at most {DESCRIPTION_MAX:,} characters; the "
        f"{len(rest):,} below are past the limit and may never be read:</b><br>"
        + f"<span style='color:#777777'><s>{escape(rest)}</s></span>"
    )


def _marked(value: str, declared: bool) -> str:
    tag = "declared" if declared else "default"
    return f"{escape(value)} <i>({tag})</i>"


GOVERNED_SHOWN = 12
TOOL_NAME_SHOWN = 128  # MCP asks tool names to keep to 128 characters


def _governed(tools: tuple[str, ...]) -> str:
    """The tools a pattern governs, the first few by name (a server may list thousands,
    and name one with a megabyte)."""
    if not tools:
        return ""
    shown = ", ".join(quoted(t, TOOL_NAME_SHOWN) for t in tools[:GOVERNED_SHOWN])
    more = len(tools) - GOVERNED_SHOWN
    return f" → {shown}" + (f" and {more:,} more" if more > 0 else "")


def origin_html(skill: Skill) -> str:
    o = skill.origin
    if not o.kind_info.runs_code:
        word = o.kind_info.word_for(o.transport)
        where = "local " if o.kind_info.path_endpoint else ""  # a path here, or an address
        return f"{where}{word} <b>{escape(o.label)}</b> ({escape(o.shown_endpoint)})"
    return (
        f"server <b>{escape(o.label)}</b> over {escape(o.transport)} ({escape(o.shown_endpoint)})"
    )


def provenance_html(skill: Skill) -> str:
    """Where a published skill's bytes come from ("owner/repo at 9d2f1ae, skills/pdf"),
    with a link to the repository's page when it is an https address."""
    from desktop.core.provenance import provenance_link, provenance_words

    said = escape(provenance_words(skill.provenance))
    link = provenance_link(skill.provenance)
    if link:
        said += f" — <a href='{escape(link)}'>open the repository</a>"
    return said


def file_state_text(vf: FileVerification | None) -> str:
    if vf is None:
        return NOT_READ
    return FILE_STATE_TEXT.get(vf.state, vf.state)


def approval_html(state: ApprovalState | None) -> str:
    if state is None:
        return "reading the keyring…"
    parts = [f"<b>{escape(state.state)}</b>"]
    if state.damaged:
        parts[0] += " — its stored record is damaged and not honoured"
    msg = state.message()
    if msg:
        parts.append(escape(msg))
    if state.record is not None and state.state == APPROVED:
        rec = state.record
        grants = ", ".join(rec.grants.tools) or "no tools"
        parts.append(
            f"{count(rec.file_count, 'file')}, set {escape(rec.set_hash[:23])}…, by "
            f"{escape(rec.approved_by)} at {escape(rec.approved_at)}; granted: {escape(grants)}"
            + ("; scripts allowed" if rec.grants.scripts else "; scripts not allowed")
        )
    if state.diff:
        rows = []
        for label, items in (
            ("added", state.diff.added),
            ("removed", state.diff.removed),
            ("changed", state.diff.changed),
        ):
            for change in items:
                rows.append(f"<li>{label}: <code>{escape(change.uri)}</code></li>")
        parts.append("<ul>" + "".join(rows[:50]) + "</ul>")
    return "<br>".join(parts)


def detail_html(
    skill: Skill,
    catalog: Catalog,
    *,
    approval: ApprovalState | None,
    files: dict[str, FileVerification],
    tools: list[str] | None = None,
    directory_read: bool = False,
    directories: dict[str, list[Any]] | None = None,
    show_all: bool = True,
) -> str:
    fm = skill.frontmatter or {}
    out: list[str] = [f"<h2>{escape(skill.qualified_name or skill.name)}</h2>"]
    if skill.kind_info.third_party:
        out.append(
            "<p style='background:#fff3cd;color:#5c4400;padding:4px'><b>⚠ "
            + escape(THIRD_PARTY.format(label=skill.origin.label))
            + "</b></p>"
        )
    # A frontmatter refused whole (too deep, too large, missing) was never read: its
    # values are unknown, not absent, and the defaults below are not what it declared.
    unread = skill.frontmatter is None
    left_out: list[str] = []  # values not shown, by name

    def unless_default(name: str, row: str, shown: bool) -> str:
        if shown or show_all:
            return row
        left_out.append(name)
        return ""

    rows = [
        _row("Origin", origin_html(skill)),
        unless_default("identity", _row("Identity", f"<code>{escape(skill.id)}</code>"), False),
        _row("Name", escape(skill.name)),
        _row(
            "Description",
            description_html(skill.description)
            or ("<i>not read: the frontmatter was refused (see Problems)</i>" if unread else "")
            or "<i>none</i>",
        ),
        unless_default(
            "state", _row("State", escape(skill.state)), skill.state is not EntryState.LISTED
        ),
    ]
    if skill.provenance:
        rows.insert(1, _row("Provenance", provenance_html(skill)))
    if skill.path:
        rows.append(_row("Folder", escape(skill.path)))
    if unread:
        rows.append(
            _row("Loading values", "<i>not read; a host would apply the defaults below</i>")
        )
    loading = skill.loading
    # A value declared but ignored (see Problems) is shown with the default it leaves.
    dropped = {p.code.removesuffix("-dropped") for p in skill.problems}
    rows.append(
        unless_default(
            "loading strategy",
            _row("Loading strategy", _marked(loading.strategy, loading.strategy_declared)),
            loading.strategy_declared or "loading-strategy" in dropped,
        )
    )
    prio = "none" if loading.priority is None else f"{loading.priority:g}"
    rows.append(
        unless_default(
            "priority",
            _row("Priority", _marked(prio, loading.priority_declared)),
            loading.priority_declared or "priority" in dropped,
        )
    )
    trig = ", ".join(loading.triggers) or "none"
    rows.append(
        unless_default(
            "triggers",
            _row("Triggers", _marked(trig, loading.triggers_declared)),
            loading.triggers_declared or "triggers" in dropped,
        )
    )
    aff_rows, _ = affinity_report(skill, tools)
    aff = "; ".join(f"{r.pattern}" + _governed(r.tools) for r in aff_rows)
    rows.append(
        unless_default(
            "tool affinity",
            _row("Tool affinity", _marked(aff or "none", loading.tool_affinity_declared)),
            loading.tool_affinity_declared or "tool-affinity" in dropped,
        )
    )
    requested = skill.allowed_tools()
    if requested:
        power = (
            "requests: <code>" + escape(" ".join(requested)) + "</code> — a request for power, "
            "with no effect unless you grant each tool when approving"
        )
    else:
        power = "requests no tools"
    rows.append(unless_default("allowed-tools", _row("allowed-tools", power), bool(requested)))
    for key in ("license", "compatibility"):
        if key in fm:
            rows.append(_row(key.capitalize(), escape(str(fm[key]))))
    if skill.nested_in:
        parent = catalog.get(skill.nested_in)
        shown = parent.qualified_name if parent else skill.nested_in
        rows.append(
            _row("Nested in", skill_link(skill.nested_in, shown) + " (needs its own approval)")
        )
    skill_id = skill.id  # computed once, not once per skill of the catalog
    children = [s for s in catalog.skills if s.nested_in == skill_id]
    if children:
        rows.append(
            _row("Contains", ", ".join(skill_link(c.id, c.qualified_name) for c in children))
        )
    rows.append(_row("Approval", approval_html(approval)))
    out.append("<table cellspacing='4'>" + "".join(rows) + "</table>")
    if left_out:
        out.append(
            "<p><i>Not shown, as nothing was declared or the default applies: "
            + escape(", ".join(left_out))
            + ".</i> <a href='show:all'>Show all</a></p>"
        )

    collisions = catalog.collisions_of(skill.id)
    if collisions:
        out.append("<h3>Collisions</h3><ul>")
        for c in collisions:
            others = [catalog.get(i) for i in c.ids if i != skill.id]
            links = ", ".join(
                skill_link(o.id, f"{o.qualified_name} ({o.origin.label})") for o in others if o
            )
            out.append(f"<li>{escape(c.describe())}: {links}</li>")
        out.append("</ul>")

    out.append(manifest_html(skill, files))
    if directory_read and skill.kind_info.asks_again and not skill.is_dynamic:
        out.append(directory_html(skill, directories or {}))
    if skill.problems:
        out.append("<h3>Problems</h3><ul>")
        for p in skill.problems:
            # In words first; the stable code (what lint and --json print) after it.
            word = p.level.label
            out.append(
                f"<li><b>{escape(word)}:</b> {escape(p.message)} "
                f"<small>({escape(p.code)})</small></li>"
            )
        out.append("</ul>")
    extra = {k: v for k, v in fm.items() if k not in ("name", "description")}
    if extra:
        text = json.dumps(extra, indent=2, ensure_ascii=False, sort_keys=True)
        out.append("<h3>Frontmatter</h3><pre>" + escape(text[:20000]) + "</pre>")
    return "".join(out)


DIRECTORY_SHOWN = 300


def directory_html(skill: Skill, listings: dict[str, list[Any]]) -> str:
    """Folders of a server skill as its server lists them (``resources/directory/read``),
    each file marked in or out of the held entry, with links to list more."""
    base = skill.uri.rsplit("/", 1)[0]
    intro = (
        "<h3>Folder as the server lists it</h3><p>The server declares "
        "<code>directoryRead</code>. What it lists never extends the skill: a file that "
        "is not in the entry you hold is never read as one of its files. "
        f"<a href='dir:{quote(base, safe='')}'>List {escape(base)}</a></p>"
    )
    out = [intro]
    for uri, children in listings.items():
        out.append(f"<p><b>{escape(uri)}</b>: {len(children):,} entries</p><table cellspacing='3'>")
        for c in children[:DIRECTORY_SHOWN]:
            what = escape(c.what)
            if c.is_directory:
                what += f" — <a href='dir:{quote(c.uri, safe='')}'>list it</a>"
            elif c.note:
                what = f"<b>{what}</b>"
            slash = "/" if c.is_directory else ""
            out.append(f"<tr><td>{escape(c.name)}{slash}</td><td>{what}</td></tr>")
        out.append("</table>")
        if len(children) > DIRECTORY_SHOWN:
            out.append(f"<p>and {len(children) - DIRECTORY_SHOWN:,} more</p>")
    return "".join(out)


def manifest_html(skill: Skill, files: dict[str, FileVerification]) -> str:
    if skill.is_dynamic:
        return (
            "<h3>Files</h3><p><b>dynamic</b>: the server publishes no manifest, so nothing "
            "read from this skill can be checked against digests; it is never shown as "
            "matching a manifest.</p>"
        )
    if not skill.files:
        return "<h3>Files</h3><p>no manifest</p>"
    total = format_size(skill.total_size)
    out = [f"<h3>Files ({len(skill.files)}, {escape(total)})</h3>"]
    out.append(
        "<table cellspacing='3'><tr><th>file</th><th>size</th><th>digest</th><th>read</th></tr>"
    )
    for f in skill.files[:600]:
        state = file_state_text(files.get(f.uri))
        out.append(
            f"<tr><td><a href='file:{quote(f.uri, safe='')}'>{escape(f.uri)}</a></td>"
            f"<td align='right'>{f.size:,}</td><td><code>{escape(f.digest[:19])}…</code></td>"
            f"<td>{escape(state)}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)

"""``skill-catalog sources update LABEL [--check]``: a git source's pin moved, after
saying what it changes.

The source's REF is fetched again and the skills at its pinned commit are compared
with those at the fetched one: which were added, removed or changed (and, for a
changed one, which files). Without ``--check`` the pin then moves; a changed skill's
approval no longer holds, as after any change. A source that is not a git repository
has no pin to move, and says so.
"""

from __future__ import annotations

import argparse

from desktop.cli.output import CheckFailed, emit_json, fail_usage
from desktop.core.visible import one_line


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "update",
        help="fetch a git source again, say which skills changed, and move its pin",
        description="Fetch the git source LABEL again and report the skills added, removed "
        "and changed between its pinned commit and the newest one its branch or tag names; "
        "then pin the newest (not with --check). A changed skill must be approved again.",
    )
    p.add_argument("label", metavar="LABEL", help="the git source's label (see sources list)")
    p.add_argument("--check", action="store_true", help="report only; move nothing")
    p.add_argument("--diff", action="store_true", help="also print each changed text file's diff")
    p.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    from desktop.cli.sources_args import add_source_options

    add_source_options(p)


def run(args: argparse.Namespace) -> int:
    from desktop.cli.sources_args import resolve_specs
    from desktop.sources.git.remote import RemoteError
    from desktop.sources.git.runner import GitFailed
    from desktop.sources.git.updates import apply_update, check_update

    label = args.label
    specs = resolve_specs(args)
    spec = next((s for s in specs if s.label == label), None)
    if spec is None:
        known = ", ".join(s.label for s in specs if s.kind_info.pinned) or "none"
        fail_usage(f"no git source is labelled {one_line(label)!r} (the git sources: {known})")
    if not spec.kind_info.pinned:
        word = spec.kind_info.word_for(spec.transport)
        fail_usage(f"{one_line(label)} is a {word}: only a git source is pinned to a commit")
    try:
        report = check_update(spec, diffs=args.diff)
        moved = not args.check and not report.up_to_date
        if moved:
            apply_update(spec, report)
    except (RemoteError, GitFailed, OSError) as exc:
        raise CheckFailed(f"skill-catalog sources update: {one_line(label)}: {exc}") from None
    if args.json:
        emit_json({**report.to_json(), "moved": moved})
        return 0
    for line in report.lines():
        print(line)
    for line in report.diff_lines():
        print(line)
    if moved:
        print(f"pinned {one_line(label)} to {report.new[:7]}")
        if report.changed:
            print("a changed skill must be approved again before it is used as approved")
    elif not report.up_to_date:
        print(f"nothing moved (--check); run: skill-catalog sources update {label}")
    return 0

"""Updates a person reviews: the pinned commit against the newest one REF names.

:func:`check_update` fetches REF again and compares the skills at the pinned commit
with those at the fetched one (which skills were added, removed or changed, for a
changed one which files, and each changed text file's diff when asked), moving
nothing; :func:`apply_update` moves the pin to the commit the person reviewed. A
changed skill's approval no longer holds after the move, as after any change: an
approval binds to the skill's digests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop.core.model import Skill, SourceSpec


@dataclass(frozen=True, slots=True)
class SkillChange:
    """One changed skill: its path, and its files added, removed and changed."""

    path: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
        }


@dataclass(frozen=True, slots=True)
class UpdateReport:
    """What moving ``label``'s pin from ``old`` to ``new`` would change."""

    label: str
    repository: str
    old: str
    new: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[SkillChange, ...] = field(default=())
    # A unified diff of each changed file that is text (by its path), when asked for.
    diffs: Mapping[str, str] = field(default_factory=dict)

    @property
    def up_to_date(self) -> bool:
        return self.old == self.new

    @property
    def changes_skills(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "repository": self.repository,
            "pinned": self.old,
            "newest": self.new,
            "up_to_date": self.up_to_date,
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": [c.to_json() for c in self.changed],
            **({"diffs": dict(self.diffs)} if self.diffs else {}),
        }

    def summary(self) -> str:
        """One line for people."""
        from desktop.core.words import count

        if self.up_to_date:
            return f"{self.label}: up to date at {self.old[:7]}"
        parts = [
            f"{count(len(self.added), 'skill')} added" if self.added else "",
            f"{count(len(self.removed), 'skill')} removed" if self.removed else "",
            f"{count(len(self.changed), 'skill')} changed" if self.changed else "",
        ]
        said = ", ".join(p for p in parts if p) or "no skill changed"
        return f"{self.label}: {self.old[:7]} → {self.new[:7]}: {said}"

    def lines(self) -> list[str]:
        """The report for people, a line each."""
        from desktop.core.visible import one_line

        out = [self.summary()]
        out += [f"  added    {one_line(p)}" for p in self.added]
        out += [f"  removed  {one_line(p)}" for p in self.removed]
        for change in self.changed:
            out.append(f"  changed  {one_line(change.path)}")
            out += [f"             + {one_line(f)}" for f in change.added]
            out += [f"             - {one_line(f)}" for f in change.removed]
            out += [f"             ~ {one_line(f)}" for f in change.changed]
        return out

    def diff_lines(self) -> list[str]:
        """Each changed text file's diff, its third-party text made visible."""
        from desktop.core.visible import visible

        out: list[str] = []
        for path, diff in self.diffs.items():
            out += [visible(line) for line in diff.splitlines()] or [f"(no diff of {path})"]
        return out


def _digests(skill: Skill) -> dict[str, str]:
    return {f.uri: f.digest for f in skill.files}


def compare(
    spec: SourceSpec, old: str, new: str, before: list[Skill], after: list[Skill]
) -> UpdateReport:
    from desktop.sources.git.kind import remote_of

    was = {s.provenance.get("path", s.uri): s for s in before}
    now = {s.provenance.get("path", s.uri): s for s in after}
    changed: list[SkillChange] = []
    for path in sorted(was.keys() & now.keys()):
        a, b = _digests(was[path]), _digests(now[path])
        same_state = (was[path].resources is None) == (now[path].resources is None)
        if a == b and same_state:
            continue
        changed.append(
            SkillChange(
                path,
                tuple(sorted(b.keys() - a.keys())),
                tuple(sorted(a.keys() - b.keys())),
                tuple(sorted(u for u in a.keys() & b.keys() if a[u] != b[u])),
            )
        )
    return UpdateReport(
        spec.label,
        remote_of(spec).name,
        old,
        new,
        tuple(sorted(now.keys() - was.keys())),
        tuple(sorted(was.keys() - now.keys())),
        tuple(changed),
    )


MAX_DIFF_BYTES = 256 * 1024  # a file larger than this, at either commit, is not diffed
MAX_DIFF_LINES = 400  # lines of one file's diff shown


def file_diffs(spec: SourceSpec, report: UpdateReport) -> dict[str, str]:
    """A unified diff of each changed file of ``report`` that is UTF-8 text within
    :data:`MAX_DIFF_BYTES` at both commits (cut at :data:`MAX_DIFF_LINES` lines); a
    file that is not says so."""
    import difflib

    from desktop.sources.git import runner
    from desktop.sources.git.kind import remote_of

    paths = [p for change in report.changed for p in change.changed]
    repo = runner.repo_dir(remote_of(spec))
    names = [f"{c}:{p}" for p in paths for c in (report.old, report.new)]
    blobs = runner.cat_blobs(repo, names, MAX_DIFF_BYTES)
    out: dict[str, str] = {}
    for path in paths:
        before, after = blobs.get(f"{report.old}:{path}"), blobs.get(f"{report.new}:{path}")
        try:
            if before is None or after is None:
                raise ValueError
            old_lines = before.decode("utf-8").splitlines(keepends=True)
            new_lines = after.decode("utf-8").splitlines(keepends=True)
        except ValueError:
            out[path] = f"{path}: not text, or over {MAX_DIFF_BYTES:,} bytes: no diff shown\n"
            continue
        lines = list(
            difflib.unified_diff(
                old_lines,
                new_lines,
                f"{path} ({report.old[:7]})",
                f"{path} ({report.new[:7]})",
            )
        )
        if len(lines) > MAX_DIFF_LINES:
            lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES:,} more lines\n"]
        out[path] = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return out


def check_update(spec: SourceSpec, *, diffs: bool = False) -> UpdateReport:
    """Fetch ``spec``'s REF and say what moving the pin would change (with each changed
    text file's diff when ``diffs``); moves nothing. Raises ``RemoteError`` or
    ``GitFailed`` saying why it could not."""
    from desktop.sources.git import runner
    from desktop.sources.git.kind import list_at, pinned_commit, remote_of

    remote = remote_of(spec)
    old = pinned_commit(spec)
    repo = runner.repo_dir(remote)
    with runner.repo_lock(repo):
        new = runner.fetch(remote, repo)
    if new == old:
        return UpdateReport(spec.label, remote.name, old, new)
    report = compare(spec, old, new, list_at(spec, old), list_at(spec, new))
    if diffs and report.changed:
        from dataclasses import replace

        report = replace(report, diffs=file_diffs(spec, report))
    return report


def apply_update(spec: SourceSpec, report: UpdateReport) -> None:
    """Move ``spec``'s pin to the commit ``report`` was made for."""
    from desktop.sources.git import pins, runner
    from desktop.sources.git.kind import remote_of

    repo = runner.repo_dir(remote_of(spec))
    with runner.repo_lock(repo):
        runner.keep(repo, pins.pin_key(spec), report.new)
        pins.pin(spec, report.new)

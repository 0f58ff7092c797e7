"""The Source protocol's contract, asked of every registered kind of source.

Each kind is made to hold the same two skills (a folder of them, that folder published
by a real ``skill-catalog serve`` over stdio, a zip archive of it made with
``zipfile``, a git repository of it made with ``git``, a web index of it served on
127.0.0.1) and must list them, read and verify their files, list a folder, list itself
again, say who it is and where its skills come from, and start nothing while it is not
trusted. A kind registered without a sample here fails the first test.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import shlex
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.git_repos import commit_all, init_repo
from helpers.serve import serve_argv, write_skill
from helpers.web_index import Site, publish_v02, skill_files, start

from desktop.core.model import SourceSpec
from desktop.core.source_kinds import kind_info
from desktop.sources import kinds
from desktop.sources.base import Kind, Source, SourceContext

BODY = b"print('extract')\n"


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "pdf", "Read PDF files.", {"scripts/extract.py": BODY})
    write_skill(root, "notes", "Keep notes.")
    return root


def _zip_of(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return target


_SITE: list[Site] = []


def _index_of(folder: Path) -> str:
    """The folder's skills published as a v0.2 web index on 127.0.0.1 (one server for
    the module, one path per folder)."""
    if not _SITE:
        _SITE.append(start())
    base = "/" + hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    publish_v02(_SITE[0], skill_files(folder), base)
    return f"team={_SITE[0].url}{base}"


def _repo_of(folder: Path) -> Path:
    init_repo(folder)
    commit_all(folder, "the two skills")
    return folder


@pytest.fixture(autouse=True)
def _private_state(tmp_home: Path) -> None:
    """What a kind keeps (a git repository's fetched objects and pin) stays in the test."""


# What each kind is asked with: the option's value that names a source holding the
# folder's skills. Every registered kind has one.
SAMPLES: dict[str, Callable[[Path], str]] = {
    "local": lambda folder: f"team={folder}",
    "mcp": lambda folder: f"team={shlex.join(serve_argv(folder))}",
    "zip": lambda folder: f"team={_zip_of(folder, folder.parent / 'skills.zip')}",
    "git": lambda folder: f"team={_repo_of(folder)}",
    "index": _index_of,
}


def _spec(kind: Kind, tmp_path: Path) -> SourceSpec:
    assert kind.parse is not None
    return kind.parse(SAMPLES[kind.name](_folder(tmp_path)))


ALL = pytest.mark.parametrize("kind", kinds.all_kinds(), ids=lambda k: k.name)


def test_every_registered_kind_is_sampled_here() -> None:
    assert {k.name for k in kinds.all_kinds()} == set(SAMPLES)


@ALL
def test_a_kind_is_found_by_its_name_its_transports_and_its_option(kind: Kind) -> None:
    assert kinds.kind_named(kind.name) is kind
    for transport in kind.info.transports:
        assert kinds.kind_of_transport(transport) is kind
    assert kind_info(kind.name) is kind.info  # what views and rules ask
    assert kind.info.word and kind.info.icon_for(kind.info.transports[0]) in kind.info.icons
    assert kind.option.startswith("--") and kind.metavar and kind.help
    parser = argparse.ArgumentParser()
    kinds.add_kind_options(parser)
    assert kind.option in parser.format_help()


@ALL
def test_the_option_and_the_saved_fields_make_the_same_source(kind: Kind, tmp_path: Path) -> None:
    spec = _spec(kind, tmp_path)
    assert (spec.kind, spec.label) == (kind.name, "team")
    assert spec.transport in kind.info.transports
    args = argparse.Namespace(
        **{kinds.option_dest(kind): [SAMPLES[kind.name](tmp_path / "skills")]}
    )
    assert kinds.specs_from_kind_options(args) == [spec]
    again = kinds.spec_from_fields(spec.label, spec.transport, spec.endpoint)
    assert again.origin == spec.origin


@ALL
def test_a_source_lists_reads_verifies_and_lists_a_folder(kind: Kind, tmp_path: Path) -> None:
    spec = _spec(kind, tmp_path)

    async def go() -> None:
        source = kinds.open_source(spec, SourceContext())
        try:
            assert isinstance(source, Source)
            assert source.status is None
            assert source.identity == ("team", spec.origin.server())
            assert "team" in source.provenance
            assert source.needs_trust is False
            status, skills = await source.discover()
            assert status.status == "ok", status.message
            assert source.status is status and status.skill_count == 2
            assert sorted(s.name for s in skills) == ["notes", "pdf"]
            assert {s.origin for s in skills} == {spec.origin}
            pdf = next(s for s in skills if s.name == "pdf")
            script = next(f.uri for f in pdf.files if f.uri.endswith("extract.py"))
            read = await source.read(pdf, script)
            assert read.verified, read.message
            assert read.data == BODY
            checked = await source.verify(pdf)
            assert checked.state == "verified", [f.message for f in checked.files]
            children = await source.list_folder(pdf, script.rsplit("/", 1)[0])
            assert [(c.name, c.in_held_entry) for c in children] == [("extract.py", True)]
            status_again, again = await source.refresh()
            assert status_again.status == "ok"
            assert sorted(s.id for s in again) == sorted(s.id for s in skills)
        finally:
            await source.close()

    asyncio.run(go())


@ALL
def test_a_source_not_trusted_runs_nothing_and_says_why(kind: Kind, tmp_path: Path) -> None:
    from dataclasses import replace

    spec = replace(_spec(kind, tmp_path), untrusted="a project's config asks for it")

    async def go() -> None:
        source = kinds.open_source(spec)
        try:
            assert source.needs_trust is True
            status, skills = await source.discover()
            assert (status.status, skills) == ("untrusted", [])
            assert "a project's config asks for it" in status.message
        finally:
            await source.close()

    asyncio.run(go())

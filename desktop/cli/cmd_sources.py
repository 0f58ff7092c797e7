"""``skill-catalog sources``: the sources in use, and the saved ones changed.

``list`` shows every source the catalog uses without source options (saved, detected,
imported, or the bundled samples) and where each came from, without reading any.
``add``, ``remove``, ``enable`` and ``disable`` change ``sources.json``, the file the
window edits too. Detected folders and imported servers are found again at each start:
they can be switched off and on, not removed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from desktop.cli.output import CheckFailed, emit_json, err, fail_usage, table
from desktop.core.model import SourceSpec
from desktop.core.secrets import display_value

NAME = "sources"
HELP = "list the sources in use; add, remove, enable, disable or update saved ones"

ORIGINS = {
    "saved": "saved",
    "bundled": "sample",
    "detected-folder": "detected",
    "imported": "imported",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    p = sub.add_parser("list", help="every source in use and where it came from")
    p.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    p = sub.add_parser(
        "add",
        help="save a folder, a server or another kind of source",
        description="Save a source: [LABEL=]DIR for a folder of skills, "
        "LABEL=COMMAND for a server over stdio (quote the whole command), "
        "LABEL=https://HOST/mcp for a server over Streamable HTTP, or one kind's option "
        "(--git [LABEL=]URL[#REF], --zip [LABEL=]PATH, ...).",
    )
    p.add_argument(
        "source", metavar="SOURCE", nargs="?", help="[LABEL=]DIR, LABEL=COMMAND or LABEL=URL"
    )
    from desktop.sources import kinds

    for kind in kinds.with_options():
        if not kind.info.runs_code:  # a server's values come with SOURCE, --env, --header
            p.add_argument(kind.option, dest=_kind_dest(kind), metavar=kind.metavar, help=kind.help)
    p.add_argument(
        "--connect-timeout",
        metavar="SECONDS",
        help="seconds the server has to start and answer (saved with it)",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an HTTP header sent to a server at a URL (repeatable); a secret (e.g. "
        "Authorization) is kept in the OS keyring, never in the saved file",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable of a server started with a command (repeatable); "
        "a secret (e.g. *_TOKEN, *_KEY) is kept in the OS keyring, never in the saved file",
    )
    p.add_argument("--off", action="store_true", help="save it switched off")
    for action, what in (
        ("remove", "remove a saved source (or a sample)"),
        ("enable", "switch a source on"),
        ("disable", "switch a source off"),
    ):
        p = sub.add_parser(action, help=what)
        p.add_argument("label", metavar="LABEL", help="the source's label (see sources list)")
    from desktop.cli import sources_update

    sources_update.add_parser(sub)
    p = sub.add_parser(
        "log",
        help="start a server and print what it writes on its stderr",
        description="Start the server LABEL, list it as `list` would, and print what it "
        "wrote on its stderr meanwhile: its beginning and its end, bounded, with every "
        "secret the catalog sent it masked.",
    )
    p.add_argument("label", metavar="LABEL", help="the server's label (see sources list)")
    from desktop.cli.sources_args import add_source_options

    add_source_options(p)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action is None or action == "list":
        return _list(bool(getattr(args, "json", False)))
    if action == "log":
        from desktop.cli import sources_log

        return sources_log.run(args)
    if action == "update":
        from desktop.cli import sources_update

        return sources_update.run(args)
    from desktop.sources.config import saved as config

    try:
        with config.editing():  # the saved sources are read, changed and written whole
            if action == "add":
                return _add(args)
            return _change(action, args.label)
    except OSError as exc:  # the lock could not be had, or the file not written
        raise CheckFailed(f"skill-catalog sources: {exc}") from None


# -- list ----------------------------------------------------------------------------------


def _list(as_json: bool) -> int:
    from desktop.sources.config import saved as config

    found = config.collect_sources()
    rows: list[dict[str, Any]] = [_row(e) for e in found.entries]
    if as_json:
        emit_json(
            {
                "config_file": str(config.config_path()),
                "sources": rows,
                "problems": [{"file": f, "message": m} for f, m in found.problems],
            }
        )
        return 0
    for file, message in found.problems:
        err(f"{file}: {message}")
    if not rows:
        print("No sources. Add one with: skill-catalog sources add [LABEL=]DIR")
        return 0
    lines = table(
        [
            [
                r["label"],
                r["kind"],
                _state_text(r),
                _from_text(r),
                r["endpoint"],
            ]
            for r in rows
        ],
        ["LABEL", "KIND", "STATE", "FROM", "WHERE"],
        [40, 6, 9, 70, 80],
    )
    print(lines)
    print()
    print(f"Saved sources are kept in {config.config_path()}")
    if found.samples_shown:
        print(
            "The samples are shown while you have no source of your own; remove them with "
            "`skill-catalog sources remove LABEL`."
        )
    return 0


def _state_text(row: dict[str, Any]) -> str:
    """on, off, or untrusted (a project's server: listed, never started)."""
    if row.get("untrusted"):
        return "untrusted"
    return "on" if row["enabled"] else "off"


def _row(entry: Any) -> dict[str, Any]:
    spec: SourceSpec = entry.spec
    row: dict[str, Any] = {
        "label": spec.label,
        "kind": spec.transport,
        "endpoint": spec.shown_endpoint,
        "enabled": spec.enabled,
        "origin": ORIGINS.get(entry.origin, entry.origin),
        "sample": spec.sample,
    }
    if spec.untrusted:
        # Listed, never started or connected until the project folder is trusted.
        row["untrusted"] = spec.untrusted
    if spec.agent:
        row["agents"] = spec.agent
    if spec.imported_from is not None:
        row["imported_from"] = {"client": spec.imported_from[0], "file": spec.imported_from[1]}
    if spec.connect_timeout is not None:
        row["connect_timeout"] = spec.connect_timeout
    # Names and what may be shown of the values: secrets redacted, keyring references kept.
    for key, pairs in (("env", spec.env), ("headers", spec.headers)):
        if pairs:
            row[key] = {name: display_value(name, value) for name, value in pairs}
    return row


def _from_text(row: dict[str, Any]) -> str:
    origin = row["origin"]
    if origin == "sample":
        return "bundled sample"
    if "imported_from" in row:
        imp = row["imported_from"]
        verb = "kept from" if origin == "saved" else "imported from"
        return f"{verb} {imp['client']}: {imp['file']}"
    if origin == "detected":
        return f"detected, read by {row.get('agents', 'an agent')}"
    text = "saved"
    if "connect_timeout" in row:
        text += f", connect timeout {row['connect_timeout']:g} s"
    return text


# -- changes ------------------------------------------------------------------------------


def _load() -> Any:
    from desktop.sources.config import saved as config

    cfg = config.load_config()
    if not cfg.exists:
        cfg = config.first_run_config()  # the samples stay markers, as the window saves
    return cfg


def _save(cfg: Any) -> None:
    from desktop.sources.config import saved as config

    try:
        messages = config.save_config(cfg, all_or_nothing=True)
    except config.NothingSaved as exc:
        raise CheckFailed(f"skill-catalog sources: {exc}") from None
    for message in messages:
        err(message)


def _kind_dest(kind: Any) -> str:
    from desktop.sources import kinds

    return "kind_" + kinds.option_dest(kind)


def _spec_to_add(args: argparse.Namespace) -> SourceSpec:
    """The source ``sources add`` was given: SOURCE, or one kind's option."""
    from desktop.sources import kinds

    given = [
        (k, getattr(args, _kind_dest(k), None))
        for k in kinds.with_options()
        if getattr(args, _kind_dest(k), None)
    ]
    if len(given) + (args.source is not None) != 1:
        fail_usage("give one source: SOURCE, or one kind's option (--git, --zip, ...)")
    if not given:
        return _parse_source(args.source, args.env, args.header)
    kind, value = given[0]
    assert kind.parse is not None
    try:
        return kind.parse(str(value))
    except ValueError as exc:
        fail_usage(f"{kind.option}: {exc}")


def _add(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from desktop.sources.launchers import parse_timeout

    spec = _spec_to_add(args)
    if args.connect_timeout is not None:
        if not spec.kind_info.runs_code:
            fail_usage(f"--connect-timeout is for servers, not a {spec.kind_info.word}")
        try:
            spec = replace(spec, connect_timeout=parse_timeout(args.connect_timeout))
        except ValueError as exc:
            fail_usage(f"--connect-timeout: {exc}")
    if args.off:
        spec = replace(spec, enabled=False)
    cfg = _load()
    if any(s.spec.label.casefold() == spec.label.casefold() for s in cfg.sources):
        fail_usage(
            f"a saved source is labelled {spec.label!r} already; remove it first, "
            "or choose another label (LABEL=...)"
        )
    added = cfg.add(spec)
    _save(cfg)
    saved = cfg.get(added.label)
    added = saved.spec if saved is not None else added
    kind = f"{added.transport} server" if added.kind_info.runs_code else added.transport
    print(f"added {added.label} ({kind}: {added.shown_endpoint})")
    pairs = [("environment value", n, v) for n, v in added.env]
    pairs += [("header", n, v) for n, v in added.headers]
    in_keyring = [f"{what} {name}" for what, name, v in pairs if "${keyring:" in v]
    if in_keyring:
        print(f"  kept in the keyring: {', '.join(in_keyring)}")
    return 0


def _parse_source(value: str, env: list[str], headers: list[str]) -> SourceSpec:
    from desktop.sources.config import options

    label, rest = options.split_label(value)
    where = rest.strip()
    try:
        pairs = {
            "env": options.parse_pairs(env, "env"),
            "headers": options.parse_pairs(headers, "header"),
        }
        if where.startswith(("http://", "https://")):
            return options.source_from_fields(label, "http", where, **pairs)
        if Path(where).expanduser().is_dir():
            return options.source_from_fields(label, "folder", where, **pairs)
        if not label:
            fail_usage(
                f"{value!r} is not a folder; a server is LABEL=COMMAND or LABEL=URL "
                "(quote the whole command)"
            )
        return options.source_from_fields(label, "stdio", where, **pairs)
    except options.SourceOptionError as exc:
        fail_usage(str(exc))


def _change(action: str, label: str) -> int:
    from desktop.sources.config import saved as config

    cfg = _load()
    found = config.collect_sources(config=cfg)
    entry = next((e for e in found.entries if e.spec.label == label), None)
    saved = cfg.get(label)
    if entry is None and saved is None:
        known = ", ".join(e.spec.label for e in found.entries) or "none"
        fail_usage(f"no source is labelled {label!r} (the sources: {known})")
    if action == "remove":
        if saved is None:
            assert entry is not None
            where = entry.detail or entry.origin
            raise CheckFailed(
                f"skill-catalog sources: {label} is not a saved source ({where}); it is "
                f"found again at each start. Switch it off: skill-catalog sources disable "
                f"{label}"
            )
        cfg.remove(label)
        _save(cfg)
        print(f"removed {label}")
        return 0
    on = action == "enable"
    key = label if saved is not None else (entry.key if entry is not None else label)
    cfg.set_enabled(key, on)
    _save(cfg)
    print(f"{label} is switched {'on' if on else 'off'}")
    return 0

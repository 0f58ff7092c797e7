"""Makes ``fixture_3f4c5c9.json``: approvals, a sign-in and cache folders exactly as the
program at commit 3f4c5c9 wrote them (before the server key). Run with that version's
``desktop`` package first on the path and a Secret Service at hand; it prints the JSON.
How it was made is in ``README.md`` beside it.

It uses the old program's own code to write, then reads back what it wrote: every
keyring item of its approvals service, the sign-in entries it made in ``skill-catalog``
(removed again afterwards) and every file under the cache root.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from mcp.shared.auth import OAuthToken

from desktop.core.entry import parse_entry
from desktop.core.model import Origin, SourceSpec
from desktop.sources.mcp import signin
from desktop.store.approvals_store import ApprovalStore
from desktop.store.cache import SkillCache

ENVIRON = {"FIXTURE_ROOT": "/srv/skills"}
SOURCES = [
    # label, transport, endpoint as written (an environment placeholder in it)
    ("docs", "stdio", "python -m docs_server --root ${FIXTURE_ROOT}"),
    # A URL the server key writes otherwise (upper case, the default port).
    ("web", "http", "HTTPS://Skills.Example:443/mcp"),
]


def entry(name: str, files: dict[str, bytes], tools: str) -> dict[str, object]:
    import hashlib

    resources = [
        {
            "uri": f"skill://{name}/{path}",
            "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
        for path, data in files.items()
    ]
    front = {"name": name, "description": "Does a thing", "allowed-tools": tools}
    return {"uri": f"skill://{name}/SKILL.md", "frontmatter": front, "resources": resources}


def files_of(name: str) -> dict[str, bytes]:
    md = f"---\nname: {name}\ndescription: Does a thing\nallowed-tools: Read\n---\n# {name}\n"
    return {"SKILL.md": md.encode(), "notes.md": f"{name} notes\n".encode()}


def main() -> None:
    os.environ.update(ENVIRON)
    service = f"skill-catalog-fixture-{uuid.uuid4().hex[:8]}"
    store = ApprovalStore(service, timeout=30)
    root = Path(tempfile.mkdtemp()) / "verified"
    cache = SkillCache(root)
    entries = {}
    for label, transport, endpoint in SOURCES:
        origin = Origin(label, "mcp", transport, endpoint)
        name = f"{label}-skill"
        files = files_of(name)
        wire = entry(name, files, "Read")
        entries[label] = wire
        skill = parse_entry(wire, origin)
        record = store.approve(
            skill,
            grant_tools=["Read"],
            files_read=True,
            who="ann",
            when="2026-12-01T10:00:00+00:00",
        )
        pairs = [(f, files[f.uri.rsplit("/", 1)[1]]) for f in skill.resources]
        for f, data in pairs:
            cache.put(origin, f.uri, f, data)
        cache.keep_approved(record.key.storage_name, pairs)
    spec = SourceSpec("web", "mcp", "http", SOURCES[1][2])
    storage = signin.KeyringTokenStorage(signin.entry_name(spec))
    token = OAuthToken(access_token="fixture-access", refresh_token="fixture-refresh")
    asyncio.run(storage.set_tokens(token))

    import secretstorage

    approvals: dict[str, str] = {}
    secrets: dict[str, str] = {}
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        for item in collection.search_items({"service": service}):
            approvals[item.get_attributes()["username"]] = item.get_secret().decode()
            item.delete()
        for item in collection.search_items({"service": signin.SERVICE}):
            user = item.get_attributes()["username"]
            if user == storage.entry:
                secrets[user] = item.get_secret().decode()
                item.delete()
    files = {
        str(p.relative_to(root)): base64.b64encode(p.read_bytes()).decode()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
    out = {
        "made_by": "3f4c5c9",
        "environ": ENVIRON,
        "sources": [list(s) for s in SOURCES],
        "entries": entries,
        "approvals": dict(sorted(approvals.items())),
        "secrets": secrets,
        "cache": files,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

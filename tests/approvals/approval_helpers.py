"""Skills for the approval tests: built from wire entries (as a server lists them) and
from real folders (scanned as the folder source does)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from desktop.core.entry import parse_entry
from desktop.core.model import Origin, Skill, SourceSpec
from desktop.sources.folder import scan_folder

STDIO_A = "python -m docs_server --root /srv/a"
STDIO_B = "python -m other_server"
HTTP_A = "http://127.0.0.1:8765/mcp"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_md(
    name: str, allowed_tools: str | None = None, description: str = "Does a thing"
) -> bytes:
    tools = f"allowed-tools: {allowed_tools}\n" if allowed_tools else ""
    return f"---\nname: {name}\ndescription: {description}\n{tools}---\n# {name}\n".encode()


def server_entry(
    name: str,
    files: dict[str, bytes] | None = None,
    *,
    allowed_tools: str | None = None,
    base: str = "skill://",
    dynamic: bool = False,
) -> dict[str, Any]:
    """A ``skills/list`` entry: the SKILL.md plus ``files`` (paths relative to the skill)."""
    uri = f"{base}{name}/SKILL.md"
    frontmatter: dict[str, Any] = {"name": name, "description": "Does a thing"}
    if allowed_tools:
        frontmatter["allowed-tools"] = allowed_tools
    if dynamic:
        return {"uri": uri, "frontmatter": frontmatter, "resources": "dynamic"}
    all_files = {"SKILL.md": skill_md(name, allowed_tools), **(files or {})}
    resources = [
        {"uri": f"{base}{name}/{path}", "digest": digest(data), "size": len(data)}
        for path, data in all_files.items()
    ]
    return {"uri": uri, "frontmatter": frontmatter, "resources": resources}


def server_skill(
    label: str, endpoint: str, entry: dict[str, Any], transport: str = "stdio"
) -> Skill:
    origin = Origin(label, "mcp", transport, endpoint)  # type: ignore[arg-type]
    return parse_entry(entry, origin)


def write_skill(root: Path, rel_dir: str, files: dict[str, bytes | str]) -> Path:
    folder = root / rel_dir
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)
    return folder


def scan(root: Path, label: str = "local") -> dict[str, Skill]:
    """The skills of a folder by their URI (SKILL.md path relative to the folder)."""
    status, skills = scan_folder(SourceSpec(label, "local", "folder", str(root.resolve())))
    assert status.status == "ok", status.message
    return {s.uri: s for s in skills}


def unlock_keyring() -> None:
    """Unlock the default collection without a prompt (scripts/test's password), as the
    shared ``locked_secret_service`` fixture does at teardown."""
    import os

    import secretstorage
    from secretstorage.util import DBusAddressWrapper, format_secret, open_session

    password = os.environ["SKILL_CATALOG_TEST_KEYRING_PASSWORD"]
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        secret = format_secret(open_session(connection), password.encode(), "text/plain")
        DBusAddressWrapper(
            "/org/freedesktop/secrets",
            "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
            connection,
        ).call("UnlockWithMasterPassword", "o(oayays)", collection.collection_path, secret)
        assert not collection.is_locked()

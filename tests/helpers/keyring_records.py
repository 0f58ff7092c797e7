"""Approval records edited past the program, through the Secret Service API
(secretstorage), as anything running as the user could: the record decoded, changed,
encoded again and its entry's checksum recomputed, as the store writes them."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from collections.abc import Callable
from typing import Any

CHUNK = 1000  # characters per keyring entry, as the store writes them


def rewrite_record(service: str, edit: Callable[[dict[str, Any]], None]) -> None:
    """Apply ``edit`` to the one approval record of the keyring ``service`` and write it
    back with its checksum recomputed."""
    import secretstorage

    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        items = {
            item.get_attributes()["username"]: item
            for item in collection.search_items({"service": service})
        }
        (name,) = [n for n in items if n.startswith("approval-") and "." not in n]
        head = json.loads(items[name].get_secret())
        if head["n"] == 0:
            payload = head["data"]
        else:
            payload = "".join(
                items[f"{name}.{i}"].get_secret().decode() for i in range(1, head["n"] + 1)
            )
        record = json.loads(zlib.decompress(base64.b64decode(payload)))
        edit(record)
        raw = json.dumps(record, separators=(",", ":")).encode()
        payload = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
        digest = hashlib.sha256(payload.encode("ascii")).hexdigest()
        attributes = items[name].get_attributes()
        chunks = [payload[i : i + CHUNK] for i in range(0, len(payload), CHUNK)]
        for i, chunk in enumerate(chunks, 1):
            part = {**attributes, "username": f"{name}.{i}"}
            collection.create_item(f"{name}.{i}", part, chunk.encode(), replace=True)
        new_head = {"v": 1, "n": len(chunks), "sha256": digest}
        items[name].set_secret(json.dumps(new_head).encode())

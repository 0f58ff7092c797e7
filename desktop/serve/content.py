"""How a file's bytes go over `resources/read`: exactly as they are on disk.

A file is sent as ``text`` only when the text encodes back to the very same bytes
(``text.encode("utf-8") == data``), it is small, and it holds no character that a
line-oriented reader could take for a line break. Everything else (binary, large,
odd) is sent as a base64 ``blob``. Newlines are never converted and a byte order
mark is never stripped: the digest a client computes must match the manifest.
"""

from __future__ import annotations

import base64
import functools
import mimetypes

import mcp_types as types

# Files above this size always go as blobs: clients decode large text slowly and
# a blob is the same bytes either way.
MAX_TEXT_BYTES = 256 * 1024

# Characters that ``str.splitlines`` treats as line breaks but JSON does not escape.
# A stdio peer that splits its input with ``splitlines`` would cut a message there.
_LINE_BREAKS_JSON_KEEPS = ("\x85", "\u2028", "\u2029")

MARKDOWN = "text/markdown"
DIRECTORY = "inode/directory"
OCTET_STREAM = "application/octet-stream"

_TEXT_SUFFIXES = {
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".txt": "text/plain",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
}


def mime_type(file_path: str) -> str:
    """A MIME type for a file, from its name alone."""
    name = file_path.rpartition("/")[2]
    stem, dot, suffix = name.rpartition(".")
    return _mime_for_suffix(f".{suffix.lower()}" if dot and stem else "")


@functools.lru_cache(maxsize=256)
def _mime_for_suffix(suffix: str) -> str:
    if suffix in _TEXT_SUFFIXES:
        return _TEXT_SUFFIXES[suffix]
    guessed, _ = mimetypes.guess_type("file" + suffix, strict=False)
    return guessed or OCTET_STREAM


def as_text(data: bytes) -> str | None:
    """The text to send for ``data``, or ``None`` when it must go as a blob."""
    if len(data) > MAX_TEXT_BYTES or b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.encode("utf-8") != data:
        return None
    if any(ch in text for ch in _LINE_BREAKS_JSON_KEEPS):
        return None
    return text


def resource_contents(
    uri: str, data: bytes, mime: str
) -> types.TextResourceContents | types.BlobResourceContents:
    """The `resources/read` content block carrying ``data`` unchanged."""
    text = as_text(data)
    if text is not None:
        return types.TextResourceContents(uri=uri, mime_type=mime, text=text)
    blob = base64.b64encode(data).decode("ascii")
    return types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)

"""A real HTTP server on 127.0.0.1 serving a website's files, and the three shapes of
an Agent Skills discovery index written from a folder of skills."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class Site:
    """What the server answers: files by path, redirects by path, and every path asked."""

    files: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    unsized: set[str] = field(default_factory=set)  # sent with no Content-Length
    stalled: set[str] = field(default_factory=set)  # answered only once released
    release: threading.Event = field(default_factory=threading.Event)
    asked: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def put(self, path: str, data: bytes) -> None:
        self.files["/" + path.lstrip("/")] = data


class _Handler(BaseHTTPRequestHandler):
    site: Site

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.site.asked.append(path)
        if path in self.site.redirects:
            self.send_response(302)
            self.send_header("Location", self.site.redirects[path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path in self.site.stalled:
            self.site.release.wait(30)
        data = self.site.files.get(path)
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        if path not in self.site.unsized:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client stopped reading at its bound
            self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return None


def start(site: Site | None = None) -> Site:
    """``site`` served on 127.0.0.1 (a free port) until the process ends."""
    site = site or Site()
    handler = type("Handler", (_Handler,), {"site": site})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    site.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


@contextmanager
def serving(site: Site | None = None) -> Iterator[Site]:
    """``site`` served on 127.0.0.1 (a free port) while the block runs."""
    site = site or Site()
    handler = type("Handler", (_Handler,), {"site": site})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    site.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


def skill_files(folder: Path) -> dict[str, dict[str, bytes]]:
    """The files of each skill of ``folder`` (a folder of skill folders), by path."""
    out: dict[str, dict[str, bytes]] = {}
    for skill_md in sorted(folder.glob("*/SKILL.md")):
        root = skill_md.parent
        out[root.name] = {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }
    return out


def tar_gz(files: dict[str, bytes], top: str = "") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo((top + "/" if top else "") + name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def publish_v01(site: Site, skills: dict[str, dict[str, bytes]], base: str = "") -> None:
    """A v0.1 index at ``base/.well-known/skills/index.json``: paths, no digests."""
    root = f"{base}/.well-known/skills"
    index = {"skills": []}
    for name, files in skills.items():
        index["skills"].append({"name": name, "description": f"{name} skill", "files": list(files)})
        for path, data in files.items():
            site.put(f"{root}/{name}/{path}", data)
    site.put(f"{root}/index.json", json.dumps(index).encode())


def publish_early(site: Site, skills: dict[str, dict[str, bytes]], base: str = "") -> None:
    """An early v0.2 index: ``version``, files with digests, and the first skill also
    as a package (a .tar.gz with its digest)."""
    root = f"{base}/.well-known/skills"
    index: dict[str, object] = {"version": "0.2.0", "skills": []}
    for n, (name, files) in enumerate(skills.items()):
        entry: dict[str, object] = {"name": name, "description": f"{name} skill"}
        if n == 0:
            package = tar_gz(files, top=name)
            site.put(f"{root}/{name}.tar.gz", package)
            entry["package"] = {"url": f"{name}.tar.gz", "digest": digest(package)}
        else:
            entry["files"] = [{"path": p, "digest": digest(d)} for p, d in files.items()]
            for path, data in files.items():
                site.put(f"{root}/{name}/{path}", data)
        index["skills"].append(entry)  # type: ignore[attr-defined]
    site.put(f"{root}/index.json", json.dumps(index).encode())


def publish_v02(
    site: Site, skills: dict[str, dict[str, bytes]], base: str = "", archive: bool = True
) -> dict[str, object]:
    """A v0.2 index at ``base/.well-known/agent-skills/index.json``: a skill of one file
    as ``skill-md``, a skill of more files as an ``archive`` (.tar.gz)."""
    root = f"{base}/.well-known/agent-skills"
    index: dict[str, object] = {
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [],
    }
    for name, files in skills.items():
        if len(files) == 1 or not archive:
            data = files["SKILL.md"]
            site.put(f"{root}/{name}/SKILL.md", data)
            entry = {"name": name, "type": "skill-md", "url": f"{name}/SKILL.md"}
        else:
            data = tar_gz(files)
            site.put(f"{root}/{name}.tar.gz", data)
            entry = {"name": name, "type": "archive", "url": f"{name}.tar.gz"}
        entry.update(description=f"{name} skill", digest=digest(data))
        index["skills"].append(entry)  # type: ignore[attr-defined]
    site.put(f"{root}/index.json", json.dumps(index).encode())
    return index

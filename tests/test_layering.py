"""The layering of the package (see the design notes), checked on the source with ``ast``.

- ``desktop.core`` is pure Python: no Qt, no network or process I/O, no keyring, and no
  import of any other package of ours.
- ``desktop.sources`` and ``desktop.store`` import ``core`` (and each other) but no Qt and
  neither views package; neither imports the catalog session above them.
- ``desktop.session`` (the catalog session the views drive) imports no Qt and no view.
- ``desktop.ui`` and ``desktop.cli`` decide through the catalog session: neither imports
  the approvals store, its keyring records, the cache of verified copies or the trust
  file, where decisions are kept, nor reaches the session's store or cache through its
  attributes (``approvals.store``, ``reader.cache``).
- ``desktop.ui`` and ``desktop.cli`` are imported by nothing else (``desktop/__main__.py``,
  the ``python -m desktop`` entry point, may start the CLI).

Imports inside functions and under ``if TYPE_CHECKING:`` count too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "desktop"

QT = ("PySide6", "shiboken6", "qasync", "PyQt5", "PyQt6")
NETWORK_AND_PROCESSES = (
    "mcp",
    "fastmcp",
    "httpx",
    "httpcore",
    "anyio",
    "starlette",
    "uvicorn",
    "requests",
    "aiohttp",
    "socket",
    "ssl",
    "selectors",
    "urllib.request",
    "urllib.error",
    "http.client",
    "http.server",
    "subprocess",
    "asyncio.subprocess",
    "keyring",
    "secretstorage",
    "jeepney",
)
# Calls that start processes or open connections without importing a forbidden module.
FORBIDDEN_CALLS_IN_CORE = (
    "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
    "asyncio.open_connection",
    "asyncio.open_unix_connection",
    "asyncio.start_server",
    "os.system",
    "os.popen",
)
OUR_OTHER_PACKAGES = (
    "desktop.sources",
    "desktop.store",
    "desktop.session",
    "desktop.serve",
    "desktop.ui",
    "desktop.cli",
)
VIEWS = ("desktop.ui", "desktop.cli")
# Where decisions and approval states are kept: reached through the session alone.
DECISION_STORES = (
    "desktop.store.approvals_store",
    "desktop.store.approvals_keyring",
    "desktop.store.cache",
    "desktop.sources.config.trust_store",
)
# The same stores reached through the session's parts rather than an import.
DECISION_BYPASSES = (("approvals", "store"), ("reader", "cache"))

RULES: dict[str, tuple[str, ...]] = {
    "desktop.core": QT + NETWORK_AND_PROCESSES + OUR_OTHER_PACKAGES,
    "desktop.sources": QT + VIEWS + ("desktop.session",),
    "desktop.store": QT + VIEWS + ("desktop.session",),
    "desktop.session": QT + VIEWS + ("desktop.serve",),
    "desktop.serve": QT + ("desktop.ui", "desktop.session"),
    "desktop.ui": DECISION_STORES,
    "desktop.cli": DECISION_STORES,
}


@dataclass(frozen=True)
class Import:
    module: str  # absolute dotted name, e.g. "PySide6.QtCore" or "desktop.ui.app"
    line: int
    attribute: bool = False  # a dotted attribute access, not an import statement


def module_name(path: Path, package_dir: Path = PACKAGE_DIR) -> str:
    """Dotted module name of a file under the package folder."""
    relative = path.relative_to(package_dir.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, *, is_package: bool = False) -> list[Import]:
    """Every module a source file imports (relative imports resolved), plus the dotted
    names of attribute accesses such as ``asyncio.create_subprocess_exec``."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.append(Import(base, node.lineno))
            found.extend(Import(f"{base}.{alias.name}", node.lineno) for alias in node.names)
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted:
                found.append(Import(dotted, node.lineno, attribute=True))
    return found


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _matches(name: str, forbidden: str) -> bool:
    return name == forbidden or name.startswith(forbidden + ".")


def violations(path: Path, package_dir: Path = PACKAGE_DIR) -> list[str]:
    module = module_name(path, package_dir)
    layer = next((rule for rule in RULES if _matches(module, rule)), None)
    source = path.read_text(encoding="utf-8")
    found = imports_of(source, module, is_package=path.name == "__init__.py")
    where = path.relative_to(package_dir.parent)
    problems: list[str] = []
    for imp in found:
        if imp.attribute and layer in VIEWS:
            parts = imp.module.split(".")
            for pair in DECISION_BYPASSES:
                if any(tuple(parts[i : i + 2]) == pair for i in range(len(parts) - 1)):
                    problems.append(
                        f"{where}:{imp.line}: {layer} must decide through the session, "
                        f"not {'.'.join(pair)}"
                    )
        if imp.attribute:
            forbidden = FORBIDDEN_CALLS_IN_CORE if layer == "desktop.core" else ()
        else:
            forbidden = RULES.get(layer, ()) if layer else ()
        for rule in forbidden:
            if _matches(imp.module, rule) and not _matches(imp.module, layer or "-"):
                problems.append(f"{where}:{imp.line}: {layer} must not use {imp.module}")
                break
        else:
            for view in VIEWS:
                if (
                    not imp.attribute
                    and _matches(imp.module, view)
                    and not _matches(module, view)
                    and module != "desktop.__main__"
                ):
                    problems.append(f"{where}:{imp.line}: only {view} may import {imp.module}")
    return sorted(set(problems))


def _python_files() -> list[Path]:
    return sorted(PACKAGE_DIR.rglob("*.py"))


def test_package_has_modules() -> None:
    assert (PACKAGE_DIR / "core" / "model.py").is_file()


def test_layers_import_only_what_they_may() -> None:
    problems = [p for path in _python_files() for p in violations(path)]
    assert not problems, "layering broken:\n" + "\n".join(problems)


# --- the checker itself can fail ---------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "source", "expected"),
    [
        ("core/x.py", "from PySide6.QtCore import QObject\n", "must not use PySide6.QtCore"),
        ("core/x.py", "def f():\n    import httpx\n", "must not use httpx"),
        ("core/x.py", "from ..ui import app\n", "must not use desktop.ui"),
        ("core/x.py", "from desktop.sources.folder import scan\n", "must not use desktop.sources"),
        ("core/x.py", "from urllib.request import urlopen\n", "must not use urllib.request"),
        ("core/x.py", "from asyncio import subprocess\n", "must not use asyncio.subprocess"),
        (
            "core/x.py",
            "import asyncio\nasyncio.create_subprocess_exec('ls')\n",
            "must not use asyncio.create_subprocess_exec",
        ),
        (
            "core/x.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import keyring\n",
            "must not use keyring",
        ),
        ("sources/x.py", "import PySide6\n", "must not use PySide6"),
        ("store/x.py", "from desktop.cli import output\n", "must not use desktop.cli"),
        ("serve/x.py", "from desktop.cli.output import emit_json\n", "only desktop.cli may import"),
        (
            "cli/x.py",
            "from desktop.store.approvals_store import ApprovalStore\n",
            "desktop.cli must not use desktop.store.approvals_store",
        ),
        (
            "cli/x.py",
            "def run():\n    from desktop.store.cache import SkillCache\n",
            "desktop.cli must not use desktop.store.cache",
        ),
        (
            "ui/window/x.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from desktop.store.approvals_store import StoredApproval\n",
            "desktop.ui must not use desktop.store.approvals_store",
        ),
        (
            "ui/sources/x.py",
            "from desktop.sources.config.trust_store import change_trust\n",
            "desktop.ui must not use desktop.sources.config.trust_store",
        ),
        (
            "ui/x.py",
            "def f(c, s):\n    c.session.approvals.store.approve(s)\n",
            "desktop.ui must decide through the session, not approvals.store",
        ),
        (
            "cli/x.py",
            "def f(session):\n    session.reader.cache.keep_decision('n', None)\n",
            "desktop.cli must decide through the session, not reader.cache",
        ),
    ],
)
def test_checker_reports(tmp_path: Path, relative: str, source: str, expected: str) -> None:
    package = tmp_path / "desktop"
    path = package / relative
    path.parent.mkdir(parents=True)
    path.write_text(source, encoding="utf-8")
    problems = violations(path, package)
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("core/x.py", "from urllib.parse import quote\nfrom . import model\nimport hashlib\n"),
        ("core/x.py", "from .model import Skill\nimport asyncio\nasyncio.sleep(0)\n"),
        ("core/x.py", "def f(socket, mcp):\n    return socket.recv, mcp.label\n"),
        ("sources/x.py", "import mcp\nfrom desktop.core.model import Skill\nimport httpx\n"),
        ("store/x.py", "import keyring\nfrom ..core import approvals\n"),
        ("ui/x.py", "from PySide6.QtWidgets import QWidget\nfrom desktop.ui.models import M\n"),
        ("cli/x.py", "from desktop.sources.gather import discover\nfrom .output import emit\n"),
        ("cli/x.py", "from desktop.session.decisions import TrustNotSaved\n"),
        ("ui/x.py", "from desktop.store.os_keyring import choose_backend\n"),
        ("ui/x.py", "def f(c):\n    return c.approvals.records(), c.reader.read\n"),
    ],
)
def test_checker_allows(tmp_path: Path, relative: str, source: str) -> None:
    package = tmp_path / "desktop"
    path = package / relative
    path.parent.mkdir(parents=True)
    path.write_text(source, encoding="utf-8")
    assert violations(path, package) == []

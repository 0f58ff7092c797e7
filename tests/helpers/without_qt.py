"""Run tests with Qt made unimportable, as a pytest plugin: ``pytest -p tests.helpers.without_qt``.

Everything below the views (``desktop.core``, ``sources``, ``store``, ``session``,
``serve``, ``cli``) and its tests must not need Qt; this proves it by refusing every
import of PySide6, shiboken6 and qasync from the moment the plugin is loaded, before any
test module or ``conftest.py`` is imported. pytest-xdist's workers load the plugin too,
so a run spread over workers is held to the same rule.

``python without_qt.py PYTEST-ARGS...`` does the same for one pytest run.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys

BLOCKED = ("PySide6", "shiboken6", "qasync")


class _NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname.split(".")[0] in BLOCKED:
            raise ImportError(f"{fullname} is blocked: this code must run without Qt")
        return None


def block_qt() -> None:
    """Refuse every later import of Qt in this process (loaded already: refused too)."""
    if not any(isinstance(finder, _NoQt) for finder in sys.meta_path):
        sys.meta_path.insert(0, _NoQt())
    loaded = [name for name in sys.modules if name.split(".")[0] in BLOCKED]
    if loaded:
        raise ImportError(f"Qt was imported before it could be blocked: {', '.join(loaded)}")
    importlib.import_module("desktop.core")  # the package itself first


def main(argv: list[str]) -> int:
    block_qt()
    import pytest

    return int(pytest.main(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
else:
    block_qt()

"""Run pytest with Qt made unimportable: ``python without_qt.py PYTEST-ARGS...``.

``desktop.core`` and its tests must not need Qt; this proves it by refusing every
import of PySide6, shiboken6 and qasync before anything else is imported.
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


def main(argv: list[str]) -> int:
    sys.meta_path.insert(0, _NoQt())
    import pytest

    importlib.import_module("desktop.core")  # the package itself first

    return int(pytest.main(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

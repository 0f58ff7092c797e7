"""PySide's per-import check, answered from the file's bytes: the same answers."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from desktop.ui import import_check


def test_the_cheaper_check_is_in_place_once_the_window_package_loads() -> None:
    feature = sys.modules.get("shibokensupport.feature")
    if feature is None:
        pytest.skip("this PySide has no per-import feature check")
    assert import_check.install() is True
    assert getattr(feature._mod_uses_pyside, "reads_bytes", False)


def test_it_answers_as_pyside_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    feature = sys.modules.get("shibokensupport.feature")
    if feature is None:
        pytest.skip("this PySide has no per-import feature check")
    (tmp_path / "uses_qt_here.py").write_text(
        textwrap.dedent(
            """
            from PySide6.QtCore import QObject
            VALUE = 1
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "plain_module_here.py").write_text("VALUE = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    # An import statement goes through PySide's import hook (importlib.import_module
    # would not), so PySide records its answer for each module.
    uses = __import__("uses_qt_here")
    plain = __import__("plain_module_here")
    check = feature._mod_uses_pyside
    assert check(uses) is True
    assert check(plain) is False
    assert check(sys) is False  # a built-in module: no file, PySide's own answer
    # What PySide recorded for the modules imported under the cheaper check.
    assert feature.pyside_feature_dict.get("uses_qt_here") == 0
    assert feature.pyside_feature_dict.get("plain_module_here") == -1

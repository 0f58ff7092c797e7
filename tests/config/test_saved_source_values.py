"""Odd values in the saved sources are reported, not guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.sources.config import saved as config

pytestmark = pytest.mark.timeout(120)


def save_sources(*sources: dict[str, object]) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "sources": list(sources)}))


@pytest.mark.parametrize("value", ["no", 0, None, "false"])
def test_an_enabled_flag_that_is_not_a_boolean_is_a_problem(tmp_home: Path, value: object) -> None:
    save_sources(
        {
            "label": "odd",
            "kind": "local",
            "transport": "folder",
            "endpoint": "/x",
            "enabled": value,
        },
        {
            "label": "off",
            "kind": "local",
            "transport": "folder",
            "endpoint": "/y",
            "enabled": False,
        },
        {"label": "on", "kind": "local", "transport": "folder", "endpoint": "/z"},
    )
    cfg = config.load_config()
    assert [(s.spec.label, s.spec.enabled) for s in cfg.sources] == [("off", False), ("on", True)]
    assert len(cfg.problems) == 1
    assert "source 'odd': enabled is " in cfg.problems[0]
    assert "that source is left out" in cfg.problems[0]
    assert cfg.left_out[0]["label"] == "odd"

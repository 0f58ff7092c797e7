"""Where the program keeps the user's settings."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "skill-catalog"


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user config folder: platformdirs' choice, ``$XDG_CONFIG_HOME`` respected."""
    env = os.environ if environ is None else environ
    if sys.platform.startswith("linux") or env.get("XDG_CONFIG_HOME"):
        xdg = env.get("XDG_CONFIG_HOME")
        if xdg and os.path.isabs(xdg):
            return Path(xdg) / APP_NAME
        if sys.platform.startswith("linux") and env.get("HOME"):
            return Path(env["HOME"]) / ".config" / APP_NAME
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))

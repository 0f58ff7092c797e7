"""Entry point of the PyInstaller build: one program, two executables.

``skill-catalog`` is the command line; ``skill-catalog-window`` opens the window. Both are
the same bundle, told apart by the name they were started as.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> int:
    if Path(sys.executable).name.startswith("skill-catalog-window"):
        from desktop.ui.app import main as window_main

        return int(window_main() or 0)
    from desktop.cli.main import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())

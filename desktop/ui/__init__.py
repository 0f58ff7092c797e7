"""The window. Qt is loaded here, and PySide's per-import check made cheap at once."""

import PySide6.QtCore  # noqa: F401 - loads the import hook that import_check replaces

from desktop.ui import import_check

import_check.install()

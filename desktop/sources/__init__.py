"""Where entries come from. The kinds of source register as this package loads
(:mod:`desktop.sources.kinds`), so every view and rule that meets a spec knows its kind."""

from desktop.sources import kinds as kinds

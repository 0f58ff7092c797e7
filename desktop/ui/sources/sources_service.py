"""The window's sources: the saved configuration shared with the CLI, read and edited
in worker threads (saving may touch the keyring for secrets)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from desktop.core.model import SourceSpec
from desktop.core.trust import ProjectServer
from desktop.sources.config import saved as config

T = TypeVar("T")


@dataclass(slots=True)
class SourcesSnapshot:
    specs: list[SourceSpec] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # label -> what switches it off
    problems: list[str] = field(default_factory=list)
    first_run: bool = False  # the bundled samples are shown: the user has no source yet
    # A project folder's servers waiting for the user's trust (never started meanwhile).
    untrusted: list[ProjectServer] = field(default_factory=list)


class SourcesService:
    """Reads the sources in use and edits the saved ones.

    ``specs`` given to the constructor pin the sources (tests, ``--folder`` on the
    command line): nothing is read from or written to the saved configuration then.
    """

    def __init__(
        self,
        specs: list[SourceSpec] | None = None,
        *,
        config_file: Path | None = None,
        detect: bool = True,
    ) -> None:
        self._pinned = list(specs) if specs is not None else None
        self.config_file = config_file
        self.detect = detect

    async def load(self) -> SourcesSnapshot:
        """The sources in use, read in a worker thread."""
        import asyncio

        if self._pinned is not None:
            return self.snapshot()
        return await asyncio.to_thread(self.snapshot)

    def snapshot(self) -> SourcesSnapshot:
        """The sources in use, read in the calling thread (it reads files: not on the
        window's own)."""
        if self._pinned is not None:
            return SourcesSnapshot(list(self._pinned), {s.label: "given" for s in self._pinned})
        cfg = config.load_config(self.config_file)
        found = config.collect_sources(config=cfg, detect=self.detect)
        return SourcesSnapshot(
            specs=found.specs,
            origins={e.spec.label: e.origin for e in found.entries},
            keys={e.spec.label: e.key for e in found.entries},
            problems=[f"{where}: {what}" for where, what in found.problems],
            first_run=found.samples_shown,
            untrusted=found.untrusted,
        )

    async def add(self, spec: SourceSpec) -> tuple[SourceSpec, list[str]]:
        return await self._edit(lambda cfg: cfg.add(spec))

    async def replace(self, old_label: str, spec: SourceSpec) -> tuple[SourceSpec, list[str]]:
        return await self._edit(lambda cfg: cfg.edit(old_label, spec))

    async def remove(self, label: str) -> list[str]:
        _, messages = await self._edit(lambda cfg: cfg.remove(label) and None)
        return messages

    async def set_enabled(self, label: str, key: str, enabled: bool) -> list[str]:
        def change(cfg: config.Config) -> None:
            cfg.set_enabled(label if cfg.get(label) else key, enabled)

        _, messages = await self._edit(change)
        return messages

    async def _edit(self, change: Callable[[config.Config], T]) -> tuple[T, list[str]]:
        import asyncio

        if self._pinned is not None:
            return self._edit_pinned(change), []

        def work() -> tuple[T, list[str]]:
            with config.editing(self.config_file):
                cfg = config.load_config(self.config_file)
                if not cfg.exists:
                    cfg = config.first_run_config()
                result = change(cfg)
                return result, config.save_config(cfg, self.config_file, all_or_nothing=True)

        return await asyncio.to_thread(work)

    def _edit_pinned(self, change: Callable[[config.Config], T]) -> T:
        assert self._pinned is not None
        cfg = config.Config(sources=[config.SavedSource(s) for s in self._pinned], exists=True)
        result = change(cfg)
        self._pinned = [replace(s.spec) for s in cfg.sources]
        return result

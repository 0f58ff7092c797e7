"""What each kind of source is, in the words every view and rule asks about.

A source's ``kind`` (``local``, ``mcp``, or a kind added in ``desktop/sources/``) says
how its skills are reached. Rules and views never compare that name: they ask the
kind's :class:`KindInfo` (``spec.kind_info``, ``origin.kind_info``) what it means,
such as whether the source runs anything (and so needs trust first), whether its
skills are files in a folder of this machine, or which icon shows it.

The folder and the MCP server kinds are described here; a kind added in
``desktop/sources/`` describes itself when it registers (``desktop/sources/kinds.py``).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class KindInfo:
    """What a kind of source is, asked instead of comparing its name.

    ``name`` is the ``kind`` written in ``sources.json`` and in ``--json`` output;
    ``transports`` are the ways its sources are reached (the first is the default).
    """

    name: str
    transports: tuple[str, ...]
    word: str  # the plain word for one source of this kind: "folder", "zip archive"
    icon: str = "folder"  # the icon's name (see ``icons``)
    # Starts a program or connects to one: a project's source of this kind is neither
    # started nor connected before the user trusts it; its skills are third-party.
    runs_code: bool = False
    # Its skills are files in a folder of this machine: they can be opened, watched,
    # edited, and an approval is keyed by the skill's folder.
    folder_on_disk: bool = False
    # Its endpoint is a path on this machine (kept as written, never masked).
    path_endpoint: bool = False
    # Its listing can be asked again for one skill (``skills/get``), its folders listed
    # by the source, and a mismatch offers asking the source again.
    asks_again: bool = False
    # Its sources show a pinned version (a git source's commit) until the person
    # reviews what a newer one changes and updates (Check for updates).
    pinned: bool = False
    # The transports whose sources may ask the user to sign in (OAuth), and those whose
    # sources are programs started here, with an error output the window can show.
    sign_in_transports: tuple[str, ...] = ()
    output_transports: tuple[str, ...] = ()
    # Words and icons per transport, where they differ from ``word`` and ``icon``.
    transport_words: Mapping[str, str] = field(default_factory=dict)
    transport_icons: Mapping[str, str] = field(default_factory=dict)
    # Icon names: the platform theme's name and Qt's standard pixmap (``SP_…``) when
    # the theme has none.
    icons: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def word_for(self, transport: str) -> str:
        """The plain word for a source of this kind reached by ``transport``."""
        return self.transport_words.get(transport, self.word)

    def icon_for(self, transport: str) -> str:
        """The icon's name for a source of this kind reached by ``transport``."""
        return self.transport_icons.get(transport, self.icon)

    def signs_in(self, transport: str) -> bool:
        """Whether a source of this kind reached by ``transport`` may ask for a sign-in."""
        return transport in self.sign_in_transports

    def shows_output(self, transport: str) -> bool:
        """Whether a source of this kind reached by ``transport`` is a program started
        here, whose error output can be shown."""
        return transport in self.output_transports

    @property
    def third_party(self) -> bool:
        """Whether its skills are someone else's program's (marked third-party)."""
        return self.runs_code


FOLDER = KindInfo(
    name="local",
    transports=("folder",),
    word="folder",
    icon="folder",
    folder_on_disk=True,
    path_endpoint=True,
    icons={"folder": ("folder", "SP_DirIcon")},
)
MCP_SERVER = KindInfo(
    name="mcp",
    transports=("stdio", "http"),
    word="server",
    icon="remote server",
    runs_code=True,
    asks_again=True,
    sign_in_transports=("http",),
    output_transports=("stdio",),
    transport_words={"stdio": "local process", "http": "remote server"},
    transport_icons={"stdio": "local process", "http": "remote server"},
    icons={
        "local process": ("utilities-terminal", "SP_ComputerIcon"),
        "remote server": ("network-server", "SP_DriveNetIcon"),
    },
)

_KINDS: dict[str, KindInfo] = {FOLDER.name: FOLDER, MCP_SERVER.name: MCP_SERVER}


def describe_kind(info: KindInfo) -> None:
    """Make ``info`` known by its name (a kind's registration does it)."""
    for transport in info.transports:
        owner = next((k for k in _KINDS.values() if transport in k.transports), None)
        if owner is not None and owner.name != info.name:
            raise ValueError(f"the transport {transport!r} is the {owner.name!r} kind's")
    _KINDS[info.name] = info


def kind_info(name: str) -> KindInfo:
    """What the kind ``name`` is; an unknown kind is taken as one that runs something
    (the careful reading: trust first, third-party)."""
    found = _KINDS.get(name)
    if found is not None:
        return found
    return KindInfo(name=name, transports=(), word=name, icon="remote server", runs_code=True)


def known_kinds() -> tuple[KindInfo, ...]:
    """Every kind described so far, in the order they were described."""
    return tuple(_KINDS.values())


def icon_names() -> dict[str, tuple[str, str]]:
    """Every kind's icons by name: (the theme's name, Qt's standard pixmap)."""
    out: dict[str, tuple[str, str]] = {}
    for info in _KINDS.values():
        out.update(info.icons)
    return out


def is_known(kind: str, transport: str) -> bool:
    """Whether ``kind`` is a described kind and ``transport`` one of its ways."""
    found = _KINDS.get(kind)
    return found is not None and transport in found.transports

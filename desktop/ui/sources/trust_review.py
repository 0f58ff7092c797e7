"""The window's project trust: a message bar that says a project folder's config files
want to start servers, and a dialog that lists every command and URL before anything
runs. Trusting records each entry as shown (its digest) in the user's settings; the
window then reads its sources again, and the trusted servers start.

Third-party text (server ids, commands, URLs, file names) is shown as plain text only.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.states import TrustState
from desktop.core.trust import CHANGED, ProjectServer
from desktop.core.visible import cut, one_line
from desktop.core.words import count

Spawn = Callable[[Coroutine[Any, Any, Any], str], Any]


def _file_name(server: ProjectServer) -> str:
    """The config file as the project names it (``.vscode/mcp.json``), one visible line."""
    path = Path(server.file)
    try:
        return cut(one_line(path.absolute().relative_to(Path(server.project)).as_posix()))
    except ValueError:
        return cut(one_line(path.name))


def bar_text(servers: list[ProjectServer]) -> str:
    """``This folder's .mcp.json wants to start 2 servers.`` and the like."""
    files = list(dict.fromkeys(_file_name(s) for s in servers))
    named = files[0] if len(files) == 1 else ", ".join(files[:-1]) + " and " + files[-1]
    stdio = sum(1 for s in servers if s.spec.kind_info.shows_output(s.spec.transport))
    verb = (
        "start" if stdio == len(servers) else "connect to" if stdio == 0 else "start or connect to"
    )
    wants = "wants" if len(files) == 1 else "want"
    changed = sum(1 for s in servers if s.state == CHANGED)
    text = f"This folder's {one_line(named)} {wants} to {verb} {count(len(servers), 'server')}."
    if changed:
        text += f" {count(changed, 'server')} changed since you trusted it."
    return text + " Nothing has run."


class TrustBar(QFrame):
    """Shown while a project's servers wait for the user's trust; Review… opens the list."""

    def __init__(
        self,
        parent: QWidget | None,
        *,
        spawn: Spawn,
        trust: Callable[[list[ProjectServer]], Coroutine[Any, Any, int]],
        reload: Callable[[], Coroutine[Any, Any, Any]],
        warn: Callable[[str], object],
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trustBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Project servers not trusted")
        self._spawn, self._reload, self._warn = spawn, reload, warn
        self._trust = trust  # the session's: the one door for decisions
        self.servers: list[ProjectServer] = []
        self.dismissed: tuple[str, ...] = ()
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.review_button = QPushButton("Revie&w…", self)
        self.review_button.setToolTip(
            "See every command and URL this folder's config files ask for, and trust them"
        )
        self.review_button.clicked.connect(self.review)
        self.close_button = QPushButton("Not now", self)
        self.close_button.setToolTip("Hide this until the folder's servers change")
        self.close_button.clicked.connect(self._dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.review_button)
        layout.addWidget(self.close_button)
        self.dialog: TrustDialog | None = None
        self.hide()

    def _key(self) -> tuple[str, ...]:
        return tuple(f"{s.key}@{s.digest}" for s in self.servers)

    def set_servers(self, servers: list[ProjectServer]) -> None:
        self.servers = list(servers)
        if not self.servers:
            self.hide()
            return
        self.label.setText(bar_text(self.servers))
        self.setVisible(self._key() != self.dismissed)

    def _dismiss(self) -> None:
        self.dismissed = self._key()
        self.hide()

    def review(self) -> None:
        if not self.servers:
            return
        self.dialog = TrustDialog(self.window(), self.servers)
        self.dialog.accepted.connect(self._trust_shown)
        self.dialog.open()

    def _trust_shown(self) -> None:
        dialog = self.dialog
        if dialog is None:
            return
        self._spawn(self.trust(dialog.chosen()), "trusting the folder's servers")

    async def trust(self, servers: list[ProjectServer]) -> None:
        """Trust ``servers`` as they were shown, then read the sources again."""
        from desktop.session.decisions import TrustNotSaved

        try:
            await self._trust(servers)
        except (TrustNotSaved, OSError) as exc:
            self._warn(f"nothing was trusted: {exc}")
            return
        if len(servers) == len(self.servers):
            self.hide()
        await self._reload()


class TrustDialog(QDialog):
    """Every server the folder's files ask for: what it would run or contact as the
    file writes it, which file asks, and what changed since it was trusted, each with a
    check box (all checked at first). Nothing has run."""

    def __init__(self, parent: QWidget | None, servers: list[ProjectServer]) -> None:
        super().__init__(parent)
        self.setObjectName("trustDialog")
        self.setWindowTitle("Review this folder's servers")
        self.servers = list(servers)
        self.resize(760, 420)
        intro = QLabel(self)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        project = servers[0].project if servers else ""
        intro.setText(
            f"Config files in {one_line(project)} ask Skill Catalog to start these commands "
            "and connect to these URLs, shown as the files write them. Nothing has run. "
            "Trust them only if you trust this folder's authors: a command runs with your "
            "permissions, and a URL gets the values its headers and ${...} placeholders "
            "name. Trust is kept in your settings for the entries as written now; if a "
            "file changes one, you are asked again. Uncheck a server to leave it untrusted."
        )
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("trustList")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Server", "What it would run or contact"])
        self.tree.setAccessibleName("Servers this folder asks for")
        self.tree.setWordWrap(False)
        self.tree.setUniformRowHeights(False)
        self.items: list[QTreeWidgetItem] = []
        for s in self.servers:
            state = TrustState(s.state).label
            top = QTreeWidgetItem([cut(one_line(s.server_id), 80), f"{_file_name(s)} — {state}"])
            top.setToolTip(0, "Checked: trusted and started when you press Trust")
            top.setToolTip(1, cut(one_line(s.file)))
            top.setFlags(top.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            top.setCheckState(0, Qt.CheckState.Checked)
            for what, shown in s.shown:  # one visible line each, the command first
                part = QTreeWidgetItem([what, shown])
                part.setToolTip(0, what)  # a long name is elided in its column
                part.setToolTip(1, shown)
                top.addChild(part)
            for change in s.changed:
                top.addChild(QTreeWidgetItem(["changed", cut(one_line(change))]))
            self.tree.addTopLevelItem(top)
            top.setExpanded(True)
            self.items.append(top)
        self.tree.resizeColumnToContents(0)
        # A long name (an env or header name is the file's text) is elided rather than
        # pushing what the server would run out of sight.
        narrow = self.fontMetrics().horizontalAdvance("x" * 32)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), narrow))
        buttons = QDialogButtonBox(self)
        self.trust_button = buttons.addButton("", QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(
            "Do&n't trust", QDialogButtonBox.ButtonRole.RejectRole
        )
        self.trust_button.setAutoDefault(False)
        self.cancel_button.setDefault(True)  # Enter does not trust
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.tree.itemChanged.connect(lambda *_: self._update_button())
        self._update_button()
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)

    def chosen(self) -> list[ProjectServer]:
        """The servers checked: what pressing Trust trusts."""
        return [
            s
            for s, item in zip(self.servers, self.items, strict=True)
            if item.checkState(0) == Qt.CheckState.Checked
        ]

    def _update_button(self) -> None:
        n = len(self.chosen())
        self.trust_button.setText(f"&Trust and start {count(n, 'server')}")
        self.trust_button.setEnabled(n > 0)

    def shown_text(self) -> str:
        """Everything the list shows, as text (for tests and the accessible summary)."""
        lines: list[str] = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            lines.append(f"{top.text(0)}  {top.text(1)}")
            for j in range(top.childCount()):
                child = top.child(j)
                if child is not None:
                    lines.append(f"  {child.text(0)}: {child.text(1)}")
        return "\n".join(lines)

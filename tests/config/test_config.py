"""The saved sources file, first-run defaults, labels across everything, secrets."""

from __future__ import annotations

import json
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from desktop.core.model import SourceSpec
from desktop.core.placeholders import resolve_pairs
from desktop.sources.config import saved as config

pytestmark = pytest.mark.timeout(60)

SECRET = "sk-live-0a1b2c3d4e5f6a7b8c9d0e1f"


class MemorySecrets:
    """A keyring stand-in for the tests that are about the file, not the keyring."""

    def __init__(self, available: bool = True) -> None:
        self.entries: dict[str, str] = {}
        self._available = available

    def available(self) -> tuple[bool, str]:
        return self._available, "" if self._available else "no OS keyring is available"

    def set(self, entry: str, value: str) -> None:
        self.entries[entry] = value

    def get(self, entry: str) -> str | None:
        return self.entries.get(entry)

    def delete(self, entry: str) -> None:
        self.entries.pop(entry, None)


def test_config_file_respects_xdg_config_home(
    tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config.config_path() == tmp_home / ".config" / "skill-catalog" / "sources.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config.config_path() == tmp_path / "xdg" / "skill-catalog" / "sources.json"


def test_first_run_has_the_bundled_samples(tmp_home: Path) -> None:
    sources = config.collect_sources(cwd=tmp_home)
    assert sources.first_run
    specs = {s.label: s for s in sources.specs}
    samples = specs["samples"]
    assert (samples.kind, samples.transport) == ("local", "folder")
    assert Path(samples.endpoint, "").is_dir()
    server = specs["sample-server"]
    assert server.transport == "stdio"
    assert server.command[:4] == (sys.executable, "-m", "desktop", "serve")
    assert Path(server.command[4]).name == "sample-server" and Path(server.command[4]).is_dir()
    assert [e.origin for e in sources.entries] == ["bundled", "bundled"]


def test_saved_sources_replace_the_first_run(tmp_home: Path) -> None:
    cfg = config.first_run_config()
    cfg.set_enabled("sample-server", False)
    cfg.add(SourceSpec("mine", "local", "folder", str(tmp_home)))
    assert config.save_config(cfg) == []
    again = config.load_config()
    assert again.exists and again.problems == []
    assert [s.spec.label for s in again.sources] == ["samples", "sample-server", "mine"]
    assert again.get("sample-server").spec.enabled is False
    # The bundled entries are saved as markers, not as this interpreter's path.
    text = config.config_path().read_text()
    assert sys.executable not in text
    mode = stat.S_IMODE(config.config_path().stat().st_mode)
    assert mode == 0o600
    # Removing the samples sticks: no first run any more.
    again.remove("samples")
    again.remove("sample-server")
    config.save_config(again)
    assert [s.label for s in config.default_sources(cwd=tmp_home)] == ["mine"]


def test_a_damaged_config_is_reported_not_fatal(tmp_home: Path) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    sources = config.collect_sources(cwd=tmp_home)
    assert sources.specs == []
    assert "cannot read the saved sources" in sources.problems[0][1]
    path.write_text(
        json.dumps(
            {
                "sources": [
                    {"label": "ok", "kind": "local", "transport": "folder", "endpoint": "/x"},
                    {
                        "label": "bad:label",
                        "kind": "local",
                        "transport": "folder",
                        "endpoint": "/y",
                    },
                    {"label": "nocmd", "kind": "mcp", "transport": "stdio", "endpoint": "x"},
                    {"label": "ok", "kind": "mcp", "transport": "http", "endpoint": "https://a"},
                    "junk",
                ]
            }
        )
    )
    cfg = config.load_config()
    assert [s.spec.label for s in cfg.sources] == ["ok"]
    assert len(cfg.problems) == 4


def test_labels_unique_across_saved_detected_and_imported(tmp_home: Path) -> None:
    (tmp_home / ".claude/skills").mkdir(parents=True)
    (tmp_home / ".config/Claude").mkdir(parents=True)
    (tmp_home / ".config/Claude/claude_desktop_config.json").write_text(
        json.dumps({"mcpServers": {"claude-user": {"command": "a"}, "samples": {"command": "b"}}})
    )
    (tmp_home / ".cursor").mkdir()
    (tmp_home / ".cursor/mcp.json").write_text(
        json.dumps({"mcpServers": {"claude-user": {"command": "c"}, "same": {"command": "a"}}})
    )
    sources = config.collect_sources(cwd=tmp_home.parent)
    labels = [s.label for s in sources.specs]
    assert len(labels) == len({label.casefold() for label in labels})
    assert labels == [
        "claude-user",
        "claude-user-claude-desktop",
        "samples-claude-desktop",
        "claude-user-cursor",
    ]
    # The Cursor "same" server is the Claude Desktop "claude-user" one: listed once.
    assert [s.command for s in sources.specs].count(("a",)) == 1


def test_detected_sources_can_be_switched_off(tmp_home: Path) -> None:
    (tmp_home / ".claude/skills").mkdir(parents=True)
    (tmp_home / ".cursor").mkdir()
    (tmp_home / ".cursor/mcp.json").write_text('{"mcpServers": {"t": {"command": "t"}}}')
    entries = {e.spec.label: e for e in config.collect_sources(cwd=tmp_home).entries}
    cfg = config.first_run_config()
    cfg.set_enabled(entries["claude-user"].key, False)
    cfg.set_enabled(entries["t"].key, False)
    config.save_config(cfg)
    specs = {s.label: s for s in config.default_sources(cwd=tmp_home)}
    assert specs["claude-user"].enabled is False and specs["t"].enabled is False
    assert "samples" not in specs  # sources of the user's own were found
    cfg.set_enabled(entries["t"].key, True)
    config.save_config(cfg)
    assert {s.label: s for s in config.default_sources(cwd=tmp_home)}["t"].enabled is True


def test_a_kept_import_is_saved_with_its_secret_in_the_keyring(tmp_home: Path) -> None:
    (tmp_home / ".cursor").mkdir()
    (tmp_home / ".cursor/mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "remote": {
                        "url": "https://mcp.example.com/mcp",
                        "headers": {"Authorization": f"Bearer {SECRET}", "X-Team": "blue"},
                    },
                    "local": {"command": "srv", "env": {"API_KEY": SECRET, "T": "${env:T}"}},
                }
            }
        )
    )
    imported = config.load_config_file(tmp_home / ".cursor/mcp.json")
    cfg = config.load_config()
    for server in imported.servers:
        cfg.keep_imported(server)
    secrets = MemorySecrets()
    assert config.save_config(cfg, secrets=secrets) == []
    text = config.config_path().read_text()
    assert SECRET not in text
    saved = json.loads(text)["sources"]
    remote = next(s for s in saved if s["label"] == "remote")
    assert remote["headers"] == {
        "Authorization": "${keyring:source/remote/header/Authorization}",
        "X-Team": "blue",
    }
    assert remote["imported_from"]["client"] == "Cursor"
    local = next(s for s in saved if s["label"] == "local")
    assert local["env"] == {"API_KEY": "${keyring:source/local/env/API_KEY}", "T": "${env:T}"}
    # The kept servers are not listed a second time as detected imports.
    labels = [e.spec.label for e in config.collect_sources(cwd=tmp_home.parent).entries]
    assert labels.count("remote") == 1 and not any(x.startswith("remote-") for x in labels)
    # At connect time the reference resolves to the secret again.
    spec = config.load_config().get("remote").spec
    resolved = resolve_pairs(spec.headers, {}, secret_lookup=secrets.get)
    assert resolved["Authorization"] == f"Bearer {SECRET}"
    # Removing the source removes its secret.
    cfg = config.load_config()
    cfg.remove("remote", secrets)
    assert "source/remote/header/Authorization" not in secrets.entries


def test_without_a_keyring_a_secret_is_never_written(tmp_home: Path) -> None:
    cfg = config.load_config()
    cfg.add(SourceSpec("api", "mcp", "http", "https://x/mcp", headers=(("X-Api-Key", SECRET),)))
    cfg.add(
        SourceSpec("fine", "mcp", "http", "https://y/mcp", headers=(("X-Api-Key", "${env:K}"),))
    )
    messages = config.save_config(cfg, secrets=MemorySecrets(available=False))
    assert len(messages) == 1
    assert "api was not saved" in messages[0] and "no OS keyring" in messages[0]
    assert "${env:NAME}" in messages[0]
    assert SECRET not in messages[0]
    text = config.config_path().read_text()
    assert SECRET not in text
    assert [s["label"] for s in json.loads(text)["sources"]] == ["fine"]


def test_repr_of_imported_server_hides_secrets(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {"s": {"command": "s", "env": {"TOKEN": SECRET}}}}))
    server = config.load_config_file(path).servers[0]
    assert SECRET not in repr(server)
    assert SECRET not in str(server.preview())
    assert replace(server.spec).env == (("TOKEN", SECRET),)  # kept for this session only


@pytest.mark.keyring
def test_secret_goes_to_the_real_keyring(tmp_home: Path, secret_service: object) -> None:
    cfg = config.load_config()
    cfg.add(
        SourceSpec(
            "vault",
            "mcp",
            "http",
            "https://v/mcp",
            headers=(("Authorization", f"Bearer {SECRET}"),),
        )
    )
    assert config.save_config(cfg) == []
    assert SECRET not in config.config_path().read_text()
    assert config.secret_lookup("source/vault/header/Authorization") == f"Bearer {SECRET}"
    cfg = config.load_config()
    cfg.remove("vault")
    assert config.secret_lookup("source/vault/header/Authorization") is None


def test_with_the_fail_keyring_backend_nothing_secret_is_saved(tmp_home: Path) -> None:
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        cfg = config.load_config()
        cfg.add(SourceSpec("api", "mcp", "stdio", "srv", ("srv",), env=(("API_TOKEN", SECRET),)))
        messages = config.save_config(cfg)
    finally:
        keyring.set_keyring(previous)
    assert "api was not saved" in messages[0] and "no OS keyring" in messages[0]
    assert SECRET not in config.config_path().read_text()


def test_source_spec_repr_hides_env_and_headers() -> None:
    spec = SourceSpec("s", "mcp", "http", "https://x", headers=(("Authorization", SECRET),))
    assert SECRET not in repr(spec) and SECRET not in str(spec)


def test_secrets_in_command_arguments_and_urls_go_to_the_keyring(tmp_home: Path) -> None:
    cfg = config.load_config()
    cfg.add(
        SourceSpec(
            "cli",
            "mcp",
            "stdio",
            f"srv --token {SECRET} --mode fast",
            ("srv", "--token", SECRET, "--mode", "fast", f"--api-key={SECRET}"),
        )
    )
    cfg.add(
        SourceSpec("web", "mcp", "http", f"https://u:{SECRET}@h.example/mcp?api_key={SECRET}&v=2")
    )
    secrets = MemorySecrets()
    assert config.save_config(cfg, secrets=secrets) == []
    text = config.config_path().read_text()
    assert SECRET not in text
    cli = config.load_config().get("cli").spec
    assert cli.command == (
        "srv",
        "--token",
        "${keyring:source/cli/arg/2}",
        "--mode",
        "fast",
        "--api-key=${keyring:source/cli/arg/5}",
    )
    assert SECRET not in cli.endpoint
    web = config.load_config().get("web").spec
    assert web.endpoint == (
        "https://u:${keyring:source/web/url/password}@h.example/mcp"
        "?api_key=${keyring:source/web/url/api_key}&v=2"
    )
    from desktop.core.resolved_spec import resolve_spec

    assert resolve_spec(cli, {}, secret_lookup=secrets.get).command[2] == SECRET
    assert resolve_spec(web, {}, secret_lookup=secrets.get).endpoint == (
        f"https://u:{SECRET}@h.example/mcp?api_key={SECRET}&v=2"
    )


def test_preview_masks_secrets_in_command_and_url(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "a": {"command": "srv", "args": ["--token", SECRET, "@scope/pkg-2025"]},
                    "b": {"type": "http", "url": f"https://u:{SECRET}@h/mcp?token={SECRET}"},
                }
            }
        )
    )
    servers = config.load_config_file(path).servers
    for server in servers:
        assert SECRET not in repr(server) and SECRET not in json.dumps(server.preview())
    assert servers[0].preview()["endpoint"] == "srv --token ****" + SECRET[-4:] + " @scope/pkg-2025"


def test_sample_server_command_in_a_frozen_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = tmp_path / "skill-catalog-window"
    cli = tmp_path / "skill-catalog"
    window.touch()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(window))
    # Without the command-line executable beside it, the window's own is used.
    assert config.sample_server_command(tmp_path / "s")[0] == str(window)
    cli.touch()
    assert config.sample_server_command(tmp_path / "s") == (str(cli), "serve", str(tmp_path / "s"))
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    (tmp_path / "bundle" / "resources" / "skills").mkdir(parents=True)
    monkeypatch.delenv("SKILL_CATALOG_RESOURCES", raising=False)
    assert config.resources_dir() == tmp_path / "bundle" / "resources"


def test_editing_a_source_keeps_what_the_dialog_does_not_show(tmp_home: Path) -> None:
    """The source dialog edits label, kind and where. An edit (even OK with nothing
    changed) dropped the headers and env, turned the source back on, deleted its header
    secret, and a rename left its URL secret under the old label for the next source
    of that name to overwrite. Removing it left URL and argument secrets behind."""
    secrets = MemorySecrets()
    cfg = config.load_config()
    cfg.add(
        SourceSpec(
            "web",
            "mcp",
            "http",
            f"https://h.example/mcp?api_key={SECRET}",
            headers=(("Authorization", f"Bearer {SECRET}"), ("X-Team", "blue")),
            enabled=False,
        )
    )
    assert config.save_config(cfg, secrets=secrets) == []
    saved = config.load_config().get("web").spec
    dialog = SourceSpec("web2", "mcp", "http", saved.endpoint)  # what the dialog gives back
    cfg = config.load_config()
    edited = cfg.edit("web", dialog, secrets=secrets)
    assert config.save_config(cfg, secrets=secrets) == []
    spec = config.load_config().get("web2").spec
    assert spec == edited and not spec.enabled
    assert dict(spec.headers) == {
        "Authorization": "${keyring:source/web2/header/Authorization}",
        "X-Team": "blue",
    }
    assert spec.endpoint == "https://h.example/mcp?api_key=${keyring:source/web2/url/api_key}"
    assert secrets.get("source/web2/url/api_key") == SECRET
    assert secrets.get("source/web2/header/Authorization") == f"Bearer {SECRET}"
    assert not [k for k in secrets.entries if k.startswith("source/web/")]
    cfg = config.load_config()
    cfg.remove("web2", secrets=secrets)
    assert not [k for k in secrets.entries if k.startswith("source/web2/")]


def test_saving_never_loses_saved_sources_it_could_not_read(tmp_home: Path) -> None:
    """A change made in the window rewrites the saved sources: entries this version
    cannot use are written back as they were, and a file that could not be read, or
    that a newer version wrote, is not written at all."""
    import asyncio

    from desktop.ui.sources.sources_service import SourcesService

    path = config.config_path()
    path.parent.mkdir(parents=True)
    future = {"label": "ws", "kind": "mcp", "transport": "websocket", "endpoint": "ws://x"}
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "sources": [
                    {"label": "work", "kind": "local", "transport": "folder", "endpoint": "/w"},
                    future,
                ],
            }
        )
    )
    service = SourcesService(detect=False)
    asyncio.run(service.set_enabled("work", "saved:work", False))
    written = json.loads(path.read_text())
    assert [s["label"] for s in written["sources"]] == ["work", "ws"]
    assert future in written["sources"]

    # A hand edit left a trailing comma: the file is read as none, and never replaced.
    damaged = path.read_text().replace('"switched_off"', '"extra": 1,, "switched_off"')
    path.write_text(damaged)
    with pytest.raises(config.SavedSourcesUnwritable, match="was not changed: it could not"):
        asyncio.run(service.set_enabled("work", "saved:work", True))
    assert path.read_text() == damaged

    newer = json.dumps({"version": 2, "sources": [future], "switched_off": []})
    path.write_text(newer)
    assert "newer than this version" in config.load_config().problems[0]
    with pytest.raises(config.SavedSourcesUnwritable, match="a newer version wrote it"):
        asyncio.run(service.add(SourceSpec("more", "local", "folder", "/m")))
    assert path.read_text() == newer

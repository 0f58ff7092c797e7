"""The desktop entry, the AppStream metainfo and the icons: valid for the freedesktop
tools, and consistent with each other and with the installed commands."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
APP_ID = "io.github.skillcatalog.SkillCatalog"
DESKTOP_FILE = PACKAGING / "skill-catalog.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
ICONS = ROOT / "resources" / "icons" / "hicolor"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return parser["Desktop Entry"]


def _scripts() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {**project.get("scripts", {}), **project.get("gui-scripts", {})}


def test_desktop_file_validates() -> None:
    result = subprocess.run(
        [_tool("desktop-file-validate"), str(DESKTOP_FILE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower()


def test_metainfo_validates() -> None:
    result = subprocess.run(
        [_tool("appstreamcli"), "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_desktop_entry_starts_the_window_command_with_the_app_icon() -> None:
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "skill-catalog-window"
    assert "skill-catalog-window" in _scripts()
    assert entry["Icon"] == APP_ID


def test_metainfo_names_the_desktop_entry_icon_and_commands() -> None:
    component = ET.parse(METAINFO).getroot()
    assert component.get("type") == "desktop-application"
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable[@type='desktop-id']") == DESKTOP_FILE.name
    assert component.findtext("icon[@type='stock']") == _desktop_entry()["Icon"]
    binaries = {b.text for b in component.iterfind("provides/binary")}
    assert binaries == {"skill-catalog", "skill-catalog-window"}
    assert binaries <= set(_scripts())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    assert version in {r.get("version") for r in component.iterfind("releases/release")}


def test_scalable_icon_is_an_svg() -> None:
    svg = ET.parse(ICONS / "scalable" / "apps" / f"{APP_ID}.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 256 256"


@pytest.mark.parametrize("size", PNG_SIZES)
def test_png_icon_has_its_size(size: int) -> None:
    data = (ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (size, size)
    assert data[25] == 6, "colour type RGBA (a transparent background)"

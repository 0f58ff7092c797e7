"""No keyring: the window's "How to fix" gives steps for the machine it runs on."""

from __future__ import annotations

from desktop.core.library import keyring_steps


def test_each_platform_gets_numbered_steps_ending_in_a_restart() -> None:
    for platform, first in (
        ("linux", "Install a Secret Service"),
        ("darwin", "Open Keychain Access"),
        ("win32", "Open Services"),
    ):
        steps = keyring_steps(platform).splitlines()
        assert steps[0].startswith(f"1. {first}")
        assert steps[-1] == f"{len(steps)}. Quit Skill Catalog and start it again."
    assert "gnome-keyring-daemon --unlock" in keyring_steps("linux")

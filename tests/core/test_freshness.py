"""D5: when a server's listing is asked for again, and what a re-listing changed."""

from __future__ import annotations

from desktop.core.freshness import (
    RELIST_CEILING_SECONDS,
    RELIST_FLOOR_SECONDS,
    listing_changes,
    relist_delay,
)
from desktop.core.model import Origin, Skill, SkillFile, SourceStatus

SERVER = Origin("srv", "mcp", "stdio", "serve")
FOLDER = Origin("local", "local", "folder", "/skills")
DIGEST = "sha256:" + "0" * 64


def status(origin: Origin = SERVER, ttl_ms: int | None = 30_000, state: str = "ok") -> SourceStatus:
    return SourceStatus(origin, state, ttl_ms=ttl_ms)


def test_a_listing_is_asked_again_after_its_ttl() -> None:
    assert relist_delay(status(ttl_ms=300_000)) == 300.0


def test_no_server_is_asked_more_often_than_the_floor() -> None:
    assert relist_delay(status(ttl_ms=0)) == RELIST_FLOOR_SECONDS
    assert relist_delay(status(ttl_ms=1000)) == RELIST_FLOOR_SECONDS
    assert relist_delay(status(ttl_ms=1000), floor=2.5) == 2.5


def test_a_huge_ttl_still_gives_a_delay_a_timer_can_hold() -> None:
    """A ttlMs beyond any float (a valid JSON integer all the same) raised OverflowError
    where the window schedules the next listing."""
    assert relist_delay(status(ttl_ms=10**400)) == RELIST_CEILING_SECONDS
    assert relist_delay(status(ttl_ms=10**30)) == RELIST_CEILING_SECONDS
    assert relist_delay(status(ttl_ms=3_600_000)) == 3600.0


def test_what_is_not_asked_again_on_a_timer() -> None:
    assert relist_delay(status(ttl_ms=None)) is None  # no listing (-32601, undeclared)
    assert relist_delay(status(state="error")) is None  # the user refreshes
    assert relist_delay(status(FOLDER)) is None


def skill(name: str, digest: str = DIGEST, description: str = "d") -> Skill:
    uri = f"skill://{name}/SKILL.md"
    return Skill(
        origin=SERVER,
        uri=uri,
        name=name,
        description=description,
        frontmatter={"name": name, "description": description},
        resources=(SkillFile(uri, digest, 10),),
    )


def test_changes_between_two_listings_by_id() -> None:
    before = [skill("a"), skill("b"), skill("c")]
    after = [skill("a"), skill("b", digest="sha256:" + "1" * 64), skill("d")]
    changes = listing_changes(before, after)
    assert changes.added == ("srv:skill://d/SKILL.md",)
    assert changes.changed == ("srv:skill://b/SKILL.md",)
    assert changes.removed == ("srv:skill://c/SKILL.md",)
    assert changes.summary() == "1 added, 1 changed, 1 removed"


def test_a_frontmatter_change_alone_is_a_change() -> None:
    changes = listing_changes([skill("a")], [skill("a", description="other")])
    assert changes.changed == ("srv:skill://a/SKILL.md",)


def test_the_same_listing_is_unchanged() -> None:
    changes = listing_changes([skill("a"), skill("b")], [skill("b"), skill("a")])
    assert not changes and changes.summary() == "unchanged"

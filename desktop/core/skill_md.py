"""Read a SKILL.md's raw bytes: decode, split, and read its frontmatter as YAML 1.1
(:mod:`desktop.core.frontmatter`) and, where the two versions may differ, as YAML 1.2
(:mod:`desktop.core.frontmatter_12`)."""

from __future__ import annotations

from desktop.core.checks import hidden_text_problems
from desktop.core.frontmatter import BOM, ParsedSkillMd, read_11, split_frontmatter
from desktop.core.frontmatter_12 import second_reading, version_problems
from desktop.core.model import Problem


def parse_skill_md(data: bytes) -> ParsedSkillMd:
    """Read a SKILL.md's raw bytes: decode, split, parse. Never raises on bad input."""
    if not data:
        return ParsedSkillMd(None, "", [Problem("skill-md-empty", "SKILL.md is empty", "invalid")])
    if data.find(b"\x00", 0, 8192) != -1:
        return ParsedSkillMd(
            None, "", [Problem("skill-md-binary", "SKILL.md is binary, not text", "invalid")]
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ParsedSkillMd(
            None,
            "",
            [
                Problem(
                    "skill-md-encoding",
                    f"SKILL.md is not UTF-8 ({exc.reason} at byte {exc.start})",
                    "invalid",
                )
            ],
        )
    if text.startswith(BOM):
        text = text[1:]
    yaml_text, body = split_frontmatter(text)
    if yaml_text is None:
        return ParsedSkillMd(
            None,
            body,
            [
                Problem(
                    "frontmatter-missing",
                    "SKILL.md has no YAML frontmatter (a first line '---' and a closing '---')",
                    "invalid",
                )
            ],
        )
    fields, problems, met = read_11(yaml_text)
    parsed = ParsedSkillMd(fields, body, problems, has_frontmatter=True)
    if fields is not None and met is not False:
        parsed.frontmatter_12, parsed.differences_12 = second_reading(
            yaml_text, fields, known=met is True
        )
        problems.extend(version_problems(parsed.differences_12))
    problems.extend(hidden_text_problems("the body of SKILL.md", body))
    return parsed

"""The catalog's search index finds exactly the skills the per-skill rule accepts.

``SearchIndex.select_rows`` answers a whole catalog in one pass (and remembers recent
answers); ``matches`` decides one skill at a time. Both must agree on every query a
person can type, letter by letter and back, in any case and script.
"""

from __future__ import annotations

from desktop.core.loading import read_loading
from desktop.core.model import Origin, Skill, SkillFile
from desktop.core.query import SearchIndex, SkillQuery, matches

ORIGINS = [
    Origin("local", "local", "folder", "/home/ana/skills"),
    Origin("Billing", "mcp", "stdio", "billing-server --port 7"),
    Origin("docs-ü", "mcp", "http", "https://example.org/mcp"),
]

# name, description, triggers
ROWS = [
    ("refunds", "Money back for a customer.", ["chargeback", "Geld zurück"]),
    ("invoices", "Monthly INVOICES, as PDF.", ["bill me"]),
    ("straße-plan", "Plans the Straße layout.", []),
    ("café-menu", "Le menu du CAFÉ, en français.", ["déjeuner"]),
    ("ｗｉｄｅ-name", "Full-width letters in the name.", []),
    ("ﬁle-tools", "Opens a ﬁle (ligature).", ["ΣΊΣΥΦΟΣ"]),
    ("日本語", "説明は日本語です。", ["翻訳"]),
    ("release-notes", "Writes release notes from commits.", ["changelog"]),
    ("triage", "Sorts new bug reports.", ["bugs", "Tickets"]),
]


def _skill(i: int, name: str, description: str, triggers: list[str]) -> Skill:
    origin = ORIGINS[i % len(ORIGINS)]
    frontmatter = {
        "name": name,
        "description": description,
        "metadata": {"nimblebrain": {"triggers": triggers}},
    }
    if i % 2:
        frontmatter["metadata"]["nimblebrain"]["loading-strategy"] = "always"  # type: ignore[index]
    server = origin.label if origin.kind == "mcp" else None
    loading, _ = read_loading(frontmatter, server)
    return Skill(
        origin,
        f"{name}/SKILL.md",
        name,
        description,
        frontmatter,
        (SkillFile("SKILL.md", "sha256:" + "0" * 64, 1),),
        loading=loading,
        qualified_name=f"{origin.label}:{name}" if server else name,
    )


def _catalog(copies: int = 4) -> list[Skill]:
    skills = []
    for c in range(copies):
        for j, (name, description, triggers) in enumerate(ROWS):
            i = c * len(ROWS) + j
            skills.append(_skill(i, f"{name}-{c}", description, triggers))
    return skills


def _want(skills: list[Skill], query: SkillQuery, approval: dict[str, str] | None = None):
    approval = approval or {}
    return [i for i, s in enumerate(skills) if matches(s, query, approval=approval.get(s.id))]


QUERIES = [
    # names, descriptions, origins (label, address, transport, mark), triggers
    "refunds",
    "REFUNDS-2",
    "monthly pdf",
    "billing",
    "/home/ana",
    "port 7",
    "https://example.org",
    "stdio",
    "third-party",
    "chargeback",
    "TICKETS",
    "bugs sorts",
    # case and normalisation: ß, accents, full width, ligatures, final sigma, CJK
    "STRASSE",
    "straße",
    "CAFÉ",
    "café français",
    "wide-name",
    "ＷＩＤＥ",
    "file",
    "ﬁle",
    "σίσυφος",
    "日本",
    "翻訳",
    "zurück",
    "ZURÜCK geld",
    # nothing, and what matches nothing
    "",
    "   ",
    "zzz",
    "refunds zzz",
]


def test_every_query_finds_what_the_per_skill_rule_finds() -> None:
    skills = _catalog()
    index = SearchIndex(skills)
    for text in QUERIES:
        query = SkillQuery(text)
        assert index.select_rows(query) == _want(skills, query), text
        assert [bool(x) for x in index.select(query)] == [matches(s, query) for s in skills], text


def test_typing_and_deleting_letter_by_letter_gives_the_same_answers() -> None:
    skills = _catalog()
    index = SearchIndex(skills)
    for typed in ("Release notes", "café FRANÇAIS", "ΣΊΣΥΦΟΣ file", "billing refunds-1"):
        steps = [typed[:k] for k in range(len(typed) + 1)]
        for text in steps + steps[::-1] + steps:  # type, delete, type again
            query = SkillQuery(text)
            assert index.select_rows(query) == _want(skills, query), text


def test_an_answer_is_a_new_list_each_time() -> None:
    skills = _catalog()
    index = SearchIndex(skills)
    for _ in range(2):  # computed, then remembered
        index.select_rows(SkillQuery("refunds")).clear()
    assert index.select_rows(SkillQuery("refunds")) == _want(skills, SkillQuery("refunds"))


def test_sources_strategies_and_states_restrict_as_the_rule_does() -> None:
    skills = _catalog()
    index = SearchIndex(skills)
    approval = {s.id: "approved" for s in skills[::3]}
    queries = [
        SkillQuery("", sources=frozenset({"Billing"})),
        SkillQuery("ref", sources=frozenset({"Billing", "local"})),
        SkillQuery("refunds", sources=frozenset({"Billing", "local"})),
        SkillQuery("e", strategies=frozenset({"always"})),
        SkillQuery("", states=frozenset({"approved"})),
        SkillQuery("notes", states=frozenset({"approved"})),
    ]
    for query in queries:
        assert index.select_rows(query, approval=approval) == _want(skills, query, approval)
    # The states change: once told, the index answers by the new states.
    approval = {s.id: "approved" for s in skills[1::2]}
    index.forget()
    for query in queries:
        assert index.select_rows(query, approval=approval) == _want(skills, query, approval)


def test_a_skill_read_again_is_found_by_its_new_text() -> None:
    skills = _catalog(1)
    index = SearchIndex(skills)
    assert index.select_rows(SkillQuery("chargeback")) == [0]
    assert index.select_rows(SkillQuery("Nouveau")) == []
    skills[0] = _skill(0, "refunds-0", "Nouveau texte.", [])
    index.replace(0, skills[0])
    for text in ("chargeback", "nouveau", "NOUVEAU texte", "refunds"):
        query = SkillQuery(text)
        assert index.select_rows(query) == _want(skills, query), text

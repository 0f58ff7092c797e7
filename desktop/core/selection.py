"""Which skill a prompt would pick, under each strategy hosts use, and how well evals do.

Strategies:

- ``bm25``: Okapi BM25 (k1 = 1.2, b = 0.75) over each skill's name, description,
  ``when_to_use`` and keywords, the lexical search several agents run over their skills.
  Written here rather than taken from a library: it is forty lines over our own fields,
  the index must answer a keystroke in the window without numpy, and the maintained
  libraries (``bm25s``, ``rank_bm25``) bring numpy or scipy for what a dict of postings
  does; ``benchmarks/bench_select.py`` measures it against ``bm25s``.
- ``triggers``: NimbleBrain's rule: the first skill with a declared trigger found in the
  prompt (case aside) wins; then the skills whose keywords occur twice or more.
- ``listing``: what the model can read at all after a host's listing budget: the BM25
  order, each skill marked by how the host lists it (``full``, ``cut``, ``name-only``).

Pure: no I/O.
"""

from __future__ import annotations

import heapq
import math
import random
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[a-z0-9]+")
# Words that say nothing about which skill is meant (a short list: a prompt is short).
STOP = frozenset(
    {
        "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from",
        "how", "i", "in", "is", "it", "me", "my", "of", "on", "or", "please", "the", "this",
        "to", "use", "when", "with", "you", "your",
    }
)  # fmt: skip


def words(text: str) -> list[str]:
    """The words of ``text`` as the index keeps them: lowercase, without stop words, a
    plural's trailing "s" dropped (``forms`` finds ``form``)."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOP:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


@dataclass(frozen=True, slots=True)
class Doc:
    """One skill as selection sees it."""

    id: str
    name: str
    description: str = ""
    when_to_use: str = ""
    keywords: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(
            (self.name.replace("-", " "), self.description, self.when_to_use, *self.keywords)
        )


def doc_of(skill: Any) -> Doc:
    """A :class:`Doc` of a catalog skill (name, description, ``when_to_use``, loading)."""
    fm = skill.frontmatter or {}
    when = fm.get("when_to_use") or fm.get("when-to-use") or ""
    loading = skill.loading
    keywords = tuple(str(k) for k in (fm.get("keywords") or ()) if isinstance(k, str | int))
    if isinstance(fm.get("keywords"), str):
        keywords = tuple(k.strip() for k in fm["keywords"].split(",") if k.strip())
    return Doc(
        skill.id,
        skill.name,
        skill.description if isinstance(skill.description, str) else "",
        when if isinstance(when, str) else "",
        keywords + tuple(loading.tool_affinity),
        tuple(loading.triggers),
    )


@dataclass(slots=True)
class Index:
    """A BM25 index with its scores computed once (eager): for each word, the documents
    holding it and the word's BM25 part of each one's score, in two flat arrays (eight
    bytes a posting; a list of tuples took ten times that at 100,000 skills)."""

    docs: list[Doc] = field(default_factory=list)
    postings: dict[str, tuple[array[int], array[float]]] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    average: float = 0.0

    @classmethod
    def build(cls, docs: Iterable[Doc]) -> Index:
        index = cls()
        counted: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            index.docs.append(doc)
            counts = Counter(words(doc.text))
            index.lengths.append(sum(counts.values()))
            for word, n in counts.items():
                counted.setdefault(word, []).append((i, n))
        total = len(index.docs)
        index.average = avg = (sum(index.lengths) / total) if total else 0.0
        norms = [K1 * (1 - B + B * n / (avg or 1.0)) for n in index.lengths]
        for word, found in counted.items():
            idf = math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            ids = array("i", (i for i, _ in found))
            parts = array("d", (idf * tf * (K1 + 1) / (tf + norms[i]) for i, tf in found))
            index.postings[word] = (ids, parts)
        return index

    def idf(self, word: str) -> float:
        found = self.postings.get(word)
        n = len(found[0]) if found else 0
        total = len(self.docs)
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    def scores(self, prompt: str) -> dict[int, float]:
        out: dict[int, float] = {}
        get = out.get
        for word in set(words(prompt)):
            found = self.postings.get(word)
            if found is None:
                continue
            for i, part in zip(*found, strict=True):
                out[i] = get(i, 0.0) + part
        return out

    def score_doc(self, doc: Doc, prompt: str) -> float:
        """``doc``'s BM25 score for ``prompt`` with this index's statistics (a draft of one
        of its documents, scored without building the index again)."""
        counts = Counter(words(doc.text))
        norm = K1 * (1 - B + B * sum(counts.values()) / (self.average or 1.0))
        return sum(
            self.idf(w) * counts[w] * (K1 + 1) / (counts[w] + norm)
            for w in set(words(prompt))
            if counts[w]
        )

    def rank(
        self, prompt: str, top: int | None = 10, draft: Doc | None = None
    ) -> list[tuple[Doc, float]]:
        """The documents that share a word with ``prompt``, best first (ties by name);
        ``draft`` stands in for the document of its id."""
        scored = self.scores(prompt)
        docs = self.docs
        if draft is not None:
            at = next((i for i, d in enumerate(docs) if d.id == draft.id), None)
            if at is not None:
                docs = list(docs)
                docs[at] = draft
                score = self.score_doc(draft, prompt)
                if score > 0:
                    scored[at] = score
                else:
                    scored.pop(at, None)
        if top is None:
            chosen = list(scored.items())
        else:
            chosen = heapq.nlargest(top, scored.items(), key=itemgetter(1))
        chosen.sort(key=lambda kv: (-kv[1], docs[kv[0]].name))
        return [(docs[i], s) for i, s in chosen]


def by_triggers(docs: Sequence[Doc], prompt: str) -> list[tuple[Doc, str]]:
    """NimbleBrain's rule: the first skill whose trigger occurs in ``prompt`` (case aside)
    wins; then every skill whose keywords occur in it twice or more."""
    lowered = prompt.lower()
    for doc in docs:
        for trigger in doc.triggers:
            if trigger and trigger.lower() in lowered:
                return [(doc, f"trigger {trigger!r}")]
    out = []
    for doc in docs:
        hits = [k for k in doc.keywords if k and k.lower() in lowered]
        if len(hits) >= 2:
            out.append((doc, "keywords " + ", ".join(repr(h) for h in hits)))
    return out


@dataclass(frozen=True, slots=True)
class Pick:
    """One skill a strategy returns for a prompt."""

    id: str
    name: str
    score: float = 0.0
    why: str = ""
    listing: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "score": round(self.score, 4)}
        if self.why:
            out["why"] = self.why
        if self.listing:
            out["listing"] = self.listing
        return out


def select(
    index: Index,
    prompt: str,
    top: int = 5,
    listings: Mapping[str, str] | None = None,
    draft: Doc | None = None,
) -> dict[str, list[Pick]]:
    """The picks of each strategy for ``prompt``. ``listings``: how a host lists each skill
    by id (``full``, ``cut``, ``name-only``, ``dropped``), for ``listing``; ``draft``: a
    document standing in for the one of its id."""
    ranked = index.rank(prompt, None, draft)
    bm25 = [Pick(d.id, d.name, s) for d, s in ranked[:top]]
    docs = index.docs if draft is None else [draft if d.id == draft.id else d for d in index.docs]
    triggers = [Pick(d.id, d.name, 1.0, why) for d, why in by_triggers(docs, prompt)][:top]
    listing: list[Pick] = []
    if listings is not None:
        for d, s in ranked:
            shown = listings.get(d.id, "full")
            if shown == "dropped":
                continue
            if shown == "name-only":
                # The model reads the name alone: only the name's words can match.
                s = sum(index.idf(w) for w in set(words(prompt)) & set(words(d.name)))
            listing.append(Pick(d.id, d.name, s, listing=shown))
        listing.sort(key=lambda p: (-p.score, p.name))
        listing = [p for p in listing if p.score > 0][:top]
    return {"bm25": bm25, "triggers": triggers, "listing": listing}


# -- evaluations ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One eval: a prompt, whether it should pull a skill in, which one (when said)."""

    query: str
    should_trigger: bool
    expected: str = ""  # a skill's name; "" when the eval belongs to one skill's file


class EvalError(ValueError):
    """An eval file that cannot be read, with the reason."""


def parse_evals(data: object, default_skill: str = "") -> list[EvalQuery]:
    """``eval_queries.json`` (``[{"query", "should_trigger", "expected_skill"?}]``) or a
    skill's ``evals/evals.json`` (the same list, or ``{"evals": [...]}``)."""
    if isinstance(data, dict) and isinstance(data.get("evals"), list):
        data = data["evals"]
    if not isinstance(data, list):
        raise EvalError("an eval file is a list of {query, should_trigger}")
    out = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise EvalError(f"eval {i + 1} has no query text")
        trigger = item.get("should_trigger", True)
        if not isinstance(trigger, bool):
            raise EvalError(f"eval {i + 1}: should_trigger is not true or false")
        expected = item.get("expected_skill") or default_skill
        out.append(EvalQuery(item["query"], trigger, str(expected) if expected else ""))
    return out


def split(evals: Sequence[EvalQuery], seed: int = 0) -> tuple[list[EvalQuery], list[EvalQuery]]:
    """A stable 60/40 train and validation split (shuffled with ``seed``)."""
    order = list(evals)
    random.Random(seed).shuffle(order)
    cut = round(len(order) * 0.6)
    return order[:cut], order[cut:]


@dataclass(slots=True)
class Score:
    """Counts for one skill under one strategy."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "true_positives": self.tp,
            "false_positives": self.fp,
            "false_negatives": self.fn,
        }


@dataclass(slots=True)
class EvalReport:
    """Recall and precision per strategy and skill, and the prompts other skills steal."""

    scores: dict[str, dict[str, Score]] = field(default_factory=dict)
    stolen: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "strategies": {
                strategy: {name: s.to_json() for name, s in sorted(per.items())}
                for strategy, per in self.scores.items()
            },
            "confusions": self.stolen,
        }


def evaluate(
    index: Index, evals: Sequence[EvalQuery], listings: Mapping[str, str] | None = None
) -> EvalReport:
    """Each eval run through each strategy: the top pick is the skill chosen."""
    report = EvalReport()
    for e in evals:
        picks = select(index, e.query, top=1, listings=listings)
        for strategy, found in picks.items():
            if strategy == "listing" and listings is None:
                continue
            per = report.scores.setdefault(strategy, {})
            chosen = found[0].name if found else ""
            if e.should_trigger and e.expected:
                score = per.setdefault(e.expected, Score())
                if chosen == e.expected:
                    score.tp += 1
                else:
                    score.fn += 1
                    if chosen:
                        per.setdefault(chosen, Score()).fp += 1
                        if strategy == "bm25":
                            report.stolen.append(
                                {"query": e.query, "expected": e.expected, "chosen": chosen}
                            )
            elif not e.should_trigger and chosen:
                target = e.expected or chosen
                if chosen == target:
                    per.setdefault(chosen, Score()).fp += 1
    return report


def close_pairs(docs: Sequence[Doc], threshold: float = 0.6) -> list[tuple[Doc, Doc, float]]:
    """Pairs of skills whose descriptions are so alike (tf-idf cosine at or above
    ``threshold``) that they compete for the same prompts."""
    index = Index.build(docs)
    vectors: list[dict[str, float]] = []
    for doc in docs:
        counts = Counter(words(doc.text))
        vec = {w: n * index.idf(w) for w, n in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({w: v / norm for w, v in vec.items()})
    out = []
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            a, b = vectors[i], vectors[j]
            if len(a) > len(b):
                a, b = b, a
            cosine = sum(v * b.get(w, 0.0) for w, v in a.items())
            if cosine >= threshold:
                out.append((docs[i], docs[j], cosine))
    return sorted(out, key=lambda t: -t[2])

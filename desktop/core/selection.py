"""Which skill a prompt would pick, under the strategies hosts use. Pure: no I/O, no Qt.

* ``bm25``: Okapi BM25 (k1 = 1.2, b = 0.75) over each skill's name, description,
  ``when_to_use`` and keywords. Written here rather than taken from a library: the
  maintained one (``bm25s``) pulls in numpy and scipy for a few dozen lines, and
  ``rank_bm25`` is no longer maintained; ``benchmarks/bench_select.py`` compares
  this index with ``bm25s`` on the same texts.
* ``triggers``: NimbleBrain's rule: a case-insensitive substring of a declared
  trigger, the first hit wins; then skills whose keywords hit twice or more.
* ``listing``: the BM25 ranking over what the model can read after the host's
  listing budget (a skill listed by name only is matched on its name alone), each
  skill marked with how it is listed.

Also: per skill and strategy recall and precision over evaluation prompts, a
confusion list, a seeded 60/40 split, and pairs of descriptions close enough to
compete (cosine of tf-idf vectors).
"""

from __future__ import annotations

import heapq
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

K1 = 1.2
B = 0.75

BM25 = "bm25"
TRIGGERS = "triggers"
LISTING = "listing"
STRATEGIES = (BM25, TRIGGERS, LISTING)

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = (
    "a an and any are as at be by for from i in into is it its me my of on or our so "
    "that the this to use used user when whenever with you your"
)
_STOP = frozenset(_STOP_TEXT.split())


def tokens(text: str) -> list[str]:
    """Lowercase words without common words, a plural ``s`` taken off."""
    out: list[str] = []
    for word in _WORD.findall(text.casefold()):
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


@dataclass(frozen=True, slots=True)
class Doc:
    """One skill as the strategies see it."""

    id: str
    name: str
    description: str
    when_to_use: str = ""
    keywords: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join((self.name, self.description, self.when_to_use, " ".join(self.keywords)))


def _words(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(w.strip() for w in value.split(",") if w.strip())
    if isinstance(value, list):
        return tuple(str(w).strip() for w in value if str(w).strip())
    return ()


def doc_from_frontmatter(
    skill_id: str,
    name: str,
    description: str,
    fm: Mapping[str, Any] | None,
    triggers: Iterable[str] = (),
) -> Doc:
    fm = fm or {}
    metadata = fm.get("metadata") if isinstance(fm.get("metadata"), dict) else {}
    when = fm.get("when_to_use", fm.get("when-to-use", ""))
    keywords = _words(fm.get("keywords")) or _words((metadata or {}).get("keywords"))
    return Doc(
        skill_id,
        name,
        description,
        when if isinstance(when, str) else "",
        keywords,
        tuple(t for t in triggers if t.strip()),
    )


class Bm25Index:
    """An inverted index: per term, each document holding it with its BM25 weight
    (computed once when built, so a query only adds weights up)."""

    __slots__ = ("avg", "docs", "idf", "lengths", "weights")

    def __init__(self, docs: Sequence[Doc]) -> None:
        self.docs = list(docs)
        counts: dict[str, dict[int, int]] = {}
        self.lengths: list[int] = []
        for i, doc in enumerate(self.docs):
            words = tokens(doc.text)
            self.lengths.append(len(words))
            for term, tf in Counter(words).items():
                counts.setdefault(term, {})[i] = tf
        n = len(self.docs)
        self.avg = (sum(self.lengths) / n) if n else 0.0
        avg = self.avg or 1.0
        norms = [K1 * (1 - B + B * length / avg) for length in self.lengths]
        self.weights: dict[str, dict[int, float]] = {}
        self.idf: dict[str, float] = {}
        for term, postings in counts.items():
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            self.idf[term] = idf
            self.weights[term] = {
                i: idf * tf * (K1 + 1) / (tf + norms[i]) for i, tf in postings.items()
            }

    def scores(self, prompt: str) -> dict[int, float]:
        """Document index → score, for documents holding a prompt term."""
        found = sorted(
            (self.weights[t] for t in set(tokens(prompt)) if t in self.weights),
            key=len,
            reverse=True,
        )
        if not found:
            return {}
        out = dict(found[0])
        for weights in found[1:]:
            get = out.get
            for i, w in weights.items():
                out[i] = get(i, 0.0) + w
        return out

    def score_text(self, prompt: str, doc: Doc) -> float:
        """The score ``doc`` would have in place of a document of this index (the
        index's term statistics kept): a scratch edit, scored without a rebuild."""
        words = Counter(tokens(doc.text))
        norm = K1 * (1 - B + B * sum(words.values()) / (self.avg or 1.0))
        return sum(
            self.idf[t] * words[t] * (K1 + 1) / (words[t] + norm)
            for t in set(tokens(prompt))
            if t in self.idf and words[t]
        )

    def rank(
        self, prompt: str, top: int | None = None, replaced: Mapping[int, Doc] | None = None
    ) -> list[tuple[Doc, float]]:
        """The documents by score; ``replaced``: documents scored in place of the
        index's own at those positions (scratch edits)."""
        scores = self.scores(prompt)
        docs = self.docs
        if replaced:
            docs = list(docs)
            for i, doc in replaced.items():
                docs[i] = doc
                score = self.score_text(prompt, doc)
                if score > 0:
                    scores[i] = score
                else:
                    scores.pop(i, None)
        if top is not None and top < len(scores):
            best = heapq.nsmallest(top, scores.items(), key=lambda kv: (-kv[1], docs[kv[0]].name))
        else:
            best = sorted(scores.items(), key=lambda kv: (-kv[1], docs[kv[0]].name))
        return [(docs[i], s) for i, s in best]


@dataclass(frozen=True, slots=True)
class Ranked:
    id: str
    name: str
    score: float
    why: str = ""
    listing: str = ""  # for the listing strategy: how the skill is listed

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "score": round(self.score, 4)}
        if self.why:
            out["why"] = self.why
        if self.listing:
            out["listing"] = self.listing
        return out


def rank_bm25(index: Bm25Index, prompt: str, top: int | None = None) -> list[Ranked]:
    return [Ranked(d.id, d.name, s) for d, s in index.rank(prompt, top)]


def rank_triggers(docs: Sequence[Doc], prompt: str, top: int | None = None) -> list[Ranked]:
    """A trigger substring first (first hit wins); then two keyword hits or more."""
    text = prompt.casefold()
    words = set(tokens(prompt))
    hits: list[Ranked] = []
    for doc in docs:
        trigger = next((t for t in doc.triggers if t.casefold() in text), None)
        if trigger is not None:
            hits.append(Ranked(doc.id, doc.name, 2.0, f"trigger {trigger!r}"))
    seen = {r.id for r in hits}
    keyed: list[Ranked] = []
    for doc in docs:
        if doc.id in seen or not doc.keywords:
            continue
        matched = [k for k in doc.keywords if set(tokens(k)) & words]
        if len(matched) >= 2:
            keyed.append(
                Ranked(
                    doc.id, doc.name, float(len(matched)) / 100, f"keywords {', '.join(matched)}"
                )
            )
    keyed.sort(key=lambda r: (-r.score, r.name))
    return (hits + keyed)[:top]


def rank_listing(
    docs: Sequence[Doc], modes: Sequence[str], prompt: str, top: int | None = None
) -> list[Ranked]:
    """BM25 over what the model reads: a name-only skill by its name, a dropped or
    unloaded one not at all. Skills that would match on their full text but are not
    seen (or seen by name only, without matching) follow with score 0, marked."""
    seen: list[Doc] = []
    for doc, mode in zip(docs, modes, strict=True):
        if mode == "name-only":
            seen.append(Doc(doc.id, doc.name, ""))
        elif mode != "dropped":
            seen.append(doc)
    mode_of = {d.id: m for d, m in zip(docs, modes, strict=True)}
    ranked = [
        Ranked(d.id, d.name, s, listing=mode_of[d.id]) for d, s in Bm25Index(seen).rank(prompt)
    ]
    shown = {r.id for r in ranked}
    hidden = [
        Ranked(
            d.id,
            d.name,
            0.0,
            "the model sees only its name"
            if mode_of[d.id] == "name-only"
            else "the model cannot see it",
            mode_of[d.id],
        )
        for d, _s in Bm25Index(docs).rank(prompt)
        if d.id not in shown
    ]
    return (ranked + hidden)[:top]


# Evaluation ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EvalQuery:
    query: str
    should_trigger: bool
    expected_skill: str | None = None


def read_eval_queries(data: Any, default_skill: str | None = None) -> list[EvalQuery]:
    """Queries from ``eval_queries.json`` (a list) or a skill's ``evals/evals.json``
    (a list, or an object with ``evals`` or ``queries``). Entries without a query
    text are left out."""
    if isinstance(data, dict):
        data = data.get("evals", data.get("queries", []))
    if not isinstance(data, list):
        raise ValueError("expected a list of queries")
    out: list[EvalQuery] = []
    for item in data:
        if not isinstance(item, dict):
            continue
        query = item.get("query", item.get("prompt"))
        if not isinstance(query, str) or not query.strip():
            continue
        expected = item.get("expected_skill", default_skill)
        out.append(
            EvalQuery(
                query,
                bool(item.get("should_trigger", True)),
                expected if isinstance(expected, str) else None,
            )
        )
    return out


def split(queries: Sequence[EvalQuery], seed: int = 0) -> tuple[list[EvalQuery], list[EvalQuery]]:
    """A 60/40 train/validation split, the same for the same queries and seed."""
    order = sorted(queries, key=lambda q: (q.query, q.expected_skill or "", q.should_trigger))
    random.Random(seed).shuffle(order)
    cut = round(len(order) * 0.6)
    return order[:cut], order[cut:]


@dataclass(slots=True)
class Score:
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
    # strategy -> skill name -> score
    per_skill: dict[str, dict[str, Score]] = field(default_factory=dict)
    # (strategy, query, expected skill, the skill that took it)
    confusions: list[tuple[str, str, str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "strategies": {
                strategy: {name: s.to_json() for name, s in sorted(skills.items())}
                for strategy, skills in self.per_skill.items()
            },
            "confusions": [
                {"strategy": st, "query": q, "expected": e, "chosen": c}
                for st, q, e, c in self.confusions
            ],
        }


def evaluate(
    rankers: Mapping[str, Any], queries: Sequence[EvalQuery], names: Iterable[str]
) -> EvalReport:
    """Per strategy (``rankers``: strategy → prompt → ranked list), per skill: a
    query expecting skill S is a true positive when S ranks first, else a false
    negative (and a false positive of whichever skill ranked first instead, named in
    the confusion list); a query that should trigger nothing is a false positive of
    the skill ranked first, if any."""
    report = EvalReport()
    for strategy, ranker in rankers.items():
        scores = {n: Score() for n in names}
        for q in queries:
            ranked = ranker(q.query)
            first = ranked[0].name if ranked else None
            if q.should_trigger and q.expected_skill:
                expected = scores.setdefault(q.expected_skill, Score())
                if first == q.expected_skill:
                    expected.tp += 1
                    continue
                expected.fn += 1
                if first is not None:
                    scores.setdefault(first, Score()).fp += 1
                    report.confusions.append((strategy, q.query, q.expected_skill, first))
            elif not q.should_trigger and first is not None:
                scores.setdefault(first, Score()).fp += 1
                if q.expected_skill:
                    report.confusions.append((strategy, q.query, f"not {q.expected_skill}", first))
        report.per_skill[strategy] = scores
    return report


# Descriptions that compete --------------------------------------------------------

CLOSE = 0.6


def close_pairs(docs: Sequence[Doc], threshold: float = CLOSE) -> list[tuple[Doc, Doc, float]]:
    """Pairs of skills whose descriptions' tf-idf vectors have a cosine of at least
    ``threshold``: they compete for the same prompts."""
    bags = [Counter(tokens(d.description)) for d in docs]
    df: Counter[str] = Counter()
    for bag in bags:
        df.update(bag.keys())
    n = len(docs)
    vectors: list[dict[str, float]] = []
    for bag in bags:
        vec = {t: tf * (math.log((1 + n) / (1 + df[t])) + 1) for t, tf in bag.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({t: v / norm for t, v in vec.items()})
    by_term: dict[str, list[int]] = {}
    for i, vec in enumerate(vectors):
        for t in vec:
            by_term.setdefault(t, []).append(i)
    out: list[tuple[Doc, Doc, float]] = []
    for i, vec in enumerate(vectors):
        dots: dict[int, float] = {}
        for t, v in vec.items():
            for j in by_term[t]:
                if j > i:
                    dots[j] = dots.get(j, 0.0) + v * vectors[j][t]
        out += [(docs[i], docs[j], c) for j, c in dots.items() if c >= threshold]
    out.sort(key=lambda p: -p[2])
    return out

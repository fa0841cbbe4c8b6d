"""Rule cliques: If-Then rules mined from Wikidata triangles, and DepEdit knowledge sets.

DepEdit (Li et al. 2023) turned relation triangles into rules — two premises imply a third
fact, "[A] was born in [B]" and "[B] is in [C]" imply "[A] is a citizen of [C]" — kept those
annotators found plausible, and built knowledge sets for an establish-and-update protocol. Here
statistics stand in for the annotators.

Mining (as AMIE does, over a polars facts table) runs on a bounded subgraph of about
``max_mined_facts`` facts: on the shared slice every fact; on Wikidata the subjects whose seeded
key falls in a share holding half of it (one key for every relation, so a kept subject comes with
all its facts) and, in key order, the entities they reach with their facts, until the budget is
spent: a sample whose size does not grow with the source.
Every score is counted on the subgraph (the manifest's ``mining`` says how large it was):

* every relation is also read backwards (``P19^-1``), and a relation that is the inverse of
  another in the data (capital / capital of: >= 90% of one's facts reversed in the other) is
  rewritten as that inverse, so rules equal up to inverses merge;
* a rule is a path ``r1(x, y) ∧ r2(y, z) ⇒ r3(x, z)`` (each ri read forwards or backwards); the
  join node y is skipped when its degree exceeds ``max_join_degree`` (hubs explode the joins);
* scores: support (distinct (x, z) pairs with body and head), standard confidence, PCA
  confidence (only x that have some r3 fact count against the rule), head coverage, and the
  Wilson lower bound of the PCA confidence; tiers from the spec's thresholds on held-out
  precision stand in for DepEdit's annotator scale (``must_be_true`` only for a declared
  entailment, ``ENTAILMENTS``, whose held-out precision has a Wilson lower bound of 0.9), and
  rules rank by tier, then by the Wilson bound (which tempers PCA confidence's optimism about
  sparse heads).

Knowledge sets, per rule of a high enough tier: ``groundings`` (x, y, z) with both premises and
the implication true (12 groundings per set, up to ``sets_per_rule`` sets per rule sharing no
grounding, over at least ``min_join_entities`` distinct join entities; a premise shared by
groundings of a set is stated once in it, and may recur in another set), ``unrelated`` facts from
relations the rule does not use, every fact as question-answer pairs with >= 2 question templates,
and ``update_variants`` that edit premise facts to new objects that the source has for both the
edited relation and the implied one (so every re-derived implication is well typed),
re-deriving the implications through the rule. Tiers need PCA confidence and, for the top two,
standard confidence of at least ``tiers.min_std_confidence``. A fact is asked only when its subject and
its answer have classes (P31) the relation's question expects; its ``question`` is a question
(MQuAKE's or ``catalogs/wikidata_questions``), its ``rephrasings`` the other questions, then cloze
forms (a blank ``___`` where the answer goes). Every set is checked: no two edits conflict,
every implication follows. An ``aliases`` table holds the alias bank of every answer entity (the
paraphrase family's filters), for alias-aware matching of model answers.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa

from probesmith.builders.data import data_path
from probesmith.builders.families.paraphrases import FORMER_STATE_CLASSES as FORMER_UNIT_CLASSES
from probesmith.builders.families.paraphrases import AliasSpec, alias_bank
from probesmith.builders.families.relations import PAST_POLITY_CLASSES, PLACE_STILL_CLASSES
from probesmith.builders.names import full_name, generic_tokens, label_problem, name_leak, spelled_out
from probesmith.builders.registry import Converter, TableOutput, register_exporter, register_family
from probesmith.builders.sampling import item_rng, stable_hash
from probesmith.builders.sources import WikidataSpec, open_wikidata
from probesmith.builders.sources.catalog import DEFAULT_CATALOG, load_catalog, load_name_classes
from probesmith.builders.sources.wikidata import PREFIXES, SparqlClient, entity_id, query_log
from probesmith.builders.sources.wikidata_past import DEATH_FACTS, PAST_POLITIES
from probesmith.builders.sources.wikidata_queries import (
    MAX_SCAN,
    aliases_query,
    batched_select,
    facts_of,
    key_bound,
    labels_of,
    relation_size,
    sample_key,
    source_view,
    subject_sample,
    timeout_names_relation,
)
from probesmith.builders.text import (
    fill_template,
    is_plural_band_name,
)
from probesmith.builders.textcheck import apply_fixes
from probesmith.builders.validity import rules_table
from probesmith.builders.wikidata_output import wikidata_output
from probesmith.errors import ProbesmithError, SourceError, SpecError
from probesmith.probes.spec import ProbeSpec, read_spec_yaml, resolve_spec_path, spec_field
from probesmith.schemas.artifact import read_table, require_family
from probesmith.schemas.card import CardInfo
from probesmith.schemas.output import OutputFile
from probesmith.schemas.tables import TableSchema, unique_columns
from probesmith.schemas.wikidata import ALIASES
from probesmith.stats import wilson_interval

log = logging.getLogger(__name__)

INVERSE = "^-1"


# the family's own tables (the shared Wikidata ones are in probesmith.schemas.wikidata)
RULES = TableSchema(
    name="rules",
    version=3,
    description="Mined If-Then rules r1(x,y) ∧ r2(y,z) ⇒ r3(x,z) with AMIE-style scores.",
    schema=pa.schema(
        [
            pa.field("rule_id", pa.string(), nullable=False),
            pa.field("r1", pa.string(), nullable=False),
            pa.field("r2", pa.string(), nullable=False),
            pa.field("r3", pa.string(), nullable=False),
            pa.field("pattern", pa.string(), nullable=False),
            pa.field("support", pa.int64(), nullable=False),
            pa.field("body", pa.int64(), nullable=False),
            pa.field("pca_body", pa.int64(), nullable=False),
            pa.field("head_facts", pa.int64(), nullable=False),
            pa.field("std_confidence", pa.float64(), nullable=False),
            pa.field("pca_confidence", pa.float64(), nullable=False),
            pa.field("head_coverage", pa.float64(), nullable=False),
            pa.field("wilson_lower", pa.float64(), nullable=False),
            pa.field("heldout_predictions", pa.int64(), nullable=False),
            pa.field("heldout_precision", pa.float64(), nullable=True),
            pa.field("heldout_wilson_lower", pa.float64(), nullable=True),
            pa.field("entailment", pa.string(), nullable=False),
            pa.field("tier", pa.string(), nullable=False),
        ],
        metadata={
            "r1": "relation id; a ^-1 suffix reads it backwards",
            "wilson_lower": "Wilson lower bound (95%) of the PCA confidence, on the mined facts",
            "heldout_precision": "share of the rule's predictions found among facts hidden from mining "
            "(AMIE's test; null when none could be judged)",
            "heldout_wilson_lower": "Wilson lower bound (95%) of heldout_precision over "
            "heldout_predictions (null when none could be judged)",
            "entailment": "why the head follows from the relations' definitions; empty for a "
            "correlation (which is never must_be_true)",
            "tier": "must_be_true (an entailment with held-out Wilson lower bound >= the spec's "
            "threshold), likely, plausible, unlikely",
        },
    ),
    checks=(unique_columns("rule_id"),),
)

RULE_GROUNDINGS = TableSchema(
    name="rule_groundings",
    version=1,
    description="Groundings (x, y, z) of a rule used by one knowledge set.",
    schema=pa.schema(
        [pa.field(n, pa.string(), nullable=False) for n in ("set_id", "rule_id", "x", "y", "z")]
    ),
)

KNOWLEDGE_ITEMS = TableSchema(
    name="knowledge_items",
    version=3,
    description="Question-answer items of DepEdit knowledge sets: establish phase and update variants.",
    schema=pa.schema(
        [
            pa.field("set_id", pa.string(), nullable=False),
            pa.field("rule_id", pa.string(), nullable=False),
            pa.field("variant", pa.string(), nullable=False),
            pa.field("role", pa.string(), nullable=False),
            pa.field("is_update", pa.bool_(), nullable=False),
            pa.field("question", pa.string(), nullable=False),
            pa.field("rephrasings", pa.list_(pa.string()), nullable=False),
            pa.field("answer", pa.string(), nullable=False),
            pa.field("subject", pa.string(), nullable=False),
            pa.field("relation", pa.string(), nullable=False),
            pa.field("object", pa.string(), nullable=False),
            pa.field("statement", pa.string(), nullable=False),
            pa.field("cloze_answer", pa.string(), nullable=False),
        ],
        metadata={
            "variant": "init (establish) or 0, 1, 2 (update variants)",
            "role": "specific, unrelated or implication",
            "statement": "the fact as one sentence: the item's first cloze with its blank filled by "
            "`cloze_answer` ('Chris Martin was a citizen of the United Kingdom.'); what a knowledge editor "
            "is given to establish or update the fact",
            "cloze_answer": "what a cloze's blank stands for: the answer as English writes it there, article "
            "and all ('the United States of America', 'a cartoonist', 'the Bee Gees', 'the Juilliard "
            "School'; 'Canada' where it takes none); every cloze of the item filled with it reads as the "
            "fact. A cloze is scored on it, a question on the bare `answer`; the words before the blank "
            "are the same for the true answer and its counterfactuals (the article is the blank's)",
        },
    ),
)


@dataclass(frozen=True)
class TierSpec:
    """Thresholds of the plausibility tiers (DepEdit's annotators: 1-5), on held-out precision."""

    must_be_true: float = spec_field(
        0.9,
        help="'must be true' (score 5): the Wilson lower bound (95%) of the held-out precision reaches "
        "this, and the rule is an entailment of the relations' definitions (ENTAILMENTS), not a "
        "correlation. With every prediction right, 0.9 takes 35 held-out predictions.",
        maximum=1,
    )
    likely: float = spec_field(
        0.6, help="'likely' (score 4): held-out precision (and PCA confidence) of at least this.", maximum=1
    )
    plausible: float = spec_field(
        0.3, help="PCA confidence for 'plausible' (score 3); below: 'unlikely'.", maximum=1
    )
    min_heldout: int = spec_field(
        5,
        help="'must be true' and 'likely' need this many held-out predictions judged (AMIE's test: "
        "a keyed 20% of the facts is hidden from mining).",
    )
    min_std_confidence: float = spec_field(
        0.1,
        help="'must be true' and 'likely' also need this standard confidence: PCA confidence alone "
        "rates P131∘P131⇒P17 (false whenever the second hop is a region) as certain.",
        maximum=1,
    )


@dataclass(frozen=True)
class RulesSpec(ProbeSpec):
    """Spec of the rule-clique family."""

    wikidata: WikidataSpec = spec_field(default_factory=WikidataSpec, help="Wikidata source.")
    catalog: str = spec_field(DEFAULT_CATALOG, help="Relation catalog (templates).")
    relations: tuple[str, ...] = spec_field((), help="Relations to mine over; empty = the catalog's.")
    question_templates: str = spec_field(
        "../shared/data/mquake/question_templates.json",
        help="JSON {PID: question with [X]} (MQuAKE's); empty = none.",
    )
    questions: str = spec_field(
        "catalogs/wikidata_questions",
        help="probesmith's own questions for relations MQuAKE's templates lack (bundled name or path).",
    )
    cloze_templates: str = spec_field(
        "../shared/data/mquake/cloze_templates.json",
        help="JSON {PID: cloze with [X] and __} (MQuAKE's); catalog templates ending in [Y] add more.",
    )
    template_fixes: str = spec_field(
        "catalogs/template_fixes",
        help="Fixes of MQuAKE's questions and clozes (a typo rewritten, a form that is no English dropped), "
        "each with its reason (bundled name or path; empty = none).",
    )
    exclude_relations: tuple[str, ...] = spec_field(
        ("P31", "P279"), help="Relations left out of mining (class membership swamps the joins)."
    )
    max_join_degree: int = spec_field(200, help="Skip join entities with more facts than this (hubs).")
    max_mined_facts: int = spec_field(
        300_000,
        help="Rules are mined on a bounded subgraph of at most about this many facts. Where the "
        "relations hold fewer, all of them; else the facts of a seeded sample of subjects (one key for "
        "every relation, so a subject kept in one is kept, with all its facts, in all) filling half "
        "of it, and the facts of the entities they reach (the join entities), in key order, filling "
        "the rest. Scores are counted on the subgraph.",
        minimum=1,
    )
    min_support: int = spec_field(20, help="Rules with less support (on the mined subgraph) are not kept.")
    tiers: TierSpec = spec_field(default_factory=TierSpec, help="Plausibility tiers.")
    min_tier: str = spec_field("likely", help="Knowledge sets only for rules of this tier or better.")
    max_sets: int = spec_field(200, help="Knowledge sets at most (rules best first).", minimum=1)
    sets_per_rule: int = spec_field(
        10, help="Disjoint knowledge sets per rule at most (no subject in two sets of a rule).", minimum=1
    )
    groundings: int = spec_field(12, help="Groundings per knowledge set (2 premises + 1 implication each).")
    unrelated: int = spec_field(5, help="Unrelated facts per knowledge set.")
    update_variants: int = spec_field(3, help="Update variants per knowledge set.")
    min_join_entities: int = spec_field(
        4, help="A knowledge set needs this many distinct join entities (and 2+ distinct answers).", minimum=1
    )

    def __post_init__(self) -> None:
        if self.min_tier not in ("must_be_true", "likely", "plausible"):
            raise ValueError("min_tier must be must_be_true, likely or plausible")
        if self.groundings < 1 or self.update_variants < 1 or self.unrelated < 0:
            raise ValueError("groundings and update_variants must be >= 1, unrelated >= 0")


TIER_ORDER = {"must_be_true": 3, "likely": 2, "plausible": 1, "unlikely": 0}

#: Rules whose head follows from the definitions of its relations, each with the reason. Only
#: these can be ``must_be_true``; every other rule is a correlation, however precise (a band's
#: country of origin does not make its members citizens). A rule whose head repeats its second
#: premise's relation (P131 then P17 => P17) is scored only when it is listed here.
ENTAILMENTS: dict[str, str] = {
    "P131|P17|P17": "an administrative unit lies within its country, so what lies in the unit does",
    "P1376|P17|P17": "a capital lies within what it is the capital of, so within that one's country",
    "P36^-1|P17|P17": "a capital lies within what it is the capital of, so within that one's country",
    "P276|P17|P17": "what is located at a place is in that place's country",
}


def inverse_pairs(facts: pl.DataFrame, threshold: float = 0.9) -> dict[str, str]:
    """Map each relation that is another read backwards to that other one.

    Two relations pair when at least ``threshold`` of both's facts are each other's reversed;
    the one with the smaller PID is kept.
    """
    reversed_facts = facts.select(s=pl.col("o"), r=pl.col("r"), o=pl.col("s"))
    overlap = facts.join(reversed_facts, on=["s", "o"], suffix="_rev").filter(pl.col("r") != pl.col("r_rev"))
    counts = overlap.group_by("r", "r_rev").len()
    sizes = dict(facts.group_by("r").len().iter_rows())
    pairs = {}
    for r, other, n in counts.iter_rows():
        if n >= threshold * max(sizes[r], sizes[other]) and _relation_order(r) < _relation_order(other):
            pairs[other] = r
    return pairs


def _relation_order(relation: str) -> tuple:
    digits = relation[1:]
    return (int(digits), relation) if relation[:1] == "P" and digits.isdigit() else (float("inf"), relation)


def canonical_edges(facts: pl.DataFrame, inverses: dict[str, str]) -> pl.DataFrame:
    """Facts with inverse relations rewritten, deduplicated; columns s, r, o."""
    rewritten = facts.with_columns(
        s=pl.when(pl.col("r").is_in(list(inverses))).then(pl.col("o")).otherwise(pl.col("s")),
        o=pl.when(pl.col("r").is_in(list(inverses))).then(pl.col("s")).otherwise(pl.col("o")),
        r=pl.col("r").replace(inverses),
    )
    return rewritten.unique().sort("r", "s", "o")


def _body_pairs(facts: pl.DataFrame, max_join_degree: int) -> pl.DataFrame:
    """Distinct (x, r1, r2, z) with r1(x, y) ∧ r2(y, z) for some join entity y that is no hub.

    Run by polars' streaming engine: the join's paths are filtered and made distinct as they come
    (in memory, this call added ~1.5 GB on the default build, the rules build's peak; streaming,
    ~0.7 GB). The rows are the same; their order is none either way (callers count and sort).
    """
    facts = facts.lazy()
    forward = facts.select(x=pl.col("s"), r=pl.col("r"), y=pl.col("o"))
    backward = facts.select(x=pl.col("o"), r=pl.col("r") + INVERSE, y=pl.col("s"))
    edges = pl.concat([forward, backward])
    degree = edges.group_by("x").len().rename({"x": "y", "len": "deg"})
    hubs = degree.filter(pl.col("deg") > max_join_degree).select("y")
    first = edges.join(hubs, on="y", how="anti").rename({"r": "r1"})
    second = edges.rename({"x": "y", "y": "z", "r": "r2"})
    bodies = first.join(second, on="y").filter(pl.col("x") != pl.col("z"))
    bodies = bodies.filter(
        ~((pl.col("r2") == pl.col("r1") + INVERSE) | (pl.col("r1") == pl.col("r2") + INVERSE))
    )
    return bodies.select("x", "r1", "r2", "z").unique().collect(engine="streaming")


def mine_rules(
    facts: pl.DataFrame,
    spec_tiers: TierSpec,
    max_join_degree: int,
    min_support: int,
    seed: int = 0,
) -> pl.DataFrame:
    """Score every triangle rule r1(x,y) ∧ r2(y,z) ⇒ r3(x,z) over ``facts`` (s, r, o).

    Scores on all facts (support, standard and PCA confidence, head coverage, Wilson bound),
    then AMIE's own test: mined again without a held-out share of the facts, how often the rule's
    new predictions are among the held-out facts (see ``heldout_precision``). Tiers come from the
    held-out precision and need the standard confidence too; a rule with too few held-out
    predictions to judge is at most ``plausible``.
    """
    body_pairs = _body_pairs(facts, max_join_degree)
    heads = facts.select(x=pl.col("s"), r3=pl.col("r"), z=pl.col("o"))
    body_count = body_pairs.group_by("r1", "r2").agg(body=pl.len())
    supported = body_pairs.join(heads, on=["x", "z"])
    entailed = pl.concat_str(["r1", "r2", "r3"], separator="|").is_in(list(ENTAILMENTS))
    supported = supported.filter((pl.col("r3") != pl.col("r1")) & ((pl.col("r3") != pl.col("r2")) | entailed))
    support = supported.group_by("r1", "r2", "r3").agg(support=pl.len())
    support = support.filter(pl.col("support") >= min_support)
    has_head = heads.select("x", "r3").unique()
    pca = body_pairs.join(support.select("r1", "r2", "r3"), on=["r1", "r2"]).join(has_head, on=["x", "r3"])
    pca_body = pca.group_by("r1", "r2", "r3").agg(pca_body=pl.len())
    head_size = facts.group_by("r").agg(head_facts=pl.len()).rename({"r": "r3"})
    rules = (
        support.join(body_count, on=["r1", "r2"])
        .join(pca_body, on=["r1", "r2", "r3"])
        .join(head_size, on="r3")
        .with_columns(
            std_confidence=pl.col("support") / pl.col("body"),
            pca_confidence=pl.col("support") / pl.col("pca_body"),
            head_coverage=pl.col("support") / pl.col("head_facts"),
        )
    )
    wilson = [wilson_interval(s / b, b)[0] for s, b in zip(rules["support"], rules["pca_body"], strict=True)]
    rules = rules.with_columns(wilson_lower=pl.Series(wilson, dtype=pl.Float64))
    rules = rules.join(
        heldout_precision(facts, rules.select("r1", "r2", "r3"), max_join_degree, seed),
        on=["r1", "r2", "r3"],
        how="left",
    ).with_columns(pl.col("heldout_predictions").fill_null(0))
    rules = rules.with_columns(
        rule_id=pl.concat_str(["r1", "r2", "r3"], separator="|"),
        pattern=pl.format("{}(x,y) ∧ {}(y,z) ⇒ {}(x,z)", "r1", "r2", "r3"),
    )
    heldout_wilson = [
        wilson_interval(precision, n)[0] if n else None
        for precision, n in zip(rules["heldout_precision"], rules["heldout_predictions"], strict=True)
    ]
    rules = rules.with_columns(
        heldout_wilson_lower=pl.Series(heldout_wilson, dtype=pl.Float64),
        entailment=pl.col("rule_id").replace_strict(ENTAILMENTS, default="", return_dtype=pl.String),
    )
    rules = rules.with_columns(
        tier=pl.struct(
            "pca_confidence",
            "std_confidence",
            "heldout_precision",
            "heldout_predictions",
            "heldout_wilson_lower",
            "entailment",
        ).map_elements(lambda c: _tier(c, spec_tiers), return_dtype=pl.String)
    )
    rank = pl.col("tier").replace_strict(TIER_ORDER, return_dtype=pl.Int64)
    return rules.sort([rank, "wilson_lower", "support", "rule_id"], descending=[True, True, True, False])


HELDOUT_SHARE = 0.2


def heldout_precision(
    facts: pl.DataFrame, rules: pl.DataFrame, max_join_degree: int, seed: int, share: float = HELDOUT_SHARE
) -> pl.DataFrame:
    """AMIE's test of rules on facts held out from mining.

    A keyed ``share`` of the facts is hidden; each rule's bodies over the rest predict head facts
    the rest does not have. Of the predictions for subjects that have some held-out head fact
    (the partial-completeness assumption, as PCA confidence makes it), ``heldout_precision`` is
    the share that are held-out facts; ``heldout_predictions`` how many were judged.
    """
    cut = int(share * 1000)
    hidden = pl.Series(
        [stable_hash(seed, "heldout", s, r, o) % 1000 < cut for s, r, o in facts.iter_rows()],
        dtype=pl.Boolean,
    )
    kept, held = facts.filter(~hidden), facts.filter(hidden)
    bodies = _body_pairs(kept, max_join_degree).join(rules, on=["r1", "r2"])
    known = kept.select(x=pl.col("s"), r3=pl.col("r"), z=pl.col("o"))
    predictions = bodies.join(known, on=["x", "r3", "z"], how="anti")
    held_heads = held.select(x=pl.col("s"), r3=pl.col("r"), z=pl.col("o"))
    judged = predictions.join(held_heads.select("x", "r3").unique(), on=["x", "r3"])
    hits = judged.join(held_heads, on=["x", "r3", "z"]).group_by("r1", "r2", "r3").agg(hits=pl.len())
    return (
        judged.group_by("r1", "r2", "r3")
        .agg(heldout_predictions=pl.len())
        .join(hits, on=["r1", "r2", "r3"], how="left")
        .with_columns(
            heldout_precision=pl.col("hits").fill_null(0) / pl.col("heldout_predictions"),
        )
        .drop("hits")
    )


def _tier(scores: dict, tiers: TierSpec) -> str:
    """The tier of a rule: the lower of PCA confidence and held-out precision against the thresholds.

    Held-out precision counts only over at least ``tiers.min_heldout`` predictions; below, PCA
    confidence alone decides (both must pass, never either).

    ``must_be_true`` needs a declared entailment (:data:`ENTAILMENTS`) whose held-out precision has
    a Wilson lower bound of at least ``tiers.must_be_true``: a precise correlation is at most
    ``likely``. The top two also need standard confidence and ``min_heldout`` held-out predictions.
    """
    tested = scores["heldout_predictions"] >= tiers.min_heldout
    confidence = min(scores["pca_confidence"], scores["heldout_precision"] if tested else 1.0)
    trusted = tested and scores["std_confidence"] >= tiers.min_std_confidence
    bound = scores["heldout_wilson_lower"] or 0.0
    if scores["entailment"] and trusted and bound >= tiers.must_be_true:
        return "must_be_true"
    if confidence >= tiers.likely and trusted:
        return "likely"
    if confidence >= tiers.plausible:
        return "plausible"
    return "unlikely"


# ---- knowledge sets ----------------------------------------------------------------------------


class KnowledgeSetError(ProbesmithError):
    """A knowledge set failed its conflict or implication check."""


@dataclass(frozen=True)
class QuestionForms:
    """How a relation is asked: questions (MQuAKE's) and cloze forms ending in ___, each with [X]."""

    questions: tuple[str, ...]
    clozes: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        """Questions first, then clozes: the first is the item's question."""
        return self.questions + self.clozes


# MQuAKE's clozes name the kind of answer before the blank, where English names the answer alone: "was
# written in the language of English" (the twenty-first read), "is located in the country of the United
# States", "was born in the city of Birmingham", "is located on the continent of Europe" (the twenty-second
# read: 320 of 2,716 clozes); the kind goes ("was written in English", "is located in Europe").
# P140's "affiliated with the religion of ___" is rewritten in template_fixes ("affiliated with ___": a church
# is no religion, the twenty-third read)
CLOZE_KIND_BEFORE_BLANK = re.compile(
    r"\b(?:in|on) the (?:language|country|city|continent) of (?:(?:the|an?) )?___"
)


# the P140 cloze's kind, which no "in" precedes (its rewrite in template_fixes drops it)
_RELIGION_BEFORE_BLANK = re.compile(r"\bthe religion of (?:(?:the|an?) )?___")


def question_forms(
    pid: str,
    templates: tuple[str, ...],
    questions: dict[str, str],
    clozes: dict[str, str],
    own_questions: dict[str, str] | None = None,
) -> QuestionForms:
    """Question forms of a relation: its questions (MQuAKE's, then ours), then cloze forms.

    A cloze that names its answer's kind (language, country, city, continent) before the blank ("in the
    language of ___", "on the continent of ___") loses the kind ("in ___": ``CLOZE_KIND_BEFORE_BLANK``).
    """
    cloze_forms = []
    if pid in clozes:
        cloze_forms.append(clozes[pid].replace("__", "___").rstrip(" .") + ".")
    for template in templates:
        stripped = template.rstrip(" .")
        if stripped.endswith("[Y]") and "[X]" in stripped:
            cloze_forms.append(stripped[: -len("[Y]")].rstrip() + " ___.")
    cloze_forms = [CLOZE_KIND_BEFORE_BLANK.sub("in ___", cloze) for cloze in cloze_forms]
    asked = [q[pid] for q in (questions, own_questions or {}) if pid in q]
    return QuestionForms(tuple(dict.fromkeys(asked)), tuple(dict.fromkeys(cloze_forms)))


class _World:
    """Fact lookups for grounding and re-deriving."""

    def __init__(self, facts: pl.DataFrame, labels: dict[str, str], fit: FactTypes | None = None):
        self.labels = labels
        self.aliases: dict[str, list[str]] = {}  # English aliases of the objects, for the name-leak rule
        self.fit = fit
        self.objects: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.pool: dict[str, list[str]] = defaultdict(list)
        subjects: dict[str, set[str]] = defaultdict(set)
        for s, r, o in facts.iter_rows():
            self.objects[(s, r)].append(o)
            self.pool[r].append(o)
            subjects[r].add(s)
        for r in self.pool:
            self.pool[r] = sorted(set(self.pool[r]))
        self.subjects = dict(subjects)
        self._edit_candidates: dict[str, list[str]] = {}
        self._generic: dict[str, frozenset[str]] = {}
        self.unnamed: frozenset[str] = frozenset()  # named things labelled in lower case ("w.r. hearst")
        self.both_ways = both_ways_relations(facts)
        self.stated_back: dict[tuple[str, str], set[str]] = defaultdict(set)
        for s, r, o in facts.filter(pl.col("r").is_in(sorted(self.both_ways))).iter_rows():
            self.stated_back[(o, r)].add(s)
        self.listed_in: dict[tuple[str, str], set[str]] = defaultdict(set)
        for relation, listing in MEMBERS_LISTED_BY.items():
            for group, _, member in facts.filter(pl.col("r") == listing).iter_rows():
                self.listed_in[(member, relation)].add(group)
        self.bearers: dict[str, set[str]] = defaultdict(set)  # a label and the entities bearing it
        for entity, label in labels.items():
            self.bearers[label].add(entity)

    def answers(self, s: str, r: str) -> set[str]:
        """Every answer the source gives to "r of s".

        Its objects, its subjects (``both_ways_relations``) and the groups whose member list holds s
        (``MEMBERS_LISTED_BY``); for a relation asked for the country (``COUNTRY_QUESTIONS``), the countries
        an answering country lies in (P17): "In which country is Rhayader located?" is answered by Wales and
        by the United Kingdom (the twenty-seventh read).
        """
        answers = set(self.objects.get((s, r), ())) | self.stated_back.get((s, r), set())
        answers |= self.listed_in.get((s, r), set())
        if r in COUNTRY_QUESTIONS and self.fit is not None:
            answers |= {
                state
                for country in answers
                if self.fit.types.get(country, frozenset()) & COUNTRY_CLASSES
                for state in self.objects.get((country, "P17"), ())
                if state != country and self.fit.types.get(state, frozenset()) & COUNTRY_CLASSES
            }
        return answers

    def asked_once(self, fact: tuple[str, str, str]) -> bool:
        """Whether the fact's question has its object as its only answer, about a subject named once.

        The source gives "r of s" no other answer (:meth:`answers`: "What was Dante Alighieri's
        occupation?" has six, "Which place is twinned with Montreal?" more; the twenty-first read counted 10
        of 35 unrelated questions so), and no other entity bearing the subject's label has another
        (:meth:`named_alike`).
        """
        s, r, o = fact
        return self.answers(s, r) == {o} and not self.named_alike(fact)

    def named_alike(self, fact: tuple[str, str, str]) -> bool:
        """Whether another entity bears the subject's label and has another answer to the fact's relation.

        "What is the capital of Victoria?" asks about the Australian state or another Victoria of the source
        whose capital is not Melbourne (the twenty-first read): the question is not asked.
        """
        s, r, o = fact
        others = self.bearers.get(self.labels.get(s, ""), set()) - {s}
        return any(self.answers(e, r) - {o} for e in others)

    def gives_away(self, fact: tuple[str, str, str]) -> bool:
        """Whether the subject's label shares a name token with the object's names (``names.name_leak``).

        The subject's label is what its questions show; the object's names are its label and English aliases,
        any of which a model may answer with ("U.S. Naval Academy" names the United States, alias "U.S.").
        A subject's aliases are not shown: "Texas, United States" or "39th President of the United States"
        qualify the subject, and would drop "Where is Texas located?" for a question that names nothing.
        Generic tokens: those of 10%+ of the relation's objects' names (``names.generic_tokens``).
        """
        s, r, o = fact
        if r not in self._generic:
            objects = [e for e in self.pool.get(r, ()) if e in self.labels]
            self._generic[r] = generic_tokens(self.names(e) for e in objects)
        shown = [self.labels[s]] if s in self.labels else []
        return bool(name_leak(shown, self.names(o), self._generic[r]))

    def names(self, entity: str) -> list[str]:
        """The entity's label (if any) and English aliases."""
        label = [self.labels[entity]] if entity in self.labels else []
        return [*label, *self.aliases.get(entity, ())]

    def range_of(self, relation: str) -> set[str]:
        """Entities the source has at the second argument of ``relation`` (read backwards for P^-1)."""
        if relation.endswith(INVERSE):
            return self.subjects.get(relation[: -len(INVERSE)], set())
        return set(self.pool.get(relation, ()))

    def edit_candidates(self, rule: dict) -> list[str]:
        """New objects for an edit of r2(y, z): objects of both r2 and r3 in the source.

        So the re-derived implication r3(x, z') is a well-typed fact (a country for "country").
        With types known, the new object is also of a class both relations' answers have, and
        where either relation is country-valued, a current sovereign state (no Holy Roman Empire).
        Computed once per rule: every variant of every set of the rule asks.
        """
        if rule["rule_id"] not in self._edit_candidates:
            candidates = self.range_of(rule["r2"]) & self.range_of(rule["r3"])
            fit = self.fit
            if fit is not None and not fit.permissive:
                candidates = {c for c in candidates if _suits_answer(fit, rule, c)}
            self._edit_candidates[rule["rule_id"]] = sorted(candidates)
        return self._edit_candidates[rule["rule_id"]]

    def step(self, x: str, relation: str) -> list[str]:
        """Entities y with relation(x, y), reading ``P^-1`` backwards."""
        if relation.endswith(INVERSE):
            return self.reverse.get((x, relation[: -len(INVERSE)]), [])
        return self.objects.get((x, relation), [])

    def build_reverse(self) -> None:
        self.reverse: dict[tuple[str, str], list[str]] = defaultdict(list)
        for (s, r), objects in self.objects.items():
            for o in objects:
                self.reverse[(o, r)].append(s)


#: a relation whose answers a group's member list states too: P527 (has part) of a band lists its members,
#: so "What was Damon Albarn a member of?" is answered by Gorillaz (P463) and by Blur, whose P527 holds
#: him (the twenty-third read: 16 items)
MEMBERS_LISTED_BY = {"P463": "P527"}

#: a relation is read both ways (twinned cities, diplomatic relations) where at least this share of its facts
#: are stated both ways in the source: "Which place is twinned with Montreal?" is answered by the cities
#: twinned with it either way
BOTH_WAYS_SHARE = 0.5


def both_ways_relations(facts: pl.DataFrame) -> frozenset[str]:
    """Relations at least ``BOTH_WAYS_SHARE`` of whose facts the source states both ways (P190, P530)."""
    back = facts.select(s="o", r="r", o="s", _back=pl.lit(True))
    joined = facts.join(back, on=["s", "r", "o"], how="left")
    shares = joined.group_by("r").agg(pl.col("_back").fill_null(False).mean().alias("share"))
    return frozenset(shares.filter(pl.col("share") >= BOTH_WAYS_SHARE)["r"].to_list())


# labels of the source that are not the entity's name but a string of the text a dataset took it from
# (X-FACTR's 'Ani' for Anahí, whose aliases are 'Anahi', 'Anahi Portilla': the twenty-first read): not asked
LABEL_RESIDUE = {"Q169461": "Ani"}


def _suits_answer(fit: FactTypes, rule: dict, entity: str) -> bool:
    """Whether ``entity`` may be the new object of an update of ``rule`` (see ``edit_candidates``)."""
    for relation in (rule["r2"], rule["r3"]):
        base = relation.removesuffix(INVERSE)
        if base not in fit.expected:
            return False
        expected = fit.expected[base][0 if relation.endswith(INVERSE) else 1]
        if not expected & fit.types.get(entity, frozenset()):
            return False
        if fit.country_valued(relation) and not relation.endswith(INVERSE) and not fit.current_state(entity):
            return False
    return True


def _atom_fact(relation: str, a: str, b: str) -> tuple[str, str, str]:
    """The stored triple of atom relation(a, b)."""
    if relation.endswith(INVERSE):
        return b, relation[: -len(INVERSE)], a
    return a, relation, b


#: Wikidata's classes of a sovereign state, and of states that no longer exist
SOVEREIGN_STATE = "Q3624078"
COUNTRY_CLASSES = frozenset({"Q6256", SOVEREIGN_STATE})
FORMER_STATE_CLASSES = frozenset({"Q3024240", "Q28171280"})  # historical country, ancient civilization
#: a class is expected of a relation's subjects when at least this share of its typed subjects hold it
SUBJECT_SHARE = 0.1
#: per relation, the subject classes its question and clozes misread whatever the relation's typed
#: subjects: P407's "Which language was [X] written in?" / "[X] was written in ___." (MQuAKE's question)
#: is false of a recording, which is sung or performed, not written (the thirty-first read: "Which
#: language was Tons of Sobs written in?", an album; 4 of the 8 P407 items): album, studio, live,
#: compilation and soundtrack album, extended play, single, song
MISREAD_SUBJECT_CLASSES = {
    "P407": frozenset(
        {"Q482994", "Q208569", "Q209939", "Q222910", "Q4176708", "Q169930", "Q134556", "Q7366"}
    ),
}
#: a class is expected of a relation's answers when at least this share as many of its typed
#: objects hold it as hold its most common class (its dominant answer classes)
DOMINANT_SHARE = 0.3


@dataclass
class FactTypes:
    """Which facts a relation's question suits: an answer (and a subject) of the classes it expects.

    ``expected[r]`` is ``(subject classes, object classes)`` in the mined facts: the classes (P31)
    of at least ``SUBJECT_SHARE`` of the relation's typed subjects (none: its subjects are too varied
    to check), and its dominant answer classes (held by at least ``DOMINANT_SHARE`` as many typed
    objects as its most common class). "What type of music
    does [X] play?" expects a music genre (not *science fiction film*), "What is the field of work
    of [X]?" an academic discipline (not *songwriter*). ``types[e]``: an entity's classes. An answer
    with no class cannot be checked, so its fact is not asked; a subject with none is (counted).
    """

    expected: dict[str, tuple[frozenset[str], frozenset[str]]]
    types: dict[str, frozenset[str]]
    permissive: bool = False  # no types known: every fact fits (unit tests on synthetic graphs)

    def problem(self, triple: tuple[str, str, str]) -> str | None:
        """Why a fact's question does not suit it (None: it does)."""
        if self.permissive:
            return None
        s, r, o = triple
        if r not in self.expected:
            return "relation without typed members"
        if self.types.get(s, frozenset()) & MISREAD_SUBJECT_CLASSES.get(r, frozenset()):
            return "subject of a class the question's wording misreads"
        subject_classes, object_classes = self.expected[r]
        if not self.types.get(o):
            return "answer without a class"
        if subject_classes and self.types.get(s) and not subject_classes & self.types[s]:
            return "subject of a class the question does not expect"
        if not object_classes & self.types[o]:
            return "answer of a class the question does not expect"
        return None

    def fits(self, triple: tuple[str, str, str]) -> bool:
        """Whether the fact's question suits its subject and its answer (both typed, both expected)."""
        return self.problem(triple) is None

    def country_valued(self, relation: str) -> bool:
        """Whether the relation's answers are countries (its expected object classes say so)."""
        return bool(self.expected.get(relation.removesuffix(INVERSE), ((), frozenset()))[1] & COUNTRY_CLASSES)

    def current_state(self, entity: str) -> bool:
        """A sovereign state (Q3624078) that is no historical country or ancient civilization."""
        classes = self.types.get(entity, frozenset())
        return SOVEREIGN_STATE in classes and not classes & FORMER_STATE_CLASSES


def usual_classes(members: list[frozenset[str]]) -> frozenset[str]:
    """The classes held by at least ``SUBJECT_SHARE`` of ``members`` (each one's classes)."""
    counts = Counter(t for classes in members for t in classes)
    return frozenset(t for t, n in counts.items() if n >= SUBJECT_SHARE * len(members))


def dominant_classes(members: list[frozenset[str]]) -> frozenset[str]:
    """The classes held by at least ``DOMINANT_SHARE`` as many of ``members`` as the most common one."""
    counts = Counter(t for classes in members for t in classes)
    if not counts:
        return frozenset()
    top = max(counts.values())
    return frozenset(t for t, n in counts.items() if n >= DOMINANT_SHARE * top)


def fact_types(
    client: SparqlClient,
    facts: pl.DataFrame,
    relations: list[str],
    mined: pl.DataFrame | None = None,
) -> FactTypes:
    """The classes each relation's questions expect, and the classes of every subject and object.

    Counted on the subgraph the rules were mined on (``mined``: its facts before inverse
    relations are merged), over classes asked in VALUES batches: no query scans a relation.
    """
    mined = facts if mined is None else mined
    members = {
        pid: (set(part["s"].to_list()), set(part["o"].to_list()))
        for pid in relations
        for part in [mined.filter(pl.col("r") == pid)]
    }
    asked = facts.filter(pl.col("r").is_in(relations))
    entities = set(asked["s"].to_list()) | set(asked["o"].to_list())
    for subjects, objects in members.values():
        entities |= subjects | objects
    found: dict[str, set[str]] = defaultdict(set)
    for row in batched_select(client, classes_query, sorted(entities)):
        found[entity_id(row["e"])].add(entity_id(row["t"]))
    types = {e: frozenset(classes) for e, classes in found.items()}
    expected = {}
    for pid, (subjects, objects) in members.items():
        object_classes = dominant_classes([types[e] for e in objects if e in types])
        if object_classes:
            expected[pid] = (usual_classes([types[e] for e in subjects if e in types]), object_classes)
    return FactTypes(expected, types)


def classes_query(entities: list[str]) -> str:
    """The classes (P31) of some entities."""
    values = " ".join(f"wd:{e}" for e in entities)
    return PREFIXES + f"SELECT ?e ?t WHERE {{ VALUES ?e {{ {values} }} ?e wdt:P31 ?t }}"


def knowledge_sets(
    rules: pl.DataFrame,
    facts: pl.DataFrame,
    labels: dict[str, str],
    forms: dict[str, list[str]],
    spec: RulesSpec,
    fit: FactTypes | None = None,
    aliases: dict[str, list[str]] | None = None,
    dead: frozenset[str] = frozenset(),
) -> tuple[list[dict], list[dict], Counter]:
    """Groundings and knowledge-set items of the best rules; every set checked.

    ``aliases``: the English aliases of the facts' objects (and of the acronyms' subjects), read by the
    name-leak rule beside their labels. ``dead``: entities asked about in the past (:func:`the_dead`).

    With ``fit``, a grounding or unrelated fact whose question does not suit its subject's or its
    answer's class is not used, and an update's new object must suit both edited relations (and be
    a current sovereign state where they are country-valued).
    """
    fit = fit or FactTypes({}, {}, permissive=True)
    world = _World(facts, labels, fit)
    world.aliases = aliases or {}
    world.build_reverse()
    name_classes = load_name_classes()
    names = frozenset(e for e, classes in fit.types.items() if classes & name_classes)
    bands = frozenset(e for e, classes in fit.types.items() if classes & BAND_CLASSES)
    # a person, work or band whose label is all lower case ("w.r. hearst") is no name a question can
    # use: no grounding or unrelated fact asks about it (fourth independent read)
    world.unnamed = frozenset(e for e in names if labels.get(e) and labels[e] == labels[e].lower())
    # nor about an entity whose label is no name (``names.label_problem``, ``LABEL_RESIDUE``: 'Ani')
    in_facts = set(facts["s"].to_list()) | set(facts["o"].to_list())
    world.unnamed |= frozenset(e for e in in_facts if e in labels and label_problem(labels[e]))
    world.unnamed |= frozenset(e for e, residue in LABEL_RESIDUE.items() if labels.get(e) == residue)
    # every person is asked about in the past, as the dead are: a snapshot's facts of a person's life were
    # true (the past is true of the living too, the present false of the dead), and the slice records no
    # death for most of the dead (fifteenth independent read: "What is the country of citizenship of Vaughn
    # Monroe?", d. 1973; "What is Ryuichi Sakamoto a member of?", d. 2023, beside "What was Roy Orbison ...")
    dead = dead | frozenset(e for e, classes in fit.types.items() if PERSON in classes)
    dead = dead | unclassed_people(facts, fit)  # "What language was Morpurgo known to have spoken?"
    countries = frozenset(e for e, classes in fit.types.items() if classes & COUNTRY_CLASSES)
    dropped: Counter = Counter()
    usable = rules.filter(
        pl.col("tier").replace_strict(TIER_ORDER, return_dtype=pl.Int64) >= TIER_ORDER[spec.min_tier]
    )
    grounding_rows, items = [], []
    built = 0
    askable = {r for r, f in forms.items() if f.questions and len(f.all) >= 2}
    # the facts an unrelated question may come from: askable, and suited to its subject (once)
    unrelated_pool = facts.filter(pl.col("r").is_in(sorted(askable)))
    unrelated_pool = unrelated_pool.filter(
        pl.Series(
            [
                fit.fits(t) and not {t[0], t[2]} & world.unnamed and world.asked_once(t)
                for t in unrelated_pool.iter_rows()
            ],
            dtype=pl.Boolean,
        )
    )
    for rule in usable.iter_rows(named=True):
        if built >= spec.max_sets:
            break
        relations = [r.removesuffix(INVERSE) for r in (rule["r1"], rule["r2"], rule["r3"])]
        if rule["r2"].endswith(INVERSE):
            dropped["rule: second premise read backwards (edits change a premise's object)"] += 1
            continue
        if any(r not in askable for r in relations):
            dropped["rule: a relation has no question form, or fewer than 2 forms"] += 1
            continue
        if len(world.edit_candidates(rule)) < 3:
            dropped["rule: too few well-typed new objects for update variants"] += 1
            continue
        grounding_sets = _grounding_sets(rule, world, spec, fit)
        if not grounding_sets:
            dropped[
                f"rule: fewer than {spec.groundings} groundings over {spec.min_join_entities} join entities"
            ] += 1
            continue
        for groundings in grounding_sets:
            if built >= spec.max_sets:
                break
            set_id = f"ks-{built:04d}"
            unrelated = _unrelated(unrelated_pool, set(relations), spec, set_id)
            variants = {"init": _variant_facts(rule, groundings, world, None, spec, set_id)}
            for v in range(spec.update_variants):
                variants[str(v)] = _variant_facts(rule, groundings, world, v, spec, set_id)
            for name, (premises, implications) in variants.items():
                check_knowledge_set(rule, premises, implications)
                for role, triples in (("specific", premises), ("implication", implications)):
                    stated = set()  # groundings through one join entity share its premise: state it once
                    for (s, r, o), is_update in triples:
                        if (s, r, o) in stated:
                            continue
                        stated.add((s, r, o))
                        items.append(
                            _item(
                                set_id,
                                rule["rule_id"],
                                name,
                                role,
                                is_update,
                                s,
                                r,
                                o,
                                forms,
                                labels,
                                names,
                                bands,
                                dead,
                                countries,
                            )
                        )
                for s, r, o in unrelated:
                    items.append(
                        _item(
                            set_id,
                            rule["rule_id"],
                            name,
                            "unrelated",
                            False,
                            s,
                            r,
                            o,
                            forms,
                            labels,
                            names,
                            bands,
                            dead,
                            countries,
                        )
                    )
            grounding_rows += [
                {"set_id": set_id, "rule_id": rule["rule_id"], "x": x, "y": y, "z": z}
                for x, y, z in groundings
            ]
            built += 1
    return grounding_rows, items, dropped


def _grounding_sets(
    rule: dict, world: _World, spec: RulesSpec, fit: FactTypes
) -> list[list[tuple[str, str, str]]]:
    """Up to ``spec.sets_per_rule`` sets of ``spec.groundings`` groundings (x, y, z), no grounding in two.

    Each x has a single r1 object, that y a single r2 object, and x a single r3 object, so every
    question has one answer. Groundings are dealt round-robin over the join entities y (the first
    grounding of every y, then the second ...), so a set spreads over as many y as exist; a set
    with fewer than ``min_join_entities`` distinct y or a single answer z is not made.
    """
    head = rule["r3"]
    subjects = sorted(
        {s for (s, r) in world.objects if r == head}, key=lambda s: stable_hash(spec.seed, rule["rule_id"], s)
    )
    by_join: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for x in subjects:
        heads = world.objects.get((x, head), [])
        ys = world.step(x, rule["r1"])
        if len(heads) != 1 or len(ys) != 1:
            continue
        zs = world.step(ys[0], rule["r2"])
        if len(zs) == 1 and zs[0] == heads[0] and zs[0] != x:
            y, z = ys[0], zs[0]
            atoms = ((rule["r1"], x, y), (rule["r2"], y, z), (rule["r3"], x, z))
            facts = [_atom_fact(*atom) for atom in atoms]
            # no question of the grounding names its answer (issue 25: one leak rule for all families)
            named = not {x, y, z} & world.unnamed
            asked_once = all(world.asked_once(f) for f in facts)
            if (
                named
                and asked_once
                and all(fit.fits(f) for f in facts)
                and not any(map(world.gives_away, facts))
            ):
                by_join[y].append((x, y, z))
    joins = sorted(by_join, key=lambda y: stable_hash(spec.seed, rule["rule_id"], "join", y))
    dealt = [
        by_join[y][i]
        for i in range(max(map(len, by_join.values()), default=0))
        for y in joins
        if i < len(by_join[y])
    ]
    sets = []
    for start in range(0, len(dealt) - spec.groundings + 1, spec.groundings):
        chunk = dealt[start : start + spec.groundings]
        if len({y for _, y, _ in chunk}) < spec.min_join_entities or len({z for *_, z in chunk}) < 2:
            break
        sets.append(chunk)
        if len(sets) == spec.sets_per_rule:
            break
    return sets


def _variant_facts(rule: dict, groundings, world: _World, variant: int | None, spec: RulesSpec, set_id: str):
    """Premise and implication triples (with is_update) of one variant; None = establish phase.

    An update variant edits the second premise r2(y, z) of some join entities y to a new object
    of the same relation — every grounding through that y alike, so edits never conflict — and
    re-derives those groundings' implications r3(x, z') through the rule.
    """
    premises, implications = [], []
    ys = sorted({y for _, y, _ in groundings})
    edited: dict[str, str] = {}
    candidates = world.edit_candidates(rule)
    if variant is not None:
        for y in ys:
            if stable_hash(spec.seed, set_id, "edit", y) % spec.update_variants == variant:
                old = next(z for _, yy, z in groundings if yy == y)
                rng = item_rng(spec.seed, set_id, "variant", variant, y)
                edited[y] = rng.choice([c for c in candidates if c != old])
        if not edited:  # every variant edits something
            y = ys[variant % len(ys)]
            old = next(z for _, yy, z in groundings if yy == y)
            edited[y] = item_rng(spec.seed, set_id, "variant", variant, y).choice(
                [c for c in candidates if c != old]
            )
    for x, y, z in groundings:
        new_z = edited.get(y, z)
        is_update = y in edited
        premises.append((_atom_fact(rule["r1"], x, y), False))
        premises.append((_atom_fact(rule["r2"], y, new_z), is_update))
        implications.append((_atom_fact(rule["r3"], x, new_z), is_update))
    return premises, implications


def check_knowledge_set(rule: dict, premises, implications) -> None:
    """Raise unless no edit conflicts with another fact of the set and every implication follows.

    An edited fact (s, r, o') conflicts when the set also states (s, r, o) with o != o'.
    """
    objects: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (s, r, o), _ in [*premises, *implications]:
        objects[(s, r)].add(o)
    for (s, r, o), is_update in [*premises, *implications]:
        if is_update and objects[(s, r)] != {o}:
            raise KnowledgeSetError(
                f"rule {rule['rule_id']}: the edit ({s}, {r}, {o}) conflicts with "
                f"{sorted(objects[(s, r)] - {o})}"
            )
    for i, ((s, r, o), _) in enumerate(implications):
        first, second = premises[2 * i][0], premises[2 * i + 1][0]
        x, y = _atom_args(rule["r1"], first)
        y2, z = _atom_args(rule["r2"], second)
        hx, hz = _atom_args(rule["r3"], (s, r, o))
        if y != y2 or hx != x or hz != z:
            raise KnowledgeSetError(f"rule {rule['rule_id']}: implication {(s, r, o)} does not follow")


def _atom_args(relation: str, triple: tuple[str, str, str]) -> tuple[str, str]:
    s, _, o = triple
    return (o, s) if relation.endswith(INVERSE) else (s, o)


def _unrelated(
    pool: pl.DataFrame, used: set[str], spec: RulesSpec, set_id: str
) -> list[tuple[str, str, str]]:
    """``spec.unrelated`` facts of relations the rule does not use, keyed by the set."""
    other = pool.filter(~pl.col("r").is_in(sorted(used)))
    keys = [stable_hash(spec.seed, set_id, "unrelated", s, r, o) for s, r, o in other.iter_rows()]
    chosen = (
        other.with_columns(_k=pl.Series(keys, dtype=pl.UInt64))
        .sort("_k")
        .unique(["s", "r"], keep="first", maintain_order=True)
    )
    return [tuple(row) for row in chosen.head(spec.unrelated).select("s", "r", "o").iter_rows()]


# classes of a band (name_classes.yaml): its name may be plural ("Which country do The Breeders come from?")
BAND_CLASSES = frozenset({"Q215380", "Q5741069", "Q2088357"})

_PRESENT_TO_PAST = {
    "is": "was",
    "are": "were",
    "does": "did",
    "do": "did",
    "has": "had",
    "belongs": "belonged",
    "plays": "played",
    "works": "worked",
    "lives": "lived",
    "speaks": "spoke",
    "comes": "came",
    "holds": "held",
    # P131's catalog forms "[X] lies within", "[X] falls within the administrative boundaries of" (the
    # twenty-seventh read: "Hordaland lies within ___" beside "Hordaland was located in ___")
    "lies": "lay",
    "falls": "fell",
}


# past participles after "has"/"have" in a form: a regular "-ed" (the simple past alike) or one of these
# irregular ones, with their simple past
_PARTICIPLE_TO_PAST = {
    "spoken": "spoke",
    "written": "wrote",
    "taught": "taught",
    "held": "held",
    "won": "won",
    "led": "led",
    "made": "made",
    "sung": "sang",
    "known": "knew",
    "done": "did",
}
_PARTICIPLE = r"[a-z]+ed|" + "|".join(_PARTICIPLE_TO_PAST)


def perfect_in_the_past(text: str) -> bool:
    """Whether a form asked in the past holds a past perfect ("had employed", "had worked", "had been")."""
    return bool(re.search(rf"\bhad (?:[a-z]+ly )?(?:been|{_PARTICIPLE})\b", text, flags=re.IGNORECASE))


# questions asked where the answer is a country, for relations whose question names no kind of place (the
# fifteenth read: 12 items "Where is Tennessee located?" -> United States of America; a region or a continent
# answers it too); the question keeps "located", which the past needs: "In which country was Hordaland
# located?" (the twenty-seventh read: "In which country was Hordaland?" is no English)
COUNTRY_QUESTIONS = {"P131": "In which country is [X] located?"}

# relations whose every form is asked in the past, of every subject: a record label's contract is of its
# time (P264's catalog templates and patterns are all in the past since the twenty-sixth read: dead artists,
# disbanded bands, defunct labels); the twenty-seventh read found a work's item asking "The record label of
# Join Hands is ___." beside "... was ___." while a person's asked the past alone, so the forms lined up
# by position for no subject kind
PAST_RELATIONS = {
    "P264": "a label contract is of its time",
    # the twenty-seventh read's check of every form: an item asked "What is the original language of La
    # Promesse?" beside "La Promesse was originally in ___.", "What is the original broadcaster of Memories
    # of the Alhambra?" beside "... was originally aired on ___."; "original" names the first release, a
    # past event
    "P364": "the language a work first came out in",
    "P449": "the network a show first aired on",
}

# a form of a relation asked in the present whose verb tells a past event, dropped from the rules items so
# that every form of an item is in one tense (the twenty-seventh read's check of every form: "Who is the
# author of On the Eve?" beside "On the Eve was authored by ___.", "Which country does Bon Jovi come from?"
# beside "Jamiroquai originated from ___."); the relation's other forms state the same fact in the present,
# as English states a work's author and a band's origin, and the relation keeps a question and two clozes
FORMS_OUT_OF_TENSE = {
    "P50": "[X] was authored by ___.",
    "P495": "[X] originated from ___.",
}
PERSON = "Q5"  # human


#: a relation is asked of people alone when at least this share of its subjects with a class are humans
PERSON_RELATION_SHARE = 0.9


def unclassed_people(facts: pl.DataFrame, fit: FactTypes) -> frozenset[str]:
    """Subjects with no class (P31) in the slice of a relation whose classed subjects are people.

    The relation's subject type says what they are (the sixteenth read: "What language is Morpurgo known to
    have spoken?", "What position does Candela play?": P1412 and P413 subjects with no P31): a relation
    whose subjects with a class are humans (Q5) in ``PERSON_RELATION_SHARE`` of cases or more is asked of
    people, and its unclassed subjects are asked about in the past as every person is.
    """
    if fit.permissive:
        return frozenset()
    people_relations = set()
    for (relation,), part in facts.group_by("r"):
        classed = [fit.types[e] for e in set(part["s"].to_list()) if fit.types.get(e)]
        if classed and sum(PERSON in c for c in classed) >= PERSON_RELATION_SHARE * len(classed):
            people_relations.add(relation)
    return frozenset(
        subject
        for subject, relation in facts.select("s", "r").iter_rows()
        if relation in people_relations and not fit.types.get(subject)
    )


def present_verbs(text: str, name: str = "") -> list[str]:
    """The present verbs of ``past_tense``'s table in a question or cloze, outside the subject's ``name``."""
    if name:
        text = text.replace(name, " ")
    return re.findall(rf"(?i)\b(?:{'|'.join(_PRESENT_TO_PAST)})\b", text)


# entities that no longer exist which the slice's classes cannot tell (no class, or only one that the living
# share), each with the source of its end
DEFUNCT_UNCLASSED = {
    "Q390331": "Chaouia-Ouardigha: a region of Morocco abolished in 2015; no class in the slice",
    "Q662623": "BenQ-Siemens (BenQ Mobile): dissolved in 2006-07; classed only 'business' in the slice",
}


def defunct_entities(fit: FactTypes) -> frozenset[str]:
    """Entities that no longer exist: a polity or unit of the past by its class, or named by id.

    Named by id: ``DEFUNCT_UNCLASSED`` and wikidata_past.PAST_POLITIES (the Republic of Artsakh, dissolved
    in 2024, classed a country). By class: one of relations.PAST_POLITY_CLASSES (historical country,
    dynasty), paraphrases.FORMER_STATE_CLASSES (former county of Norway, former region, former municipality)
    or this module's FORMER_STATE_CLASSES, and none of a place that stands today
    (relations.PLACE_STILL_CLASSES: a city once a republic). Their facts are asked in the past, as the dead's
    are (the twenty-sixth read: "Hordaland is located in ___", "The capital of Chaouia-Ouardigha is ___", "the
    headquarters of BenQ-Siemens is located in").
    """
    past = PAST_POLITY_CLASSES | FORMER_UNIT_CLASSES | FORMER_STATE_CLASSES
    classed = frozenset(
        e for e, classes in fit.types.items() if classes & past and not classes & PLACE_STILL_CLASSES
    )
    return classed | frozenset(DEFUNCT_UNCLASSED) | frozenset(PAST_POLITIES)


def the_dead(client: SparqlClient) -> frozenset[str]:
    """Entities the source says are dead: those with a date, place, cause or manner of death or a burial."""
    props = "|".join(f"wdt:{p}" for p in DEATH_FACTS)
    rows = client.select(PREFIXES + f"SELECT DISTINCT ?s WHERE {{ ?s {props} ?o }}")
    return frozenset(entity_id(row["s"]) for row in rows)


def past_tense(form: str) -> str:
    """A question or cloze form asked in the past: "What is [X] a member of?" -> "What was [X] a member of?".

    The present of "be", "have" and the auxiliary "do" become their past ("Which position does [X] play?" ->
    "did [X] play", "[X] has worked as a ___." -> "had worked"), and so do the present verbs of the forms
    ("belongs", "plays", "works", "lives", "speaks", "comes", "holds"); a verb the table lacks stays.
    For the facts of the dead, of whom the present is false (thirteenth independent read: "What is Roy
    Orbison a member of?").
    """
    # a present perfect is a simple past, not a past perfect: "Which organization has employed [X]?" ->
    # "employed" (the sixteenth read's "had employed"), "has been employed by" -> "was employed by"; the
    # perfect infinitive stays ("known to have spoken")
    form = re.sub(r"(?<!\bto )\b([Hh])as been\b", lambda m: "Was" if m.group(1) == "H" else "was", form)
    form = re.sub(r"(?<!\bto )\b([Hh])ave been\b", lambda m: "Were" if m.group(1) == "H" else "were", form)
    form = re.sub(
        rf"(?<!\bto )\b[Hh]a(?:s|ve) ((?:[a-z]+ly )?)({_PARTICIPLE})\b",
        lambda m: m.group(1) + _PARTICIPLE_TO_PAST.get(m.group(2), m.group(2)),
        form,
    )
    return re.sub(
        rf"\b({'|'.join(_PRESENT_TO_PAST)})\b",
        lambda m: (
            _PRESENT_TO_PAST[m.group(1).lower()].capitalize()
            if m.group(1)[:1].isupper()
            else _PRESENT_TO_PAST[m.group(1)]
        ),
        form,
        flags=re.IGNORECASE,
    )


# an article closing a cloze's stem: the answer decides it ("the" for the United Kingdom, none for Austria)
_STEM_ARTICLE = re.compile(r"\b(?:[Tt]he|[Aa]n?) $")


def fill_form(
    form: str,
    subject: str,
    answer: str,
    *,
    names: frozenset[str] = frozenset(),
    plural_names: frozenset[str] = frozenset(),
) -> str:
    """A question or cloze form filled with its subject; a cloze's words are the same for every answer.

    The cloze is filled with the answer by :func:`fill_template` (as relation templates are filled), then
    the answer is blanked again together with the article the filling put before it: the blank stands
    for the answer as English writes it, article and all ("Chris Martin was a citizen of ___." for
    "United Kingdom" and "Austria" alike, "worked as ___." for "actor" and "poet"), so that no word before
    the blank tells one answer from another (the twenty-fourth read: "a citizen of the ___" was the United
    Kingdom's stem, "a citizen of ___" the counterfactual Georgia's). What the blank stands for is
    :func:`blank_form`'s second part (an item's ``cloze_answer``).
    """
    return blank_form(form, subject, answer, names=names, plural_names=plural_names)[0]


def blank_form(
    form: str,
    subject: str,
    answer: str,
    *,
    names: frozenset[str] = frozenset(),
    plural_names: frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """(the form filled as :func:`fill_form` fills it, what its blank stands for).

    The blank stands for the words the filling put where the blank is: the answer with the article
    English gives it there ("the United Kingdom", "a cartoonist", "an actor", "the Bee Gees"), its own
    "The" lower case inside the sentence ("the Juilliard School", the twenty-sixth read's "was educated at
    The Juilliard School"); the bare answer for a question, or where the filling changed the answer's
    letters and nothing was blanked. :func:`fill_cloze` puts it back.
    """
    if "___" not in form:
        return fill_template(form, subject, names=names, plural_names=plural_names), answer
    filled = fill_template(
        form.replace("___", "[Y]"), subject, answer, names=names, plural_names=plural_names
    )
    at = filled.rfind(answer)
    if at < 0:  # the filling changed the answer's own letters (a capital opening a sentence): not blanked
        return fill_template(form, subject, names=names, plural_names=plural_names), answer
    stem = _STEM_ARTICLE.sub("", filled[:at])
    in_blank = filled[len(stem) : at] + answer
    if in_blank.startswith("The ") and stem:  # inside a sentence a name's article is lower case
        in_blank = "the " + in_blank[4:]
    cloze = stem + "___" + filled[at + len(answer) :]
    # a label ending in its own mark ("S.O.B.") took the form's full stop: the blank gives it back
    return (cloze + "." if cloze.endswith("___") else cloze), in_blank


def fill_cloze(cloze: str, in_blank: str) -> str:
    """A cloze with its blank filled by ``in_blank`` (an item's ``cloze_answer``), as English writes it.

    A filling ending in its own mark ("S.O.B.", "¿Quién es quién?") ends the sentence: the cloze's full stop
    after the blank is not doubled.
    """
    if in_blank.endswith((".", "?", "!")):
        cloze = cloze.replace("___.", "___")
    return cloze.replace("___", in_blank)


def _item(
    set_id,
    rule_id,
    variant,
    role,
    is_update,
    s,
    r,
    o,
    forms,
    labels,
    names=frozenset(),
    bands=frozenset(),
    dead=frozenset(),
    countries=frozenset(),
) -> dict:
    """One fact of a knowledge set as a question and its rephrasings (other questions and clozes).

    ``names``: entities that are a person, work, band or taxon by their class: their labels take no
    "the" and no plural verb ("Mystic River" the film), unless a band's name is plural in form
    (``bands``, ``is_plural_band_name``: "Which country do The Breeders come from?"). A cloze's "the
    ___" loses its "the" before an answer that has its own ("a member of The Breeders"). A subject the
    source says is dead (``dead``, :func:`the_dead`; every person, :func:`knowledge_sets`) is asked in
    the past (:func:`past_tense`). A fact whose answer is a country (``countries``) of a relation in
    ``COUNTRY_QUESTIONS`` asks for the country ("In which country is Tennessee located?", not "Where is
    Tennessee located?": the South and North America would answer that too). A fact of a relation in
    ``PAST_RELATIONS`` is asked in the past of every subject; a form of ``FORMS_OUT_OF_TENSE`` is not asked.
    """
    label = labels.get(s, s)
    own = frozenset({label}) if s in names else frozenset()
    plural = own if s in bands and is_plural_band_name(label) else frozenset()
    asked = [f for f in forms[r].all if f != FORMS_OUT_OF_TENSE.get(r)]
    if r in COUNTRY_QUESTIONS and o in countries and forms[r].questions:
        asked[0] = COUNTRY_QUESTIONS[r]
    asked = [past_tense(f) for f in asked] if s in dead or r in PAST_RELATIONS else asked
    # a form the past makes equal to another, or the catalog already words so ("is a member of" -> "was a
    # member of", beside "was a member of"), is asked once
    asked = list(dict.fromkeys(asked))
    answer = labels.get(o, o)
    answer_own = frozenset({answer}) if o in names else frozenset()
    answer_plural = answer_own if o in bands and is_plural_band_name(answer) else frozenset()
    names_here, plural_here = own | answer_own, plural | answer_plural
    filled = [blank_form(f, label, answer, names=names_here, plural_names=plural_here) for f in asked]
    questions = [text for text, _ in filled]
    # what the first cloze's blank stands for, article and all; every cloze of the item agrees (the tests)
    cloze_answer = next((in_blank for (text, in_blank) in filled[1:] if "___" in text), answer)
    if label.startswith("The "):  # inside a sentence a name's article is lower case: "do the Beach Boys"
        questions = [q[:1] + q[1:].replace(label, "the " + label[4:]) for q in questions]
    if label.endswith("s") and not label.endswith("'s"):  # "Join Hands' record label", not "Hands's"
        questions = [q.replace(label + "'s ", label + "' ") for q in questions]
    # the fact as one sentence: the first cloze filled with what its blank stands for
    cloze = next((q for q in questions[1:] if "___" in q), None)
    statement = fill_cloze(cloze, cloze_answer) if cloze else f"{questions[0]} {answer}"
    return {
        "set_id": set_id,
        "rule_id": rule_id,
        "variant": variant,
        "role": role,
        "is_update": is_update,
        "question": questions[0],
        "rephrasings": questions[1:],
        "answer": answer,
        "subject": s,
        "relation": r,
        "object": o,
        "statement": statement,
        "cloze_answer": cloze_answer,
    }


KNOWLEDGE_SET_RULES = {
    "stated_once": "no fact is stated twice within a set's variant",
    "questions": "every `question` is a question (ends in '?'), never a cloze; every rephrasing is another "
    "question or a cloze form with exactly one blank `___` where the answer goes (the rephrasings do hold "
    "clozes)",
    "well_typed_updates": "every updated implication's object is an object of its relation in the source",
    "current_state_updates": "every update's new object of a country-valued relation is a current "
    "sovereign state (Q3624078, and no Q3024240 historical country or Q28171280 ancient civilization)",
    "join_entities": "every set has at least min_join_entities distinct join entities and 2+ answers",
    "calibrated_tier": "every set's rule is of min_tier or better (tiers judged on held-out facts)",
    "tier_rule": "every must_be_true rule (of all rules, with or without sets) is a declared entailment "
    "whose held-out Wilson lower bound reaches tiers.must_be_true over min_heldout+ predictions",
    "past_for_people": "every question and rephrasing about a person (P31 human; or a subject with no "
    "class in the slice of a relation whose subjects with a class are 90%+ humans, its subject type: "
    "'What language was Morpurgo known to have spoken?') or an entity the source says is dead or that no "
    "longer exists (rules.defunct_entities: a polity or unit of the past by its class, 'former county of "
    "Norway' Hordaland; two the classes cannot tell, rules.DEFUNCT_UNCLASSED) is in the past (none of the "
    "present verbs 'is', 'are', 'does', 'do', 'has', 'belongs', 'plays', 'works', 'lives', 'speaks', "
    "'comes', 'holds', 'lies', 'falls' outside the subject's name, and a present perfect made a simple "
    "past, no past perfect: 'Which organization employed ...?'): the facts of a person's life were true, "
    "the present is false of the dead, and the slice records no death for most of them ('What was Ryuichi "
    "Sakamoto a member of?')",
    "country_questions": "every fact of a relation whose question names no kind of place (P131: 'Where is "
    "Tennessee located?') whose answer is a country (P31 country or sovereign state) is asked for the "
    "country ('In which country is Tennessee located?'; 'was' of an entity of the past: 'In which country "
    "was Hordaland located?'); only there, where the country is the administrative entity P131 names (a "
    "P131 fact whose answer is a region keeps 'Where is [X] located?')",
    "past_relations": "every question and rephrasing of a relation whose facts are of their time "
    "(rules.PAST_RELATIONS: P264, a label contract; P364 and P449, a work's first release) is in the "
    "past, of every subject (none of the present verbs of past_for_people outside the subject's name): "
    "'What was the record label of Join Hands?', 'The record label of Join Hands was ___.'",
    "question_fits_types": "every item's answer has a class (P31) among its relation's dominant answer "
    "classes, and its subject, where it has a class, one that 10%+ of the relation's subjects have: no "
    "genre question answered by a film genre, no 'field of work' answered by an occupation",
    "one_answer": "every item that is no update asks a question the source gives its answer alone: no other "
    "object of its subject and relation (nor subject, for a relation the source states both ways in half its "
    "facts or more: P190 twinned cities, P530 diplomatic relations; nor, for P463, a group whose member "
    "list, P527, holds the subject: Blur for Damon Albarn; nor, for P131 asked for the country, a country "
    "(P17) the answering country lies in: the United Kingdom for Rhayader's Wales), and no other entity "
    "bearing the subject's label with another answer ('What was Dante Alighieri's occupation?' has six "
    "answers; another Victoria than the Australian state has another capital)",
    "cloze_article": "no article before any cloze's blank ('the', 'a', 'an'): the blank stands for the "
    "answer as English writes it, article and all, so the words before it are the same for every answer "
    "of the question ('was a citizen of ___.' for the United Kingdom and Georgia alike: an article chosen "
    "by the answer told a set's true answer from its counterfactual); and no language, country, city, "
    "continent or religion named as the answer's kind before it ('written in the language of ___', "
    "'located in the country of ___', 'affiliated with the religion of ___')",
    "cloze_answer": "every item's `cloze_answer` is its `answer`, bare or after an article ('the', 'a', "
    "'an'; a label's own 'The' lower case: 'the Juilliard School'), and its `statement` is its first cloze "
    "with the blank filled by it: a cloze is scored on the answer with the article its blank needs ('was a "
    "citizen of ___.' -> 'the United States of America', 'worked as ___.' -> 'a cartoonist')",
    "named": "no item's subject or answer bears a label that is no name: names.label_problem's (a "
    "disambiguator, residue, a sentence), or a dataset's text string the source took for the label "
    "(X-FACTR's 'Ani' for Anahí)",
}


def knowledge_set_validity(
    items: list[dict],
    groundings: list[dict],
    rules: pl.DataFrame,
    facts: pl.DataFrame,
    spec: RulesSpec,
    fit: FactTypes,
    dead: frozenset[str] = frozenset(),
    labels: dict[str, str] | None = None,
) -> dict:
    """Each knowledge-set rule checked on every item, set and rule, with counts (``validity.json``).

    ``dead``: the entities the source says are dead; ``labels``: the subjects' labels, taken out of a
    question before its verbs are read (a name "Love Is Here").
    """
    ranges = facts.group_by("r").agg(pl.col("o").unique())
    range_of = {r: set(objs) for r, objs in ranges.iter_rows()}
    tier = dict(zip(rules["rule_id"], rules["tier"], strict=True))
    violations: Counter = Counter()
    stated: Counter = Counter(
        (i["set_id"], i["variant"], i["subject"], i["relation"], i["object"]) for i in items
    )
    violations["stated_once"] = sum(n > 1 for n in stated.values())
    violations["questions"] = sum(
        not i["question"].rstrip().endswith("?")
        or "___" in i["question"]
        or any(not (r.rstrip().endswith("?") or r.count("___") == 1) for r in i["rephrasings"])
        for i in items
    )
    updates = [i for i in items if i["is_update"]]
    violations["well_typed_updates"] = sum(
        i["object"] not in range_of.get(i["relation"], set()) for i in updates if i["role"] == "implication"
    )
    violations["current_state_updates"] = sum(
        fit.country_valued(i["relation"]) and not fit.current_state(i["object"]) for i in updates
    )
    people = unclassed_people(facts, fit)
    violations["past_for_people"] = sum(
        bool(present_verbs(f, (labels or {}).get(i["subject"], "")) or perfect_in_the_past(f))
        for i in items
        if i["subject"] in dead or i["subject"] in people or PERSON in fit.types.get(i["subject"], ())
        for f in (i["question"], *i["rephrasings"])
    )
    violations["past_relations"] = sum(
        bool(present_verbs(f, (labels or {}).get(i["subject"], "")))
        for i in items
        if i["relation"] in PAST_RELATIONS
        for f in (i["question"], *i["rephrasings"])
    )
    violations["country_questions"] = sum(
        not any(
            re.fullmatch(
                re.escape(f(COUNTRY_QUESTIONS[i["relation"]])).replace(re.escape("[X]"), ".+"), i["question"]
            )
            for f in (str, past_tense)
        )
        for i in items
        if i["relation"] in COUNTRY_QUESTIONS and fit.types.get(i["object"], frozenset()) & COUNTRY_CLASSES
    )
    world = _World(facts, labels or {}, fit)
    world.build_reverse()
    violations["one_answer"] = sum(
        not world.asked_once((i["subject"], i["relation"], i["object"])) for i in items if not i["is_update"]
    )
    violations["cloze_article"] = sum(
        bool(_cloze_article_problem(cloze)) for i in items for cloze in i["rephrasings"] if "___" in cloze
    )
    violations["cloze_answer"] = sum(bool(_cloze_answer_problem(i)) for i in items)
    violations["named"] = (
        sum(
            any(
                label_problem(labels.get(e, "")) or LABEL_RESIDUE.get(e) == labels.get(e)
                for e in (i["subject"], i["object"])
            )
            for i in items
        )
        if labels
        else 0
    )
    problems = Counter(fit.problem((i["subject"], i["relation"], i["object"])) for i in items)
    problems.pop(None, None)
    violations["question_fits_types"] = sum(problems.values())
    by_set: dict[str, list[dict]] = defaultdict(list)
    for g in groundings:
        by_set[g["set_id"]].append(g)
    violations["join_entities"] = sum(
        len({g["y"] for g in gs}) < spec.min_join_entities or len({g["z"] for g in gs}) < 2
        for gs in by_set.values()
    )
    violations["calibrated_tier"] = sum(
        TIER_ORDER[tier[gs[0]["rule_id"]]] < TIER_ORDER[spec.min_tier] for gs in by_set.values()
    )
    top = rules.filter(pl.col("tier") == "must_be_true")
    violations["tier_rule"] = sum(
        not (
            row["rule_id"] in ENTAILMENTS
            and row["heldout_predictions"] >= spec.tiers.min_heldout
            and (row["heldout_wilson_lower"] or 0.0) >= spec.tiers.must_be_true
        )
        for row in top.iter_rows(named=True)
    )
    usable = rules.filter(pl.col("tier").is_in(["must_be_true", "likely"]))
    mined_entailments = rules.filter(pl.col("entailment") != "")
    return {
        "rules": KNOWLEDGE_SET_RULES,
        "violations": {rule: violations[rule] for rule in KNOWLEDGE_SET_RULES},
        "question_fits_types_by_reason": dict(sorted(problems.items())),
        "subjects_without_class": sum(not fit.types.get(i["subject"]) for i in items),
        "clozes": sum("___" in c for i in items for c in i["rephrasings"]),
        "clozes_with_the": sum(
            c.partition("___")[0].lower().endswith("the ")
            for i in items
            for c in i["rephrasings"]
            if "___" in c
        ),
        "items": len(items),
        "cloze_answers_with_article": sum(i["cloze_answer"] != i["answer"] for i in items),
        "sets": len(by_set),
        "rules_by_tier": dict(Counter(rules["tier"].to_list())),
        "rules_with_sets": len({gs[0]["rule_id"] for gs in by_set.values()}),
        "usable_rules": usable.height,
        "entailments_mined": {
            row["rule_id"]: {
                "heldout_predictions": row["heldout_predictions"],
                "heldout_wilson_lower": row["heldout_wilson_lower"],
                "tier": row["tier"],
            }
            for row in mined_entailments.iter_rows(named=True)
        },
        "tier_thresholds": {
            "must_be_true": spec.tiers.must_be_true,
            "likely": spec.tiers.likely,
            "plausible": spec.tiers.plausible,
            "min_heldout": spec.tiers.min_heldout,
            "min_std_confidence": spec.tiers.min_std_confidence,
        },
    }


def _cloze_answer_problem(item: dict) -> str | None:
    """What is wrong with an item's ``cloze_answer`` and ``statement`` (``cloze_answer``), or None."""
    answer, in_blank = item["answer"], item["cloze_answer"]
    lowered = "the " + answer[4:] if answer.startswith("The ") else answer
    if in_blank not in (answer, lowered) and not re.fullmatch(r"(?:the|an?) " + re.escape(answer), in_blank):
        return "the blank's answer is not the answer after an article"
    cloze = next((c for c in item["rephrasings"] if "___" in c), None)
    if cloze and fill_cloze(cloze, in_blank) != item["statement"]:
        return "the statement is not the first cloze filled with the blank's answer"
    return None


def _cloze_article_problem(cloze: str) -> str | None:
    """What is wrong with the words before a cloze's blank (``cloze_article``), or None."""
    before = cloze.partition("___")[0].split()
    if before and before[-1].lower() in ("the", "a", "an"):
        return "an article before the blank, which the answer chose"
    if CLOZE_KIND_BEFORE_BLANK.search(cloze) or _RELIGION_BEFORE_BLANK.search(cloze):
        return "the answer's kind named before it"
    return None


def knowledge_set_validity_markdown(report: dict) -> str:
    """The card's validity section of a rules build: checks, the tier rule, and what is not checked."""
    t = report["tier_thresholds"]
    lines = rules_table(
        f"Checked on every one of the {report['items']:,} items of the {report['sets']} knowledge sets "
        "(and, for `tier_rule`, on every rule):",
        KNOWLEDGE_SET_RULES,
        report["violations"],
    )
    entailments = report["entailments_mined"]
    mined = (
        "; ".join(
            f"`{rule}`: {e['heldout_predictions']} held-out predictions, Wilson lower bound "
            + (f"{e['heldout_wilson_lower']:.2f}" if e["heldout_wilson_lower"] is not None else "none")
            + f", {e['tier']}"
            for rule, e in sorted(entailments.items())
        )
        or "none had enough support to be scored"
    )
    lines += [
        "",
        "### Answers and blanks",
        "",
        "An item's `answer` is its answer entity's label, bare ('United Kingdom'): the question's answer "
        "(the `aliases` table gives the answers' other names). No article stands before a cloze's blank "
        "(`cloze_article`): the blank stands for the answer as English writes it, article and all ('Chris "
        "Martin was a citizen of ___.' for the United Kingdom and Austria alike), so the words before it are "
        "the same for every answer and tell no true answer from a counterfactual one: "
        f"{report['clozes_with_the']:,} of the {report['clozes']:,} clozes have 'the' before the blank. "
        "What the blank stands for is the item's `cloze_answer`, the one a cloze is scored on: the answer "
        "with the article its blank needs ('the United Kingdom', 'a cartoonist', 'the Bee Gees'; a label's "
        f"own 'The' lower case), which {report['cloze_answers_with_article']:,} of the {report['items']:,} "
        "items have; the item's `statement` is its first cloze filled with it (`cloze_answer`).",
        "",
        "### Tiers",
        "",
        "A rule's tier stands in for DepEdit's annotators (must be true 5, likely 4, plausible 3). Every "
        "score is on the mined subgraph; AMIE's test hides a keyed 20% of the facts, mines the rest, and "
        "counts how many of a rule's new predictions are hidden facts (held-out precision):",
        "",
        f"- `must_be_true`: the rule is a declared entailment of its relations' definitions (declared: "
        f"{', '.join(f'`{r}`' for r in ENTAILMENTS)}; the `entailment` column says why its head follows, "
        "empty for any other rule), and the Wilson lower bound (95%) of its "
        f"held-out precision is at least {t['must_be_true']} over at least {t['min_heldout']} predictions "
        f"(with every prediction right, 35 predictions reach 0.9), with standard confidence >= "
        f"{t['min_std_confidence']}. A correlation (a band's country of origin and its members' "
        "citizenship) is never `must_be_true`, however precise.",
        f"- `likely`: held-out precision and PCA confidence >= {t['likely']} over at least "
        f"{t['min_heldout']} held-out predictions, with standard confidence >= {t['min_std_confidence']}. "
        "A point estimate: the `heldout_wilson_lower` column gives its lower bound, often far below.",
        f"- `plausible`: PCA confidence >= {t['plausible']} and, for a rule with at least {t['min_heldout']} "
        f"held-out predictions, held-out precision >= {t['plausible']} too (both, as for `likely`: a rule "
        "one measure finds weak is not plausible); below, `unlikely`.",
        "",
        f"Declared entailments the mining scored: {mined}.",
        "",
        f"How many sets, and what bounds them: {report['usable_rules']} rules are `likely` or better on "
        f"held-out facts; {report['rules_with_sets']} of them have enough single-answer groundings over "
        "enough join entities and a question for each of their relations. Rules by tier: "
        + ", ".join(f"{t} {n}" for t, n in sorted(report["rules_by_tier"].items()))
        + ". `min_tier: plausible` admits more rules (and sets) of lower precision.",
        "",
        "### Not checked on every item",
        "",
        "- That an implication is true in the world: a `likely` rule is a correlation, and its "
        "implications hold where the source says so (groundings), not because the rule is sound.",
        "- That an updated fact is plausible in the world: it is well typed (an answer of its relation, "
        "of an expected class, a current sovereign state for country-valued relations), not true.",
        "- That a question reads as English once filled beyond the article before a cloze's blank "
        "(`cloze_article`) and the tense (`past_for_people`), and that an answer's class fits the question's "
        "own wording beyond the relation's expected classes (a class check, not a reading).",
        "- That an entity of the source bearing an answer's label is not another answer: `one_answer` reads "
        "the subject's label only.",
        "- That the world gives no second answer: `one_answer` reads the source, whose facts are not "
        "complete (a musician's other bands, P463; a second citizenship, P27; where a band formed beside "
        "where it came from, P495).",
        f"- The class of a subject that has none in the source: {report['subjects_without_class']:,} of "
        f"the {report['items']:,} items.",
        "- That a fact still holds today: see *Snapshot and time*.",
    ]
    return "\n".join(lines)


def load_questions(name_or_path: str) -> dict[str, str]:
    """The question catalog of probesmith: ``{PID: question with [X]}``."""
    path = resolve_spec_path(name_or_path)
    try:
        data = read_spec_yaml(path)  # bounded: size and alias-expansion budget, as every spec
    except OSError as exc:
        raise SpecError(f"question catalog {path} cannot be read ({exc.strerror}).") from None
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, dict) or not all(
        isinstance(q, str) and q.count("[X]") == 1 and q.rstrip().endswith("?") for q in questions.values()
    ):
        raise SpecError(
            f"question catalog {path}: needs `questions:` mapping PIDs to questions with one [X] "
            "that end in '?'."
        )
    return {str(pid): q for pid, q in questions.items()}


def read_question_sources(spec: RulesSpec) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """MQuAKE's questions and clozes as the template fixes have them, and probesmith's own questions."""
    read = {"questions": spec.question_templates, "clozes": spec.cloze_templates}
    fixed = {}
    for kind, path in read.items():
        templates = _read_templates(path, {"questions": "question_templates"}.get(kind, "cloze_templates"))
        fixed[kind] = {
            pid: text
            for pid, template in templates.items()
            if (text := apply_fixes(kind, pid, template, spec.template_fixes)) is not None
        }
    own = load_questions(spec.questions) if spec.questions else {}
    return fixed["questions"], fixed["clozes"], own


def _read_templates(path: str, key: str) -> dict:
    """A JSON file of templates named by the spec (``''`` = none)."""
    if not path:
        return {}
    found = data_path(path, f"`{key}`")
    try:
        return json.loads(found.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceError(f"`{key}` {found} is not valid JSON ({exc}).") from None


def export_depedit(build_folder: str | Path, out: str | Path, *, force: bool = False) -> Path:
    """Write a rules build as DepEdit's JSONL: one knowledge set per line (init, 0, 1, 2).

    ``out`` is written atomically and only over an earlier export of ours (see
    :class:`~probesmith.schemas.output.OutputFile`).
    """
    with OutputFile(out, "export:depedit", force=force) as tmp:
        lines = _depedit_lines(Path(build_folder))
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(out)


def _depedit_lines(build_folder: Path) -> list[str]:

    manifest = require_family(build_folder, ("rules",), "export depedit")
    items = read_table(build_folder, "knowledge_items", manifest=manifest)
    rules = read_table(build_folder, "rules", manifest=manifest)
    score = {
        r["rule_id"]: 5 if r["tier"] == "must_be_true" else 4 if r["tier"] == "likely" else 3
        for r in rules.iter_rows(named=True)
    }
    lines = []
    for set_id in items["set_id"].unique(maintain_order=True).to_list():
        subset = items.filter(pl.col("set_id") == set_id)
        rule_id = subset["rule_id"][0]
        record = {"gp_id": set_id, "score": [score.get(rule_id, 3)] * 2}
        for variant in subset["variant"].unique(maintain_order=True).to_list():
            rows = subset.filter(pl.col("variant") == variant).to_dicts()

            def qa(row, question):
                return {
                    "q": question,
                    # a cloze is answered with the article its blank needs ("the Bee Gees"), a question bare
                    "a": (row.get("cloze_answer") or row["answer"]) if "___" in question else row["answer"],
                    "trips": [row["subject"], row["relation"], row["object"]],
                    "is_update": row["is_update"],
                }

            specific = [r for r in rows if r["role"] == "specific"]
            implied = [r for r in rows if r["role"] == "implication"]
            r1, r2, r3 = rule_id.split("|")
            record[variant] = {
                "facts": [qa(r, r["question"]) for r in specific],
                "rule": {"pre1": r1, "pre2": r2, "imp": r3},
                "queries": {
                    "original": {
                        "facts": [qa(r, r["question"]) for r in specific],
                        "inference": [qa(r, r["question"]) for r in implied],
                    },
                    "semantic-equiv": {
                        "facts": [qa(r, r["rephrasings"][0]) for r in specific],
                        "inference": [qa(r, r["rephrasings"][0]) for r in implied],
                    },
                    "irre": [qa(r, r["question"]) for r in rows if r["role"] == "unrelated"],
                },
            }
        lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def _entity_aliases(client, facts: pl.DataFrame, labels: dict[str, str]) -> dict[str, list[str]]:
    """The English aliases of the facts' objects and of the entities labelled by an acronym.

    The name-leak rule reads an answer's every name; ``names.spelled_out`` reads an acronym's aliases.
    A qualifier after a comma or in brackets says where or what the answer is, not what it is called: it is
    cut ("Austin, Texas" is "Austin" here, or "What is the capital of Texas?" would give itself away).
    """
    acronyms = {e for e, label in labels.items() if re.fullmatch(r"[A-Z]{2,5}", label)}
    entities = sorted(set(facts["o"].to_list()) | acronyms)
    found: dict[str, list[str]] = defaultdict(list)
    for row in batched_select(client, aliases_query, entities):
        name = re.sub(r"\s*\([^()]*\)", "", row["alias"]).partition(",")[0].strip()
        if name:
            found[entity_id(row["e"])].append(name)
    return dict(found)


def _full_names(client, labels: dict[str, str], fit: FactTypes) -> dict[str, str]:
    """People (P31 human) labelled by a surname alone, by the full name an alias gives (``names.full_name``).

    "Tempesta" is asked as "Antonio Tempesta" (the twenty-sixth read: "Tempesta spoke ___"), as the
    relations family asks them; a one-word label with no such alias stays ("Morpurgo" has no alias).
    """
    people = sorted(
        e for e, label in labels.items() if len(label.split()) == 1 and PERSON in fit.types.get(e, ())
    )
    aliases: dict[str, list[str]] = defaultdict(list)
    for row in batched_select(client, aliases_query, people):
        aliases[entity_id(row["e"])].append(row["alias"])
    named = {e: full_name(labels[e], aliases.get(e, ())) for e in people}
    return {e: name for e, name in named.items() if name}


def _answer_aliases(client, items: list[dict], labels: dict[str, str]) -> list[dict]:
    """The alias bank of every answer entity, for alias-aware matching of model answers."""
    entities = sorted({item["object"] for item in items})
    raw: dict[str, list[str]] = defaultdict(list)
    for row in batched_select(client, aliases_query, entities):
        raw[entity_id(row["e"])].append(row["alias"])
    rows = []
    for entity in entities:
        kept, _ = alias_bank(entity, labels[entity], sorted(raw[entity]), AliasSpec(), set())
        rows += kept
    return rows


# when the relations do not fit in ``max_mined_facts`` whole, the seeds' share of that budget; the
# rest goes to the facts of the entities they reach, so that a chain through a non-seed is whole
SEED_SHARE = 0.5


def _mining_subgraph(client, relations: list[str], spec: RulesSpec, labels: dict, rows: list) -> dict:
    """Fill ``rows`` with the bounded subgraph rules are mined on; return what it holds (manifest).

    Where the relations hold at most ``max_mined_facts`` facts, that is all of them. Otherwise:

    * seeds: the subjects whose key lies below the share that holds about ``SEED_SHARE`` of the
      budget, with their facts in every relation (one key for all relations; a relation too large
      to hash in one query is sampled within its first ``MAX_SCAN`` facts, and the seeds' facts in
      it are then asked by ``VALUES``);
    * joins: the entities the seeds reach, in key order, with all their facts, until the budget
      is spent (whole entities: one is taken with every fact or not at all), so that a chain
      through a non-seed is whole.

    So the subgraph holds at most ``max_mined_facts`` facts (give or take a seed share's sampling
    error), whatever the size of the source. Every query is a key window or a ``VALUES`` batch;
    facts whose ends have no English label are left out.
    """
    salt = f"|{spec.seed}|rules"  # one key for every relation
    views = {pid: source_view(client, spec.wikidata.min_popularity, pid) for pid in relations}
    sizes = {}
    for pid, view in views.items():
        with timeout_names_relation(pid, "size", view):
            sizes[pid] = relation_size(client, view)
    total = sum(sizes.values())
    budget = spec.max_mined_facts
    fraction = 1.0 if total <= budget else SEED_SHARE * budget / total
    stop = key_bound(fraction)
    seen: set[tuple[str, str, str]] = set()

    def add(s: str, pid: str, o: str) -> None:
        if (s, pid, o) not in seen:
            seen.add((s, pid, o))
            rows.append((s, pid, o))

    def add_labelled(facts: list[tuple[str, str, str]]) -> None:
        labels.update(labels_of(client, sorted({e for s, _, o in facts for e in (s, o)} - labels.keys())))
        for s, pid, o in facts:
            if s in labels and o in labels:
                add(s, pid, o)

    for pid, view in views.items():
        for s, o, s_label, o_label in subject_sample(client, view, salt, stop, sizes[pid]):
            labels[s], labels[o] = s_label, o_label
            add(s, pid, o)
    seeds = sorted({s for s, _, _ in rows})
    large = [pid for pid in relations if sizes[pid] > MAX_SCAN]
    joins: list[str] = []
    reached: list[str] = []
    if fraction < 1 and large:  # the seeds' whole facts in the relations hashed in part
        add_labelled(facts_of(client, seeds, large))
    seed_facts = len(rows)
    if fraction < 1:
        joins = sorted({o for _, _, o in rows} - set(seeds), key=lambda e: (sample_key(e, salt), e))
        found = facts_of(client, joins, relations, max_rows=max(budget - seed_facts, 0))
        reached = sorted({s for s, _, _ in found})
        add_labelled(found)
    log.info(
        "rules: mining on %s seed facts (%.3f of the subjects; %s facts in the relations) and %s "
        "facts of %s of the %s entities they reach",
        f"{seed_facts:,}",
        fraction,
        f"{total:,}",
        f"{len(rows) - seed_facts:,}",
        f"{len(reached):,}",
        f"{len(joins):,}",
    )
    return {
        "subgraph": "every fact of the relations"
        if fraction == 1
        else "the subjects whose seeded key falls in the sampled share (one key for every relation), "
        "with their facts, plus the facts of the entities they reach, in key order, until "
        "max_mined_facts",
        "scores_counted_on": "the bounded subgraph: support, confidences, held-out test, usual classes",
        "max_mined_facts": budget,
        "sampled_share": round(fraction, 6),
        "relation_facts": total,
        "seed_facts": seed_facts,
        "relations_hashed_in_part": large,
        "join_entities": len(joins),
        "join_entities_taken": len(reached),
        "facts": len(rows),
    }


@register_family(
    "rules",
    RulesSpec,
    default_spec="rules",
    description="DepEdit-style rule cliques: mined If-Then rules and knowledge sets",
)
def generate_rules(spec: RulesSpec) -> TableOutput:
    """Mine rules over the spec's relations and build checked knowledge sets."""
    catalog = load_catalog(spec.catalog)
    relations = [r for r in (spec.relations or catalog) if r not in spec.exclude_relations]
    labels: dict[str, str] = {}
    rows = []
    with open_wikidata(spec.wikidata) as (client, source):
        mining = _mining_subgraph(client, relations, spec, labels, rows)
        mined = pl.DataFrame(rows, schema={"s": pl.String, "r": pl.String, "o": pl.String}, orient="row")
        inverses = inverse_pairs(mined)
        facts = canonical_edges(mined, inverses)
        rules = mine_rules(facts, spec.tiers, spec.max_join_degree, spec.min_support, spec.seed)
        questions, clozes, own = read_question_sources(spec)
        forms = {
            pid: question_forms(pid, catalog[pid].templates if pid in catalog else (), questions, clozes, own)
            for pid in relations
        }
        askable = sorted(r for r, f in forms.items() if f.questions and len(f.all) >= 2)
        fit = fact_types(client, facts, askable, mined)
        entity_aliases = _entity_aliases(client, facts, labels)
        for entity, label in labels.items():  # "RCA" is asked as the Royal College of Art (names.spelled_out)
            labels[entity] = spelled_out(label, entity_aliases.get(entity, ()))
        labels.update(_full_names(client, labels, fit))
        dead = the_dead(client) | defunct_entities(fit)
        groundings, items, dropped = knowledge_sets(
            rules, facts, labels, forms, spec, fit, entity_aliases, dead
        )
        aliases = _answer_aliases(client, items, labels)
        queries = query_log(client)
    dropped.update({f"relation {s} merged into {r} read backwards": 1 for s, r in inverses.items()})
    rule_rows = rules.select([n for n in RULES.schema.names]).to_dicts()
    summary = rules.group_by("tier").agg(rules=pl.len()).sort("tier")
    validity = knowledge_set_validity(items, groundings, rules, facts, spec, fit, dead, labels)
    card = CardInfo(
        pretty_name="Rule cliques and knowledge sets from Wikidata (probesmith)",
        description=spec.description or __doc__.split("\n\n")[0],
        license="cc-by-sa-4.0",
        licence_text="Facts and labels: Wikidata (CC0). Templates: BEAR (CC BY-SA 4.0) and MQuAKE (MIT).",
        tags=("probing", "wikidata", "knowledge-editing", "rules"),
        task_categories=("question-answering",),
        extra_sections=(("Validity", knowledge_set_validity_markdown(validity)),),
    )
    return wikidata_output(
        card,
        source,
        queries,
        {
            "rules": (RULES, rule_rows),
            "groundings": (RULE_GROUNDINGS, groundings),
            "knowledge_items": (KNOWLEDGE_ITEMS, items),
            "aliases": (ALIASES, aliases),
        },
        summary=summary,
        dropped=dropped,
        validity=validity,
        inverse_relations=inverses,
        mining=mining,
    )


register_exporter(
    "rules",
    Converter(
        "depedit",
        "A rules build to DepEdit's JSONL.",
        export_depedit,
        lambda written, out: f"DepEdit JSONL written to {written}",
        out_help="FILE.jsonl",
    ),
)

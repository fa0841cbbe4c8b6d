"""Rule cliques: If-Then rules mined from Wikidata triangles, and DepEdit knowledge sets.

DepEdit (Li et al. 2023) turned relation triangles into rules — two premises imply a third
fact, "[A] was born in [B]" and "[B] is in [C]" imply "[A] is a citizen of [C]" — kept those
annotators found plausible, and built knowledge sets for an establish-and-update protocol. Here
statistics stand in for the annotators.

Mining (as AMIE does, over a polars facts table):

* every relation is also read backwards (``P19^-1``), and a relation that is the inverse of
  another in the data (capital / capital of: >= 90% of one's facts reversed in the other) is
  rewritten as that inverse, so rules equal up to inverses merge;
* a rule is a path ``r1(x, y) ∧ r2(y, z) ⇒ r3(x, z)`` (each ri read forwards or backwards); the
  join node y is skipped when its degree exceeds ``max_join_degree`` (hubs explode the joins);
* scores: support (distinct (x, z) pairs with body and head), standard confidence, PCA
  confidence (only x that have some r3 fact count against the rule), head coverage, and the
  Wilson lower bound of the PCA confidence; tiers from the spec's thresholds stand in for
  DepEdit's annotator scale, and rules rank by tier, then by the Wilson bound (which tempers
  PCA confidence's optimism about sparse heads).

Knowledge sets, per rule of a high enough tier: ``groundings`` (x, y, z) with both premises and
the implication true (12 groundings over at least ``min_join_entities`` distinct join entities;
a premise shared by groundings is stated once), ``unrelated`` facts from
relations the rule does not use, every fact as question-answer pairs with >= 2 question
templates, and ``update_variants`` that edit premise facts to new objects that the source has for
both the edited relation and the implied one (so every re-derived implication is well typed),
re-deriving the implications through the rule. Tiers need PCA confidence and, for the top two,
standard confidence of at least ``tiers.min_std_confidence``. Every set is checked: no two edits conflict,
every implication follows. An ``aliases`` table holds the alias bank of every answer entity (the
paraphrase family's filters), for alias-aware matching of model answers.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from probesmith.builders.registry import FamilyOutput, register_family, single_split_tables
from probesmith.builders.relations import aliases_query, batched_select, facts_query, load_catalog
from probesmith.builders.sampling import item_rng, stable_hash
from probesmith.builders.sources import WikidataSpec, open_wikidata
from probesmith.builders.wikidata import entity_id, query_log
from probesmith.errors import ProbesmithError, SourceError
from probesmith.probes.spec import ProbeSpec, spec_field
from probesmith.schemas.card import CardInfo
from probesmith.schemas.tables import ALIASES, KNOWLEDGE_ITEMS, RULE_GROUNDINGS, RULES

log = logging.getLogger(__name__)

SPLIT = "test"
INVERSE = "^-1"
Z95 = 1.959963984540054


@dataclass(frozen=True)
class TierSpec:
    """PCA-confidence thresholds of the plausibility tiers (DepEdit's annotators: 1-5)."""

    must_be_true: float = spec_field(0.9, help="PCA confidence for 'must be true' (score 5).", maximum=1)
    likely: float = spec_field(0.6, help="PCA confidence for 'likely' (score 4).", maximum=1)
    plausible: float = spec_field(
        0.3, help="PCA confidence for 'plausible' (score 3); below: 'unlikely'.", maximum=1
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
    catalog: str = spec_field("catalogs/wikidata_relations", help="Relation catalog (templates).")
    relations: tuple[str, ...] = spec_field((), help="Relations to mine over; empty = the catalog's.")
    question_templates: str = spec_field(
        "../shared/data/mquake/question_templates.json",
        help="JSON {PID: question with [X]} (MQuAKE's); empty = none.",
    )
    cloze_templates: str = spec_field(
        "../shared/data/mquake/cloze_templates.json",
        help="JSON {PID: cloze with [X] and __} (MQuAKE's); catalog templates ending in [Y] add more.",
    )
    exclude_relations: tuple[str, ...] = spec_field(
        ("P31", "P279"), help="Relations left out of mining (class membership swamps the joins)."
    )
    max_join_degree: int = spec_field(200, help="Skip join entities with more facts than this (hubs).")
    min_support: int = spec_field(20, help="Rules with less support are not kept.")
    tiers: TierSpec = spec_field(default_factory=TierSpec, help="Plausibility tiers.")
    min_tier: str = spec_field("likely", help="Knowledge sets only for rules of this tier or better.")
    max_rules: int = spec_field(50, help="Knowledge sets for at most this many rules (best first).")
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


def mine_rules(
    facts: pl.DataFrame, spec_tiers: TierSpec, max_join_degree: int, min_support: int
) -> pl.DataFrame:
    """Score every triangle rule r1(x,y) ∧ r2(y,z) ⇒ r3(x,z) over ``facts`` (s, r, o)."""
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
    body_pairs = bodies.select("x", "r1", "r2", "z").unique()
    heads = facts.select(x=pl.col("s"), r3=pl.col("r"), z=pl.col("o"))
    body_count = body_pairs.group_by("r1", "r2").agg(body=pl.len())
    supported = body_pairs.join(heads, on=["x", "z"])
    supported = supported.filter((pl.col("r3") != pl.col("r1")) & (pl.col("r3") != pl.col("r2")))
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
    wilson = [_wilson_lower(s / b, b) for s, b in zip(rules["support"], rules["pca_body"], strict=True)]
    rules = rules.with_columns(wilson_lower=pl.Series(wilson, dtype=pl.Float64))
    rules = rules.with_columns(
        tier=pl.struct("pca_confidence", "std_confidence").map_elements(
            lambda c: _tier(c["pca_confidence"], c["std_confidence"], spec_tiers), return_dtype=pl.String
        )
    )
    rules = rules.with_columns(
        rule_id=pl.concat_str(["r1", "r2", "r3"], separator="|"),
        pattern=pl.format("{}(x,y) ∧ {}(y,z) ⇒ {}(x,z)", "r1", "r2", "r3"),
    )
    rank = pl.col("tier").replace_strict(TIER_ORDER, return_dtype=pl.Int64)
    return rules.sort([rank, "wilson_lower", "support", "rule_id"], descending=[True, True, True, False])


def _wilson_lower(p: float, n: int) -> float:
    if n == 0:
        return 0.0
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    return max(0.0, centre - Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom)


def _tier(confidence: float, std_confidence: float, tiers: TierSpec) -> str:
    trusted = std_confidence >= tiers.min_std_confidence
    if confidence >= tiers.must_be_true and trusted:
        return "must_be_true"
    if confidence >= tiers.likely and trusted:
        return "likely"
    if confidence >= tiers.plausible:
        return "plausible"
    return "unlikely"


# ---- knowledge sets ----------------------------------------------------------------------------


class KnowledgeSetError(ProbesmithError):
    """A knowledge set failed its conflict or implication check."""


def question_forms(
    pid: str, templates: tuple[str, ...], questions: dict[str, str], clozes: dict[str, str]
) -> list[str]:
    """Question forms of a relation, each with [X]: a question, then cloze forms ending in ___."""
    forms = [questions[pid]] if pid in questions else []
    if pid in clozes:
        forms.append(clozes[pid].replace("__", "___").rstrip(" .") + ".")
    for template in templates:
        stripped = template.rstrip(" .")
        if stripped.endswith("[Y]") and "[X]" in stripped:
            forms.append(stripped[: -len("[Y]")].rstrip() + " ___.")
    return list(dict.fromkeys(forms))


class _World:
    """Fact lookups for grounding and re-deriving."""

    def __init__(self, facts: pl.DataFrame, labels: dict[str, str]):
        self.labels = labels
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

    def range_of(self, relation: str) -> set[str]:
        """Entities the source has at the second argument of ``relation`` (read backwards for P^-1)."""
        if relation.endswith(INVERSE):
            return self.subjects.get(relation[: -len(INVERSE)], set())
        return set(self.pool.get(relation, ()))

    def edit_candidates(self, rule: dict) -> list[str]:
        """New objects for an edit of r2(y, z): objects of both r2 and r3 in the source.

        So the re-derived implication r3(x, z') is a well-typed fact (a country for "country").
        """
        return sorted(self.range_of(rule["r2"]) & self.range_of(rule["r3"]))

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


def _atom_fact(relation: str, a: str, b: str) -> tuple[str, str, str]:
    """The stored triple of atom relation(a, b)."""
    if relation.endswith(INVERSE):
        return b, relation[: -len(INVERSE)], a
    return a, relation, b


def knowledge_sets(
    rules: pl.DataFrame,
    facts: pl.DataFrame,
    labels: dict[str, str],
    forms: dict[str, list[str]],
    spec: RulesSpec,
) -> tuple[list[dict], list[dict], Counter]:
    """Groundings and knowledge-set items of the best rules; every set checked."""
    world = _World(facts, labels)
    world.build_reverse()
    dropped: Counter = Counter()
    usable = rules.filter(
        pl.col("tier").replace_strict(TIER_ORDER, return_dtype=pl.Int64) >= TIER_ORDER[spec.min_tier]
    )
    grounding_rows, items = [], []
    built = 0
    for rule in usable.iter_rows(named=True):
        if built == spec.max_rules:
            break
        relations = [r.removesuffix(INVERSE) for r in (rule["r1"], rule["r2"], rule["r3"])]
        if rule["r2"].endswith(INVERSE):
            dropped["rule: second premise read backwards (edits change a premise's object)"] += 1
            continue
        if any(len(forms.get(r, [])) < 2 for r in relations):
            dropped["rule: a relation has fewer than 2 question forms"] += 1
            continue
        groundings = _groundings(rule, world, spec)
        if len(groundings) < spec.groundings:
            dropped["rule: fewer groundings than asked for"] += 1
            continue
        if (
            len({y for _, y, _ in groundings}) < spec.min_join_entities
            or len({z for *_, z in groundings}) < 2
        ):
            dropped[f"rule: fewer than {spec.min_join_entities} join entities or 2 answers"] += 1
            continue
        if len(world.edit_candidates(rule)) < 3:
            dropped["rule: too few well-typed new objects for update variants"] += 1
            continue
        set_id = f"ks-{built:04d}"
        askable = {r for r, f in forms.items() if len(f) >= 2}
        unrelated = _unrelated(facts, set(relations), askable, spec, set_id)
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
                        _item(set_id, rule["rule_id"], name, role, is_update, s, r, o, forms, labels)
                    )
            for s, r, o in unrelated:
                items.append(_item(set_id, rule["rule_id"], name, "unrelated", False, s, r, o, forms, labels))
        grounding_rows += [
            {"set_id": set_id, "rule_id": rule["rule_id"], "x": x, "y": y, "z": z} for x, y, z in groundings
        ]
        built += 1
    return grounding_rows, items, dropped


def _groundings(rule: dict, world: _World, spec: RulesSpec) -> list[tuple[str, str, str]]:
    """Up to ``spec.groundings`` groundings (x, y, z), distinct join entities y first.

    Each x has a single r1 object, that y a single r2 object, and x a single r3 object, so
    every question has one answer; a y is reused only when too few distinct ones exist.
    """
    head = rule["r3"]
    subjects = sorted(
        {s for (s, r) in world.objects if r == head}, key=lambda s: stable_hash(spec.seed, rule["rule_id"], s)
    )
    candidates = []
    for x in subjects:
        heads = world.objects.get((x, head), [])
        ys = world.step(x, rule["r1"])
        if len(heads) != 1 or len(ys) != 1:
            continue
        zs = world.step(ys[0], rule["r2"])
        if len(zs) == 1 and zs[0] == heads[0] and zs[0] != x:
            candidates.append((x, ys[0], zs[0]))
    seen: set[str] = set()
    first = [g for g in candidates if not (g[1] in seen or seen.add(g[1]))]
    rest = [g for g in candidates if g not in first]
    return (first + rest)[: spec.groundings]


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
    facts: pl.DataFrame, used: set[str], askable: set[str], spec: RulesSpec, set_id: str
) -> list[tuple[str, str, str]]:
    other = facts.filter(pl.col("r").is_in(sorted(askable - used)))
    keys = [stable_hash(spec.seed, set_id, "unrelated", s, r, o) for s, r, o in other.iter_rows()]
    chosen = (
        other.with_columns(_k=pl.Series(keys, dtype=pl.UInt64))
        .sort("_k")
        .unique(["s", "r"], keep="first", maintain_order=True)
    )
    return [tuple(row) for row in chosen.head(spec.unrelated).select("s", "r", "o").iter_rows()]


def _item(set_id, rule_id, variant, role, is_update, s, r, o, forms, labels) -> dict:
    questions = [f.replace("[X]", labels.get(s, s)) for f in forms[r]]
    return {
        "set_id": set_id,
        "rule_id": rule_id,
        "variant": variant,
        "role": role,
        "is_update": is_update,
        "question": questions[0],
        "rephrasings": questions[1:],
        "answer": labels.get(o, o),
        "subject": s,
        "relation": r,
        "object": o,
    }


def _read_templates(path: str, key: str) -> dict:
    """A JSON file of templates named by the spec (``''`` = none)."""
    from probesmith.builders.data import data_path

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
    from probesmith.schemas.output import OutputFile

    with OutputFile(out, "export:depedit", force=force) as tmp:
        lines = _depedit_lines(Path(build_folder))
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(out)


def _depedit_lines(build_folder: Path) -> list[str]:
    from probesmith.schemas.artifact import read_table, require_family

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
                    "a": row["answer"],
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


def _answer_aliases(client, items: list[dict], labels: dict[str, str]) -> list[dict]:
    """The alias bank of every answer entity, for alias-aware matching of model answers."""
    from probesmith.builders.paraphrases import AliasSpec, alias_bank

    entities = sorted({item["object"] for item in items})
    raw: dict[str, list[str]] = defaultdict(list)
    for row in batched_select(client, aliases_query, entities):
        raw[entity_id(row["e"])].append(row["alias"])
    rows = []
    for entity in entities:
        kept, _ = alias_bank(entity, labels[entity], sorted(raw[entity]), AliasSpec(), set())
        rows += kept
    return rows


@register_family(
    "rules",
    RulesSpec,
    default_spec="rules",
    description="DepEdit-style rule cliques: mined If-Then rules and knowledge sets",
)
def generate_rules(spec: RulesSpec) -> FamilyOutput:
    """Mine rules over the spec's relations and build checked knowledge sets."""
    catalog = load_catalog(spec.catalog)
    relations = [r for r in (spec.relations or catalog) if r not in spec.exclude_relations]
    labels: dict[str, str] = {}
    rows = []
    with open_wikidata(spec.wikidata) as (client, source):
        for pid in relations:
            for r in client.select_paged(facts_query(pid), spec.wikidata.page_size):
                s, o = entity_id(r["s"]), entity_id(r["o"])
                labels[s], labels[o] = r["sLabel"], r["oLabel"]
                rows.append((s, pid, o))
        facts = pl.DataFrame(rows, schema={"s": pl.String, "r": pl.String, "o": pl.String}, orient="row")
        inverses = inverse_pairs(facts)
        facts = canonical_edges(facts, inverses)
        rules = mine_rules(facts, spec.tiers, spec.max_join_degree, spec.min_support)
        questions = _read_templates(spec.question_templates, "question_templates")
        clozes = _read_templates(spec.cloze_templates, "cloze_templates")
        forms = {
            pid: question_forms(pid, catalog[pid].templates if pid in catalog else (), questions, clozes)
            for pid in relations
        }
        groundings, items, dropped = knowledge_sets(rules, facts, labels, forms, spec)
        aliases = _answer_aliases(client, items, labels)
        queries = query_log(client)
    dropped.update({f"relation {s} merged into {r} read backwards": 1 for s, r in inverses.items()})
    rule_rows = rules.select([n for n in RULES.schema.names]).to_dicts()
    summary = rules.group_by("tier").agg(rules=pl.len()).sort("tier")
    card = CardInfo(
        pretty_name="Rule cliques and knowledge sets from Wikidata (probesmith)",
        description=spec.description or __doc__.split("\n\n")[0],
        license="cc-by-sa-4.0",
        licence_text="Facts and labels: Wikidata (CC0). Templates: BEAR (CC BY-SA 4.0) and MQuAKE (MIT).",
        tags=("probing", "wikidata", "knowledge-editing", "rules"),
        task_categories=("question-answering",),
    )
    tables = single_split_tables(
        {
            "rules": (RULES, rule_rows),
            "groundings": (RULE_GROUNDINGS, groundings),
            "knowledge_items": (KNOWLEDGE_ITEMS, items),
            "aliases": (ALIASES, aliases),
        },
        SPLIT,
    )
    return FamilyOutput(
        card,
        {"wikidata": source},
        tables=tables,
        summary=summary,
        dropped=dropped,
        manifest_extra={"queries": queries, "inverse_relations": inverses},
    )

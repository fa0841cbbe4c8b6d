"""Balanced relation sets (as in BEAR, Wiland et al. 2024) from Wikidata over SPARQL.

Per relation of the catalog (``probes/catalogs/wikidata_relations.yaml``):

1. the gold facts ``(subject, object)`` with English labels, one paged SPARQL query;
2. facts dropped, with a counted reason: subject equal to object, subject label containing the
   object label ("Apple Inc." / "Apple"); for N-1 relations, subjects with several objects;
3. an answer space: up to ``max_answers`` objects with at least ``min_support`` subjects each,
   the most supported first; of two answers with the same label only the better supported stays;
4. instances sampled so that every answer is the gold of exactly ``k`` instances (exact
   balance), subjects unique within the relation, each subject chosen by a keyed hash of the
   seed (adding facts leaves the other choices alone); for N-M relations every gold object of a
   subject is kept in ``gold_obj_ids`` and any counts as correct;
5. subject aliases (``skos:altLabel``) and popularity (the subject's degree in the source).

Tables: ``instances``, ``answer_spaces`` and ``templates`` (config per table, split ``test``),
and an export to BEAR's layout that ``lm_pub_quiz.Dataset.from_path`` loads.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl
import yaml
from tqdm.auto import tqdm

from probesmith.builders.registry import FamilyOutput, register_family, single_split_tables
from probesmith.builders.sampling import stable_hash
from probesmith.builders.sources import WikidataSpec, open_wikidata
from probesmith.builders.wikidata import PREFIXES, SparqlClient, entity_id, query_log
from probesmith.errors import SpecError
from probesmith.probes.spec import ProbeSpec, resolve_spec_path, spec_field
from probesmith.schemas.card import CardInfo
from probesmith.schemas.tables import ANSWER_SPACES, PATTERNS, RELATION_INSTANCES

log = logging.getLogger(__name__)

SPLIT = "test"
_VALUES_BATCH = 400


@dataclass(frozen=True)
class Relation:
    """One relation of the catalog."""

    pid: str
    label: str
    templates: tuple[str, ...]
    cardinality: str = "auto"
    description: str = ""
    domains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not re.fullmatch(r"P\d+", self.pid):
            raise SpecError(f"relation catalog: {self.pid!r} is not a Wikidata property id (P123).")
        if len(self.templates) < 3:
            raise SpecError(
                f"relation catalog: {self.pid} needs at least 3 templates, has {len(self.templates)}."
            )
        for template in self.templates:
            if template.count("[X]") != 1 or template.count("[Y]") != 1:
                raise SpecError(
                    f"relation catalog: {self.pid} template {template!r} needs one [X] and one [Y]."
                )


@functools.lru_cache(maxsize=8)
def load_catalog(name_or_path: str) -> dict[str, Relation]:
    """A relation catalog by bundled name (``catalogs/wikidata_relations``) or path (read once)."""
    path = resolve_spec_path(name_or_path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise SpecError(f"relation catalog {path} is not valid UTF-8 YAML ({exc}).") from None
    entries = data.get("relations") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SpecError(f"relation catalog {path} needs a non-empty list under `relations:`.")
    relations = {}
    for number, entry in enumerate(entries, 1):
        missing = [k for k in ("pid", "templates") if not isinstance(entry, dict) or k not in entry]
        if missing or not isinstance(entry["templates"], list) or not entry["templates"]:
            raise SpecError(
                f"relation catalog {path}, entry {number}: needs `pid` and a non-empty list of "
                f"`templates` (missing or empty: {missing or ['templates']})."
            )
        relation = Relation(
            pid=str(entry["pid"]),
            label=entry.get("label", entry["pid"]),
            templates=tuple(entry["templates"]),
            cardinality=entry.get("cardinality", "auto"),
            description=entry.get("description", ""),
            domains=tuple(entry.get("domains", [])),
        )
        relations[relation.pid] = relation
    return relations


def is_object_final(template: str) -> bool:
    """Whether [Y] ends the template (final punctuation and spaces aside)."""
    return template.rstrip(" .!?;:").endswith("[Y]")


@dataclass(frozen=True)
class RelationsSpec(ProbeSpec):
    """Spec of the balanced relation sets family."""

    wikidata: WikidataSpec = spec_field(default_factory=WikidataSpec, help="Wikidata source.")
    catalog: str = spec_field("catalogs/wikidata_relations", help="Relation catalog (bundled name or path).")
    relations: tuple[str, ...] = spec_field((), help="Relations to build (PIDs); empty = the whole catalog.")
    max_answers: int = spec_field(20, help="A: the largest answer space of a relation.", minimum=2)
    min_answers: int = spec_field(5, help="Relations with fewer answers than this are skipped.")
    min_support: int = spec_field(5, help="An object needs this many subjects to be an answer.")
    max_per_answer: int = spec_field(20, help="k at most: instances per answer (exactly k for every answer).")
    popularity_strata: int = spec_field(
        0, help="Sample each answer's subjects evenly from this many popularity strata; 0 = off."
    )
    leakage: Literal["drop", "keep"] = spec_field(
        "drop", help="Facts whose subject label contains the object label: drop or keep."
    )

    def __post_init__(self) -> None:
        if self.min_support < 1 or self.max_per_answer < 1 or self.min_answers < 2:
            raise ValueError("min_support and max_per_answer must be >= 1, min_answers >= 2")


def facts_query(pid: str) -> str:
    """Every fact of a relation with the English labels of both ends (standard SPARQL)."""
    return (
        PREFIXES
        + f"""SELECT ?s ?o ?sLabel ?oLabel WHERE {{
  ?s wdt:{pid} ?o .
  ?s rdfs:label ?sLabel . FILTER(LANG(?sLabel) = "en")
  ?o rdfs:label ?oLabel . FILTER(LANG(?oLabel) = "en")
}} ORDER BY ?s ?o"""
    )


def aliases_query(entities: list[str]) -> str:
    """English aliases of some entities."""
    values = " ".join(f"wd:{e}" for e in entities)
    return (
        PREFIXES
        + f"""SELECT ?e ?alias WHERE {{
  VALUES ?e {{ {values} }}
  ?e skos:altLabel ?alias . FILTER(LANG(?alias) = "en")
}} ORDER BY ?e ?alias"""
    )


def degree_query(entities: list[str]) -> str:
    """Number of direct-claim facts each entity takes part in (as subject or object)."""
    values = " ".join(f"wd:{e}" for e in entities)
    return (
        PREFIXES
        + f"""SELECT ?e (COUNT(*) AS ?degree) WHERE {{
  VALUES ?e {{ {values} }}
  {{ ?e ?p ?x }} UNION {{ ?x ?p ?e }}
  FILTER(STRSTARTS(STR(?p), "http://www.wikidata.org/prop/direct/"))
}} GROUP BY ?e"""
    )


def batched_select(client: SparqlClient, make_query, entities: list[str]) -> list[dict]:
    """Run ``make_query(batch)`` over the entities in VALUES batches; all rows together."""
    rows = []
    for start in range(0, len(entities), _VALUES_BATCH):
        rows += client.select(make_query(entities[start : start + _VALUES_BATCH]))
    return rows


def sitelinks_query(entities: list[str]) -> str:
    """Number of Wikipedia sitelinks of each entity, where the source has them."""
    values = " ".join(f"wd:{e}" for e in entities)
    return (
        PREFIXES
        + f"""SELECT ?e ?sitelinks WHERE {{
  VALUES ?e {{ {values} }}
  ?e wikibase:sitelinks ?sitelinks .
}}"""
    )


def popularity(client: SparqlClient, entities: list[str]) -> tuple[str, dict[str, int]]:
    """("sitelinks", ...) where the source has sitelinks (the query service), else ("degree", ...)."""
    links = {
        entity_id(r["e"]): int(r["sitelinks"]) for r in batched_select(client, sitelinks_query, entities)
    }
    if links:
        return "sitelinks", links
    return "degree", {
        entity_id(r["e"]): int(r["degree"]) for r in batched_select(client, degree_query, entities)
    }


def _contains_label(subject: str, obj: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(obj)}(?!\w)", subject, re.IGNORECASE) is not None


def balance_relation(
    relation: Relation,
    facts: list[tuple[str, str, str, str]],
    spec: RelationsSpec,
    dropped: Counter,
    popularity_of=None,
) -> tuple[list[dict], list[dict]]:
    """Answer space and exactly balanced instances of one relation; drop reasons counted."""
    pid = relation.pid
    labels: dict[str, str] = {}
    golds: dict[str, set[str]] = defaultdict(set)
    for s, o, s_label, o_label in facts:
        labels[s], labels[o] = s_label, o_label
        if s == o:
            dropped[f"{pid}: subject equals object"] += 1
            continue
        if spec.leakage == "drop" and _contains_label(s_label, o_label):
            dropped[f"{pid}: subject label contains object label"] += 1
            continue
        golds[s].add(o)
    cardinality = relation.cardinality
    if cardinality == "auto":
        single = sum(len(objs) == 1 for objs in golds.values())
        cardinality = "N-1" if golds and single / len(golds) >= 0.9 else "N-M"
    if cardinality in ("N-1", "1-1"):
        several = [s for s, objs in golds.items() if len(objs) > 1]
        dropped[f"{pid}: subject with several objects (N-1 relation)"] += len(several)
        for s in several:
            del golds[s]
    support = Counter(o for objs in golds.values() for o in objs)
    ranked = sorted(
        (o for o, n in support.items() if n >= spec.min_support),
        key=lambda o: (-support[o], stable_hash(spec.seed, pid, o)),
    )
    space: list[str] = []
    seen_labels: set[str] = set()
    for o in ranked:
        if labels[o].lower() in seen_labels:
            dropped[f"{pid}: answer label shared with a better supported answer"] += 1
            continue
        seen_labels.add(labels[o].lower())
        space.append(o)
        if len(space) == spec.max_answers:
            break
    if len(space) < spec.min_answers:
        dropped[f"{pid}: relation skipped, fewer than {spec.min_answers} answers with support"] += 1
        return [], []
    k = min(spec.max_per_answer, min(support[o] for o in space))
    strata = None
    if spec.popularity_strata and popularity_of is not None:
        strata = _strata(popularity_of(sorted(golds)), spec.popularity_strata)
    chosen = _assign_subjects(pid, space, golds, k, spec.seed, strata)
    k = min(len(subjects) for subjects in chosen.values())
    answer_idx = {o: i for i, o in enumerate(space)}
    instances = []
    for o in space:
        for s in chosen[o][:k]:
            instances.append(
                {
                    "relation_id": pid,
                    "sub_id": s,
                    "sub_label": labels[s],
                    "obj_id": o,
                    "obj_label": labels[o],
                    "answer_idx": answer_idx[o],
                    "gold_obj_ids": sorted(golds[s]),
                    "sub_aliases": [],
                    "popularity": None,
                }
            )
    answers = [
        {"relation_id": pid, "answer_idx": i, "obj_id": o, "obj_label": labels[o]}
        for i, o in enumerate(space)
    ]
    return instances, answers


def _strata(popularity: dict[str, int], n: int) -> dict[str, int]:
    """Stratum 0..n-1 of every subject by popularity rank (equal-sized quantile bins)."""
    ranked = sorted(popularity, key=lambda s: (popularity[s], s))
    return {s: min(n - 1, i * n // max(1, len(ranked))) for i, s in enumerate(ranked)}


def _assign_subjects(
    pid: str,
    space: list[str],
    golds: dict[str, set[str]],
    k: int,
    seed: int,
    strata: dict[str, int] | None = None,
) -> dict[str, list[str]]:
    """K distinct subjects per answer; scarce answers choose first; order by keyed hash.

    With ``strata``, an answer's subjects are taken round-robin across popularity strata, so
    that popular and rare subjects are represented alike.
    """
    candidates = defaultdict(list)
    for s, objs in golds.items():
        for o in objs:
            candidates[o].append(s)
    used: set[str] = set()
    chosen: dict[str, list[str]] = {}
    for o in sorted(space, key=lambda o: (len(candidates[o]), space.index(o))):
        ordered = sorted(candidates[o], key=lambda s: (stable_hash(seed, pid, "subject", s), s))
        if strata is not None:
            turn = Counter()
            ranked = []
            for s in ordered:  # the i-th subject of each stratum comes in round i
                ranked.append((turn[strata.get(s, 0)], strata.get(s, 0), s))
                turn[strata.get(s, 0)] += 1
            ordered = [s for *_, s in sorted(ranked)]
        picked = [s for s in ordered if s not in used][:k]
        used.update(picked)
        chosen[o] = picked
    return chosen


@register_family(
    "relations",
    RelationsSpec,
    default_spec="relations",
    description="Balanced relation sets (BEAR) from Wikidata: every answer gold equally often",
)
def generate_relations(spec: RelationsSpec) -> FamilyOutput:
    """Query every relation, balance it, and attach aliases and popularity."""
    catalog = load_catalog(spec.catalog)
    unknown = [p for p in spec.relations if p not in catalog]
    if unknown:
        raise SpecError(
            f"relations {unknown} are not in the catalog {spec.catalog}; known: {', '.join(catalog)}."
        )
    chosen = [catalog[p] for p in (spec.relations or catalog)]
    dropped: Counter = Counter()
    instances: list[dict] = []
    answers: list[dict] = []
    with open_wikidata(spec.wikidata) as (client, source):
        for relation in tqdm(chosen, desc="relations", unit="relation", disable=None):
            rows = client.select_paged(facts_query(relation.pid), spec.wikidata.page_size)
            facts = [
                (entity_id(r["s"]), entity_id(r["o"]), r["sLabel"], r["oLabel"])
                for r in rows
                if r["s"].startswith("http://www.wikidata.org/entity/Q")
                and r["o"].startswith("http://www.wikidata.org/entity/Q")
            ]
            rel_instances, rel_answers = balance_relation(
                relation, facts, spec, dropped, lambda subjects: popularity(client, subjects)[1]
            )
            instances += rel_instances
            answers += rel_answers
        subjects = sorted({row["sub_id"] for row in instances})
        aliases: dict[str, list[str]] = defaultdict(list)
        for row in batched_select(client, aliases_query, subjects):
            aliases[entity_id(row["e"])].append(row["alias"])
        measure, popular = popularity(client, subjects)
        queries = query_log(client)
    for row in instances:
        row["sub_aliases"] = sorted(aliases.get(row["sub_id"], []))
        row["popularity"] = popular.get(row["sub_id"])
    templates = [
        {
            "relation_id": r.pid,
            "pattern_id": f"{r.pid}-{i}",
            "template": t,
            "object_final": is_object_final(t),
            "origin": "catalog",
        }
        for r in chosen
        if any(a["relation_id"] == r.pid for a in answers)
        for i, t in enumerate(r.templates)
    ]
    summary = (
        pl.DataFrame(instances, schema={"relation_id": pl.String, "answer_idx": pl.Int32})
        if instances
        else pl.DataFrame(schema={"relation_id": pl.String, "answer_idx": pl.Int32})
    )
    summary = (
        summary.group_by("relation_id")
        .agg(
            instances=pl.len(),
            answers=pl.col("answer_idx").n_unique(),
            per_answer=pl.len() // pl.col("answer_idx").n_unique(),
        )
        .sort("relation_id")
    )
    card = CardInfo(
        pretty_name="Balanced relation sets from Wikidata (probesmith)",
        description=spec.description or __doc__.split("\n\n")[0],
        license="cc-by-sa-4.0",
        licence_text="Facts, labels and aliases: Wikidata (CC0). Templates: BEAR (Wiland et al. "
        "2024), CC BY-SA 4.0; this dataset is shared under the same licence.",
        tags=("probing", "wikidata", "bear", "relational-knowledge"),
        task_categories=("fill-mask", "text-generation"),
    )
    tables = single_split_tables(
        {
            "instances": (RELATION_INSTANCES, instances),
            "answer_spaces": (ANSWER_SPACES, answers),
            "templates": (PATTERNS, templates),
        },
        SPLIT,
    )
    return FamilyOutput(
        card,
        {"wikidata": source},
        tables=tables,
        summary=summary,
        dropped=dropped,
        manifest_extra={"queries": queries, "popularity_measure": measure},
    )


def export_bear(build_folder: str | Path, out: str | Path, *, force: bool = False) -> Path:
    """Export a relations build to BEAR's layout (P*.jsonl + metadata_relations.json).

    ``out`` is checked before the build is read, written atomically, and replaces only an earlier
    BEAR export of ours.
    """
    from probesmith.builders.bear import write_bear_files
    from probesmith.schemas.output import OutputFolder

    with OutputFolder(out, "export:bear", force=force) as staging:
        write_bear_files(staging, _bear_relations(Path(build_folder)))
    return Path(out)


def _bear_relations(build_folder: Path) -> dict[str, dict]:
    from probesmith.schemas.artifact import read_table, require_family

    manifest = require_family(build_folder, ("relations",), "export bear")
    instances, answers, templates = (
        read_table(build_folder, config, manifest=manifest)
        for config in ("instances", "answer_spaces", "templates")
    )
    relations = {}
    for pid in answers["relation_id"].unique(maintain_order=True).to_list():
        space = answers.filter(pl.col("relation_id") == pid).sort("answer_idx")
        rows = instances.filter(pl.col("relation_id") == pid).sort("answer_idx", maintain_order=True)
        relations[pid] = {
            "templates": templates.filter(pl.col("relation_id") == pid)
            .sort("pattern_id")["template"]
            .to_list(),
            "answer_space_labels": space["obj_label"].to_list(),
            "answer_space_ids": space["obj_id"].to_list(),
            "instances": rows.select(
                "sub_id", "sub_label", "sub_aliases", "obj_id", "obj_label", "answer_idx"
            ).to_dicts(),
        }
    return relations


def import_bear(bear_folder: str | Path, out: str | Path, *, force: bool = False) -> dict:
    """Import a BEAR-layout folder into a relations build folder (instances, answer spaces, templates).

    ``out`` must be new, empty or a relations build (checked before BEAR is read).
    """
    import probesmith
    from probesmith.builders.bear import read_bear
    from probesmith.schemas.artifact import DatasetFolderWriter
    from probesmith.schemas.manifest import file_sha256
    from probesmith.schemas.output import check_destination

    check_destination(out, "build:relations", folder=True, force=force)
    bear_folder = Path(bear_folder)
    relations = read_bear(bear_folder)
    instances, answers, templates = [], [], []
    for pid, data in relations.items():
        ids, labels = data["answer_space_ids"], data["answer_space_labels"]
        answers += [
            {"relation_id": pid, "answer_idx": i, "obj_id": o, "obj_label": label}
            for i, (o, label) in enumerate(zip(ids, labels, strict=True))
        ]
        templates += [
            {
                "relation_id": pid,
                "pattern_id": f"{pid}-{i}",
                "template": t,
                "object_final": is_object_final(t),
                "origin": "bear",
            }
            for i, t in enumerate(data["templates"])
        ]
        instances += [
            {
                "relation_id": pid,
                "sub_id": r["sub_id"],
                "sub_label": r["sub_label"],
                "sub_aliases": r.get("sub_aliases", []),
                "obj_id": r["obj_id"],
                "obj_label": r["obj_label"],
                "answer_idx": r["answer_idx"],
                "gold_obj_ids": [r["obj_id"]],
                "popularity": None,
            }
            for r in data["instances"]
        ]
    card = CardInfo(
        pretty_name=f"{bear_folder.name} (imported by probesmith)",
        description=f"Relation sets imported from the BEAR layout at {bear_folder}.",
        license="cc-by-sa-4.0",
        tags=("probing", "bear"),
        task_categories=("fill-mask", "text-generation"),
    )
    with DatasetFolderWriter(out, "build:relations", force=force) as writer:
        tables = {
            "instances": (RELATION_INSTANCES, instances),
            "answer_spaces": (ANSWER_SPACES, answers),
            "templates": (PATTERNS, templates),
        }
        for (config, split), (table, schema) in single_split_tables(tables, SPLIT).items():
            writer.add_table(config, split, table, schema)
        sources = {
            "bear": {
                "folder": str(bear_folder.resolve()),
                "metadata_sha256": file_sha256(bear_folder / "metadata_relations.json"),
            }
        }
        return writer.commit(
            card,
            {
                "name": Path(out).name,
                "family": "relations",
                "sources": sources,
                "probesmith_version": probesmith.__version__,
            },
            f"{len(relations)} relations imported.",
        )

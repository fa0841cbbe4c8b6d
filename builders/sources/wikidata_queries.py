"""The Wikidata queries the Wikidata families share: bounded samples, aliases, containment, popularity.

Every query is standard SPARQL (it runs on the public query service and on a local oxigraph
store alike) and every one is bounded: an aggregate with a ``LIMIT``, a ``LIMIT``-ed sample in a
deterministic key order, or a ``VALUES`` batch of entities a build has already chosen. No query's
row count grows with the size of a relation, so a build's work grows with the dataset it writes,
not with Wikidata (issue 14). The plans, answer-first:

* :func:`answer_counts` — a relation's objects by number of subjects, counted on the server;
* :func:`keyed_pages` — pages of a relation's facts, or of one answer's subjects, in the order
  of a seeded key (``MD5(CONCAT(STR(?s), salt))``, which :func:`sample_key` computes the same way
  here), paged by key ranges so that the server sorts only a window of keys, never the relation;
* :func:`subject_sample`, :func:`subjects_in_key_order` — the subjects below a key / the first
  subjects in key order, with all their facts (rule mining, paraphrase grids);
* :func:`facts_of` — the facts of chosen entities (the join entities of rule mining);
* :func:`classes_of`, :func:`class_facts` — the classes (P31) of chosen entities, each asked once per build;
* :func:`objects_of` — every object of the chosen subjects (N-M golds), in ``VALUES`` batches;
* :func:`cardinality_counts` — the shares a relation's cardinality is decided from, aggregated.

``min_popularity`` keeps only subjects with at least that popularity (sitelinks, or the degree
a ``probesmith wikidata slice`` recorded) in counts and samples. :class:`EntityLookups` asks
about each entity once per build.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from probesmith.builders.sources.wikidata import PREFIXES, QueryTimeout, SparqlClient, entity_id
from probesmith.builders.text import is_plural_noun, takes_definite_article
from probesmith.errors import SourceError
from probesmith.progress import progress

_VALUES_BATCH = 400
_ITEM = "http://www.wikidata.org/entity/Q"
# the popularity a `probesmith wikidata slice` records where its dump has no sitelinks: the
# entity's degree over the whole dump (not over the slice, which keeps a fraction of its facts)
RECORDED_DEGREE = "https://w3id.org/probesmith#degree"
SITELINKS = "http://wikiba.se/ontology#sitelinks"


@dataclass(frozen=True)
class SourceView:
    """How a build reads one relation: its type constraints and the popularity floor.

    ``popularity_predicate`` is the source's popularity (sitelinks, or a recorded degree);
    ``min_popularity`` > 0 needs one.
    """

    pid: str
    subject_types: tuple[str, ...] = ()
    object_types: tuple[str, ...] = ()
    min_popularity: int = 0
    popularity_predicate: str = ""

    def pattern(self, subject: str = "?s", obj: str = "?o", *, labels: bool = True) -> str:
        """The WHERE body of the relation's facts: English labels, types, popularity floor."""
        lines = [f"{subject} wdt:{self.pid} {obj} ."]
        for var, classes in ((subject, self.subject_types), (obj, self.object_types)):
            if classes:
                # a FILTER, not VALUES: given VALUES ?sType, oxigraph may start from every instance
                # of the class (every human) even when ?s is already bound by VALUES
                kind = f"{var}Type" if var.startswith("?") else "?objType"
                values = ", ".join(f"wd:{q}" for q in classes)
                lines.append(f"{var} wdt:P31 {kind} . FILTER({kind} IN ({values}))")
        if self.min_popularity:
            lines.append(
                f"{subject} <{self.popularity_predicate}> ?popularity . "
                f"FILTER(?popularity >= {int(self.min_popularity)})"
            )
        # no FILTER on the IRIs' text here: it makes the server spell out every IRI (10x slower
        # counts); rows whose ends are not items (lexemes, properties) are dropped where they arrive
        if labels:
            for var in (subject, obj):
                if var.startswith("?"):
                    lines.append(f'{var} rdfs:label {var}Label . FILTER(LANG({var}Label) = "en")')
        return "\n  ".join(lines)


def sample_key(entity: str, salt: str) -> str:
    """The key samples are ordered by: ``MD5(CONCAT(STR(?e), salt))``, as the server computes it."""
    iri = entity if entity.startswith("http") else f"http://www.wikidata.org/entity/{entity}"
    return hashlib.md5((iri + salt).encode()).hexdigest()


_KEY_SPACE = 16**8
_NO_BOUND = "g"  # above every hexadecimal key


def key_bound(fraction: float) -> str:
    """The key below which ``fraction`` of all keys lie (8 hex digits), or no bound at all.

    ``keyed_pages``' ``stop``: the subjects whose key lies below it are about that share of all.
    """
    return _NO_BOUND if fraction >= 1 else format(int(fraction * _KEY_SPACE), "08x")


def _fraction(key: str) -> float:
    return int(key[:8], 16) / _KEY_SPACE if key else 0.0


def size_query(view: SourceView, answer: str | None = None) -> str:
    """How many facts a relation (or one answer of it) has: a count, no labels, no order."""
    obj = f"wd:{answer}" if answer else "?o"
    return PREFIXES + f"SELECT (COUNT(*) AS ?n) WHERE {{\n  {view.pattern('?s', obj, labels=False)}\n}}"


def relation_size(client: SparqlClient, view: SourceView) -> int:
    """The number of facts of a relation (as the view reads it)."""
    rows = client.select(size_query(view))
    return int(rows[0]["n"]) if rows else 0


# the most facts one keyed query hashes: the key needs each subject's IRI spelled out, which costs
# a store ~10-40 us a fact; a scope larger than this is sampled within the first MAX_SCAN facts
# the endpoint lists (its index order), keyed inside them, so that no query outgrows a time limit
MAX_SCAN = 50_000


def keyed_query(
    view: SourceView,
    salt: str,
    limit: int,
    start: str,
    below: str,
    answer: str | None = None,
    scan: int = 0,
) -> str:
    """Facts of a relation (or subjects of one answer) with keys in ``[start, below)``, lowest first.

    The window keeps the server's sort small (it sorts only the keys inside it, not the whole
    relation); the ``LIMIT`` bounds the rows; labels are joined to the rows kept, not before.
    ``scan`` > 0: only the first ``scan`` facts of the scope, in the endpoint's order.
    """
    obj = f"wd:{answer}" if answer else "?o"
    scope = view.pattern("?s", obj, labels=False)
    if scan:
        inner = "?s" if answer else "?s ?o"
        scope = f"{{ SELECT {inner} WHERE {{ {scope} }} LIMIT {int(scan)} }}"
    window = f'?key >= "{start}"' + (f' && ?key < "{below}"' if below != _NO_BOUND else "")
    select = "?s ?key" if answer else "?s ?o ?key"
    labels = '  OPTIONAL { ?s rdfs:label ?sLabel . FILTER(LANG(?sLabel) = "en") }'
    if not answer:
        labels += '\n  OPTIONAL { ?o rdfs:label ?oLabel . FILTER(LANG(?oLabel) = "en") }'
    return (
        PREFIXES
        + f"""SELECT * WHERE {{
  {{ SELECT {select} WHERE {{
    {scope}
    BIND(MD5(CONCAT(STR(?s), "{salt}")) AS ?key) FILTER({window})
  }} ORDER BY ?key {select.replace(" ?key", "")} LIMIT {int(limit)} }}
{labels}
}}"""
    )


def keyed_pages(
    client: SparqlClient,
    view: SourceView,
    salt: str,
    page_size: int,
    total: int,
    answer: str | None = None,
    start: str = "",
    stop: str = _NO_BOUND,
    max_scan: int = MAX_SCAN,
):
    """Pages of ``(subject, object, subject label, object label, key)`` in key order, keys below ``stop``.

    Keyset pagination over the sample key: each page asks for keys from where the last one
    ended, in a window sized to hold about three pages of a scope of ``total`` facts (widened
    when it holds too few). A page's last subject may continue on the next page, so it is asked
    again there (whole). Rows without an English label come with an empty label.
    """
    while True:
        scan = max_scan if total > max_scan else 0
        width = 3 * page_size / max(min(total, max_scan), 1)
        while True:
            below = min(key_bound(_fraction(start) + width), stop)
            with timeout_names_relation(
                view.pid, f"keyed sample{f' of answer {answer}' if answer else ''}", view
            ):
                rows = client.select(keyed_query(view, salt, page_size, start, below, answer, scan))
            if len(rows) >= page_size or below == stop:
                break
            width *= 4
        page = sorted(
            (
                (
                    entity_id(r["s"]),
                    answer or entity_id(r["o"]),
                    r.get("sLabel", ""),
                    r.get("oLabel", ""),
                    r["key"],
                )
                for r in rows
            ),
            key=lambda row: (row[4], row[0], row[1]),
        )
        last = len(rows) < page_size
        if last:
            yield page, True
            return
        cut = page[-1][4]
        whole = [row for row in page if row[4] < cut]
        if not whole:  # one subject fills the page: ask for more at once
            page_size *= 2
            continue
        yield whole, False
        start = cut


def answer_counts_query(view: SourceView, limit: int, salt: str) -> str:
    """A relation's objects by number of subjects, most first, ``LIMIT``-ed (no labels: a count)."""
    count = "COUNT(DISTINCT ?s)" if view.subject_types or view.object_types else "COUNT(?s)"
    return (
        PREFIXES
        + f"""SELECT ?o (({count}) AS ?n) WHERE {{
  {view.pattern(labels=False)}
}} GROUP BY ?o ORDER BY DESC(?n) MD5(CONCAT(STR(?o), "{salt}")) LIMIT {int(limit)}"""
    )


def answer_counts(
    client: SparqlClient, view: SourceView, limit: int, salt: str
) -> list[tuple[str, str, int]]:
    """``(object, label, subjects)`` of a relation's best supported objects with English labels.

    Counted on the server without labels (a subject without an English label still counts
    here; the build re-checks every answer on the subjects it keeps); labels in one VALUES query.
    """
    with timeout_names_relation(view.pid, "answer count", view):
        rows = client.select(answer_counts_query(view, limit, salt))
    counts = [(entity_id(r["o"]), int(r["n"])) for r in rows if r["o"].startswith(_ITEM)]
    labels = labels_of(client, [o for o, _ in counts])
    return [(o, labels[o], n) for o, n in counts if o in labels]


def labels_query(entities: list[str]) -> str:
    """The English label of each entity."""
    return _per_entity_query(entities, "?e ?label", '  ?e rdfs:label ?label . FILTER(LANG(?label) = "en")')


def answers_subjects_query(view: SourceView, answers: list[str]) -> str:
    """Every subject (with its label) of some answers whose supports are known to be small."""
    values = " ".join(f"wd:{o}" for o in answers)
    return (
        PREFIXES
        + f"""SELECT DISTINCT ?o ?s ?sLabel WHERE {{
  VALUES ?o {{ {values} }}
  {view.pattern()}
}}"""
    )


def answers_subjects(
    client: SparqlClient, view: SourceView, answers: list[str]
) -> list[tuple[str, str, str]]:
    """``(answer, subject, subject label)`` of every subject of the answers (one ``VALUES`` query).

    Only for answers whose server count is small: the rows are at most the sum of their counts.
    """
    with timeout_names_relation(view.pid, "subjects of the small answers", view):
        rows = client.select(answers_subjects_query(view, answers))
    return [(entity_id(r["o"]), entity_id(r["s"]), r["sLabel"]) for r in rows if r["s"].startswith(_ITEM)]


def subject_sample(
    client: SparqlClient, view: SourceView, salt: str, stop: str, total: int
) -> list[tuple[str, str, str, str]]:
    """``(subject, object, subject label, object label)`` of every subject whose key is below ``stop``.

    With one salt for every relation, a subject kept in one relation is kept, with all its facts,
    in every other. Facts whose ends have no English label are left out.
    """
    facts = []
    for page, _ in keyed_pages(client, view, salt, 50_000, total, stop=stop):
        facts += [row[:4] for row in page if row[2] and row[3]]
    return facts


def facts_of_query(entities: list[str], relations: list[str]) -> str:
    """The facts whose subject is one of the entities, over some relations (no labels)."""
    values = " ".join(f"wd:{e}" for e in entities)
    props = ", ".join(f"wdt:{p}" for p in relations)
    # a FILTER, not a second VALUES: given VALUES ?p, oxigraph scans every fact of the relations
    # (1.2 s a batch of containers at 10x the slice, growing with them); given the filter, it looks
    # up each ?s
    return (
        PREFIXES
        + f"""SELECT ?s ?p ?o WHERE {{
  VALUES ?s {{ {values} }}
  ?s ?p ?o . FILTER(?p IN ({props}))
}}"""
    )


def facts_of(
    client: SparqlClient, entities: list[str], relations: list[str], max_rows: int | None = None
) -> list[tuple[str, str, str]]:
    """``(subject, relation, object)`` of the entities' facts over the relations (VALUES batches).

    ``max_rows``: stop once that many facts are found, keeping whole entities in the order given
    (an entity comes with all its facts or not at all), so that the rows stay bounded.
    """
    facts: list[tuple[str, str, str]] = []
    for start in range(0, len(entities), _VALUES_BATCH):
        batch = entities[start : start + _VALUES_BATCH]
        of: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for r in client.select(facts_of_query(batch, relations)):
            if r["o"].startswith(_ITEM):
                s = entity_id(r["s"])
                of[s].append((s, r["p"].rsplit("/", 1)[-1], entity_id(r["o"])))
        for entity in batch:
            if max_rows is not None and len(facts) + len(of[entity]) > max_rows:
                return facts
            facts += sorted(of[entity])
    return facts


def classes_of(client: SparqlClient, entities: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each entity's classes (P31) in the source, empty where it has none.

    Each entity is asked once per client, that is once per build: the families' filters ask the
    classes of the same subjects and answers again and again (the relations build asked 226,968
    entities' classes for 55,824 distinct ones). ``client.classes`` keeps what was asked.
    """
    entities = list(entities)  # read twice below: a generator would give nothing the second time
    missing = sorted({e for e in entities if e not in client.classes})
    found: dict[str, set[str]] = defaultdict(set)
    for e, _, kind in facts_of(client, missing, ["P31"]):
        found[e].add(kind)
    client.classes.update({e: frozenset(found[e]) for e in missing})
    return {e: client.classes[e] for e in entities}


def class_facts(client: SparqlClient, entities: Iterable[str]) -> list[tuple[str, str, str]]:
    """``(entity, "P31", class)`` of the entities, in the order given: ``facts_of`` over P31, memoised.

    The classes come from :func:`classes_of`, so each entity is asked once per build.
    """
    entities = list(entities)
    classes = classes_of(client, entities)
    return [(e, "P31", kind) for e in entities for kind in sorted(classes[e])]


def labels_of(client: SparqlClient, entities: list[str]) -> dict[str, str]:
    """The English label of each entity that has one (VALUES batches)."""
    return {entity_id(r["e"]): r["label"] for r in batched_select(client, labels_query, entities)}


def subjects_in_key_order(client: SparqlClient, view: SourceView, salt: str, page_size: int):
    """A relation's subjects in key order, each with all its facts: ``(subject, label, {object: label})``.

    Pages of ``page_size`` facts are fetched as the caller asks (it stops when it has enough),
    so what is fetched grows with what the caller keeps. Facts whose ends have no English label
    are left out.
    """
    total = relation_size(client, view)
    for page, _ in keyed_pages(client, view, salt, page_size, total):
        subject, label, objects = None, "", {}
        for s, o, s_label, o_label, _ in page:
            if s != subject:
                if subject is not None and objects:
                    yield subject, label, objects
                subject, label, objects = s, s_label, {}
            if s_label and o_label:
                objects[o] = o_label
        if subject is not None and objects:
            yield subject, label, objects


def objects_of_query(view: SourceView, subjects: list[str]) -> str:
    """Every object (with its label) of some subjects."""
    values = " ".join(f"wd:{e}" for e in subjects)
    return (
        PREFIXES
        + f"""SELECT ?s ?o ?oLabel WHERE {{
  VALUES ?s {{ {values} }}
  {view.pattern(labels=False)}
  ?o rdfs:label ?oLabel . FILTER(LANG(?oLabel) = "en")
}}"""
    )


def objects_of(client: SparqlClient, view: SourceView, subjects: list[str]) -> dict[str, dict[str, str]]:
    """``{subject: {object: label}}``: every object the source gives the subjects (N-M golds)."""
    found: dict[str, dict[str, str]] = {s: {} for s in subjects}
    for row in batched_select(client, lambda batch: objects_of_query(view, batch), subjects):
        if row["o"].startswith(_ITEM):
            found[entity_id(row["s"])][entity_id(row["o"])] = row["oLabel"]
    return found


def cardinality_counts_query(view: SourceView, by: str) -> str:
    """How many subjects (``by="?s"``) or objects (``by="?o"``) a relation has, and how many of one fact."""
    other = "?o" if by == "?s" else "?s"
    return (
        PREFIXES
        + f"""SELECT (COUNT(*) AS ?all) (SUM(IF(?n = 1, 1, 0)) AS ?single) WHERE {{
  SELECT {by} (COUNT(DISTINCT {other}) AS ?n) WHERE {{
  {view.pattern(labels=False)}
  }} GROUP BY {by}
}}"""
    )


def cardinality_counts(client: SparqlClient, view: SourceView) -> dict[str, tuple[int, int]]:
    """``{"subjects": (all, with one object), "objects": (all, with one subject)}`` (aggregates)."""
    counts = {}
    for name, var in (("subjects", "?s"), ("objects", "?o")):
        rows = client.select(cardinality_counts_query(view, var))
        row = rows[0] if rows else {}
        counts[name] = (int(row.get("all", 0)), int(row.get("single", 0)))
    return counts


def popularity_predicate(client: SparqlClient) -> str:
    """The source's popularity: sitelinks, else a recorded degree, else "" (asked once per client)."""
    if "popularity" not in client.known:
        client.known["popularity"] = next(
            (
                predicate
                for predicate in (SITELINKS, RECORDED_DEGREE)
                if client.select(f"SELECT ?e WHERE {{ ?e <{predicate}> ?n }} LIMIT 1")
            ),
            "",
        )
    return client.known["popularity"]


def source_view(client: SparqlClient, min_popularity: int, pid: str, subject_types=(), object_types=()):
    """The :class:`SourceView` of a relation; a popularity floor needs a source that has popularity."""
    predicate = popularity_predicate(client) if min_popularity else ""
    if min_popularity and not predicate:
        raise SourceError(
            "wikidata.min_popularity needs a source with a popularity: sitelinks (the query service) "
            "or the degree `probesmith wikidata slice` records. This source has neither; set "
            "min_popularity to 0, or cut a slice of the dump with `probesmith wikidata slice`."
        )
    return SourceView(pid, tuple(subject_types), tuple(object_types), min_popularity, predicate)


@contextlib.contextmanager
def timeout_names_relation(relation: str, what: str, view: SourceView | None = None):
    """Turn an endpoint's timeout into an error that names the relation, the query and the fix."""
    try:
        yield
    except QueryTimeout as error:
        floor = view.min_popularity if view is not None else 0
        advice = (
            f"raise wikidata.min_popularity above {floor}"
            if floor
            else "set wikidata.min_popularity (e.g. 20 sitelinks)"
        )
        raise SourceError(
            f"relation {relation}: the {what} query exceeded the endpoint's time limit ({error}). "
            f"The relation is too large to count there: {advice} so that only popular subjects are "
            "counted and sampled, or leave the relation out of `relations`. Nothing was written."
        ) from None


def facts_query(pid: str, subject_types: tuple[str, ...] = (), object_types: tuple[str, ...] = ()) -> str:
    """Every fact of a relation with the English labels of both ends (standard SPARQL).

    With ``subject_types`` / ``object_types``, only facts whose subject / object is an instance
    (``wdt:P31``) of one of those classes.
    """
    types = ""
    for var, classes in (("s", subject_types), ("o", object_types)):
        if classes:
            values = " ".join(f"wd:{q}" for q in classes)
            types += f"\n  VALUES ?{var}Type {{ {values} }} ?{var} wdt:P31 ?{var}Type ."
    return (
        PREFIXES
        + f"""SELECT DISTINCT ?s ?o ?sLabel ?oLabel WHERE {{
  ?s wdt:{pid} ?o .{types}
  ?s rdfs:label ?sLabel . FILTER(LANG(?sLabel) = "en")
  ?o rdfs:label ?oLabel . FILTER(LANG(?oLabel) = "en")
}} ORDER BY ?s ?o"""
    )


def containment_edges(
    client: SparqlClient,
    entities: list[str],
    containment: tuple[str, ...],
    max_depth: int = 12,
    *,
    edges: dict[str, set[tuple[str, str]]] | None = None,
    expanded: set[str] | None = None,
) -> dict[str, set[tuple[str, str]]]:
    """Every containment edge above the entities, ``{entity: {(property, parent)}}``.

    Level by level, a VALUES query per frontier batch: no property path, so no unbounded search.
    Pass the ``edges`` and ``expanded`` of earlier calls to ask only about entities not seen yet.
    """
    edges = {} if edges is None else edges
    expanded = set() if expanded is None else expanded
    frontier = sorted(set(entities) - expanded)
    for _ in range(max_depth):
        if not frontier:
            break
        expanded.update(frontier)
        found = set()
        for entity, relation, parent in facts_of(client, frontier, list(containment)):
            edges.setdefault(entity, set()).add((relation, parent))
            found.add(parent)
        frontier = sorted(found - expanded)
    return edges


def transitive_containers(edges: dict[str, set[tuple[str, str]]], entities) -> dict[str, set[str]]:
    """Each entity's containers, transitively, from ``containment_edges``."""
    result = {}
    for entity in entities:
        found, stack = set(), [entity]
        while stack:
            for _, parent in edges.get(stack.pop(), ()):
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        found.discard(entity)
        if found:
            result[entity] = found
    return result


def _per_entity_query(entities: list[str], select: str, pattern: str, modifiers: str = "") -> str:
    """``SELECT select WHERE { VALUES ?e {...} pattern } modifiers``: one query per VALUES batch."""
    values = " ".join(f"wd:{e}" for e in entities)
    return PREFIXES + f"SELECT {select} WHERE {{\n  VALUES ?e {{ {values} }}\n{pattern}\n}}{modifiers}"


def aliases_query(entities: list[str]) -> str:
    """English aliases of some entities."""
    return _per_entity_query(
        entities,
        "?e ?alias",
        '  ?e skos:altLabel ?alias . FILTER(LANG(?alias) = "en")',
        " ORDER BY ?e ?alias",
    )


def degree_query(entities: list[str]) -> str:
    """Number of direct-claim facts each entity takes part in (as subject or object)."""
    return _per_entity_query(
        entities,
        "?e (COUNT(*) AS ?degree)",
        "  { ?e ?p ?x } UNION { ?x ?p ?e }\n"
        '  FILTER(STRSTARTS(STR(?p), "http://www.wikidata.org/prop/direct/"))',
        " GROUP BY ?e",
    )


def batched_select(client: SparqlClient, make_query, entities: list[str]) -> list[dict]:
    """Run ``make_query(batch)`` over the entities in VALUES batches; all rows together."""
    rows = []
    starts = range(0, len(entities), _VALUES_BATCH)
    what = make_query.__name__.removesuffix("_query")
    for start in progress(starts, desc=f"wikidata {what}", unit="batch") if len(starts) > 1 else starts:
        rows += client.select(make_query(entities[start : start + _VALUES_BATCH]))
    return rows


def sitelinks_query(entities: list[str]) -> str:
    """Number of Wikipedia sitelinks of each entity, where the source has them."""
    return _per_entity_query(entities, "?e ?sitelinks", "  ?e wikibase:sitelinks ?sitelinks .")


def recorded_degree_query(entities: list[str]) -> str:
    """The whole-dump degree a ``probesmith wikidata slice`` recorded for each entity."""
    return _per_entity_query(entities, "?e ?degree", f"  ?e <{RECORDED_DEGREE}> ?degree .")


def popularity(client: SparqlClient, entities: list[str]) -> tuple[str, dict[str, int]]:
    """("sitelinks", ...) where the source has sitelinks (the query service), else ("degree", ...).

    The degree is the one a ``probesmith wikidata slice`` recorded over its whole dump where the
    source has it, else counted in the source.
    """
    links = {
        entity_id(r["e"]): int(r["sitelinks"]) for r in batched_select(client, sitelinks_query, entities)
    }
    if links:
        return "sitelinks", links
    for query in (recorded_degree_query, degree_query):
        degree = {entity_id(r["e"]): int(r["degree"]) for r in batched_select(client, query, entities)}
        if degree:
            return "degree", degree
    return "degree", {}


@dataclass
class EntityLookups:
    """Aliases and containment edges of the entities a build has asked about.

    An entity shared by several relations (a country, a language) is queried once per build.
    """

    aliases: dict[str, list[str]] = field(default_factory=dict)
    edges: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    expanded: set[str] = field(default_factory=set)

    def aliases_of(self, client: SparqlClient, entities: list[str]) -> dict[str, list[str]]:
        """The English aliases of the entities that have any."""
        missing = [e for e in entities if e not in self.aliases]
        self.aliases.update({e: [] for e in missing})
        for row in batched_select(client, aliases_query, missing):  # VALUES batches: 10x a UNION
            self.aliases[entity_id(row["e"])].append(row["alias"])
        return {e: self.aliases[e] for e in entities if self.aliases[e]}

    def containers_of(
        self, client: SparqlClient, entities: list[str], containment: tuple[str, ...]
    ) -> dict[str, set[str]]:
        """Each entity's containers through ``containment``, transitively."""
        containment_edges(client, entities, containment, edges=self.edges, expanded=self.expanded)
        return transitive_containers(self.edges, entities)


MISREAD_NAME = "subject named like a place or a plural, by its class a person, work, band or taxon"


def misread_names(client: SparqlClient, labels: dict[str, str], name_classes: frozenset[str]) -> set[str]:
    """Entities whose label ``fill_template`` would misread, by their class (P31).

    Named like a place or a plural by its form ("Mystic River", "Eurycea troglodytes"), while the
    class says a person, work, band or taxon (``probes/catalogs/name_classes.yaml``).

    Only the labels the form flags are asked about (one ``VALUES`` query per batch of them).
    """
    flagged = sorted(
        e for e, label in labels.items() if takes_definite_article(label) or is_plural_noun(label)
    )
    return {s for s, _, kind in class_facts(client, flagged) if kind in name_classes}


NAMESAKE_OTHERWISE = (
    "subject whose label another entity of the source bears, holding the relation with another object "
    "('The Magic Flute': the opera's language German, Bergman's film's Swedish; 'Prince': the album's "
    "label and the artist's): the name alone does not say which is asked"
)


def namesakes_query(entities: list[str], relation: str) -> str:
    """Each entity with the objects of ``relation`` held by OTHER entities bearing its English label."""
    return _per_entity_query(
        entities,
        "DISTINCT ?e ?o",
        '  ?e rdfs:label ?label . FILTER(LANG(?label) = "en")\n'
        f"  ?other rdfs:label ?label . FILTER(?other != ?e)\n  ?other wdt:{relation} ?o .",
    )


def namesakes_with_other_objects(
    client: SparqlClient, relation: str, objects: dict[str, set[str]]
) -> set[str]:
    """Subjects whose English label another entity bears that holds ``relation`` with an object not theirs.

    The evaluation asks by the label alone ("The Magic Flute was originally in [Y]"), so a namesake's
    other answer (the film's Swedish beside the opera's German) is as right as the gold (the thirty-third
    read: 40 relation instances). ``objects``: each subject's objects of the relation.
    """
    subjects = sorted(objects)
    found: dict[str, set[str]] = defaultdict(set)
    for start in range(0, len(subjects), _VALUES_BATCH):
        for r in client.select(namesakes_query(subjects[start : start + _VALUES_BATCH], relation)):
            if r["o"].startswith(_ITEM):
                found[entity_id(r["e"])].add(entity_id(r["o"]))
    return {s for s, others in found.items() if others - objects[s]}

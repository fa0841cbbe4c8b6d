"""The Wikidata queries the Wikidata families share: facts, aliases, containment, popularity.

Every query is standard SPARQL (it runs on the public query service and on a local oxigraph
store alike); entity lists go in ``VALUES`` batches, never in one unbounded query.
:func:`fetch_facts` is the one reader of a relation's facts for relation sets, paraphrase grids
and rule mining; :class:`EntityLookups` asks about each entity once per build.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from probesmith.builders.sources.wikidata import PREFIXES, SparqlClient, entity_id

_VALUES_BATCH = 400


def fetch_facts(
    client: SparqlClient,
    pid: str,
    page_size: int,
    *,
    subject_types: tuple[str, ...] = (),
    object_types: tuple[str, ...] = (),
    items_only: bool = False,
) -> list[tuple[str, str, str, str]]:
    """A relation's facts as ``(subject, object, subject label, object label)``, in query order.

    ``items_only`` keeps facts whose both ends are items (``Q`` ids), not lexemes or properties.
    """
    facts = []
    for row in client.select_paged(facts_query(pid, subject_types, object_types), page_size):
        if items_only and not (
            row["s"].startswith("http://www.wikidata.org/entity/Q")
            and row["o"].startswith("http://www.wikidata.org/entity/Q")
        ):
            continue
        facts.append((entity_id(row["s"]), entity_id(row["o"]), row["sLabel"], row["oLabel"]))
    return facts


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


def parents_query(entities: list[str], containment: tuple[str, ...]) -> str:
    """The direct containers of each entity: its objects through the containment relations."""
    values = " ".join(f"wd:{e}" for e in entities)
    props = " ".join(f"wdt:{p}" for p in containment)
    return (
        PREFIXES
        + f"""SELECT DISTINCT ?e ?p ?parent WHERE {{
  VALUES ?e {{ {values} }} VALUES ?p {{ {props} }}
  ?e ?p ?parent .
}}"""
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
        for row in batched_select(client, lambda batch: parents_query(batch, containment), frontier):
            parent = entity_id(row["parent"])
            if not parent.startswith("Q"):
                continue
            edges.setdefault(entity_id(row["e"]), set()).add((row["p"].rsplit("/", 1)[-1], parent))
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
    for start in range(0, len(entities), _VALUES_BATCH):
        rows += client.select(make_query(entities[start : start + _VALUES_BATCH]))
    return rows


def sitelinks_query(entities: list[str]) -> str:
    """Number of Wikipedia sitelinks of each entity, where the source has them."""
    return _per_entity_query(entities, "?e ?sitelinks", "  ?e wikibase:sitelinks ?sitelinks .")


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

"""Balanced relation sets (as in BEAR, Wiland et al. 2024) from Wikidata over SPARQL.

Per relation of the catalog (``probes/catalogs/wikidata_relations.yaml``):

1. answer-first and bounded (``wikidata_queries``): the relation's objects by number of subjects,
   counted on the server (``LIMIT``-ed), then, per answer as the space reaches it, pages of k + 10
   of its subjects in a seeded key order (``MD5(subject IRI + salt)``) until it has k eligible
   ones (an answer with at most 2k + 10 subjects: all of them, with the next such answers, in one
   query), more pages only for the answers that hold the balance down (at most
   ``MAX_SUBJECT_PAGES`` x (2k + 10) subjects an answer), then every object of those subjects,
   the English aliases of both ends and the containers of every object (through
   ``containment``, P361 / P131 / P279 / P171 / P17 / P30 / P127 / P749, transitively), in
   ``VALUES`` batches. Only subjects / objects of the catalog's ``subject_types`` /
   ``object_types`` count (P36 asks capitals of countries). The rows fetched grow with answers x
   k, not with the relation (the server still counts the relation's facts once, in the answer
   count; ``wikidata.min_popularity`` narrows that count where it is too slow);
2. a subject is not asked when it equals one of its objects or shares a name token (a word of
   two letters or more, "&"-joined letters, a run of initials) or a name stem with one, or with a
   candidate answer containing one (label or alias of both:
   "BMW X5" / "BMW", "Nina Li" / "Jet Li", "AppleWorks" / "Apple Inc."; ``builders/names.py``,
   function words and the relation's generic tokens aside),
   or when a template filled with it and one of its objects misreads (a doubled word, a space
   before punctuation: "includes ...In Translation"); for N-1 and 1-1 relations, subjects with
   several objects are not asked;
3. an answer space: up to ``max_answers`` objects with at least ``min_support`` subjects each (1-1
   relations: ``one_to_one_answers`` objects, one subject each, as BEAR), the most supported
   first (support counted on the server, then re-checked on the subjects left after rule 2);
   skipped, with a counted reason: a label twin, an answer bearing the label or an alias of a
   better supported one ("Russian Empire", alias "Russia", beside "Russia"), an answer nested
   in a better supported one (by containment, or by name: "BBC One" / "BBC"; ``nested_answers:
   gold`` keeps the former and counts every implied answer as gold), in a space of countries and places
   an answer neither typed a country nor placed by the source (P131/P17/P30/P361: "Goiás" beside
   "Brazil", ``places_of``), and any answer that is gold
   for more than 1/A + ``constant_margin`` of the instances (always answering it would beat chance);
4. instances sampled so that every answer is the gold of exactly ``k`` instances, subjects unique
   within the relation, subjects with fewer golds inside the space first, then by the sample key.
   ``gold_obj_ids`` holds every object of the subject plus the answers of the space that
   contain one of them (Dortmund -> Germany), are labelled with one of their names (label or alias:
   "Writer" for a gold "author", alias "writer") or, for occupations, are a direct class of one
   (``superclass_golds``: "Writer" for a poet); any of them counts as correct. A subject one of
   whose golds (in the space or not) shares any name, label or alias, with an answer of the space
   that is no gold of it is not asked ("Russian Empire", alias "Russia", for a citizen of Russia;
   "screenwriter", alias "writer", for a Writer);
5. subject aliases (``skos:altLabel``) and popularity (sitelinks where the source has them, else
   the subject's degree in the source: the card says which).

Tables: ``instances``, ``answer_spaces`` and ``templates`` (config per table, split ``test``),
``validity.json`` (every rule checked on every instance, the constant-answer baseline, coverage of
BEAR's 60 relations), and an export to BEAR's layout that ``lm_pub_quiz.Dataset.from_path`` loads.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import polars as pl
import pyarrow as pa

import probesmith
from probesmith.builders.families.bear import BEAR_RELATIONS, read_bear, write_bear_files
from probesmith.builders.families.relations_validity import (
    PEOPLE_IN_THE_PAST,
    relation_validity_markdown,
    relation_validity_report,
)
from probesmith.builders.names import (
    common_noun_label,
    full_name,
    generic_tokens,
    label_problem,
    mixed_script_word,
    name_key,
    name_keys,
    name_leak,
    named_like_a_gold,
    other_script,
    spelled_out_plain_name,
    without_legal_form,
)
from probesmith.builders.registry import (
    Converter,
    TableOutput,
    register_exporter,
    register_family,
    register_importer,
    single_split_tables,
)
from probesmith.builders.sources import WikidataSpec, open_wikidata
from probesmith.builders.sources.catalog import (
    DEFAULT_CATALOG,
    Relation,
    is_object_final,
    load_catalog,
    load_name_classes,
)
from probesmith.builders.sources.wikidata import SparqlClient, query_log
from probesmith.builders.sources.wikidata_past import PAST_POLITIES
from probesmith.builders.sources.wikidata_queries import (
    MISREAD_NAME,
    NAMESAKE_OTHERWISE,
    EntityLookups,
    SourceView,
    answer_counts,
    answers_subjects,
    cardinality_counts,
    class_facts,
    facts_of,
    keyed_pages,
    labels_of,
    misread_names,
    namesakes_with_other_objects,
    objects_of,
    popularity,
    sample_key,
    source_view,
    timeout_names_relation,
)
from probesmith.builders.sources.wikidata_snapshot import changes_over_time
from probesmith.builders.text import (
    TITLE_MARK_ENDS_STATEMENT,
    closes_with_comma,
    common_taxon_name,
    coordinated_designations,
    english_lexicon,
    event_name,
    fill_template,
    filled_problem,
    is_plural_band_name,
    is_plural_noun,
    names_nested,
    pattern_form,
    plural_feature_name,
    possessive_after_qualifier,
    takes_definite_article,
    title_comma,
    title_mark_ends_statement,
)
from probesmith.builders.textcheck import spell_checker
from probesmith.builders.wikidata_output import wikidata_output
from probesmith.errors import SpecError
from probesmith.probes.spec import ProbeSpec, spec_field
from probesmith.progress import progress
from probesmith.schemas.artifact import DatasetFolderWriter, read_table, require_family
from probesmith.schemas.card import CardInfo
from probesmith.schemas.manifest import file_sha256
from probesmith.schemas.output import OutputFolder, check_destination
from probesmith.schemas.tables import TableSchema, unique_columns
from probesmith.schemas.wikidata import ANSWER_SPACES, PATTERNS, RELATION_INSTANCES

log = logging.getLogger(__name__)

SPLIT = "test"
# part of, located in (administrative), subclass of, parent taxon, country, continent, owned by,
# parent organization: each makes its object a container of its subject.
CONTAINMENT = ("P361", "P131", "P279", "P171", "P17", "P30", "P127", "P749")
# relations whose object is a place where the subject is, was or comes from, true of every place around it
# too: country, place of birth and of death, country of citizenship, continent, located in, headquarters,
# endemic to, location, place of publication, country of origin, residence, location of formation, work
# location (a capital, P36 / P1376, or a jurisdiction, P1001, is none: Lyon is no capital of France)
PLACE_RELATIONS = (
    "P17", "P19", "P20", "P27", "P30", "P131", "P159", "P183", "P276", "P291", "P495", "P551", "P740", "P937",
)  # fmt: skip
# subclass of, instance of: the direct classes of a gold of ``superclass_golds`` relations
SUPERCLASS = ("P279", "P31")


# the family's own tables (the shared Wikidata ones are in probesmith.schemas.wikidata)
RELATION_INFO = TableSchema(
    name="relation_info",
    version=2,
    description="Per relation, what the build decided about it: the cardinality it was balanced "
    "as, its catalog domains, the size of its set, and whether its truth changes with time. "
    "Evaluation reads these; it never re-reads a catalog or re-derives a decision.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("cardinality", pa.string(), nullable=False),
            pa.field("domains", pa.list_(pa.string()), nullable=False),
            pa.field("answers", pa.int32(), nullable=False),
            pa.field("instances", pa.int32(), nullable=False),
            pa.field("changes_over_time", pa.bool_(), nullable=False),
        ],
        metadata={
            "changes_over_time": "a fact of the relation can stop being true (heads of government, "
            "sports teams, spouses): true only as of the build's snapshot (see the card)"
        },
    ),
    checks=(unique_columns("relation_id"),),
)


@dataclass(frozen=True)
class RelationsSpec(ProbeSpec):
    """Spec of the balanced relation sets family."""

    wikidata: WikidataSpec = spec_field(default_factory=WikidataSpec, help="Wikidata source.")
    catalog: str = spec_field(DEFAULT_CATALOG, help="Relation catalog (bundled name or path).")
    relations: tuple[str, ...] = spec_field((), help="Relations to build (PIDs); empty = the whole catalog.")
    max_answers: int = spec_field(20, help="A: the largest answer space of a relation.", minimum=2)
    min_answers: int = spec_field(5, help="Relations with fewer answers than this are skipped.")
    min_support: int = spec_field(5, help="An object needs this many subjects to be an answer.")
    max_per_answer: int = spec_field(20, help="k at most: instances per answer (exactly k for every answer).")
    popularity_strata: int = spec_field(
        0, help="Sample each answer's subjects evenly from this many popularity strata; 0 = off."
    )
    one_to_one_answers: int = spec_field(
        60,
        help="1-1 relations (each answer has one subject): answers in the space, one instance each "
        "(BEAR's 60).",
        minimum=2,
    )
    containment: tuple[str, ...] = spec_field(
        CONTAINMENT,
        help="Relations through which a true answer implies others, followed transitively (Dortmund -> "
        "Germany -> Europe): implied answers in the space are golds too, and two answers of which one "
        "contains the other are nested.",
    )
    nested_answers: Literal["drop", "gold"] = spec_field(
        "drop",
        help="Answers nested in a better supported answer of the space (Europe in Eurasia): drop them "
        "from the space, or keep both and count every implied one as gold (subjects whose gold "
        "contains another answer, with no word on that one, are then dropped).",
    )
    constant_margin: float = spec_field(
        0.05,
        help="An answer that is gold for more than 1/A + this share of a relation's instances (a "
        "constant guess beats chance) is removed from the space.",
        maximum=1,
    )
    superclass_golds: tuple[str, ...] = spec_field(
        ("P106",),
        help="Relations whose answers are classes (occupations): an answer of the space that is a direct "
        "class of a gold (P279, or P31, by which the shared slice's type source records poet -> writer) "
        "is a gold too ('Writer' for a poet); the subjects of the class itself do not take the "
        "subclass as gold.",
    )
    place_relations: tuple[str, ...] = spec_field(
        PLACE_RELATIONS,
        help="Relations whose object is where the subject is, was or comes from (endemic to, located in, "
        "born in, country of citizenship): true of a place, true of every place around it. Where one of the "
        "candidate answers is a country or a continent, an answer neither a "
        "country nor placed by the source (P131/P17/P30/P361) leaves the space: it may lie inside another "
        "answer ('Goiás' beside 'Brazil'), a second true answer no containment fact marks.",
    )
    leakage: Literal["drop", "keep"] = spec_field(
        "drop",
        help="Facts whose subject (label or any alias) shares a name token or a name stem "
        "with the object (label or any alias): 'BMW X5' -> 'BMW', 'Ford Crown Victoria' -> 'Ford Motor "
        "Company' (builders/names.py). Drop or keep.",
    )

    def __post_init__(self) -> None:
        if self.min_support < 1 or self.max_per_answer < 1 or self.min_answers < 2:
            raise ValueError("min_support and max_per_answer must be >= 1, min_answers >= 2")
        for pid in self.containment:
            if not re.fullmatch(r"P\d+", pid):
                raise ValueError(f"containment: {pid!r} is not a Wikidata property id (P361)")


@dataclass
class RelationPool:
    """What the bounded plan has fetched of one relation; more is fetched only when the balancer asks.

    ``ranked`` holds the candidate answers, best supported first (counted on the server);
    ``pools[answer]`` the eligible subjects fetched for it, in key order; ``golds`` every object
    of each eligible subject. A subject is judged once, when first fetched: equal to one of its
    objects, sharing a name stem with one, or (N-1, 1-1) having several, it is counted and not asked.
    """

    client: SparqlClient
    view: SourceView
    spec: RelationsSpec
    lookups: EntityLookups
    dropped: Counter
    cardinality: str = "N-M"
    ranked: list[str] = field(default_factory=list)
    support: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    golds: dict[str, set[str]] = field(default_factory=dict)
    pools: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    fetched: Counter = field(default_factory=Counter)  # subjects asked of the server, per answer
    exhausted: set[str] = field(default_factory=set)
    pages: dict = field(default_factory=dict)  # answer -> its page generator (keyed_pages)
    judged: set[str] = field(default_factory=set)
    containers: dict[str, set[str]] = field(default_factory=dict)
    templates: tuple[str, ...] = ()  # the relation's templates: a subject they misread is not asked
    generic: frozenset[str] = frozenset()  # name tokens of many candidate answers: no leak (names.py)
    superclasses: dict[str, set[str]] = field(default_factory=dict)  # superclass_golds: object -> classes
    answer_classes: dict[str, set[str]] = field(default_factory=dict)  # candidate answers' classes (P31)
    countries: set[str] = field(default_factory=set)  # candidate answers typed a country or a continent
    placed: set[str] = field(default_factory=set)  # candidate answers the source places (P131/P17/P30/P361)
    of_places: bool = False  # the candidates are countries and places (``places_of``)

    @property
    def pid(self) -> str:
        """The relation's property id."""
        return self.view.pid

    @property
    def salt(self) -> str:
        """The sample key's salt: the seed and the relation."""
        return f"|{self.spec.seed}|{self.pid}"

    @property
    def aliases(self) -> dict[str, list[str]]:
        """English aliases of every entity asked about so far."""
        return self.lookups.aliases

    def open(self, declared: str) -> RelationPool:
        """Decide the cardinality and fetch the candidate answers (aggregates, ``LIMIT``-ed)."""
        if declared == "auto":
            with timeout_names_relation(self.pid, "cardinality count", self.view):
                self.cardinality = cardinality_from_counts(cardinality_counts(self.client, self.view))
        else:
            self.cardinality = declared
        one_to_one = self.cardinality == "1-1"
        limit = candidate_answers(self.spec.one_to_one_answers if one_to_one else self.spec.max_answers)
        for o, label, n in answer_counts(self.client, self.view, limit, self.salt):
            self.ranked.append(o)
            self.labels[o], self.support[o] = label, n
        self._add_containers(self.ranked)
        self._place()
        self.lookups.aliases_of(self.client, self.ranked)
        self._spell_out_acronyms(self.ranked)
        self.generic = generic_tokens(self.names(o) for o in self.ranked)
        return self

    def _place(self) -> None:
        """Mark the candidates that are countries and those the source places; decide ``of_places``."""
        with timeout_names_relation(self.pid, "classes and places of the answers", self.view):
            self.answer_classes = {o: set() for o in self.ranked}
            for o, _, kind in class_facts(self.client, self.ranked):
                self.answer_classes[o].add(kind)
            self.countries = {o for o, kinds in self.answer_classes.items() if kinds & COUNTRY_CLASSES}
            self.placed = {o for o, _, _ in facts_of(self.client, self.ranked, list(GEOGRAPHIC_CONTAINMENT))}
        self.of_places = self.pid in self.spec.place_relations and places_of(self.ranked, self.countries)

    def _spell_out_acronyms(self, entities) -> None:
        """Answers labelled by an acronym their alias spells out are shown by that alias ("RSL").

        So is a field labelled by a periphrasis whose plain name is an alias (``names.plain_name``: "art of
        painting" -> "painting"), a firm by its name without its legal form ("Cyan, Inc.") and a person (P31
        human) labelled by a surname alone by the full name an alias gives (``names.full_name``: "Cicero" ->
        "Marcus Tullius Cicero").
        """
        with timeout_names_relation(self.pid, "classes of the answers", self.view):
            people = {e for e, _, kind in class_facts(self.client, sorted(entities)) if kind == HUMAN}
        schools = institutions_by_place_name(self.client, {o: self.labels[o] for o in entities}, self.aliases)
        for o in entities:
            aliases = self.aliases.get(o, ())
            named = full_name(self.labels[o], aliases) if o in people else None
            label = named or schools.get(o) or spelled_out_plain_name(self.labels[o], aliases)
            if label != self.labels[o]:  # the acronym stays one of its names (leaks, equal answers)
                self.aliases[o] = [*self.aliases.get(o, ()), self.labels[o]]
                self.labels[o] = label

    def names(self, entity: str) -> list[str]:
        """The entity's label and English aliases."""
        return [self.labels[entity], *self.aliases.get(entity, ())]

    def possible_golds(self, objects: set[str]) -> set[str]:
        """The objects and those of their containers that are candidate answers (golds if in the space)."""
        return objects | {c for o in objects for c in self.containers.get(o, ()) if c in self.support}

    def leak(self, subject: str, obj: str) -> frozenset[str]:
        """Name tokens (and stems) the subject's names share with the object's (``names.name_leak``)."""
        return name_leak(self.names(subject), self.names(obj), self.generic)

    @property
    def page_size(self) -> int:
        """Subjects per page of one answer's subjects: k and a margin for the subject rules."""
        return self.spec.max_per_answer + 10

    @property
    def small_answer(self) -> int:
        """An answer with at most this many subjects (2k + 10) has them fetched whole."""
        return 2 * self.spec.max_per_answer + 10

    @property
    def depth(self) -> int:
        """Subjects fetched of one answer at most: ``MAX_SUBJECT_PAGES`` x (2k + 10)."""
        return MAX_SUBJECT_PAGES * self.small_answer

    def is_small(self, answer: str) -> bool:
        """Whether the answer has so few subjects on the server that they are fetched whole."""
        return self.support[answer] <= self.small_answer

    def _fetch_small_answers(self, first: str) -> None:
        """Every subject of ``first`` and of the small candidates after it, a few answers per query.

        Fetched when the answer space reaches them, not before: the candidates the space never
        reaches are never fetched nor judged. The rows are bounded by the candidates' server counts
        (``SMALL_ANSWER_ROWS`` a query); one query replaces one per answer (a 1-1 relation's
        candidates of one subject each).
        """
        after = self.ranked[self.ranked.index(first) :]
        batch, rows = [], 0
        for o in after:
            if o in self.exhausted or not self.is_small(o):
                continue
            if batch and rows + self.support[o] > SMALL_ANSWER_ROWS:
                break
            batch.append(o)
            rows += self.support[o]
        found = answers_subjects(self.client, self.view, batch)
        for _, s, label in found:
            if s not in self.judged:  # a judged subject keeps the name it was judged by
                self.labels[s] = label
        self._judge(sorted({s for _, s, _ in found} - self.judged))
        subjects_of = defaultdict(set)
        for answer, s, _ in found:
            subjects_of[answer].add(s)
        for answer in batch:
            ordered = sorted(subjects_of[answer], key=lambda s: (sample_key(s, self.salt), s))
            self.fetched[answer] = len(ordered)
            self.exhausted.add(answer)
            self.pools[answer] = [s for s in ordered if s in self.golds]

    def can_grow(self, answer: str) -> bool:
        """Whether the server has more of the answer's subjects within ``MAX_SUBJECT_PAGES`` pages."""
        return answer not in self.exhausted and self.fetched[answer] < self.depth

    def eligible(self, answer: str, need: int) -> list[str]:
        """At least ``need`` eligible subjects of an answer, in key order, or all the bound allows."""
        while len(self.pools[answer]) < need and self.can_grow(answer):
            self.more(answer)
        return self.pools[answer]

    def more(self, answer: str) -> None:
        """Fetch the next page of an answer's subjects, judge the new ones, grow its pool."""
        if self.is_small(answer):
            self._fetch_small_answers(answer)
            return
        if answer not in self.pages:
            self.pages[answer] = keyed_pages(
                self.client,
                self.view,
                self.salt,
                self.page_size,
                self.support[answer],
                answer=answer,
                max_scan=self.depth * 4,
            )
        page, last = next(self.pages[answer])
        if last:
            self.exhausted.add(answer)
            del self.pages[answer]
        subjects = [s for s, _, label, _, _ in page if label]
        self.fetched[answer] += len(page)
        for s, _, label, _, _ in page:
            if label and s not in self.judged:  # a judged subject keeps the name it was judged by
                self.labels[s] = label
        self._judge([s for s in subjects if s not in self.judged])
        pool = self.pools[answer]
        pool += [s for s in subjects if s in self.golds and s not in pool]

    def deepen(self, answers: list[str]) -> bool:
        """Another page for each answer that has more, up to ``MAX_SUBJECT_PAGES``; whether any came."""
        grew = False
        for o in answers:
            if self.can_grow(o):
                self.more(o)
                grew = True
        return grew

    def _judge(self, subjects: list[str]) -> None:
        if not subjects:
            return
        self.judged.update(subjects)
        with timeout_names_relation(self.pid, "objects of the sampled subjects", self.view):
            found = objects_of(self.client, self.view, subjects)
        objects = sorted({o for objs in found.values() for o in objs})
        for objs in found.values():
            self.labels.update(objs)
        self.lookups.aliases_of(self.client, sorted({*subjects, *objects}))
        self._spell_out_acronyms([o for o in objects if o in self.support])
        # a firm asked by its short name ("Cyan, Inc." -> "Cyan": names.without_legal_form), a person labelled
        # by a surname alone by the full name an alias gives ("Nixon" -> "Richard Milhous Nixon": full_name)
        people = {e for e, _, kind in class_facts(self.client, sorted(subjects)) if kind == HUMAN}
        schools = institutions_by_place_name(self.client, {s: self.labels[s] for s in subjects}, self.aliases)
        # a person's vandalised label ('France Prešeren liam je gey'): the name's alias, or the subject goes
        vandalised = {s for s in people if vandalised_name(self.labels[s])}
        namesakes = namesakes_with_other_objects(self.client, self.pid, {s: set(found[s]) for s in subjects})
        for s in subjects:
            aliases = self.aliases.get(s, ())
            named = full_name(self.labels[s], aliases) if s in people else None
            if s in vandalised and (alias_name := name_alias_of_vandalised(self.labels[s], aliases)):
                vandalised.discard(s)
                self.labels[s] = alias_name  # the vandal's label is no name of the person: no alias either
                continue
            name = named or schools.get(s) or without_legal_form(self.labels[s], aliases)
            if name != self.labels[s]:
                self.aliases[s] = [*aliases, self.labels[s]]
                self.labels[s] = name
                namesakes.discard(s)  # shown by a fuller name than the one its namesake bears
        self._add_containers(objects)
        if self.pid in self.spec.superclass_golds:
            new = [o for o in objects if o not in self.superclasses]
            self.superclasses.update({o: set() for o in new})
            for o, _, parent in facts_of(self.client, new, list(SUPERCLASS)):
                self.superclasses[o].add(parent)
        pid = self.pid
        misread = misread_names(self.client, {s: self.labels[s] for s in subjects}, load_name_classes())
        teams = plural_teams(self.client, {s: self.labels[s] for s in subjects}, own_the=True)
        uncapitalised = lower_case_people(self.client, {s: self.labels[s] for s in subjects})
        things = typed_not_people(self.client, subjects) if pid in PERSON_RELATIONS else set()
        if pid in PERSON_LIFE_RELATIONS:
            jobs_as_names = occupation_labelled_people(self.client, {s: self.labels[s] for s in subjects})
        else:
            jobs_as_names = set()
        nouns = untyped_common_nouns(self.client, {s: self.labels[s] for s in subjects})
        nouns = nouns if pid in PERSON_RELATIONS else set()
        stations = (
            untyped_stations(self.client, {s: self.labels[s] for s in subjects}, found)
            if pid in OPERATOR_RELATIONS
            else {}
        )
        in_present = pid in PRESENT_PLACE_RELATIONS
        events = past_events(self.client, {s: self.labels[s] for s in subjects}) if in_present else set()
        past_capitals = capitals_of_past_polities(
            self.client, pid, [(s, o) for s in subjects for o in found.get(s, ())]
        )
        past_states = past_polities(self.client, subjects) if pid in PRESENT_POLITY_SUBJECT else set()
        replaced = former_capitals(self.client, pid, [(s, o) for s in subjects for o in found.get(s, ())])
        # an entity the template puts in a slot without "the" whose class needs one ("named after Rhine")
        asked = {s: self.labels[s] for s in subjects}
        asked_subjects = set(asked)
        if bare_slot(self.templates, "[Y]"):
            asked |= {o: self.labels[o] for objs in found.values() for o in objs}
        unreadable = unreadable_names(self.client, asked, self.aliases)
        # a work's label read by its form as a place, a body or a plural ("the Café Society was directed")
        unreadable.update(works_misread(pid, asked, asked_subjects))
        unreadable.update(
            {
                e: COMMON_TAXON_NAME
                for e in common_taxa(pid, asked, asked_subjects, self.aliases)
                if e not in unreadable
            }
        )
        if not bare_slot(self.templates, "[X]"):  # "The [X] flows into": a river subject has its "the"
            unreadable = {e: why for e, why in unreadable.items() if e not in asked_subjects}
        # a work or a band by its class whose title's comma a template would close ("Murder, She Wrote, is")
        titled = comma_titles(self.client, {s: self.labels[s] for s in subjects}, load_name_classes())
        unreadable.update({s: TITLE_COMMA for s in titled if s not in unreadable})
        if any(t.startswith("[Y] ") for t in self.templates):  # "[Y] was the performer of [X]"
            answers = {o: self.labels[o] for objs in found.values() for o in objs}
            openers = plural_teams(self.client, answers, own_the=True) - set(unreadable)
            unreadable.update({o: PLURAL_TEAM_OPENING for o in openers})
        still = {s for s in subjects if pid == WATERCOURSE_RELATION and still_water(self.labels[s])}
        not_islands = set()
        if pid == ISLAND_RELATION:
            not_islands = set(subjects) - islands(self.client, {s: self.labels[s] for s in subjects})
        untyped_plurals = untyped_ambiguous_plurals(self.client, {s: self.labels[s] for s in subjects})
        english_words = english_lexicon().known
        lower = set()
        if pid not in KIND_SUBJECT_RELATIONS:
            lower = {s for s in subjects if lower_case_subject(self.labels[s], english_words)}
        humans_of_origin = people if pid in KIND_SUBJECT_RELATIONS else set()
        named_after_type = set()
        if pid == TYPE_RELATION:
            named_after_type = {s for s in subjects if FAMILY_GROUP_ENDING.match(self.labels[s])}
        misstated_subjects = dict(UNTYPED_SUBJECTS_MISSTATED.get(pid, {}))
        if pid == NOBLE_TITLE_RELATION:
            misstated_subjects.update(
                dict.fromkeys(
                    (
                        s
                        for s in subjects
                        if woman_with_a_masculine_title(self.labels[s], [self.labels[o] for o in found[s]])
                    ),
                    WOMAN_GIVEN_A_MASCULINE_TITLE,
                )
            )
        if pid == "P466":
            typed = class_facts(self.client, sorted(subjects))
            tombs = {e for e, _, kind in typed if kind in TOMB_CLASSES}
            misstated_subjects.update(dict.fromkeys(tombs, TOMB_SUBJECT))
        for s in subjects:
            objs = set(found[s])
            if not objs:
                continue
            if problem := label_problem(self.labels[s]):
                self.dropped[f"{pid}: subject's {problem} (as paraphrases' labels_usable)"] += 1
            elif problem := next(filter(None, (label_problem(self.labels[o]) for o in sorted(objs))), None):
                # an answer shown by such a label ('"RZD arena" Stadium', the twenty-third read)
                self.dropped[f"{pid}: object's {problem} (as paraphrases' labels_usable)"] += 1
            elif other_script(self.labels[s]):
                self.dropped[f"{pid}: {OTHER_SCRIPT_SUBJECT}"] += 1
            elif s in misread:
                self.dropped[f"{pid}: {MISREAD_NAME}"] += 1
            elif s in teams:
                self.dropped[f"{pid}: {PLURAL_TEAM}"] += 1
            elif s in uncapitalised:
                self.dropped[f"{pid}: {LOWER_CASE_PERSON}"] += 1
            elif s in things:
                self.dropped[f"{pid}: {NOT_A_PERSON}"] += 1
            elif s in lower:
                self.dropped[f"{pid}: {LOWER_CASE_SUBJECT}"] += 1
            elif s in humans_of_origin:
                self.dropped[f"{pid}: {HUMAN_ORIGIN}"] += 1
            elif s in named_after_type:
                self.dropped[f"{pid}: {NAMED_AFTER_ITS_TYPE}"] += 1
            elif s in misstated_subjects:
                self.dropped[f"{pid}: subject {misstated_subjects[s]}"] += 1
            elif s in vandalised:
                self.dropped[f"{pid}: {VANDALISED_PERSON_LABEL}"] += 1
            elif s in namesakes:
                self.dropped[f"{pid}: {NAMESAKE_OTHERWISE}"] += 1
            elif s in still:
                self.dropped[f"{pid}: {STILL_WATER}"] += 1
            elif s in not_islands:
                self.dropped[f"{pid}: {NOT_AN_ISLAND}"] += 1
            elif s in untyped_plurals:
                self.dropped[f"{pid}: {UNTYPED_AMBIGUOUS_PLURAL}"] += 1
            elif s in NOT_OF_THE_SUBJECT_CLASS and (pid in PERSON_LIFE_RELATIONS or pid == "P50"):
                self.dropped[f"{pid}: {NOT_OF_THE_SUBJECT}"] += 1
            elif s in jobs_as_names:
                self.dropped[f"{pid}: {OCCUPATION_AS_NAME}"] += 1
            elif s in nouns:
                self.dropped[f"{pid}: {UNTYPED_COMMON_NOUN}"] += 1
            elif s in stations:
                self.dropped[f"{pid}: subject {stations[s]}"] += 1
            elif s in events:
                self.dropped[f"{pid}: subject {PAST_EVENT}"] += 1
            elif s in past_capitals:
                self.dropped[f"{pid}: {PAST_POLITY_CAPITAL}"] += 1
            elif s in past_states:
                self.dropped[f"{pid}: {PAST_POLITY_LANGUAGE}"] += 1
            elif s in replaced:
                self.dropped[f"{pid}: {FORMER_CAPITAL}"] += 1
            elif s in unreadable:
                self.dropped[f"{pid}: subject {unreadable[s]}"] += 1
            elif unreadable.keys() & objs:
                self.dropped[f"{pid}: object {unreadable[min(unreadable.keys() & objs)]}"] += 1
            elif s in objs:
                self.dropped[f"{pid}: subject equals one of its objects"] += 1
            elif self.spec.leakage == "drop" and any(self.leak(s, o) for o in self.possible_golds(objs)):
                self.dropped[
                    f"{pid}: subject shares a name token with one of its objects (label or alias)"
                ] += 1
            elif self.cardinality in ("N-1", "1-1") and len(objs) > 1:
                self.dropped[f"{pid}: subject with several objects ({self.cardinality} relation)"] += 1
            elif own_the_subject(self.templates) and (
                self.labels[s][:1].islower() or closes_with_comma(self.labels[s])
            ):
                self.dropped[f"{pid}: subject {QUALIFIED_AFTER_THE}"] += 1
            elif any(title_mark_ends_statement(t, "[X]", self.labels[s]) for t in self.templates):
                self.dropped[f"{pid}: subject {TITLE_MARK_ENDS_STATEMENT}"] += 1
            elif any(
                title_mark_ends_statement(t, "[Y]", self.labels[o]) for t in self.templates for o in objs
            ):
                self.dropped[f"{pid}: object {TITLE_MARK_ENDS_STATEMENT}"] += 1
            elif any(
                filled_problem(
                    fill_template(t, self.labels[s], self.labels[o]), self.labels[s], self.labels[o]
                )
                or possessive_after_qualifier(fill_template(t, self.labels[s]), self.labels[s])
                for t in self.templates
                for o in objs
            ):
                self.dropped[f"{pid}: a template does not read when filled with the subject"] += 1
            else:
                self.golds[s] = objs

    def _add_containers(self, entities: list[str]) -> None:
        if self.spec.containment:
            with timeout_names_relation(self.pid, "containers of the answers", self.view):
                self.containers.update(
                    self.lookups.containers_of(self.client, entities, self.spec.containment)
                )


# classes (P31, as the slice types them) of a sports team or a band: named in the plural ("Chicago Cubs",
# "Arctic Monkeys") such a subject reads "the Chicago Cubs are", which labels alone cannot give at evaluation
TEAM_CLASSES = frozenset(
    {
        "Q12973014",  # sports team
        "Q847017",  # sports club
        "Q476028",  # association football club
        "Q13027888",  # baseball team
        "Q17156793",  # American football team
        "Q13393265",  # basketball team
        "Q4498974",  # ice hockey team
        "Q215380",  # musical group
        "Q5741069",  # rock band
        "Q2088357",  # musical ensemble
        # the slice's other classes of bands, read one by one (the twenty-eighth read's "The Chemical Brothers
        # was founded in", a musical duo)
        "Q9212979",  # musical duo
        "Q10648343",  # duo
        "Q14073567",  # sibling duo
        "Q7229089",  # pop duo
        "Q71129815",  # electronica duo
        "Q281643",  # trio
        "Q15851525",  # vocal trio
        "Q58603552",  # sibling trio
        "Q6168416",  # jazz trio
        "Q1135557",  # quartet
        "Q641066",  # girl group
        "Q216337",  # boy band
        "Q11446438",  # female idol group
        "Q16979650",  # sibling group
        "Q120544",  # vocal group
        "Q19464263",  # rap group
        "Q2491498",  # pop group
        "Q215048",  # supergroup
        "Q56816954",  # heavy metal band
        "Q25391823",  # punk band
        "Q64514668",  # ska band
        "Q2095173",  # jam band
        "Q2596245",  # jazz band
        "Q181847",  # cover band
        "Q814344",  # backing band
        "Q7623897",  # all-female band
    }
)
PLURAL_TEAM = "subject a team or band named in the plural ('Chicago Cubs': 'the Chicago Cubs are')"
PLURAL_TEAM_OPENING = (
    "a team or band named in the plural where a template opens its sentence with it ('The Doors was the "
    "performer of', 'Indiana Pacers was an occupant of': the twenty-ninth read)"
)


HUMAN = "Q5"
LOWER_CASE_PERSON = "subject a person whose label has no capital letter ('jokal' for Jochi)"


def lower_case_people(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """Subjects that are people (P31 human) labelled without a capital letter or a digit ('jokal').

    Such a label is a spelling nobody writes a person's name in; a stage name with a digit ("deadmau5") stays.
    """
    flagged = sorted(e for e, label in labels.items() if not any(c.isupper() or c.isdigit() for c in label))
    return {s for s, _, kind in class_facts(client, flagged) if kind == HUMAN}


# relations whose templates speak of a person's career ("[X] has worked in the field of [Y]", "[X] worked as
# a [Y]"): a subject the slice types, with no class human, is a style, a prize or an institute ("Rococo",
# "Turing Award", "octane": 10 of the 400 P101 instances of the v8 build); a subject with no class at all is
# kept (in the v8 build 49 P101 and 72 P106 subjects, nearly all people: "Xunzi", "Anacharsis")
# relations whose templates speak of a person in the past: a subject typed otherwise is dropped ("Rococo
# worked in"; the nineteenth read: "Nepal was a member of the Asian Development Bank", a state's membership
# today, 134 of 400 P463 subjects of the seed-2109 default build)
PERSON_RELATIONS = frozenset({"P101", "P106", "P463"})
NOT_A_PERSON = (
    "subject typed (P31), no class human: a person's template misreads it ('Rococo worked in', 'Nepal was a "
    "member of')"
)


def typed_not_people(client: SparqlClient, subjects: list[str]) -> set[str]:
    """Subjects with a class (P31) in the slice, none of them human (Q5)."""
    classes: dict[str, set[str]] = defaultdict(set)
    for s, _, kind in class_facts(client, sorted(subjects)):
        classes[s].add(kind)
    return {s for s, kinds in classes.items() if HUMAN not in kinds}


def untyped_common_nouns(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """Subjects with no class (P31) in the slice labelled as a common noun: in lower case or one word in -ism.

    A person's template misreads them ("appendectomy worked in the field of medicine", "Cloisonnism worked in
    the field of painting": the twenty-seventh read); ``typed_not_people`` sees only typed subjects.
    """
    typed = {s for s, _, _ in class_facts(client, sorted(labels))}
    return {
        s
        for s, label in labels.items()
        if s not in typed and (label[:1].islower() or re.fullmatch(r"[A-Z][a-z]+isme?", label))
    }


# relations whose templates say a person's life ("[X] was born in", "[X] held citizenship in", "[X] was
# educated at", "[X] spoke"): the relations of people in the past (relations_validity) and a birthplace
PERSON_LIFE_RELATIONS = PEOPLE_IN_THE_PAST | {"P19"}
# subjects of a person's relation (or a work's, P50) that the twenty-ninth read found no person (no work):
# the slice gives them no class (P31) and no fact but the one asked, as it gives hundreds of real people
# ("Xunzi", "Anacharsis", "Loreen": the person relations of a default build hold about 700 such one-word
# subjects, nearly all people), so neither a class nor a missing fact tells them; listed by id, each with
# what its label and its one fact in the slice show ("Astronaute", also named, plays the guitar (P1303) in
# the slice and is kept)
NOT_OF_THE_SUBJECT_CLASS = {
    "Q7802924": "Tilläggspension: Swedish for 'supplementary pension', a pension scheme (only P27 Sweden)",
    "Q1625942": "Sentence: an English common noun, no name of a person (only P27 Poland)",
    "Q4053610": "Zoomorphology: a field's name, a journal by the read (only P101 zoology, morphology)",
    "Q2071295": "Psyche: a journal of entomology by the read (only P101 entomology)",
    "Q28545629": "MODAG: an initialism, a model or a firm by the read (only P101 economics)",
    "Q24336846": "NEVERCREW: a collective by the read (only P101, four fields)",
    "Q4193910": "Zoopark: a band or a zoo by the read (only P1412 Russian)",
    "Q14594113": "Aslan's How: a place in Narnia, no written work (only P50 C. S. Lewis)",
}
NOT_OF_THE_SUBJECT = (
    "subject no person (no work in P50) that the slice types by no class, listed by id "
    "(relations.NOT_OF_THE_SUBJECT_CLASS: 'Tilläggspension was a national of Sweden', 'Zoomorphology "
    "specialized in zoology', 'Aslan's How was authored by')"
)
OCCUPATION_AS_NAME = "subject a person labelled by one of its own occupations ('Politician' for Q71763)"


def occupation_labelled_people(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """People labelled by one of their own occupations (P106): "Politician" (Q71763), a vandalised label."""
    occupations: dict[str, set[str]] = defaultdict(set)
    for s, _, job in facts_of(client, sorted(e for e, label in labels.items() if " " not in label), ["P106"]):
        occupations[s].add(job)
    names = labels_of(client, sorted(set().union(*occupations.values()))) if occupations else {}
    return {
        s for s, jobs in occupations.items() if labels[s].lower() in {names.get(j, "").lower() for j in jobs}
    }


# relations whose subjects are kinds, said by their common noun in lower case ("Paella comes from Spain",
# "Samba originated from Brazil": a dish, a genre, a sport's country of origin)
KIND_SUBJECT_RELATIONS = frozenset({"P495"})
# a place's name in Catalan, French or Spanish opens with its lower-case generic word ("rasa de Villaró", "cap
# de Vaquèira", "gare de Vif"): a name, read with its particle
_ROMANCE_PARTICLES = frozenset("de del dels della des du la le les el els d' l'".split())
LOWER_CASE_SUBJECT = (
    "subject labelled in lower case as a common noun or a phrase ('scimitar', 'compact disc', 'coronation "
    "anthem', 'launchd'): opening a sentence, it reads as a name ('Scimitar is a piece in the collection of')"
)


def lower_case_subject(label: str, english_words: frozenset[str]) -> bool:
    """Whether a subject's label reads as a common noun, not a name, once a sentence capitalises it.

    It has no capital letter and no digit ("scimitar", "compact disc", "launchd", "a women and death"; a
    brand with an inner capital or a digit, "iPhone 6 Plus", "eMac", "deadmau5", is a name), or it opens with
    a lower-case English word and holds no particle of a Romance place name ("unknown portraits", "sixth
    season of The Simpsons", "complaint tablet to Ea-nasir"; "rasa de Villaró" and "cap de Vaquèira" are
    names).
    """
    words = label.split()
    if not words or not label[:1].islower():
        return False
    if not any(c.isupper() or c.isdigit() for c in label):
        return True
    particles = any(w in _ROMANCE_PARTICLES or w.startswith(("d'", "l'", "d’", "l’")) for w in words)
    return words[0] in english_words and not particles


# the mouth of a watercourse (P403): the slice gives it of bays and sounds too, which do not flow ("The Long
# Island Sound flows into", "San Francisco Bay flows into": the twenty-ninth read); they are untyped there, so
# the last word of the name tells them
# P206 (located in or next to body of water) holds islands in seas and towns on rivers and coasts alike;
# no one preposition is true of both ("Easter Island is situated on the Pacific Ocean", "Hamburg lies in
# the Elbe": the twenty-ninth and thirtieth reads), and the evaluation fills a template from the label
# alone, so the relation asks islands only ("lies in the [Y]"): a subject of an island's class, or named
# as one
ISLAND_RELATION = "P206"
# island, artificial island, archipelago, atoll, tied island, island group
ISLAND_CLASSES = frozenset({"Q23442", "Q13691", "Q33837", "Q42523", "Q1226252", "Q1402592"})
ISLAND_NAME = re.compile(r"\b(?:Island|Islands|Isle|Isles|Islet|Islets|Atoll|Archipelago)\b")
NOT_AN_ISLAND = (
    "subject no island by its class or its name: the templates say 'lies in the [Y]', true of an island "
    "in a sea, not of a town on a river ('Easter Island is situated on the Pacific Ocean', 'Hamburg lies "
    "in the Elbe': no preposition fits both)"
)


def islands(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """Subjects of an island's class (``ISLAND_CLASSES``) or named as an island ("Deception Island")."""
    named = {e for e, label in labels.items() if ISLAND_NAME.search(label)}
    typed = {e for e, _, kind in class_facts(client, sorted(labels)) if kind in ISLAND_CLASSES}
    return named | typed


WATERCOURSE_RELATION = "P403"
STILL_WATER_HEADS = frozenset("Bay Sound Gulf Harbor Harbour Lagoon Estuary".split())
STILL_WATER = (
    "subject a bay or a sound by the last word of its name, no watercourse ('The Long Island Sound flows "
    "into')"
)


# plural heads of natural features that also end towns' and people's names ("Mammoth Lakes", "Beverly Hills",
# "Council Bluffs", "Carla Hills", "Alicia Keys"), so text.plural_feature_name leaves them singular; a subject
# so named with no class (P31) in the slice is a group of lakes, hills or keys (the twenty-eighth read's
# "Cathedral Lakes is located in", "Snipe Keys"), which the label alone, filled at evaluation, cannot put in
# the plural
AMBIGUOUS_PLURAL_HEADS = frozenset("Lakes Hills Bluffs Keys".split())
UNTYPED_AMBIGUOUS_PLURAL = (
    "subject with no class named by a plural head that ends towns' names too ('Cathedral Lakes is located "
    "in': a group of lakes, singular by its label alone)"
)


def untyped_ambiguous_plurals(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """Subjects with no class (P31) whose label of capitalised words ends in ``AMBIGUOUS_PLURAL_HEADS``."""
    flagged = {
        e
        for e, label in labels.items()
        if len(label.split()) >= 2
        and label.split()[-1] in AMBIGUOUS_PLURAL_HEADS
        and all(w[:1].isupper() for w in label.split())
        and label.split()[0] != "The"
    }
    typed = {e for e, _, _ in class_facts(client, sorted(flagged))}
    return flagged - typed


def still_water(label: str) -> bool:
    """Whether a label names a bay, a sound or a gulf by its last word ("Long Island Sound", "Tampa Bay")."""
    words = label.split()
    return len(words) >= 2 and words[-1] in STILL_WATER_HEADS


UNTYPED_COMMON_NOUN = (
    "subject with no class (P31) labelled as a common noun (lower case, an -ism): a person's template "
    "misreads it ('appendectomy worked in the field of medicine')"
)
# owner and operator relations, whose subjects include stations the slice does not class
OPERATOR_RELATIONS = frozenset({"P127", "P137"})


def untyped_stations(
    client: SparqlClient, labels: dict[str, str], objects: dict[str, list[str]]
) -> dict[str, str]:
    """Subjects with no class (P31) owned or operated by a railway or transit operator, by why not asked.

    The slice classes none of these operators' stations: one labelled by its place alone ("Saint-Pierre-du-
    Vauvray", "Espanya", "Bjørnsletta") reads as the place ("SNCF is the owner of Saint-Pierre-du-Vauvray":
    the twenty-seventh read, 54 of 260 P127 subjects), and an accident ("1993 Big Bayou Canot train wreck") is
    operated by no one. A line, a train or a station by its word ("Mugi Line", "Silver Meteor", "Ann Arbor
    station") stays.
    """
    typed = {s for s, _, _ in class_facts(client, sorted(labels))}
    untyped = {s: label for s, label in labels.items() if s not in typed}
    answers = sorted({o for s in untyped for o in objects.get(s, ())})
    operators = set(RAIL_OPERATORS) & set(answers)
    operators |= {o for o, _, kind in class_facts(client, answers) if kind in RAIL_OPERATOR_CLASSES}
    found = {}
    for s, label in untyped.items():
        if ACCIDENT_WORD.search(label):
            found[s] = OPERATED_ACCIDENT
        elif (
            set(objects.get(s, ())) & operators
            and not STATION_WORD.search(label)
            and not ROUTE_WORD.search(label)
        ):
            found[s] = STATION_AS_PLACE
    return found


# classes (P31) of a railway or transit operator in the slice
RAIL_OPERATOR_CLASSES = frozenset(
    {
        "Q249556",  # railway company
        "Q521458",  # Infrastructure Manager
        "Q740752",  # transport company
        "Q2324835",  # national railway
        "Q8018268",  # major railway companies
        "Q17377208",  # train operating company
    }
)
# operators the slice classes otherwise or not at all ("business", none), whose untyped subjects in P127/P137
# are their stations: no class of the slice tells them
RAIL_OPERATORS = frozenset(
    {
        "Q83824",  # DSB
        "Q51211653",  # Osaka Metro
        "Q643290",  # RATP
        "Q496531",  # Shikoku Railway Company
        "Q2037863",  # Southeastern Pennsylvania Transportation Authority
        "Q4579562",  # Sporveien
        "Q1778212",  # Transports Metropolitans de Barcelona
        "Q83825",  # Vy
    }
)
# a line, a service or a train named by its kind ("Drammen Line", "Northeast Corridor", "Kyiv Boryspil
# Express")
ROUTE_WORD = re.compile(
    r"\b(?:Line|Corridor|Express|Service|Chief|Regional|Surfliner|Meteor|trainset|railway|Railway|Funicular|"
    r"Tunnel|Center|Centre)\b"
)
ACCIDENT_WORD = re.compile(r"\b(?:wreck|derailment|crash|collision|accident|disaster)\b")
OPERATED_ACCIDENT = (
    "an accident, owned or operated by no one ('1993 Big Bayou Canot train wreck is operated by')"
)


# a family answer names a house, a dynasty, a family or a clan ("House of Wettin", "Taungoo Dynasty");
# a bare adjective or plural ("Chingissid", "Anscarids", "Yngling") reads as no noun after "a member of the"
FAMILY_RELATION = "P53"
FAMILY_HEADS = re.compile(r"\b(House|Dynasty|dynasty|Family|family|Clan|clan)\b")
FAMILY_WITHOUT_HEAD = "family answer whose label names no house, dynasty, family or clan ('Chingissid')"


def plural_teams(client: SparqlClient, labels: dict[str, str], own_the: bool = False) -> set[str]:
    """Subjects named in the plural (``is_plural_band_name``) whose class is a team or band.

    A name with its own "The" is one only with ``own_the``: the relations family, filled at evaluation from
    the label alone, reads "The Doors was the performer of" (the twenty-ninth read), where the paraphrases
    family puts such a name's verbs in the plural itself.
    """
    flagged = sorted(
        e for e, label in labels.items() if is_plural_band_name(label) and (own_the or label[:4] != "The ")
    )
    return {s for s, _, kind in class_facts(client, flagged) if kind in TEAM_CLASSES}


# classes (P31, as the slice types them) whose members English names with "the" that their labels lack
# ("Rhine": "named after the Rhine", "Danube", "Gobi", "Black Pine Mountains"): filled at evaluation from
# the label alone, such an entity would read bare in a slot with no "the" of the template's own
DEFINITE_CLASSES = frozenset(
    {
        "Q4022",  # river
        "Q165",  # sea
        "Q9430",  # ocean
        "Q204894",  # marginal sea
        "Q46831",  # mountain range
        "Q8514",  # desert
        "Q33837",  # archipelago
        "Q37901",  # strait
        "Q12284",  # canal
    }
)
NEEDS_THE = "named without the 'the' its class takes (a river, sea, mountain range: 'named after Rhine')"
# classes (P31) of a product model, a design made in series, that English names with "the" as one thing
# ("the Isuzu Gemini was made by General Motors", "the Boeing 747", "the PlayStation 4", "the GWR 1016
# Class": the twentieth read's "Isuzu Gemini was made by"): the slice's model and model-series classes of
# vehicles, aircraft, rolling stock, cameras, phones, computers, consoles, weapons, engines and instruments,
# read one by one; its "model" (Q10929058, Q4610556) names a person's model too and is not one
MODEL_CLASSES = frozenset(
    {
        "Q3231690",  # automobile model
        "Q59773381",  # automobile model series
        "Q90834785",  # racing automobile model
        "Q15056995",  # aircraft model
        "Q15126161",  # prototype aircraft model
        "Q23866334",  # motorcycle model
        "Q71310524",  # motorcycle model series
        "Q23867828",  # scooter model
        "Q23868001",  # moped model
        "Q23039057",  # bus model
        "Q23034867",  # bus chassis model
        "Q29048322",  # vehicle model
        "Q19832486",  # locomotive class
        "Q811704",  # rolling stock class
        "Q20741022",  # digital camera model
        "Q20888659",  # camera model
        "Q20679033",  # digital camera product line
        "Q20888711",  # camera product line
        "Q56682555",  # video game console model
        "Q19723451",  # smartphone model
        "Q71266741",  # smartphone model series
        "Q19723444",  # cell phone model
        "Q19799938",  # smartwatch model
        "Q55990535",  # computer model
        "Q60484681",  # computer model series
        "Q15142894",  # weapon model
        "Q22704163",  # firearm model
        "Q18487055",  # missile model
        "Q15057021",  # engine model
        "Q29982117",  # musical instrument model
        "Q811701",  # model series
    }
)
MODEL_NEEDS_THE = (
    "a product model named without the 'the' English gives it ('Isuzu Gemini was made by': the Isuzu Gemini)"
)
# classes (P31) of public bodies known by an initialism that English reads with "the" or without by no rule
# of the label: public broadcasters ("the BBC", but "aired on PBS", "on NHK"), government agencies ("the
# BLS", "the BoM", "the DRDO", "the VTA", but "DARPA"): all their labels of capitals alone in the slice (3 and
# 8). A firm's or a channel's initialism reads bare ("worked for IBM", "aired on NBC", "made by BMW") and
# stays; so do intergovernmental organisations' (5 of their 7 such labels are said as words: "a member of
# NATO", "OPEC", "UNESCO", "ASEAN", "SAARC"; "UNHCR" and "UNTSO" are not, and are not caught).
# The fifteenth read: "Charles Issawi has worked for BBC"
PUBLIC_BODY_CLASSES = frozenset({"Q26398", "Q327333"})
BODY_INITIALISM = (
    "a public body labelled by an initialism that English reads with 'the' or not by no rule of the label "
    "('worked for BBC': the BBC; 'aired on PBS')"
)
# the classes of ships (P31) in the shared slice: a ship's own name takes "the" in English ("the Golden
# Princess", "the Almirante Latorre", "Lürssen made the Neckar"), unless a prefix stands for it ("USS Seal",
# "HNoMS Eidsvold", "MV Loch Buie") or it is a U-boat's number ("U-771"); "the German submarine U-47" takes
# it by its form
SHIP_CLASSES = frozenset(
    "Q11446 Q2811 Q428661 Q174736 Q39804 Q697196 Q161705 Q12859788 Q4818021 Q1051067 Q11229656 Q182531 "
    "Q778129 Q757587 Q17205 Q204577 Q17210 Q2607934 Q21505397 Q25653 Q898771 Q253555 Q105999 Q4748200 "
    "Q14978 Q847478 Q1542187 Q599046 Q19754825 Q443802 Q2055880 Q3362987 Q104843 Q473094 Q830335 Q1410980 "
    "Q2304194 Q402092 Q170483 Q191826 Q170013 Q1121471 Q15888 Q3112873 Q11636247 Q2168617 Q15022033 Q14928 "
    "Q1151009 Q474748 Q757554 Q18916020 Q847109 Q683363 Q16220775 Q928235 Q214196 Q4364290 Q431622 Q14970 "
    "Q473932".split()
)
# a ship's prefix (two to six letters, capitals at both ends: "USS", "HMS", "HNoMS", "MV"), a U-boat's number
_SHIP_PREFIX = re.compile(r"(?:[A-Z][A-Za-z]{0,4}[A-Z]\.? |U-\d)")
ALIAS_WITH_THE = (
    "named without the 'the' an alias gives it ('Iliad' beside 'the Iliad', 'Rhins of Galloway' beside "
    "'The Rhins of Galloway')"
)
# relations whose subjects ([X]) or objects ([Y]) are creative works by the property's definition (a film is
# directed, a show aired, a character appears in a work): a label whose form would read it as a place, a body
# or a plural ("Café Society": "the Café Society", as "the Royal Society") is a title that takes neither; a
# place of publication (P291) is a work's ("Bass Generation", an album with no class in the slice, read as
# "the Beat Generation" is: "The Bass Generation was published in Sweden")
WORK_SLOTS = {
    **dict.fromkeys(
        "P50 P57 P58 P86 P87 P98 P162 P175 P179 P272 P291 P344 P364 P449 P676 P7937".split(), "[X]"
    ),
    "P1441": "[Y]",
}
WORK_MISREAD = (
    "a work (by the relation) whose label reads by its form as a place, a body or a plural ('Café Society': "
    "'the Café Society was directed')"
)
TITLE_COMMA = (
    "a work or a band (by the relation or its class) whose title holds a comma that a filled template closes "
    "as an appositive's ('Murder, She Wrote, is')"
)
# name classes (probes/catalogs/name_classes.yaml) of people and taxa: the others are works and bands, whose
# label's comma is the title's own
PERSON_AND_TAXON_CLASSES = frozenset({"Q5", "Q15632617", "Q95074", "Q16521"})


def works_misread(pid: str, labels: dict[str, str], subjects: set[str]) -> dict[str, str]:
    """The works of ``pid``'s work slot (``WORK_SLOTS``) whose label ``fill_template`` would misread.

    Read by its form as a place, a body or a plural (``WORK_MISREAD``), or a subject whose title's comma a
    filled template would close as an appositive's (``TITLE_COMMA``, ``text.title_comma``).
    """
    slot = WORK_SLOTS.get(pid)
    if slot is None:
        return {}
    misread = {
        e: WORK_MISREAD
        for e, label in labels.items()
        if (e in subjects) == (slot == "[X]")
        and label[:4] != "The "
        and (
            takes_definite_article(label)
            or is_plural_noun(label)
            or plural_feature_name(label)
            or coordinated_designations(label)
        )
    }
    titles = {e: TITLE_COMMA for e in subjects & labels.keys() if slot == "[X]" and title_comma(labels[e])}
    return titles | misread


def comma_titles(client: SparqlClient, labels: dict[str, str], name_classes: frozenset[str]) -> set[str]:
    """Works and bands, by their class (P31: a name class not of people nor taxa), with a title comma.

    ``text.title_comma``: "Murder, She Wrote" (a television series) would read "Murder, She Wrote, is"; a
    person's "Charles, Prince of Wales" keeps the comma that closes its appositive.
    """
    flagged = sorted(e for e, label in labels.items() if title_comma(label))
    works = name_classes - PERSON_AND_TAXON_CLASSES
    return {e for e, _, kind in class_facts(client, flagged) if kind in works}


# relations whose every template or pattern states a place in the present ("[X] is located in [Y]", "[X] is in
# [Y]"): an event took place, it "is" nowhere, so a past event is not asked of them (the fifteenth read: "The
# 2005 Beach Volleyball World Championships are in Berlin.")
# The twenty-sixth read: P115's "The home stadium of [X] is" with an event ("of the 2019 World Judo
# Championships is Nippon Budokan"): an event was held at a venue, it has no home.
PRESENT_PLACE_RELATIONS = frozenset({"P17", "P131", "P30", "P276", "P115", "P7959"})
# classes (P31) of one-off past events among those relations' subjects in the shared slice (read one by one;
# recurring events, festivals and tournaments as series, which take place every year, are not among them)
EVENT_CLASSES = frozenset(
    # battles, wars, operations and attacks
    "Q178561 Q1261499 Q188055 Q645883 Q2001676 Q831663 Q180684 Q766875 Q198 Q6857777 Q3199915 Q217327 "
    "Q2223653 Q12410555 Q21480300 Q473853 Q25917154 Q20893947 Q132821 Q1139665 Q750215 Q3882219 Q41397 "
    # protests, revolutions, incidents, accidents, floods, expeditions
    "Q273120 Q124757 Q7579940 Q10931 Q124734 Q1227249 Q744913 Q8068 Q366301 Q2401485 "
    # a competition's, a ceremony's or a festival's edition, a season, a match, an election, a treaty signed
    "Q27020041 Q167170 Q159821 Q3327913 Q3317976 Q47345468 Q17299750 Q2990963 Q276 Q4504495 Q27968043 "
    "Q27968055 Q62391930 Q220347 Q3010392 Q13454063 Q16466010 Q18325242 Q16939528 Q22266709 Q131569 "
    "Q625298 Q6934728 Q687554 Q273469 Q1141381 Q581634 Q1349088 Q428792 Q725169 Q911134 Q799469 "
    "Q2066031".split()
)
# classes of a polity of the past (the nineteenth read: "The Marinid Dynasty is located in Africa"): a dynasty
# is not located anywhere today, as an event is not; a city classed so as well (Florence, Naples, Aden, once
# states) is a place still and keeps its present tense
PAST_POLITY_CLASSES = frozenset(
    {
        "Q3024240",  # historical country (Swedish Empire, Seleucid Empire)
        "Q164950",  # dynasty (Marinid Dynasty)
        "Q12857432",  # Chinese dynasty (Han dynasty)
        "Q50068795",  # historical Chinese state
        "Q20203507",  # viceroyalty of the Spanish Empire (Viceroyalty of New Spain)
    }
)
PLACE_STILL_CLASSES = frozenset({"Q515", "Q1549591", "Q486972"})  # city, big city, human settlement
PAST_EVENT = (
    "an event (by its class or its name: 'Battle of Voltri', '2005 ... Championships') or a polity of the "
    "past (a dynasty, a historical country: 'Marinid Dynasty', 'Seleucid Empire'; not a city so classed too; "
    "or by id where the slice cannot tell, wikidata_past.PAST_POLITIES: 'Tiwanaku Empire', 'Republic of "
    "Artsakh') asked in a relation whose templates state a place in the present ('is located in')"
)


def past_event(label: str, classes: set[str]) -> bool:
    """Whether an entity is a past event or polity, asked of no present-tense place relation.

    A class of ``EVENT_CLASSES``, a name ``event_name`` reads so, or a class of ``PAST_POLITY_CLASSES``
    with no class of a place that stands today (``PLACE_STILL_CLASSES``: Florence, once a republic).
    """
    past_polity = bool(classes & PAST_POLITY_CLASSES) and not classes & PLACE_STILL_CLASSES
    return bool(classes & EVENT_CLASSES) or event_name(label) or past_polity


# relations whose templates and patterns state a polity's capital in the present ("[X] is the capital of [Y]",
# "The capital of [X] is [Y]"), and the slot the polity fills: a polity of the past there reads as one that
# stands today (the twenty-third read: "Karur is the capital of Chera Dynasty", "Winchester, which is the
# capital of Kingdom of England")
CAPITAL_POLITY_SLOT = {"P36": "[X]", "P1376": "[Y]"}
PAST_POLITY_CAPITAL = (
    "capital of a polity of the past (a dynasty, a historical country: 'Chera Dynasty', 'Kingdom of "
    "England'; relations.PAST_POLITY_CLASSES, not a city so classed too; or by id, "
    "wikidata_past.PAST_POLITIES: 'Republic of Artsakh', dissolved in 2024) stated in the present ('is the "
    "capital of')"
)
# relations whose templates state a fact of a polity subject in the present, the capitals' rule aside: the
# official language ("The official language of [X] is [Y]": the twenty-fourth read's "The official language of
# the Kingdom of Prussia is German"); the paraphrases family drops its own (paraphrases.states_of_the_past)
PRESENT_POLITY_SUBJECT = frozenset({"P37"})
PAST_POLITY_LANGUAGE = (
    "official language of a polity of the past (a dynasty, a historical country: 'Kingdom of Prussia'; "
    "relations.PAST_POLITY_CLASSES, not a city so classed too; or by id, wikidata_past.PAST_POLITIES: "
    "'Republic of Artsakh') stated in the present ('The official language of [X] is')"
)


def past_polities(
    client: SparqlClient, entities: list[str], past_classes: frozenset[str] = PAST_POLITY_CLASSES
) -> set[str]:
    """Entities classed (P31) a polity of the past in the slice, none a place that stands today.

    A polity of the past: a class of ``past_classes``, or a state dissolved since the slice's facts
    (``PAST_POLITIES``); a place that stands today: a class of ``PLACE_STILL_CLASSES`` (a city once a
    republic).
    """
    classes: dict[str, set[str]] = defaultdict(set)
    for e, _, kind in class_facts(client, sorted(set(entities))):
        classes[e].add(kind)
    classed = {e for e, kinds in classes.items() if kinds & past_classes and not kinds & PLACE_STILL_CLASSES}
    return classed | (set(entities) & PAST_POLITIES.keys())


def capitals_of_past_polities(client: SparqlClient, relation: str, pairs: list[tuple[str, str]]) -> set[str]:
    """Subjects of a capital relation (``CAPITAL_POLITY_SLOT``) with a fact naming a polity of the past."""
    slot = CAPITAL_POLITY_SLOT.get(relation)
    if slot is None:
        return set()
    polity = (lambda pair: pair[0]) if slot == "[X]" else (lambda pair: pair[1])
    past = past_polities(client, [polity(pair) for pair in pairs])
    return {pair[0] for pair in pairs if polity(pair) in past}


# a city the source says is a capital of a polity (P1376) whose own capital (P36) in the source is another
# city: a former capital, stated as one today by the present tense (the twenty-fourth read: "Bonn serves as
# the capital of Germany", "Rio de Janeiro", "Philadelphia", "Heian-kyō")
FORMER_CAPITAL = (
    "capital of a polity whose own capital (P36) in the source is another city: a former capital stated in "
    "the present ('Bonn serves as the capital of Germany')"
)


def former_capitals(client: SparqlClient, relation: str, pairs: list[tuple[str, str]]) -> set[str]:
    """Subjects of P1376 (capital of) with a polity whose capital (P36) in the source is another city only."""
    if relation != "P1376":
        return set()
    capitals: dict[str, set[str]] = defaultdict(set)
    for polity, _, capital in facts_of(client, sorted({o for _, o in pairs}), ["P36"]):
        capitals[polity].add(capital)
    return {s for s, o in pairs if capitals.get(o) and s not in capitals[o]}


def past_events(client: SparqlClient, labels: dict[str, str]) -> set[str]:
    """The past events and polities of ``labels``: by their class (P31) in the slice or label, or by id.

    :func:`past_event` reads the class and the label; ``PAST_POLITIES`` names what the slice cannot.
    """
    classes: dict[str, set[str]] = defaultdict(set)
    for e, _, kind in class_facts(client, sorted(labels)):
        classes[e].add(kind)
    return {e for e, label in labels.items() if past_event(label, classes[e]) or e in PAST_POLITIES}


# classes of a group whose name, plural in form, English reads with "the" ("a member of the X-Men", "the Bee
# Gees"): teams and bands (TEAM_CLASSES) and groups of fictional characters
GROUP_CLASSES = TEAM_CLASSES | {"Q14514600"}  # group of fictional characters
PLURAL_GROUP = "a group named in the plural without its 'the' ('a member of X-Men': 'of the X-Men')"
# classes (P31) of the teams of North American leagues, which English names with "the" and in the plural
# whatever the form of the name ("the Miami Heat are", "the Orlando Magic": the twenty-ninth read's "Market
# Square Arena was occupied by Indiana Pacers", "Miami Heat was an occupant of"); the slice gives these
# classes to European clubs too ("KK Partizan", read bare) and no league or country to tell them, so a
# label without "the" of any team so classed is dropped from a slot with no "the" of its own
LEAGUE_TEAM_CLASSES = frozenset(
    {
        "Q13393265",  # basketball team
        "Q13027888",  # baseball team
        "Q17156793",  # American football team
        "Q4498974",  # ice hockey team
    }
)
LEAGUE_TEAM = (
    "a basketball, baseball, American football or ice hockey team in a slot with no 'the' ('occupied by "
    "Miami Heat': the Miami Heat; the slice's classes do not tell a league's team from a club read bare)"
)


def group_named_in_plural(label: str) -> bool:
    """Whether a group's label is plural in form with no own "The": "Bee Gees", "X-Men" (last part "Men")."""
    if label[:4] == "The ":
        return False
    last = label.split()[-1].split("-")[-1] if label.split() else ""
    if is_plural_band_name(label) or (last[:1].isupper() and is_plural_band_name(last)):
        return True
    low = last.lower()
    lexicon = english_lexicon()
    return last[:1].isupper() and low in lexicon.plural_nouns and low not in lexicon.singular_nouns


def own_the_subject(templates) -> bool:
    """Whether a template puts its own "the" before the subject ("The [X] flows into [Y].": P177, P403)."""
    return any(re.search(r"(?i)\bthe \[X\]", t) for t in templates)


# a subject after a template's own "The" labelled in lower case or with a comma qualifier reads as a
# description or a place with its region ("The red bridge crosses the Rhine", "The Lao River, Italy, flows
# into": the twenty-sixth read)
QUALIFIED_AFTER_THE = (
    "labelled in lower case or with a comma qualifier after the template's own 'The' ('The red bridge "
    "crosses', 'The Lao River, Italy, flows into')"
)


def bare_slot(templates, slot: str) -> bool:
    """Whether a template has ``slot`` after no own "the" ("named after [Y]", not "next to the [Y]")."""
    return any(slot in t and not re.search(rf"(?i)\bthe {re.escape(slot)}", t) for t in templates)


def unreadable_names(
    client: SparqlClient, labels: dict[str, str], aliases: dict[str, list[str]] | None = None
) -> dict[str, str]:
    """Entities whose label, filled alone, misreads them by their class (P31) or an alias: the reason of each.

    A label that takes no "the" by its form (``takes_definite_article``) of a class English names with one
    (``DEFINITE_CLASSES``: "Rhine"; a ship's class, ``SHIP_CLASSES``, unless a prefix or a U-boat's number
    opens the name: "Golden Princess", not "USS Seal"), a public body labelled by an initialism
    (``PUBLIC_BODY_CLASSES``: "BBC" reads with "the", "PBS" without), or whose alias is the label with a
    leading "the" (``ALIAS_WITH_THE``:
    "the Iliad", "The Rhins of Galloway", "the White House"; a country's "the Sudan" is an older usage).
    A label plural in form is not judged here: over the v7 builds' subject labels, a last word that is a
    plural noun marks 292 of 56,851, nearly all one company, game, event or work ("Bad Boy Records", "Halo
    5: Guardians"); those with no class in the slice, 68, of which 1 names several things ("Ancient
    Livestock Pens"): no rule from the label or the slice's classes tells them apart.
    """
    bare = {e for e, label in labels.items() if label[:4] != "The " and not takes_definite_article(label)}
    classes: dict[str, set[str]] = defaultdict(set)
    for e, _, kind in class_facts(client, sorted(bare)):
        classes[e].add(kind)
    unreadable = {
        e: NEEDS_THE
        for e in bare
        if classes[e] & DEFINITE_CLASSES or (classes[e] & SHIP_CLASSES and not _SHIP_PREFIX.match(labels[e]))
    }
    unreadable.update(
        {e: MODEL_NEEDS_THE for e in bare if e not in unreadable and classes[e] & MODEL_CLASSES}
    )
    unreadable.update(
        {
            e: BODY_INITIALISM
            for e in bare
            if e not in unreadable
            and classes[e] & PUBLIC_BODY_CLASSES
            and re.fullmatch(r"[A-Z]{2,6}", labels[e])
        }
    )
    unreadable.update(
        {
            e: PLURAL_GROUP
            for e in bare
            if e not in unreadable and classes[e] & GROUP_CLASSES and group_named_in_plural(labels[e])
        }
    )
    unreadable.update(
        {e: LEAGUE_TEAM for e in bare if e not in unreadable and classes[e] & LEAGUE_TEAM_CLASSES}
    )
    unreadable.update(
        {
            e: ALIAS_WITH_THE
            for e in bare
            if e not in unreadable and alias_gives_the(labels[e], (aliases or {}).get(e, ()), classes[e])
        }
    )
    unreadable.update(
        {
            e: STATION_AS_PLACE
            for e in bare
            if e not in unreadable and classes[e] & STATION_CLASSES and not STATION_WORD.search(labels[e])
        }
    )
    return unreadable


def common_taxa(
    pid: str, labels: dict[str, str], subjects: set[str], aliases: dict[str, list[str]]
) -> set[str]:
    """The entities in a taxon slot of ``pid`` (``TAXON_SLOTS``) labelled by an English common name."""
    slots = TAXON_SLOTS.get(pid, ())
    return {
        e
        for e, label in labels.items()
        if ("[X]" if e in subjects else "[Y]") in slots
        and label[:4] != "The "
        and common_taxon_name(label, aliases.get(e, ()))
    }


# the slots that hold a taxon by the property's definition (the slice types no taxon: its taxa have no P31): a
# taxon labelled by its English common name takes "the" ("the Black Redstart", "the orangequit"), which a
# scientific name never does (``text.common_taxon_name``; the twenty-sixth read: "The IUCN conservation
# status of Black Redstart is", "Pig has the taxonomic rank of subspecies"); the slice has no P225 (taxon
# name) to put in its place
TAXON_SLOTS = {
    "P105": ("[X]",),
    "P141": ("[X]",),
    "P183": ("[X]",),
    "P171": ("[X]", "[Y]"),
    "P427": ("[X]", "[Y]"),
}
COMMON_TAXON_NAME = (
    "a taxon named by its English common name, which takes 'the' ('The IUCN conservation status of Black "
    "Redstart': of the Black Redstart)"
)
# classes (P31) of a railway or metro station in the slice: labelled by the bare name of its place ("Ronchin",
# "Porte Maillot", "Castlemaine") a station reads as the town or the square ("Ronchin is the property of
# SNCF": the twenty-sixth read)
STATION_CLASSES = frozenset(
    {
        "Q55488",  # train station
        "Q928830",  # metro station
        "Q1793804",  # S-Bahn station
        "Q55678",  # railway halt
        "Q4663385",  # former railway station
        "Q22808404",  # station located on surface
    }
)
STATION_WORD = re.compile(r"(?i)\b(?:station|stazione|estaci[oó]n|gare|halt|stop)\b|bahnhof\b")
STATION_AS_PLACE = (
    "a station labelled by the bare name of its place, read as the place ('Ronchin is the property of SNCF')"
)


def alias_gives_the(label: str, aliases, classes: set[str]) -> bool:
    """Whether an alias is the label with a leading "the" ("the Iliad", "The Rhins of Galloway").

    Not a country's ("the Sudan", "the Ukraine": older usage) nor a university's ("The Johns Hopkins
    University", "The Ohio State University": a style of its charter; "at Johns Hopkins University" reads
    bare), nor a lower-case label's.
    """
    if not label[:1].isupper() or classes & COUNTRY_CLASSES or label.split()[-1] == "University":
        return False
    return any(alias.casefold() == f"the {label}".casefold() for alias in aliases)


# a subject labelled in another script than Latin gives its answer away by the script (the twenty-first read:
# the 17 Cyrillic P291 subjects were published in Ukraine or Russia, Ukrainian letters telling the two apart)
OTHER_SCRIPT_SUBJECT = (
    "subject labelled in a script other than Latin (Cyrillic, Greek, Arabic, CJK, ...): the script gives the "
    "answer away ('Будинок зі скла' -> Ukraine)"
)
# relations whose answers are names (networks): an answer labelled as a common noun
# (``names.common_noun_label``) is no network ("debuted on syndication", the twentieth read: a way of
# selling a show, typed a television station)
NAME_ANSWER_RELATIONS = frozenset({"P449"})
COMMON_NOUN_ANSWER = (
    "answer a common noun (a lower-case label: 'syndication') where the templates want a name ('debuted on "
    "syndication')"
)
# answers of a relation that its templates misstate, by the answer's class (P31), with the reason: Wikidata
# types the singing voice (Q17172850) as a musical instrument too, but "X plays the voice", "X is a voice
# player" name nothing one plays (the eighth independent read: a candidate for every P1303 instance)
EXCLUDED_ANSWER_CLASSES = {
    "P1303": (frozenset({"Q7390"}), "answer a voice (P31 human voice): 'plays the voice' is no instrument"),
}

# answers a relation's templates misstate, by the answer's class (P31) or, where the slice types it not, by
# the form of its label (issue 25, the thirty-first read (1)(ii)): no one wording is true of both kinds, and
# the evaluation fills a template from the label alone, so such an answer leaves the space and the next
# candidate answers fill it
SQUARE_CLASSES = frozenset({"Q174782", "Q2026833", "Q28793904"})  # square, garden square, porticoed square
SQUARE_NAME = re.compile(r"\b(?:Square|Plaza|Piazza|Plein|Grand Place|Rynek)\b|platz\b|náměstí|^[Pp]lace\b")
# mountain range, massif, non-geologically related mountain range, Mountain range
RANGE_CLASSES = frozenset({"Q46831", "Q1061151", "Q1437459", "Q56298568"})
RANGE_NAME = re.compile(r"\b(?:Mountains|Range|Massif|Hills|Alps|Highlands)\b")
# deities: a god is no occupant based at a place
DEITY_CLASSES = frozenset(
    "Q178885 Q205985 Q6058157 Q22989102 Q11688446 Q979507 Q146083 Q16513881 Q41863069 Q23015914 Q1916821 "
    "Q3451071 Q42593818 Q3027597 Q511056 Q842697 Q17624054 Q32066628 Q465434 Q635155".split()
)
# answers the slice leaves untyped whose kind the templates misstate, with the reason
UNTYPED_ANSWERS_MISSTATED = {
    "P466": {"Q455602": "Amaterasu: a deity (no class in the slice), not 'based at' the cave Amano-Iwato"},
    # the thirty-second read: "The Putney Bridge crosses the River Thames"; the slice gives neither the river
    # nor its bridges a country (Oxfordshire, its P131, has none)
    "P177": {
        "Q19686": "River Thames: its bridges are British, named without 'the' ('Putney Bridge', 'Tower "
        "Bridge'), which P177's templates put before the bridge ('The [X] crosses the [Y]')"
    },
}
# political, social and resistance movements and ideologies: "served Carlism" misreads one as a state
MOVEMENT_CLASSES = frozenset(
    "Q2738074 Q49773 Q12909644 Q7257 Q138796 Q20642011 Q1826286 Q56296601 Q1323572 Q5333510".split()
)
MOVEMENT_NAME = re.compile(r"(?:ism|ismo|isme|ismus)$")
SQUARE_ANSWER = (
    "answer a square by its class or name ('Charles Square', 'place des Vosges'): English stands a building "
    "in a square, on a street ('stands on Charles Square')"
)
LOWER_CASE_STREET = (
    "answer a street labelled with its lower-case French generic ('rue de Grenelle', 'boulevard "
    "Saint-Germain'): English writes a street's name with a capital"
)
# (a ghetto is not one: text.fill_template says "imprisoned in the Łódź Ghetto")
ISLAND_ANSWER = (
    "answer an island by its class or name ('Robben Island', 'Alcatraz Island'): one is imprisoned on an "
    "island, not 'at' it"
)
# a place named by a common noun phrase and the place it is in ("Penal colony of New Caledonia"): English
# says it with "the", which the filler gives a known head ("the Tower of London") and not this one
KIND_OF_PLACE_NAME = re.compile(r"^[A-Z][a-z]+ [a-z]+ of [A-Z]")
KIND_OF_PLACE_ANSWER = (
    "answer named by a common noun phrase and its place ('Penal colony of New Caledonia'): it takes a 'the' "
    "the bare slot lacks ('imprisoned at Penal colony of New Caledonia')"
)
RANGE_ANSWER = (
    "answer a mountain range or massif by its class or name ('Byrranga Mountains', 'Mulanje Massif'): no "
    "point or peak, and named in the plural ('Byrranga Mountains is the highest point')"
)
EVENT_OR_DEITY_OCCUPANT = (
    "answer an event or a deity by its class or name ('Eurovision Song Contest 2014', 'Amaterasu'): no place "
    "'housed' it nor was it 'an occupant of' one"
)
MOVEMENT_ANSWER = (
    "answer a movement or an ideology by its class or name (an -ism: 'Carlism', 'Villismo'): 'served "
    "Carlism', 'was in service to' say a state or a ruler"
)
FOREIGN_TITLE = (
    "answer a title that is no English word (Hunspell's en_US dictionary: 'graf', 'Nobile', 'knyaz'): a "
    "foreign word where the templates state an English title ('held the title of graf')"
)
EDITOR_NOT_A_PERSON = (
    "answer typed in the slice, no person (a university, a firm: 'University of Auckland', 'Hasbro'): "
    "'served as editor of' is said of a person (the thirty-first read)"
)
VERNACULAR_TYPE = (
    "answer a taxon labelled by an English common name ('Bay bolete', 'Red dead-nettle', 'Northern common "
    "cuscus'): the templates state a nomenclatural type, a scientific name"
)


def vernacular_taxon_label(label: str) -> bool:
    """Whether a taxon's label of two words or more is an English common name, not a scientific name.

    A scientific name of a species is a Latin genus and a Latin epithet ("Agrochola helvola"); a common name
    opens with an English adjective ("Bay bolete": Link Grammar's dictionary) or has an English word after
    its first ("Red dead-nettle", "Northern common cuscus": Hunspell's en_US dictionary). A species whose
    epithet is an English word ("Lamium album") is read so too: a genus's type of that form shares the
    subject's name (a leak) and is not asked.
    """
    words = label.split()
    if len(words) < 2 or not words[0][:1].isupper():
        return False
    speller = spell_checker()
    later = [part for w in words[1:] for part in w.split("-") if part]
    return words[0].lower() in english_lexicon().adjectives or any(
        part.islower() and speller.known(part) for part in later
    )


def misstated_answer(pid: str, entity: str, label: str, classes: set[str]) -> str | None:
    """Why the relation's templates misstate an answer of this class or label form, or None."""
    if pid == "P669" and (classes & SQUARE_CLASSES or SQUARE_NAME.search(label)):
        return SQUARE_ANSWER
    if pid == "P669" and label[:1].islower():
        return LOWER_CASE_STREET
    if pid == "P2632" and (classes & ISLAND_CLASSES or ISLAND_NAME.search(label)):
        return ISLAND_ANSWER
    if pid == "P2632" and KIND_OF_PLACE_NAME.match(label):
        return KIND_OF_PLACE_ANSWER
    if pid == "P610" and (classes & RANGE_CLASSES or RANGE_NAME.search(label)):
        return RANGE_ANSWER
    if pid == "P466" and (
        classes & (EVENT_CLASSES | DEITY_CLASSES)
        or event_name(label)
        or entity in UNTYPED_ANSWERS_MISSTATED["P466"]
    ):
        return EVENT_OR_DEITY_OCCUPANT
    if pid == "P945" and (classes & MOVEMENT_CLASSES or MOVEMENT_NAME.search(label)):
        return MOVEMENT_ANSWER
    if pid == "P97" and not all(spell_checker().known(w) for w in re.split(r"[\s-]+", label) if w):
        return FOREIGN_TITLE
    if pid == TYPE_RELATION and vernacular_taxon_label(label):
        return VERNACULAR_TYPE
    if pid == "P98" and classes and not classes & {HUMAN, "Q15632617"}:
        return EDITOR_NOT_A_PERSON
    if entity in UNTYPED_ANSWERS_MISSTATED.get(pid, {}) and pid != "P466":
        return f"answer {UNTYPED_ANSWERS_MISSTATED[pid][entity]}"
    return None


# a woman by the title her name bears ("Margravine Magdalene Sibylle", "Princess Johanna Charlotte"): the
# slice has no sex or gender (P21), and its P97 facts give some women the masculine title ("Margravine ...
# held the title of marquess"), false as English says it; a title of a feminine form is hers
NOBLE_TITLE_RELATION = "P97"
_FEMININE_TITLES = (
    r"Queen|Empress|Princess|Duchess|Archduchess|Countess|Margravine|Landgravine|Electress|Marchioness"
    r"|Viscountess|Baroness|Lady|Dame|Infanta|Tsarina|Tsaritsa"
)
FEMININE_TITLE_WORD = re.compile(rf"\b(?:{_FEMININE_TITLES})\b")
FEMININE_TITLE_FORM = re.compile(rf"(?i)\b(?:{_FEMININE_TITLES}|consort|regnant)\b")
WOMAN_GIVEN_A_MASCULINE_TITLE = (
    "subject a woman by the title her name bears ('Margravine Magdalene Sibylle') whose title in the source "
    "is a masculine one ('marquess'): 'held the title of marquess' is false of her"
)


def woman_with_a_masculine_title(label: str, titles: list[str]) -> bool:
    """Whether a name bears a feminine title ("Princess ...") and one of the titles is of no feminine form."""
    return bool(FEMININE_TITLE_WORD.search(label)) and any(not FEMININE_TITLE_FORM.search(t) for t in titles)


# the taxonomic type (P427) of a family-group taxon is the genus its name is formed from (ICZN art. 29, ICN
# art. 18: the type genus's stem and a rank ending, "Apiaceae" from Apium, "Asiloidea" from Asilus): such a
# subject names its gold, a leak by the name's form that no shared token shows ("Rutaceae" / "Ruda")
TYPE_RELATION = "P427"
FAMILY_GROUP_ENDING = re.compile(r"^[A-Z][a-z]+(?:aceae|idae|inae|oideae|oidea|ini|eae)$")
NAMED_AFTER_ITS_TYPE = (
    "subject a family-group taxon by its rank ending (-aceae, -idae, -inae, -oideae, -oidea, -ini, -eae: "
    "'Apiaceae', 'Phabini'): its name is formed from its type genus, the gold ('Apiaceae' -> 'Apium')"
)
# subjects of P495 (country of origin: works, products, kinds) that are people: a person's origin is
# another relation (P27, P19), and "comes from" says it in the present of the dead ("Urduja comes from")
HUMAN_ORIGIN = (
    "subject a person (P31 human): country of origin is said of works and products ('Dannii Minogue comes "
    "from')"
)
# subjects the slice leaves untyped whose kind the templates misstate, with the reason
UNTYPED_SUBJECTS_MISSTATED = {
    "P466": {
        "Q1719144": "KV34: a tomb (no class in the slice): its occupant is buried there, not 'based at' it"
    },
}
TOMB_CLASSES = frozenset({"Q381885"})
TOMB_SUBJECT = (
    "subject a tomb by its class: its occupant is buried there, not 'based at' it ('Thutmose III was based "
    "at KV34')"
)

# the head nouns of a school's or institution's name, and of the slice's classes of one ("boarding school",
# "public university", "public educational institution of the United States")
INSTITUTION_HEAD_NOUNS = frozenset(
    {
        "school",
        "college",
        "university",
        "academy",
        "institute",
        "institution",
        "seminary",
        "conservatory",
        "gymnasium",
        "lyceum",
        "polytechnic",
    }
)
_INSTITUTION_HEADS = "|".join(sorted(h.capitalize() for h in INSTITUTION_HEAD_NOUNS))


def institution_name(label: str, aliases: list[str] | tuple[str, ...]) -> str | None:
    """The alias that names a school or institution labelled by its place's name alone, or None.

    "Eton" (Eton College) reads as the town: an alias that extends the label with an institution's head
    noun ("Eton College", "Georgetown University", "University of Oregon", "The College of Wooster") names
    it. A label that has such a head noun already ("Trinity College, Cambridge") is its name. A "University
    of ..." form comes first, then the label and its head noun ("Arizona": "University of Arizona", not
    "Arizona University"); one that opens with "The" comes last (the filler adds the article).
    """
    if any(word.lower() in INSTITUTION_HEAD_NOUNS for word in re.findall(r"[^\W\d_]+", label)):
        return None
    of_form = re.compile(rf"(?:The )?(?:{_INSTITUTION_HEADS}) of {re.escape(label)}")
    head_after = re.compile(rf"{re.escape(label)} (?:{_INSTITUTION_HEADS})")
    extended = [
        (alias.startswith("The "), not of_form.fullmatch(alias), i, alias)
        for i, alias in enumerate(aliases)
        if of_form.fullmatch(alias) or head_after.fullmatch(alias)
    ]
    return min(extended)[-1] if extended else None


def institution_class(class_label: str) -> bool:
    """Whether a class's label names a kind of school or institution by its head noun.

    "boys school", "land-grant university", "public educational institution of the United States" do;
    "university and college sports club" (a team) does not.
    """
    words = re.split(r"\s+of\s+", class_label.strip(), maxsplit=1)[0].split()
    return bool(words) and words[-1].lower() in INSTITUTION_HEAD_NOUNS


def institutions_by_place_name(
    client: SparqlClient, labels: dict[str, str], aliases: dict[str, list[str]]
) -> dict[str, str]:
    """Each entity labelled by a place's name that an alias names as a school or institution: that alias.

    ``institution_name`` gives the alias; the entity must be typed in the slice by a class of schools or
    institutions (``institution_class``) or be untyped ("Gordonstoun"): a team typed "university and
    college sports club" ("Oregon Ducks", alias "University of Oregon Ducks") keeps its label.
    """
    named = {e: n for e, label in labels.items() if (n := institution_name(label, aliases.get(e, ())))}
    if not named:
        return {}
    classes = defaultdict(set)
    for e, _, kind in class_facts(client, sorted(named)):
        classes[e].add(kind)
    class_labels = labels_of(client, sorted(set().union(*classes.values()))) if classes else {}
    return {
        e: n
        for e, n in named.items()
        if not classes[e] or any(institution_class(class_labels.get(c, "")) for c in classes[e])
    }


# a person's label that runs on after the name into lower-case words of which one at least is no English word
# (Hunspell's en_US): a vandal's addition ("France Prešeren liam je gey"); "John Kersey the elder" reads
VANDALISED_PERSON_LABEL = (
    "subject a person whose label runs on after the name into lower-case words that are no English words (a "
    "vandal's: 'France Prešeren liam je gey') and no alias gives the name alone"
)


def vandalised_name(label: str) -> tuple[str, ...] | None:
    """The capitalised name words of a person's label that runs on into non-English lower-case words, or None.

    Two or more lower-case words end the label, one of them at least no Hunspell en_US word, after words
    that each open with a capital ("France Prešeren liam je gey" -> ("France", "Prešeren")).
    """
    words = label.split()
    cut = len(words)
    while cut > 0 and words[cut - 1].isalpha() and words[cut - 1].islower():
        cut -= 1
    name, tail = words[:cut], words[cut:]
    if len(tail) < 2 or not name or not all(w[:1].isupper() for w in name):
        return None
    speller = spell_checker()
    return tuple(name) if any(not speller.known(w) for w in tail) else None


def name_alias_of_vandalised(label: str, aliases: list[str] | tuple[str, ...]) -> str | None:
    """The alias that names a person whose label is vandalised (``vandalised_name``), or None.

    The alias has as many words as the label's name and opens with its first word ("France Prešern" for
    "France Prešeren liam je gey"); its words each open with a capital.
    """
    name = vandalised_name(label)
    if name is None:
        return None
    for alias in aliases:
        words = alias.split()
        if len(words) == len(name) and words[0] == name[0] and all(w[:1].isupper() for w in words):
            return alias
    return None


# classes (P31) of an answer that is a whole country or a continent: the source's P30 places it, and no other
# answer of a space of places lies around it (country, sovereign state, continent, state with limited
# recognition, historical country, dependent territory, constituent country)
COUNTRY_CLASSES = frozenset(
    {"Q6256", "Q3624078", "Q5107", "Q1763527", "Q3024240", "Q15634554", "Q7275"}
)  # not a dependent territory (Q161243): it lies in another state ("New Caledonia" in France)
# the relations by which the source places one place inside another
GEOGRAPHIC_CONTAINMENT = ("P131", "P17", "P30", "P361")
UNPLACED = (
    "answer neither a country nor placed by the source (no P131/P17/P30/P361) in a space of countries and "
    "places: it may lie inside another answer, a second true answer no fact marks ('Goiás' beside 'Brazil')"
)


def places_of(candidates: list[str], countries: set[str]) -> bool:
    """Whether a relation's answers are places of several levels: a country beside places that may lie in it.

    One of its candidate answers is a country or a continent (``COUNTRY_CLASSES``): P183 (endemic
    to: Brazil beside Goiás, Tasmania), P131, P19. Asked of the spec's ``place_relations`` only (whose truth
    goes up the containment: a species endemic to Goiás is endemic to Brazil; a capital's does not). Such a
    space is sound only if every answer is a country or placed by the source (P131/P17/P30/P361): an answer
    the source does not place ("Goiás", no fact of it but its species) may lie inside another (Brazil), and
    a species endemic to it would have a second true answer that no containment marks.
    """
    return any(o in countries for o in candidates)


# rows of one query fetching the subjects of several small answers whole (a few answers' worth)
SMALL_ANSWER_ROWS = 500

# how deep into one answer's subjects a build may look (10 x (2k + 10) subjects) when the first do
# not balance: a bound on the rows one relation fetches, whatever the size of the relation. An
# answer with more subjects than 4x that many is sampled within the first 4x the endpoint lists
# (keyed inside them): hashing a country's millions of citizens per page would not be bounded
MAX_SUBJECT_PAGES = 10


def candidate_answers(max_answers: int) -> int:
    """How many of a relation's best supported objects are fetched as candidate answers.

    Room for the answers the space skips (label twins, nested, a constant guess's winner).
    """
    return 5 * max_answers + 50


@dataclass
class RelationSet:
    """One balanced relation: its instances, answer space and the measures the card reports."""

    instances: list[dict]
    answers: list[dict]
    cardinality: str
    constant_answer: float = 0.0  # the best constant guess's accuracy over the instances
    multi_gold: int = 0  # instances with a second gold inside the answer space
    starved: list[str] = field(default_factory=list)  # answers whose subjects all went to others


def relation_info_row(pid: str, cardinality: str, domains, answers: list, instances: list) -> dict:
    """The ``relation_info`` row of one built relation (schema ``RELATION_INFO``)."""
    return {
        "relation_id": pid,
        "cardinality": cardinality,
        "domains": list(domains),
        "answers": len(answers),
        "instances": len(instances),
        "changes_over_time": changes_over_time(pid),
    }


def decide_cardinality(golds: dict[str, set[str]], declared: str) -> str:
    """The catalog's cardinality, or with ``auto`` the data's (``golds``: subject -> its objects).

    1-1 when 90% of subjects have one object and 90% of objects one subject, N-1 when 90% of
    subjects have one object, else N-M.
    """
    if declared != "auto" or not golds:
        return declared if declared != "auto" else "N-M"
    subjects_of = Counter(o for objs in golds.values() for o in objs)
    return cardinality_from_counts(
        {
            "subjects": (len(golds), sum(len(objs) == 1 for objs in golds.values())),
            "objects": (len(subjects_of), sum(n == 1 for n in subjects_of.values())),
        }
    )


def cardinality_from_counts(counts: dict[str, tuple[int, int]]) -> str:
    """The 90% rule on ``{"subjects": (all, with one object), "objects": (all, with one subject)}``."""
    (subjects, single), (objects, unique) = counts["subjects"], counts["objects"]
    if not subjects or not objects:
        return "N-M"
    if single / subjects >= 0.9:
        return "1-1" if unique / objects >= 0.9 else "N-1"
    return "N-M"


def balance_relation(
    pool: RelationPool, spec: RelationsSpec, dropped: Counter, popularity_of=None
) -> RelationSet:
    """Answer space and exactly balanced instances of one relation; drop reasons counted.

    Golds are every object the source gives the subject plus the containers of those objects
    that are in the answer space; see the module docstring for the rules.
    """
    pid, cardinality = pool.pid, pool.cardinality
    one_to_one = cardinality == "1-1"
    min_support = 1 if one_to_one else spec.min_support
    max_answers = spec.one_to_one_answers if one_to_one else spec.max_answers
    ranked = [o for o in pool.ranked if pool.support[o] >= min_support]
    excluded: set[str] = set()  # answers a constant guess would exploit, replaced by the next ones
    starved = 0
    while True:
        skipped = Counter()  # this attempt's drops: counted only for the space that is kept
        space = _answer_space(pool, ranked, excluded, spec, max_answers, min_support, skipped, one_to_one)
        if len(space) < spec.min_answers:
            break
        relation_set = _sample_instances(pool, space, spec, skipped, one_to_one, popularity_of)
        if not relation_set.instances:
            if not relation_set.starved:
                break
            if not pool.deepen(relation_set.starved):  # its subjects all went to scarcer answers
                excluded.update(relation_set.starved)
                starved += len(relation_set.starved)
            continue
        shares = _gold_shares(relation_set.instances, space)
        worst = max(space, key=lambda a: (shares[a], -space.index(a)))
        if shares[worst] > 1 / len(space) + spec.constant_margin and pool.deepen(
            _answers_with_shared_subjects(relation_set.instances, space)
        ):
            # subjects true of several answers make a constant guess pay; the full relation has
            # others (as its counts would show), so look further before giving the answer up
            continue
        if shares[worst] <= 1 / len(space) + spec.constant_margin:
            dropped.update(skipped)
            if len(excluded) > starved:
                dropped[
                    f"{pid}: answer removed, gold for too many instances (a constant guess beats chance)"
                ] += len(excluded) - starved
            if starved:
                dropped[f"{pid}: answer removed, its subjects all taken by scarcer answers"] += starved
            relation_set.cardinality = cardinality
            relation_set.constant_answer = shares[worst]
            return relation_set
        excluded.add(worst)
    dropped[f"{pid}: relation skipped, fewer than {spec.min_answers} answers with support"] += 1
    return RelationSet([], [], cardinality)


def _answer_space(
    pool: RelationPool,
    ranked: list[str],
    excluded: set[str],
    spec: RelationsSpec,
    max_answers: int,
    min_support: int,
    dropped: Counter,
    one_to_one: bool,
) -> list[str]:
    """The best supported answers, skipping label twins and (by the spec) nested answers.

    An answer needs ``min_support`` subjects left after the subject rules, not only on the server.
    """
    pid = pool.pid
    need = 1 if one_to_one else max(min_support, spec.max_per_answer)
    space: list[str] = []
    seen_labels: dict[str, str] = {}  # name key (label or alias) -> the answer of the space it names
    # answers with k usable subjects first, in the order of their server counts; then the short
    # ones, most usable subjects first (what the counts after the subject rules would rank)
    short: list[str] = []
    for o in ranked:
        if len(space) == max_answers:
            break
        if o in excluded:
            continue
        usable = len(pool.eligible(o, need))
        if usable < min_support:
            dropped[f"{pid}: answer with fewer than {min_support} subjects left by the subject rules"] += 1
        elif usable < need:
            short.append(o)
        else:
            _admit(o, space, seen_labels, pool, spec, dropped)
    for o in sorted(short, key=lambda o: (-len(pool.pools[o]), ranked.index(o))):
        if len(space) == max_answers:
            break
        _admit(o, space, seen_labels, pool, spec, dropped)
    return space


def _admit(
    o: str, space: list[str], seen_labels: dict[str, str], pool: RelationPool, spec: RelationsSpec, dropped
) -> None:
    """Add an answer to the space unless it shares a name with, or is nested in, an answer already there.

    Two answers one of which bears the other's label or one of its aliases ("Russian Empire",
    alias "Russia", beside "Russia") are one answer to a reader: a model that names either
    would be scored right and wrong at once. The better supported one is kept and the other
    leaves the space (it is another entity, not a gold of the first one's instances).
    """
    pid, labels, containers = pool.pid, pool.labels, pool.containers
    classes = pool.answer_classes.get(o)
    if classes is None:  # not among the ranked candidates the pool typed at once
        classes = {kind for _, _, kind in class_facts(pool.client, [o])}
    if pid in EXCLUDED_ANSWER_CLASSES:
        reason = EXCLUDED_ANSWER_CLASSES[pid]
        if classes & reason[0]:
            dropped[f"{pid}: {reason[1]}"] += 1
            return
    if misstated := misstated_answer(pid, o, labels[o], classes):
        dropped[f"{pid}: {misstated}"] += 1
        return
    if pool.of_places and o not in pool.countries and o not in pool.placed:
        dropped[f"{pid}: {UNPLACED}"] += 1
        return
    if pid in NAME_ANSWER_RELATIONS and common_noun_label(labels[o]):
        dropped[f"{pid}: {COMMON_NOUN_ANSWER}"] += 1
        return
    if pid == FAMILY_RELATION and not FAMILY_HEADS.search(labels[o]):
        dropped[f"{pid}: {FAMILY_WITHOUT_HEAD}"] += 1
        return
    keys = {name_key(n) for n in pool.names(o)} - {""}
    twin = seen_labels.get(name_key(labels[o]))
    if twin is not None and labels[twin].lower() == labels[o].lower():
        dropped[f"{pid}: answer label shared with a better supported answer"] += 1
        return
    if keys & seen_labels.keys():
        dropped[f"{pid}: answer shares a name (label or alias) with a better supported answer"] += 1
        return
    nested = [a for a in space if a in containers.get(o, ()) or o in containers.get(a, ())]
    if nested and spec.nested_answers == "drop":
        dropped[f"{pid}: answer nested in a better supported answer (containment)"] += 1
        return
    if not nested and any(names_nested(labels[o], labels[a]) for a in space):
        dropped[f"{pid}: answer name contains or is contained in a better supported answer's"] += 1
        return
    seen_labels.update(dict.fromkeys(keys - seen_labels.keys(), o))
    space.append(o)


def _answers_with_shared_subjects(instances: list[dict], space: list[str]) -> list[str]:
    """The answers whose instances have a second gold inside the space."""
    in_space = set(space)
    return sorted({row["obj_id"] for row in instances if len(in_space.intersection(row["gold_obj_ids"])) > 1})


def _gold_shares(instances: list[dict], space: list[str]) -> dict[str, float]:
    """Per answer, the share of instances where it is a gold (the constant-answer baseline)."""
    counts = Counter(o for row in instances for o in set(row["gold_obj_ids"]) & set(space))
    return {a: counts[a] / len(instances) for a in space}


def _sample_instances(
    pool: RelationPool,
    space: list[str],
    spec: RelationsSpec,
    dropped: Counter,
    one_to_one: bool,
    popularity_of,
) -> RelationSet:
    """Instances of one answer space: every answer the gold of exactly k distinct subjects.

    An answer left short of k while the server has more of its subjects gets another page, and
    the assignment is made again.
    """
    target = 1 if one_to_one else spec.max_per_answer
    while True:
        chosen, golds_in_space, unknown, supply = _choose(pool, space, spec, target, popularity_of)
        # only the answers that hold k down get another page: too few candidates of their own, or
        # fewer chosen than the others (their subjects went to scarcer answers); paging every
        # answer until the scarcest has k fetched ~5x the rows at 10x the slice
        k = min(target, *(supply[o] for o in space))  # what the assignment asked of every answer
        short = [o for o in space if pool.can_grow(o) and (supply[o] < target or len(chosen.get(o, ())) < k)]
        if not short:
            break
        for o in short:
            pool.more(o)
    for reason, n in unknown.items():
        dropped[f"{pool.pid}: {reason}"] += n
    if any(not chosen.get(o) for o in space):
        return RelationSet([], [], "", starved=[o for o in space if not chosen.get(o)])
    k = min(len(subjects) for subjects in chosen.values())
    answer_idx = {o: i for i, o in enumerate(space)}
    labels = pool.labels
    instances = []
    for o in space:
        for s in chosen[o][:k]:
            instances.append(
                {
                    "relation_id": pool.pid,
                    "sub_id": s,
                    "sub_label": labels[s],
                    "obj_id": o,
                    "obj_label": labels[o],
                    "answer_idx": answer_idx[o],
                    "gold_obj_ids": sorted(pool.golds[s] | golds_in_space[s]),
                    "sub_aliases": [],
                    "popularity": None,
                }
            )
    answers = [
        {"relation_id": pool.pid, "answer_idx": i, "obj_id": o, "obj_label": labels[o]}
        for i, o in enumerate(space)
    ]
    multi = sum(len(golds_in_space[row["sub_id"]]) > 1 for row in instances)
    return RelationSet(instances, answers, "", multi_gold=multi)


NESTED_UNKNOWN = "subject's gold contains another answer whose truth is unknown"
NAMED_LIKE_A_GOLD = (
    "subject's gold shares a name (label or alias) with an answer of the space that is no gold of it"
)


def _choose(pool: RelationPool, space: list[str], spec: RelationsSpec, target: int, popularity_of):
    """One assignment of the fetched subjects to the space.

    (chosen, golds in space, subjects not asked by reason, supply): ``supply`` is each answer's eligible
    subjects.
    """
    in_space = set(space)
    containers = pool.containers
    golds_in_space = {
        s: (objs | {c for o in objs for c in containers.get(o, ())}) & in_space
        for s, objs in pool.golds.items()
    }
    # an answer labelled with a name of a gold ("Writer" beside a gold "author", alias "writer") is a gold,
    # and so is a direct class of a gold occupation ("Writer" for a poet: superclass_golds)
    namesakes = _namesakes(pool, space)
    for s, objs in pool.golds.items():
        for o in objs | golds_in_space[s]:
            golds_in_space[s] |= namesakes(o) | (pool.superclasses.get(o, set()) & in_space)
    eligible = dict(pool.golds)
    unknown: Counter = Counter()
    if spec.nested_answers == "gold":
        # a subject whose gold contains another answer of the space, with no word on that one, might
        # or might not be a true instance of it: it is not asked
        for s, objs in pool.golds.items():
            if any(o in containers.get(a, ()) and a not in golds_in_space[s] for o in objs for a in space):
                del eligible[s]
                unknown[NESTED_UNKNOWN] += 1
    # a subject one of whose golds (in the space or not) shares a name (label or alias) with an answer of
    # the space that is no gold of it is not asked: that answer is right by its name and wrong by its
    # entity ("Russian Empire", alias "Russia", for a citizen of Russia and the Soviet Union; "screenwriter",
    # alias "writer", for a Writer)
    keys_of = functools.cache(lambda e: name_keys(pool.names(e)) if e in pool.labels else frozenset())
    for s in list(eligible):
        if named_like_a_gold(pool.golds[s] | golds_in_space[s], space, keys_of):
            del eligible[s]
            unknown[NAMED_LIKE_A_GOLD] += 1
    candidates = defaultdict(list)
    for s, objs in eligible.items():
        for o in objs & in_space:
            candidates[o].append(s)
    supply = {o: len(candidates[o]) for o in space}
    if any(not candidates[o] for o in space):
        return {}, golds_in_space, unknown, supply
    k = min(target, min(len(candidates[o]) for o in space))
    strata = None
    if spec.popularity_strata and popularity_of is not None:
        strata = _strata(popularity_of(sorted(eligible)), spec.popularity_strata)
    chosen = _assign_subjects(pool.salt, space, candidates, golds_in_space, k, strata)
    return chosen, golds_in_space, unknown, supply


def _namesakes(pool: RelationPool, space: list[str]):
    """A function: entity -> the answers of the space *labelled* with one of its names (``names.name_key``).

    A reader sees an answer by its label: "Writer" is right for an "author" (whose aliases include
    "writer"), while "Russian Empire" (whose aliases include "Russia") is not right for a citizen
    of Russia born in 1950: the label shown names another entity.
    """
    by_key: dict[str, set[str]] = defaultdict(set)
    for a in space:
        if name_key(pool.labels[a]):  # an emoji or a flag names nothing
            by_key[name_key(pool.labels[a])].add(a)
    cache: dict[str, set[str]] = {}

    def namesakes(entity: str) -> set[str]:
        if entity not in cache:
            names = pool.names(entity) if entity in pool.labels else []
            cache[entity] = {a for n in names if name_key(n) for a in by_key.get(name_key(n), ())}
        return cache[entity]

    return namesakes


def _strata(popularity: dict[str, int], n: int) -> dict[str, int]:
    """Stratum 0..n-1 of every subject by popularity rank (equal-sized quantile bins)."""
    ranked = sorted(popularity, key=lambda s: (popularity[s], s))
    return {s: min(n - 1, i * n // max(1, len(ranked))) for i, s in enumerate(ranked)}


def _assign_subjects(
    salt: str,
    space: list[str],
    candidates: dict[str, list[str]],
    golds_in_space: dict[str, set[str]],
    k: int,
    strata: dict[str, int] | None = None,
) -> dict[str, list[str]]:
    """K distinct subjects per answer; scarce answers choose first; order by the sample key.

    Subjects with fewer golds inside the space come first (a subject true of many answers makes a
    constant guess pay). With ``strata``, an answer's subjects are taken round-robin across
    popularity strata, so that popular and rare subjects are represented alike.
    """
    used: set[str] = set()
    chosen: dict[str, list[str]] = {}
    for o in sorted(space, key=lambda o: (len(candidates[o]), space.index(o))):
        ordered = sorted(
            candidates[o],
            key=lambda s: (len(golds_in_space[s]), sample_key(s, salt), s),
        )
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


RELATION_SUMMARY_SCHEMA = {
    "relation_id": pl.String,
    "cardinality": pl.String,
    "instances": pl.Int64,
    "answers": pl.Int64,
    "per_answer": pl.Int64,
    "multi_gold": pl.Int64,
    "constant_answer": pl.Float64,
    "uniform": pl.Float64,
}


@register_family(
    "relations",
    RelationsSpec,
    default_spec="relations",
    description="Balanced relation sets (BEAR) from Wikidata: every answer the sampled gold equally often",
)
def generate_relations(spec: RelationsSpec) -> TableOutput:
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
    built: dict[str, RelationSet] = {}
    names: dict[str, list[str]] = {}  # label and aliases of every subject, gold and answer written
    generic: dict[str, frozenset[str]] = {}
    containers: dict[str, set[str]] = {}  # every gold's containers (the spec's containment, transitively)
    unplaced: dict[str, list[str]] = {}  # answers of a space of places that are no country and not placed
    lookups = EntityLookups()
    with open_wikidata(spec.wikidata) as (client, source):
        for relation in progress(chosen, desc="relations", unit="relation"):
            view = source_view(
                client,
                spec.wikidata.min_popularity,
                relation.pid,
                relation.subject_types,
                relation.object_types,
            )
            pool = RelationPool(client, view, spec, lookups, dropped, templates=relation.templates)
            pool.open(relation.cardinality)
            relation_set = balance_relation(
                pool, spec, dropped, lambda subjects: popularity(client, subjects)[1]
            )
            log.info(
                "%s: %d instances over %d answers from %d subjects fetched",
                relation.pid,
                len(relation_set.instances),
                len(relation_set.answers),
                len(pool.judged),
            )
            built[relation.pid] = relation_set
            generic[relation.pid] = pool.generic
            for row in relation_set.instances:
                for entity in (row["sub_id"], *row["gold_obj_ids"]):
                    names[entity] = pool.names(entity)
                for gold in row["gold_obj_ids"]:
                    containers[gold] = set(pool.containers.get(gold, ()))
            unplaced[relation.pid] = [
                a["obj_id"]
                for a in relation_set.answers
                if pool.of_places and a["obj_id"] not in pool.countries | pool.placed
            ]
            instances += relation_set.instances
            answers += relation_set.answers
        subjects = sorted({row["sub_id"] for row in instances})
        measure, popular = popularity(client, subjects)
        queries = query_log(client)
    for row in instances:
        # Wikidata's aliases as they are, less those that mix Latin letters with Cyrillic or Greek ones in a
        # word ('Kyїv', 'ΛVICII'): a look-alike letter or a stylisation is no name a reader types
        row["sub_aliases"] = sorted(
            a for a in lookups.aliases.get(row["sub_id"], []) if not mixed_script_word(a)
        )
        row["popularity"] = popular.get(row["sub_id"])
    summary_rows = [
        {
            "relation_id": pid,
            "cardinality": rs.cardinality,
            "instances": len(rs.instances),
            "answers": len(rs.answers),
            "per_answer": len(rs.instances) // len(rs.answers),
            "multi_gold": rs.multi_gold,
            "constant_answer": round(rs.constant_answer, 4),
            "uniform": round(1 / len(rs.answers), 4),
        }
        for pid, rs in sorted(built.items())
        if rs.instances
    ]
    templates = [
        {
            "relation_id": r.pid,
            "pattern_id": f"{r.pid}-{i}",
            "template": t,
            "object_final": is_object_final(t),
            "form": pattern_form(t),
            "origin": "catalog",
        }
        for r in chosen
        if any(a["relation_id"] == r.pid for a in answers)
        for i, t in enumerate(r.templates)
    ]
    summary = pl.DataFrame(summary_rows, schema=RELATION_SUMMARY_SCHEMA)
    validity = relation_validity_report(
        instances,
        answers,
        templates,
        margin=spec.constant_margin,
        coverage=bear_coverage(catalog, spec, built, dropped),
        dropped=dropped,
        names=names,
        generic=generic,
        containers=containers,
        unplaced=unplaced,
    )
    card = CardInfo(
        pretty_name="Balanced relation sets from Wikidata (probesmith)",
        description=spec.description or __doc__.split("\n\n")[0],
        license="cc-by-sa-4.0",
        licence_text="Facts, labels and aliases: Wikidata (CC0). Templates: probesmith's relation catalog "
        "(`origin` catalog), made from BEAR's (Wiland et al. 2024, CC BY-SA 4.0) and edited where they did "
        "not read as English; this dataset is shared under the same licence.",
        tags=("probing", "wikidata", "bear", "relational-knowledge"),
        task_categories=("fill-mask", "text-generation"),
        extra_sections=(("Validity", relation_validity_markdown(validity, popularity_note(measure))),),
    )
    info = [
        relation_info_row(pid, rs.cardinality, catalog[pid].domains, rs.answers, rs.instances)
        for pid, rs in sorted(built.items())
        if rs.instances
    ]
    return wikidata_output(
        card,
        source,
        queries,
        {
            "instances": (RELATION_INSTANCES, instances),
            "answer_spaces": (ANSWER_SPACES, answers),
            "templates": (PATTERNS, templates),
            "relation_info": (RELATION_INFO, info),
        },
        summary=summary,
        dropped=dropped,
        validity=validity,
        popularity_measure=measure,
    )


def popularity_note(measure: str) -> str:
    """What the ``popularity`` column measures, in the card's words."""
    if measure == "sitelinks":
        return "`popularity` is the subject's number of Wikipedia sitelinks (the source has them)."
    return (
        "`popularity` is **not** a popularity measure here: the source has no sitelinks, so it is the "
        "subject's degree (facts it takes part in) in the source. On the shared slice, a union of "
        "benchmark fact lists, its median is 1; use it to stratify, not to claim popularity effects."
    )


def bear_coverage(
    catalog: dict[str, Relation], spec: RelationsSpec, built: dict[str, RelationSet], dropped: Counter
) -> list[dict]:
    """Per BEAR relation: built (answers x k), or why not."""
    rows = []
    for pid in BEAR_RELATIONS:
        if pid not in catalog:
            status = "not in the catalog"
        elif spec.relations and pid not in spec.relations:
            status = "not in this spec's `relations`"
        elif built.get(pid) and built[pid].instances:
            rs = built[pid]
            status = (
                f"built: {rs.cardinality}, {len(rs.answers)} answers x {len(rs.instances) // len(rs.answers)}"
            )
        else:
            reasons = [r.split(": ", 1)[1] for r in dropped if r.startswith(f"{pid}: relation skipped")]
            status = "skipped: " + (reasons[0] if reasons else "no facts in the source")
        rows.append({"relation_id": pid, "status": status})
    return rows


EXPORT_REPORT = "probesmith_export.json"


def export_bear(build_folder: str | Path, out: str | Path, *, force: bool = False) -> Path:
    """Export a relations build to BEAR's layout (P*.jsonl + metadata_relations.json).

    Every record carries ``gold_obj_ids`` beside ``answer_idx``. BEAR's layout scores one answer
    per instance, so an instance whose answer space holds a second gold is left out (a scorer
    would count that gold as wrong); how many per relation is in ``probesmith_export.json``.
    A BEAR scorer fills ``[Y]`` by plain replacement, so a template whose article must agree with
    the answer ("works as a [Y]") is left out where its relation has another (also listed there);
    an imported BEAR build's templates are written back as they are.
    ``out`` is checked before the build is read, written atomically, and replaces only an
    earlier BEAR export of ours.
    """
    with OutputFolder(out, "export:bear", force=force) as staging:
        relations, left_out, needs_agreement = _bear_relations(Path(build_folder))
        write_bear_files(staging, relations)
        report = {
            "build": str(Path(build_folder).resolve()),
            "instances": sum(len(r["instances"]) for r in relations.values()),
            "left_out_second_gold_in_space": left_out,
            "left_out_templates_needing_agreement": needs_agreement,
        }
        (staging / EXPORT_REPORT).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    if any(left_out.values()):
        log.warning(
            "export bear: %d instances left out, their answer space holds a second gold (%s)",
            sum(left_out.values()),
            ", ".join(f"{pid} {n}" for pid, n in left_out.items() if n),
        )
    return Path(out)


def _bear_relations(build_folder: Path) -> tuple[dict[str, dict], dict[str, int]]:

    manifest = require_family(build_folder, ("relations",), "export bear")
    instances, answers, templates = (
        read_table(build_folder, config, manifest=manifest)
        for config in ("instances", "answer_spaces", "templates")
    )
    relations, left_out, needs_agreement = {}, {}, {}
    for pid in answers["relation_id"].unique(maintain_order=True).to_list():
        space = answers.filter(pl.col("relation_id") == pid).sort("answer_idx")
        rows = instances.filter(pl.col("relation_id") == pid).sort("answer_idx", maintain_order=True)
        in_space = set(space["obj_id"].to_list())
        single = rows.filter(
            pl.col("gold_obj_ids").list.eval(pl.element().is_in(list(in_space))).list.sum() <= 1
        )
        left_out[pid] = len(rows) - len(single)
        rows_t = templates.filter(pl.col("relation_id") == pid).sort("pattern_id")
        own = rows_t["template"].to_list()
        # an imported BEAR build's own templates go back verbatim (the round trip is the identity)
        plain = [
            t
            for t, origin in zip(own, rows_t["origin"].to_list(), strict=True)
            if origin == "bear" or reads_as_filled(t, space["obj_label"].to_list())
        ]
        if plain and len(plain) < len(own):
            needs_agreement[pid] = [t for t in own if t not in plain]
        relations[pid] = {
            "templates": plain or own,
            "answer_space_labels": space["obj_label"].to_list(),
            "answer_space_ids": space["obj_id"].to_list(),
            "instances": single.select(
                "sub_id", "sub_label", "sub_aliases", "obj_id", "obj_label", "answer_idx", "gold_obj_ids"
            ).to_dicts(),
        }
    return relations, left_out, needs_agreement


def reads_as_filled(template: str, answers: list[str]) -> bool:
    """Whether plain ``[Y]`` replacement (lm-pub-quiz's) reads as :func:`fill_template` for every answer.

    "[X] works as a [Y]." does not ("a actor"): probesmith agrees the article per answer, a BEAR
    scorer cannot, so the export leaves such a template out where the relation has others.
    """
    return all(template.replace("[Y]", a) == fill_template(template, None, a) for a in answers)


def import_bear(bear_folder: str | Path, out: str | Path, *, force: bool = False) -> dict:
    """Import a BEAR-layout folder into a relations build folder (instances, answer spaces, templates).

    ``out`` must be new, empty or a relations build (checked before BEAR is read).
    """
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
                "form": pattern_form(t),
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
    # what the import decides about each relation, written down for evaluation: the bundled
    # catalog's cardinality and domains where it knows the relation, else the data's
    catalog = load_catalog(DEFAULT_CATALOG)
    info = []
    instances_of: dict[str, list[dict]] = defaultdict(list)
    for row in instances:
        instances_of[row["relation_id"]].append(row)
    for pid, data in sorted(relations.items()):
        rows = instances_of[pid]
        known = catalog.get(pid)
        declared = known.cardinality if known is not None else "auto"
        golds: dict[str, set[str]] = defaultdict(set)
        for row in rows:
            golds[row["sub_id"]].add(row["obj_id"])
        cardinality = decide_cardinality(golds, declared)
        domains = known.domains if known is not None else ()
        info.append(relation_info_row(pid, cardinality, domains, data["answer_space_ids"], rows))
    with DatasetFolderWriter(out, "build:relations", force=force) as writer:
        tables = {
            "instances": (RELATION_INSTANCES, instances),
            "answer_spaces": (ANSWER_SPACES, answers),
            "templates": (PATTERNS, templates),
            "relation_info": (RELATION_INFO, info),
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


register_exporter(
    "relations",
    Converter(
        "bear",
        "A relations build to BEAR / lm-pub-quiz (P*.jsonl).",
        export_bear,
        lambda written, out: f"BEAR layout written to {written}",
    ),
)
register_importer(
    "relations",
    Converter(
        "bear",
        "BEAR / lm-pub-quiz layout to a relations build.",
        import_bear,
        lambda manifest, out: f"{out}: {manifest['tables']['instances/test']['rows']:,} instances imported",
    ),
)

"""Paraphrase and alias banks, and probe grids (ParaRel, Elazar et al. 2021; Cao et al. 2022).

* **patterns** — per relation, every pattern from ParaRel's pattern files, Cao et al.'s
  object-final prompts, LAMA's template, BEAR's templates and the catalog, normalised (spacing,
  final period) and validated (exactly one ``[X]`` and one ``[Y]``); duplicates are merged and
  their origins joined. ``object_final`` marks patterns a causal LM can complete.
* **pattern_edges** — ParaRel's pattern graphs, edges typed lexical / syntactic / determiner.
* **aliases** — up to K verbalizations per entity: the English label, then ``skos:altLabel``
  aliases, filtered (empty or overlong, equal up to case and punctuation, emoji, non-Latin
  script unless asked, an alias shared by two answers of the same answer space), with every
  dropped alias and its reason in **alias_drops**.
* **instances**, **answer_spaces** and **grid** — per relation, the subjects with one object
  (up to ``max_instances``: subjects in the order of a seeded key, fetched in ``LIMIT``-ed pages
  until that many are found, so a relation of millions of facts costs what the grid needs),
  the candidate set (all their objects) and the
  statement of every (instance x pattern x verbalization) with ``[Y]`` left open (filled by
  ``fill_template``, which agrees the article before it with each candidate): the table
  the evaluation module scores for ParaRel consistency and Cao et al.'s backdoor adjustment.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import logging
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import networkx as nx
import polars as pl
import pyarrow as pa

from probesmith.builders.data import data_path
from probesmith.builders.families.relations import (
    AMBIGUOUS_PLURAL_HEADS,
    CONTAINMENT,
    COUNTRY_CLASSES,
    GEOGRAPHIC_CONTAINMENT,
    LOWER_CASE_PERSON,
    MODEL_CLASSES,
    NAMED_LIKE_A_GOLD,
    NOT_OF_THE_SUBJECT,
    NOT_OF_THE_SUBJECT_CLASS,
    OCCUPATION_AS_NAME,
    OPERATOR_RELATIONS,
    OTHER_SCRIPT_SUBJECT,
    PAST_EVENT,
    PAST_POLITY_CAPITAL,
    PAST_POLITY_CLASSES,
    PERSON_LIFE_RELATIONS,
    PLACE_RELATIONS,
    PLACE_STILL_CLASSES,
    PLURAL_TEAM,
    PRESENT_PLACE_RELATIONS,
    TEAM_CLASSES,
    TITLE_COMMA,
    UNPLACED,
    bare_slot,
    capitals_of_past_polities,
    comma_titles,
    lower_case_people,
    occupation_labelled_people,
    past_events,
    past_polities,
    places_of,
    plural_teams,
    unreadable_names,
    untyped_stations,
    works_misread,
)
from probesmith.builders.names import (
    alias_glued_at_full_stop,
    bare_count_noun,
    common_noun_label,
    fold,
    formatting_residue,
    generic_tokens,
    label_problem,
    name_key,
    name_keys,
    name_leak,
    named_like_a_gold,
    other_script,
    plain_name,
    without_legal_form,
)
from probesmith.builders.registry import TableOutput, register_family
from probesmith.builders.sources import WikidataSpec, open_wikidata
from probesmith.builders.sources.catalog import (
    DEFAULT_CATALOG,
    is_object_final,
    load_catalog,
    load_name_classes,
)
from probesmith.builders.sources.wikidata import PREFIXES, entity_id, query_log
from probesmith.builders.sources.wikidata_past import DEATH_FACTS, PAST_POLITIES
from probesmith.builders.sources.wikidata_queries import (
    MISREAD_NAME,
    NAMESAKE_OTHERWISE,
    EntityLookups,
    aliases_query,
    batched_select,
    class_facts,
    classes_of,
    facts_of,
    labels_of,
    misread_names,
    namesakes_with_other_objects,
    popularity,
    source_view,
    subjects_in_key_order,
)
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.builders.text import (
    TITLE_MARK_ENDS_STATEMENT,
    english_lexicon,
    fill_template,
    filled_problem,
    is_plural_band_name,
    names_nested,
    pattern_form,
    takes_definite_article,
    template_key,
    title_mark_ends_statement,
    word_tokens,
)
from probesmith.builders.textcheck import apply_fixes
from probesmith.builders.validity import rules_table
from probesmith.builders.wikidata_output import wikidata_output
from probesmith.errors import SourceError
from probesmith.probes.spec import ProbeSpec, spec_field
from probesmith.progress import progress
from probesmith.schemas.card import CardInfo
from probesmith.schemas.tables import TableSchema, unique_columns
from probesmith.schemas.wikidata import ALIASES, ANSWER_SPACES, PATTERNS, RELATION_INSTANCES

log = logging.getLogger(__name__)

_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")


# the family's own tables (the shared Wikidata ones are in probesmith.schemas.wikidata)
PATTERN_EDGES = TableSchema(
    name="pattern_edges",
    version=1,
    description="The paraphrase graph of a relation: directed edges between patterns, typed.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("source_pattern_id", pa.string(), nullable=False),
            pa.field("target_pattern_id", pa.string(), nullable=False),
            pa.field("lexical", pa.bool_(), nullable=False),
            pa.field("syntactic", pa.bool_(), nullable=False),
            pa.field("determiner", pa.bool_(), nullable=False),
        ]
    ),
    checks=(unique_columns("relation_id", "source_pattern_id", "target_pattern_id"),),
)

ALIAS_DROPS = TableSchema(
    name="alias_drops",
    version=1,
    description="Aliases left out of the bank, each with the reason.",
    schema=pa.schema(
        [
            pa.field("entity_id", pa.string(), nullable=False),
            pa.field("alias", pa.string(), nullable=False),
            pa.field("reason", pa.string(), nullable=False),
        ]
    ),
)

GRID = TableSchema(
    name="grid",
    version=1,
    description="Statements of every (instance x pattern x verbalization); [Y] is left for the "
    "candidates of the relation's answer space.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("answer_idx", pa.int32(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("verbalization_rank", pa.int32(), nullable=False),
            pa.field("verbalization", pa.string(), nullable=False),
            pa.field("statement", pa.string(), nullable=False),
        ]
    ),
    checks=(unique_columns("relation_id", "sub_id", "pattern_id", "verbalization_rank"),),
)


@dataclass(frozen=True)
class PatternSourcesSpec:
    """Where patterns come from; an empty path skips a source."""

    causal_probe: str = spec_field(
        "../shared/data/causal_probe/prompts", help="Cao et al.'s prompts (P*.jsonl)."
    )
    pararel: str = spec_field("../shared/data/pararel/patterns", help="ParaRel's patterns (P*.jsonl).")
    pararel_graphs: str = spec_field(
        "../shared/data/pararel/graphs", help="ParaRel's pattern graphs (P*.json)."
    )
    lama: str = spec_field("../shared/data/lama_trex/relations.jsonl", help="LAMA's relations.jsonl.")
    bear: str = spec_field("../shared/data/bear/BEAR-big/metadata_relations.json", help="BEAR's metadata.")
    catalog: str = spec_field(DEFAULT_CATALOG, help="The relation catalog's templates.")
    reject: tuple[str, ...] = spec_field(
        ("[X] is an instance [Y].", "[Y] musicians [X]."),
        help="Patterns read and found wrong (a missing word, a noun phrase that is no statement): "
        "dropped with a reason wherever they come from.",
    )
    fixes: str = spec_field(
        "catalogs/template_fixes",
        help="Fixes of external patterns (ParaRel, Cao et al., LAMA, BEAR) found wrong as English text or "
        "as paraphrases: rewritten or dropped, each with its reason (bundled name or path; empty = none).",
    )


@dataclass(frozen=True)
class AliasSpec:
    """The alias bank's filters."""

    max_verbalizations: int = spec_field(
        5, help="K: verbalizations per entity, the label included.", minimum=1
    )
    max_chars: int = spec_field(60, help="Longer aliases are dropped.")
    latin_only: bool = spec_field(True, help="Drop aliases in a non-Latin script.")


# the classes of those who play music, for P136's patterns ("[X] plays [Y] music"): a person (and a twin, a
# person known by one name), a band of any genre or size, an ensemble, an orchestra (the classes of the P136
# subjects of the shared slice, read one by one; a record label, an album, a song or an opera is none)
PERFORMER_CLASSES = (
    "Q5", "Q2985549", "Q159979", "Q2301325",  # human, mononymous person, twin, identical twins
    "Q215380", "Q5741069", "Q56816954", "Q64514668", "Q216337", "Q641066", "Q215048", "Q2491498",  # bands
    "Q9212979", "Q71129815", "Q15851525", "Q120544", "Q814344", "Q19464251", "Q6619719",  # duos, groups
    "Q2088357", "Q42998", "Q239582", "Q131186", "Q207338",  # ensemble, orchestras, choir, string quartet
)  # fmt: skip

# the classes of a name (a given name, a surname and their kinds: the P407 subjects of the shared slice,
# read one by one): P407 (language of work or name) gives a name's language, and its patterns say a work's
# ("[X] was written in [Y]", "[X] is a [Y]-language work": "Levin, a Turkish-language work", twenty-fourth
# read)
NAME_CLASSES = (
    "Q202444", "Q12308941", "Q11879590", "Q3409032", "Q101352", "Q82799", "Q1243157", "Q17143070",
    "Q11455398", "Q829026", "Q69680123", "Q3342913", "Q1093580", "Q847773",
)  # fmt: skip
# the classes of an event among the P276 subjects of the shared slice, read one by one (festivals,
# tournaments, fairs, exhibitions, conventions, annual and recurring events; a venue is none): an event takes
# place, it "is located" nowhere ("Amstel Gold Race is located in Limburg", twenty-fourth read); one-off past
# events are relations.EVENT_CLASSES, dropped by relations.past_events as well
HELD_EVENT_CLASSES = (
    "Q1190554", "Q1656682", "Q15275719", "Q11483816", "Q2441722", "Q16510064",  # events, recurring, annual
    "Q132241", "Q220505", "Q868557", "Q5151487", "Q1435951", "Q4801521", "Q1751626", "Q28057350",  # festivals
    "Q13406554", "Q7433676", "Q47150471",
    "Q18608583", "Q500834", "Q15259995", "Q13219666", "Q47443726", "Q17299750", "Q280275",  # tournaments
    "Q48004378", "Q8024924",  # competitions
    "Q288514", "Q1792535", "Q998672", "Q57305", "Q172754", "Q667276", "Q59861107",  # fairs, exhibitions
    "Q1129398", "Q4390543",  # conventions
)  # fmt: skip
# the classes of a P276 subject that is no physical thing and so "is located" nowhere, read one by one over
# the P276 subjects of the shared slice (twenty-eighth read: "Evacuation Day is located in Boston", "Mr
# Selfridge is located in London", "Polkagris is located in Sweden", "Falash Mura is situated in Ethiopia",
# "Spanish Armada is located in English Channel", "Andrew Crooke and William Cooke is located in London"):
# one-off events and games, a holiday; broadcast series and programmes; a food; a style or a movement; a
# language; a people, a clan, a duo; a fleet; a form of government; an award; a website
NOT_LOCATED_CLASSES = (
    "Q428303", "Q4", "Q2142464", "Q273039", "Q2683596", "Q43109", "Q1934708",  # events, games, a holiday
    "Q5398426", "Q1259759", "Q15416", "Q1555508",  # television series, miniseries, show, radio programme
    "Q7616232",  # stick candy
    "Q1792644", "Q968159", "Q32880", "Q3326867",  # art style, art movement, architectural style, painting
    "Q34770", "Q45762", "Q38058796",  # language, dead language, extinct language
    "Q211503", "Q499247", "Q16887380", "Q10648343",  # clan, Scottish clan, group, duo
    "Q189524", "Q171174", "Q378427",  # fleet, direct democracy, literary award
    "Q35127", "Q615699", "Q14827288",  # website, Internet encyclopedia, Wikimedia project
)  # fmt: skip
# P17's patterns say where a place lies ("[X] is located in", "[X] lies in"); an organisation, a work or an
# award has a country but lies nowhere (twenty-eighth and thirtieth reads: "Asylum Records lies in the
# United States of America", "Padma Shri lies in India"): record label, record company, business,
# enterprise, company, publisher, open-access publisher, political party, newspaper, magazine, organization,
# non-profit organisation, academy of sciences, national academy, radio station, television channel,
# association football club, sports club, band, award, literary award, currency
NO_PLACE_CLASSES = (
    "Q18127", "Q2442401", "Q4830453", "Q6881511", "Q783794", "Q2085381", "Q45400320", "Q7278", "Q11032",
    "Q41298", "Q43229", "Q163740", "Q414147", "Q1966910", "Q14350", "Q2001305", "Q476028", "Q847017",
    "Q215380", "Q618779", "Q378427", "Q8142",
    # the thirty-second read's (56 of 1,657 P17 subjects, by class): television networks, stations and series,
    # a radio network, an airline, a production and a public company, an arms maker, a scientific society, a
    # league, a troupe, festivals and a recurring sporting event, a list article, an art movement and group,
    # a martial art, a dance, a decoration, an ethnic group, an order ("NBC lies in the United States", "The
    # Carnival Festival lies in the Netherlands")
    "Q1254874", "Q1616075", "Q5398426", "Q1061197", "Q46970", "Q10689397", "Q891723", "Q2538889", "Q748019",
    "Q15991303", "Q742421", "Q868557", "Q220505", "Q18608583", "Q13406463", "Q968159", "Q4502119", "Q11417",
    "Q11639", "Q1788716", "Q41710", "Q193622",
)  # fmt: skip
# P37's patterns "The official language spoken in [X]", "In [X], the official language is" read [X] as a
# place; an organisation, a people, a body or an office has an official language but is no place one speaks
# in (thirty-first read: "In the Collective Security Treaty Organisation, the official language is
# Russian"): ``NO_PLACE_CLASSES`` and the other such classes of the P37 subjects of the shared slice, read one
# by one: international, regional, non-governmental organisations, a military alliance, a standards body, a
# UN agency, language regulators, societies, choirs, an ensemble, an artist collective, ethnic groups and
# tribes, a religion, a beauty pageant, a regiment, schools, an educational or cultural institution, a
# movement, a court, a public office, a position, county councils, a historical period, an aspect of history,
# a historical profession
NOT_A_PLACE_CLASSES = (
    *NO_PLACE_CLASSES,
    "Q484652", "Q4120211", "Q245065", "Q1194093", "Q1127126", "Q1328899", "Q15925165",  # organisations
    "Q2093358", "Q1685451", "Q748019", "Q386890",  # language regulator, student and learned societies
    "Q131186", "Q1451652", "Q1684352", "Q2088357", "Q1400264",  # choirs, ensemble, artist collective
    "Q41710", "Q36747", "Q4358663", "Q4204501",  # ethnic groups, tribes
    "Q9174", "Q47280", "Q6957341", "Q58863414", "Q10358588",  # religion, pageant, regiment
    "Q3914", "Q1076052", "Q2385804", "Q5193377", "Q2915955", "Q1262438",  # schools, institutions, court
    "Q294414", "Q4164871", "Q1754161", "Q11514315", "Q17524420", "Q16335296",  # offices, periods
)  # fmt: skip
# relations whose every pattern states the subject's fact in the present, false of a past event: where a
# place lies (relations.PRESENT_PLACE_RELATIONS) and P361's "is part of", "includes", "forms part of" ("The
# Battle of Cape Gloucester is part of World War II", thirty-second read: 60 of 959 subjects)
PRESENT_EVENT_RELATIONS = PRESENT_PLACE_RELATIONS | {"P361"}
PAST_EVENT_PART = (
    "an event of the past (by its class or its name, relations.past_events: 'Battle of Cape Gloucester') "
    "stated a part of a whole in the present ('is part of', 'includes'; thirty-second read)"
)
# a vessel's owner changes over its life and the slice dates no ownership, so "[X] is owned by [Y]" is false
# of most ("SS Adriatic is owned by White Star Line", thirty-second read: 44 of 1,368 P127 subjects): ship,
# steamship, ocean, transatlantic and four-funnel liner, cruise ship, ferry, ro-ro ship, shipwreck
VESSEL_CLASSES = (
    "Q11446", "Q12859788", "Q697196", "Q15022033", "Q3362987", "Q39804", "Q25653", "Q473932", "Q852190",
)  # fmt: skip
# P361's "[X] belongs to [Y]" reads as ownership of a song on its album ("Tulips belongs to Celebration",
# thirty-first read: 63 of 961 subjects); single, song, aria, musical composition (the P361 subjects of the
# shared slice so classed)
SONG_CLASSES = ("Q134556", "Q7366", "Q178122", "Q207628")
# P36 and P1376 say "capital", and English calls a United States county's the county seat (twenty-eighth
# read: "The capital of Sequoyah County, Oklahoma, is Sallisaw", 52 of 485 P36 and 26 of 472 P1376
# instances). The slice classes a county by its state ("county of Oklahoma"), with no class of all of them,
# no P279 to one and no P17 or P131 of the county, so a county is told by a class labelled "county of S",
# "parish of S" or "borough of S" where S is the label of a state of the United States (P31 Q35657). The
# side of each relation's pair naming the county:
COUNTY_SEAT_SIDE = {"P36": 0, "P1376": 1}
# nor does it call a municipality's, a borough's or a district's seat its capital, but its administrative
# centre, seat or headquarters (thirty-second read: "Nelson is the capital city of Pendle", "Faxe
# Municipality, whose capital city is Haslev", "West Wyalong is the capital of Bland Shire"; 84 of 429 P36
# subjects and 70 of 445 P1376 objects by class): municipalities of Denmark, Norway, Sweden, Greenland,
# Mexico and Asturias; English non-metropolitan districts, metropolitan and other UK boroughs, Scottish
# council areas; local government areas of Victoria, New South Wales and Queensland; South African local
# and district municipalities; German rural districts (Brandenburg, Hesse), Bavarian regional districts and
# Regierungsbezirke; Japanese subprefectures; Russian municipal districts; districts of India. A province, a
# region, a department, a state and a county of England keep "capital" (a regency of Indonesia too: English
# calls its seat so); units of no class stay (the slice cannot tell them)
MUNICIPAL_SEAT_CLASSES = frozenset(
    "Q2177636 Q755707 Q127448 Q16511251 Q1952852 Q5055981 Q1187580 Q1002812 Q1006876 Q15060255 Q1849126 "
    "Q55558200 Q55593624 Q1500352 Q1589568 Q61793460 Q61980413 Q464235 Q22721 Q850450 Q2198484 "
    "Q1149652".split()
)
MUNICIPAL_SEAT = (
    "a municipality, borough or district (MUNICIPAL_SEAT_CLASSES), whose seat English calls its "
    "administrative centre, not its capital ('Nelson is the capital city of Pendle', thirty-second read)"
)
US_STATE = "Q35657"
_COUNTY_CLASS_LABEL = re.compile(r"(?:county|parish|borough) of (.+)")
UNITED_STATES_COUNTY = (
    "a county of the United States, whose seat English does not call its capital ('The capital of Sequoyah "
    "County, Oklahoma, is Sallisaw'; COUNTY_SEAT_SIDE)"
)


def united_states_counties(client, units: list[str]) -> set[str]:
    """Units of a class labelled 'county/parish/borough of S', S the label of a state of the United States."""
    units = sorted(set(units))
    if not units:
        return set()
    states_query = (
        PREFIXES
        + f"""SELECT ?e ?label WHERE {{
  ?e wdt:P31 wd:{US_STATE} . ?e rdfs:label ?label . FILTER(LANG(?label) = "en")
}}"""
    )
    state_names = {r["label"] for r in client.select(states_query)}
    classes = classes_of(client, units)
    class_labels = labels_of(client, sorted({c for kinds in classes.values() for c in kinds}))
    county_classes = {
        c
        for c, label in class_labels.items()
        if (m := _COUNTY_CLASS_LABEL.fullmatch(label)) and m.group(1) in state_names
    }
    return {e for e in units if classes[e] & county_classes}


# classes of a polity or an administrative unit that no longer exists, beyond relations.PAST_POLITY_CLASSES
# (historical country, dynasty): the P36, P37 and P1376 polities of the shared slice, read one by one (former
# municipalities of Switzerland, Finland, Norway and Estonia merged into others, former regions and counties,
# bantustans, empires, states of the Holy Roman Empire, the Confederation of the Rhine and the German Empire,
# units of the Russian and Austrian empires)
FORMER_STATE_CLASSES = frozenset(
    "Q19953632 Q15893266 Q685309 Q17468533 Q18663579 Q26742250 Q22670030 Q83640434 Q19698023 Q25446687 "
    "Q3924474 Q30129411 Q18669740 Q48349 Q2067184 Q26830017 Q26879769 Q4057683 Q681026 Q671370 Q18867465 "
    "Q20732405 Q946136".split()
)
# classes of a unit or a firm of the past among the P36, P1376, P37, P30, P17, P131 and P159 subjects of the
# shared slice and the slice's other Soviet units, read one by one (twenty-sixth read: "The Tiwanaku Empire
# is situated in South America"): colonies, Soviet republics, oblasts, governorates, uyezds and raions,
# ancient civilizations, eyalets, former populated places and parties, a historical motorcycle maker. A
# crown colony is none of them: the source so classes Nova Scotia, South Australia and New Zealand, which
# stand today
FORMER_UNIT_CLASSES = frozenset(
    "Q133156 Q788046 Q236036 Q499720 Q20867284 Q18285132 Q18285142 Q15733039 Q18867064 Q20719675 Q1075404 "
    "Q28171280 Q44565 Q22674925 Q23702035 Q40482169 Q15081032".split()
)
# classes of a polity of the past among the P36 and P37 subjects and the P1376 objects of the shared slice
# that the sets above miss (thirty-first read: "Kingdom of Gwynedd", "Adiabene", "Mosquito Coast", "Canton of
# Léman", "Hittites, whose capital is Hattusa"), each read over all its members in the slice: vassal state,
# protectorate, Reichsland, kingdom, canton of the Helvetic Republic, zone of Nepal (abolished 2015), province
# of Prussia, Roman province, Griqua state, historical ethnic group, realm, countship, ancient Chinese state,
# Reichskommissariat, former municipality of the Netherlands and of Denmark, dissolved municipality of Japan.
# Guarded as FORMER_UNIT_CLASSES are: a kingdom or a vassal state the source classes a country or a sovereign
# state too stands (the Kingdom of the Netherlands, Romania), and so does a city so classed (Kyoto)
FORMER_POLITY_CLASSES = frozenset(
    "Q1371288 Q164142 Q2139582 Q417175 Q17291456 Q876102 Q574299 Q182547 Q10007123 Q4204501 Q1250464 "
    "Q353344 Q836688 Q543813 Q7265977 Q23036513 Q18663566".split()
)
# a polity of the past that the slice gives no class is told by its name's form: "Kingdom of", "Duchy of",
# "Grand Duchy of", "Principality of", "Khanate of" before a name, or "Empire", "Khanate", "Caliphate",
# "Soviet Republic" ending it (unclassed P37 subjects of the thirty-first read's build: "Kingdom of Munster",
# "Duchy of Vasconia", "Kanem-Bornu Empire", "Kazikumukh Khanate", "Khorezm People's Soviet Republic"); a
# standing monarchy of the slice is classed (a sovereign state), and "Toro Kingdom" (a standing one) ends
# with none of these
PAST_POLITY_NAME = re.compile(
    r"(?:(?:Grand )?Duchy|Kingdom|Principality|Khanate|Tsardom|Margraviate|Electorate) of \S.*"
    r"|.*\S (?:Empire|Khanate|Caliphate|Soviet Republic|Soviet Socialist Republic)"
)
# a colony or a state of the Confederation of the Rhine may be a state that stands today (Syria,
# Liechtenstein): one classed a country or a sovereign state is not of the past (relations.COUNTRY_CLASSES
# holds the historical country too)
STANDING_STATE_CLASSES = frozenset({"Q6256", "Q3624078"})
# a historical province (of France, of Slovenia: Anjou, Artois, Inner Carniola) has no capital today, though
# its land lies where it did
# and neither has a historical region (Occitania, Provence: Q1620908)
FORMER_CAPITAL_SEAT_CLASSES = frozenset({"Q209495", "Q2269077", "Q1620908"})
# the classes of FORMER_STATE_CLASSES that name a polity gone with its land (empires, bantustans, states of
# the Holy Roman and German empires, units of the Russian and Austrian empires, a former entity): a former
# municipality, county, region or province lies where it did ("Kalvola is located in Finland" is true), and
# the place relations ask only these
PAST_PLACE_STATE_CLASSES = frozenset(
    "Q15893266 Q19698023 Q18669740 Q48349 Q2067184 Q26830017 Q26879769 Q4057683 Q681026 Q671370 Q18867465 "
    "Q20732405 Q946136".split()
)
# a capital of the past: a city the slice classes a former capital (Heian-kyō, Abidjan) is no capital of the
# country it names ("Heian-kyō is the capital of Japan", thirty-first read); a former capital may stand as
# the capital of a unit (Istanbul of its province), so the rule asks a country's
FORMER_CAPITAL = "Q27554677"
# relations whose every pattern states a polity's or a place's fact in the present ("[X] is the capital of
# [Y]", "The official language of [X] is [Y]", "[X] is located in [Y]", "[X] is headquartered in [Y]") and the
# slot the polity, place or firm fills; PLACE_FACT_RELATIONS of them state where it lies
PRESENT_POLITY_SLOT = {
    "P36": "[X]", "P1376": "[Y]", "P37": "[X]", "P30": "[X]", "P17": "[X]", "P131": "[X]", "P159": "[X]",
}  # fmt: skip
PLACE_FACT_RELATIONS = frozenset({"P30", "P17", "P131", "P159"})
PAST_STATE = (
    "polity, unit or firm of the past (relations.PAST_POLITY_CLASSES, a former municipality, region, empire: "
    "paraphrases.FORMER_STATE_CLASSES, its empires alone where a place's location is stated; not a city so "
    "classed too; or a colony, a Soviet republic, a former firm: FORMER_UNIT_CLASSES, not a sovereign state "
    "so classed too) stated in the present ('The official language of Kingdom of Prussia is', 'The Seljuk "
    "Empire is located in')"
)
NOT_HUMAN = (
    "subject not classed human (P31 Q5) in the source, typed or not: a person's pattern misreads it "
    "('Johanniskirche was a follower of', 'Revue Salamandre worked in the field of', twenty-fourth read)"
)
COMMA_TITLED_PERSON = (
    "person labelled with a comma and a title or suffix ('Louis III, Elector Palatine', 'Clint Murchison, "
    "Jr.') in a relation with a possessive pattern: its \"'s\" lands on the title ('Louis III, Elector "
    "Palatine's life ended in', twenty-fourth read)"
)
SYMBOLS_ONLY = "label with no letter or digit ('=', '+': no name a sentence can use)"
UNCLASSED_SUBJECT = (
    "subject of no class in the source where the patterns say what kind of thing it is (P407's say a work: "
    "'Dalglish', 'Hamaguchi' have no class)"
)


def states_of_the_past(
    client, relation: str, pairs: list[tuple[str, str]], labels: Mapping[str, str] | None = None
) -> set[str]:
    """Subjects of ``PRESENT_POLITY_SLOT``'s relations whose polity is of the past by its classes (P31).

    A class of relations.PAST_POLITY_CLASSES, ``FORMER_STATE_CLASSES`` or ``FORMER_CAPITAL_SEAT_CLASSES``
    (where a place's location is stated, ``PLACE_FACT_RELATIONS``: of PAST_POLITY_CLASSES alone) and none of
    a place that stands today (relations.PLACE_STILL_CLASSES: a city once a republic); or a class of
    ``FORMER_UNIT_CLASSES`` or ``FORMER_POLITY_CLASSES`` (and, in ``PLACE_FACT_RELATIONS``, of
    ``PAST_PLACE_STATE_CLASSES``) and none of such a place nor of a state that stands
    (``STANDING_STATE_CLASSES``: Syria, once a colony; Liechtenstein, once a state in the Confederation of the
    Rhine); or one of ``PAST_POLITIES`` (no class tells them); or, with ``labels``, a polity of no class
    named as one of the past (``PAST_POLITY_NAME``: "Kingdom of Munster"). Where the relation pairs a capital
    with its polity (P36, P1376), a capital the source classes a former one (``FORMER_CAPITAL``) of a polity
    classed a country or a sovereign state ("Heian-kyō is the capital of Japan").
    """
    slot = PRESENT_POLITY_SLOT.get(relation)
    if slot is None:
        return set()
    polity = {s: (s if slot == "[X]" else o) for s, o in pairs}
    entities = sorted(set(polity.values()))
    past, guarded = PAST_POLITY_CLASSES, FORMER_UNIT_CLASSES
    if relation in PLACE_FACT_RELATIONS:
        guarded |= PAST_PLACE_STATE_CLASSES
    else:
        past |= FORMER_STATE_CLASSES | FORMER_CAPITAL_SEAT_CLASSES
        guarded |= FORMER_POLITY_CLASSES
    classes = classes_of(client, entities)
    standing = {e for e in entities if classes[e] & STANDING_STATE_CLASSES}
    gone = past_polities(client, entities, past) | (past_polities(client, entities, guarded) - standing)
    if labels is not None:
        gone |= {e for e in entities if not classes[e] and PAST_POLITY_NAME.fullmatch(labels.get(e, ""))}
    if relation in COUNTY_SEAT_SIDE:
        capital = {s: (o if slot == "[X]" else s) for s, o in pairs}
        capitals = sorted(set(capital.values()))
        former = {e for e, _, kind in class_facts(client, capitals) if kind == FORMER_CAPITAL}
        gone_capitals = {
            s for s, e in polity.items() if capital[s] in former and classes[e] & STANDING_STATE_CLASSES
        }
    else:
        gone_capitals = set()
    return gone_capitals | {s for s, e in polity.items() if e in gone or e in PAST_POLITIES}


PAST_STATE_OBJECT = (
    "object a state of the past where the patterns say where a place lies in the present ('Ghana lies in the "
    "Portuguese Empire', thirty-second read; PAST_STATE_CONTAINER_CLASSES, PAST_POLITIES; not a city, a "
    "county or a standing state so classed too)"
)


def past_state_objects(client, relation: str, pairs: list[tuple[str, str]]) -> set[str]:
    """Objects of ``PLACE_FACT_RELATIONS`` that are states of the past ("[X] is located in [Y]" is false).

    A class of ``PAST_STATE_CONTAINER_CLASSES`` and none of ``STANDING_PLACE_CLASSES`` nor
    ``STANDING_STATE_CLASSES`` (Liechtenstein, once a state of the Confederation of the Rhine), or one of
    ``PAST_POLITIES``.
    """
    if relation not in PLACE_FACT_RELATIONS:
        return set()
    objects = sorted({o for _, o in pairs})
    classes = classes_of(client, objects)
    standing = STANDING_PLACE_CLASSES | STANDING_STATE_CLASSES
    return {
        o
        for o in objects
        if classes[o] & PAST_STATE_CONTAINER_CLASSES and not classes[o] & standing or o in PAST_POLITIES
    }


# P106's patterns say a job ("[X] worked as a [Y]", "had a career as a", "occupation was that of a"); a rank,
# a station in life or a deed is none ("worked as a sovereign", "a serial killer", "a First Lady", "a hermit",
# thirty-first read: 75 of 1,848 instances). WordNet tells them, not a list: the answer's first sense among
# WordNet's people (lexicographer file noun.person, the most frequent sense first) is one of these or lies
# under one (its hypernyms): aristocrat (knight, prince, count), head of state (sovereign, monarch), ruler,
# wrongdoer (criminal, outlaw), murderer (serial killer; an executioner is a killer, not a murderer),
# reformer (suffragette, activist), radical (revolutionary), advocate (partisan), commoner (peasant),
# enrollee (student), wanderer (nomad), important person (socialite), achiever (First Lady), occultist
# (witch), eremite (hermit), diviner (oracle); an intellectual is one only as itself (a philosopher lies
# under it). A job lies under none of them (worker, professional, creator, performer, scientist, leader:
# "politician", "governor"). The slice's classes tell a social or a legal status ("eunuch": P106's
# object_excluded_types)
JOB_RELATIONS = frozenset({"P106"})
STATUS_SYNSETS = frozenset(
    "aristocrat.n.01 head_of_state.n.01 ruler.n.01 wrongdoer.n.01 murderer.n.01 reformer.n.01 radical.n.03 "
    "advocate.n.01 commoner.n.01 enrollee.n.01 wanderer.n.01 important_person.n.01 achiever.n.01 "
    "occultist.n.01 eremite.n.01 diviner.n.01".split()
)
STATUS_ITSELF = frozenset({"intellectual.n.01"})
NOT_A_JOB = (
    "object a rank, a station in life or a deed, no job ('worked as a sovereign', 'a serial killer', 'a "
    "First Lady', thirty-first read): its first person sense in WordNet is or lies under one of "
    "STATUS_SYNSETS"
)


def statuses_not_jobs(labels: Mapping[str, str]) -> set[str]:
    """Entities whose label names a status, not a job, by WordNet's hypernyms (``STATUS_SYNSETS``)."""
    reader = WordNetSource().reader()
    found = set()
    for entity, label in labels.items():
        people = [s for s in reader.synsets(label.replace(" ", "_"), pos="n") if s.lexname() == "noun.person"]
        if not people:
            continue
        first = people[0]
        above = {first.name()} | {
            h.name() for h in first.closure(lambda x: x.hypernyms() + x.instance_hypernyms())
        }
        if above & STATUS_SYNSETS or first.name() in STATUS_ITSELF:
            found.add(entity)
    return found


# relations whose patterns state an owner's or a firm's fact in the present ("[X] is owned by [Y]", "[Y] owns
# [X]", "[X] is headquartered in [Y]") and the slot whose end makes them false: a subject that is gone (the
# slice has no date of dissolution, P576, so its class tells: former entity, defunct sports venue, former
# hospital, former railway station, historical motorcycle manufacturer: "Knol", "Ayresome Park", "Aermacchi";
# a former building or structure is none: a castle's ruin is owned) or, for P127, an owner the source says
# is dead (a date, place, cause or manner of death or a burial: "Bucephalus is owned by Alexander the Great",
# "Neverland Ranch is owned by Michael Jackson", thirty-first read). The slice has no end date of an
# ownership nor of most firms, so a past owner of a standing thing or a firm it does not class as gone is
# not told (the thirty-first read's "Chrysler owns Eagle", "The Trussed Concrete Steel Company is
# headquartered in Detroit")
PRESENT_OWNERSHIP_RELATIONS = frozenset({"P127", "P159"})
DEAD_OWNER_RELATIONS = frozenset({"P127"})
DEFUNCT_CLASSES = frozenset({"Q15893266", "Q74539696", "Q64578911", "Q4663385", "Q15081032"})
GONE_OR_DEAD_OWNER = (
    "subject gone by its class (former entity, defunct venue, hospital or station: 'Knol', 'Ayresome Park') "
    "or, for P127, an owner the source says is dead, stated in the present ('Bucephalus is owned by "
    "Alexander the Great', thirty-first read; PRESENT_OWNERSHIP_RELATIONS)"
)


def gone_or_dead_owners(client, relation: str, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """Pairs of ``PRESENT_OWNERSHIP_RELATIONS`` whose present-tense patterns are false by the source.

    The subject is of a class of ``DEFUNCT_CLASSES``, or (``DEAD_OWNER_RELATIONS``) the owner has a fact of
    death (``DEATH_FACTS``).
    """
    if relation not in PRESENT_OWNERSHIP_RELATIONS:
        return set()
    subjects = sorted({s for s, _ in pairs})
    defunct = {e for e, _, kind in class_facts(client, subjects) if kind in DEFUNCT_CLASSES}
    dead: set[str] = set()
    if relation in DEAD_OWNER_RELATIONS:
        dead = {e for e, _, _ in facts_of(client, sorted({o for _, o in pairs}), list(DEATH_FACTS))}
    return {(s, o) for s, o in pairs if s in defunct or o in dead}


# a comma in a label before a hyphen of a compound ("The [Y]-owned [X].") splits the compound: "The Delta,
# British Columbia-owned Ladner Leisure Centre" (thirty-first read, P127-06, 5 rows); no label form of the
# slice gives the name without its disambiguator, so such an instance is not asked where a pattern so joins
COMMA_IN_COMPOUND = (
    "object labelled with a comma where a pattern joins it to a hyphen ('The Delta, British Columbia-owned "
    "Ladner Leisure Centre', thirty-first read)"
)


def comma_in_compound(templates: list[str], label: str) -> bool:
    """Whether a template joins ``[Y]`` to a hyphen ("[Y]-owned") and the label has a comma."""
    return "," in label and any("[Y]-" in t for t in templates)


# relations whose object is a field of work ("[X] worked in the field of [Y]") and the classes of a gold that
# names a person, an occupation, a firm or a product instead (the P101 golds of the shared slice, read one by
# one; twenty-sixth read: "Boyko Borisov worked in the field of politician", "... of IBM", "... of video
# game"): a gold whose every class is one of these is no field ("medicine", classed a profession and a field
# of study, is one)
FIELD_RELATIONS = frozenset({"P101"})
# relations whose object is a common noun that the source may label capitalised ("Magnetic Man played
# Dubstep", twenty-eighth read: P136 "Post-hardcore", "Turntablism", "Schlager"; P101 "Crystallography",
# "Dermatology", "Geodesy", "Microscopy"): where an alias is the label
# with its first letter lower case ("dubstep"), English writes the genre so, and the object is shown by it
LOWER_CASE_NAME_RELATIONS = frozenset({"P136", "P101"})


def lower_cased_alias(label: str, aliases: list[str]) -> str:
    """The alias that is ``label`` with its first letter lower case, else the label.

    Where the label opens with a capital and the source gives that alias ('Dubstep', alias 'dubstep').
    """
    lowered = label[:1].lower() + label[1:]
    return lowered if lowered != label and lowered in aliases else label


# relations whose object is read as a name and that a common noun answers only where the source gives that
# object no class (P264: 'passport', 'melody', 'metronome', 'political party' as record labels, twenty-eighth
# read; 'ersguterjunge' is classed a record label and stays)
UNCLASSED_NAME_RELATIONS = frozenset({"P264"})
NOT_A_FIELD_CLASSES = frozenset(
    "Q5 Q28640 Q12737077 Q4164871 Q3399646 Q702269 Q482980 Q483501 Q66715801 Q63187345 Q15987302 Q57735705 "
    "Q43845 Q1925963 Q12406482 Q15296811 Q1423891 Q2259532 Q4830453 Q6881511 Q43229 Q783794 Q891723 Q192350 "
    "Q17537576 Q18593264 Q2249149 Q51938570 "
    # the twenty-eighth read's golds: composer, journalist, physician, physicist, singer, statesperson,
    # Islamic scholar (their occupations' classes), Afghanistan, IBM, a navy, a part of a chromosome
    "Q66715801 Q639669 Q15980804 Q66811410 Q11974939 Q901 Q1650915 Q2643890 Q82955 Q185351 Q1234713 "
    "Q6256 Q123480 Q672729 Q3624078 Q20031260 Q1058914 Q4508 Q15989253".split()
)
NOT_A_FIELD = (
    "object a person, an occupation, a firm or a product, no field of work (every class of it in "
    "NOT_A_FIELD_CLASSES: 'worked in the field of politician', '... of IBM', '... of video game')"
)


def not_fields(client, objects: list[str]) -> set[str]:
    """Objects whose every class (P31) is one of ``NOT_A_FIELD_CLASSES`` (none of no class)."""
    classes: dict[str, set[str]] = defaultdict(set)
    for o, _, kind in class_facts(client, sorted(set(objects))):
        classes[o].add(kind)
    return {o for o, kinds in classes.items() if kinds <= NOT_A_FIELD_CLASSES}


def symbols_only(label: str) -> bool:
    """Whether a label has no letter or digit ('=', '+'): no name (twenty-fourth read: "='s label is ...")."""
    return not any(c.isalnum() for c in label)


def not_human(client, subjects: list[str]) -> set[str]:
    """Subjects with no class human (Q5) in the source, a subject of no class included."""
    human = {s for s, _, kind in class_facts(client, sorted(subjects)) if kind == "Q5"}
    return set(subjects) - human


def unclassed(client, subjects: list[str]) -> set[str]:
    """Subjects with no class (P31) in the source."""
    return set(subjects) - {s for s, _, _ in class_facts(client, sorted(subjects))}


# relations whose subjects and objects are kinds as often as names ("part of": "brain" of "nervous system"):
# every pattern puts both slots bare, and a lower-case count noun filled bare reads as no English (the
# twenty-third read: "Firearm includes body.", "Plantation is a part of agriculture")
PARTS_OF_KINDS = frozenset({"P361"})
BARE_COUNT_NOUN_PART = (
    "subject or object a lower-case count noun ('body', 'firearm': names.bare_count_noun) that the part-of "
    "patterns fill with no article"
)


@dataclass(frozen=True)
class ParaphraseSpec(ProbeSpec):
    """Spec of the paraphrase family (pattern bank, alias bank, grids)."""

    wikidata: WikidataSpec = spec_field(default_factory=WikidataSpec, help="Wikidata source.")
    relations: tuple[str, ...] = spec_field(
        (), help="Relations (PIDs); empty = every relation with patterns."
    )
    patterns: PatternSourcesSpec = spec_field(default_factory=PatternSourcesSpec, help="Pattern sources.")
    min_patterns: int = spec_field(5, help="Relations with fewer valid patterns are reported and skipped.")
    aliases: AliasSpec = spec_field(default_factory=AliasSpec, help="Alias bank filters.")
    max_instances: int = spec_field(2000, help="Instances per relation at most (keyed sample).")
    object_types: Mapping[str, tuple[str, ...]] = spec_field(
        default_factory=lambda: {"P30": ("Q5107",), "P136": ("Q188451",)},
        help="Per relation, the Wikidata classes (P31) its objects must be an instance of. P30 takes "
        "continents (Q5107) only: the supercontinents Eurasia and Americas contain Europe, Asia, North "
        "and South America (643 instances of the fourth read had a true containing answer not gold), and a "
        "fictional continent "
        "(Faerûn, Kara-Tur) is no answer of a real-world relation. P136 takes music genres (Q188451) only: "
        "its patterns are about music ('[X], who plays [Y] music'), and 726 of the 1,885 instances of the v8 "
        "build had a novel, a film or a sitcom genre ('Mannorð, who plays novel', eighth independent read).",
    )
    object_excluded_types: Mapping[str, tuple[str, ...]] = spec_field(
        default_factory=lambda: {
            "P19": ("Q634", "Q3504248", "Q5107"),
            "P20": ("Q634", "Q3504248", "Q5107"),
            "P140": ("Q4392985", "Q34770", "Q315"),
            "P413": ("Q2312410",),
            "P136": ("Q207628", "Q25379"),
            "P106": ("Q17305127", "Q636497", "Q1986639", "Q2642184", "Q1914636", "Q189970", "Q2628882"),
            "P138": ("Q16521", "Q756"),
            "P37": ("Q41162", "Q867545"),
        },
        help="Per relation, Wikidata classes (P31) an object may not be an instance of: its instance is "
        "dropped, and with it the answer. A planet or a continent (Q634, Q3504248, Q5107) is no place of "
        "birth or death a reader gives, yet containment makes it a gold of every instance it contains "
        "('Earth' 48% of P19 in the fifth read); a religious identity (Q4392985: 'Christian', 'Muslim', "
        "'Hindu', the adherent beside the religion) or a language ('Kannada') is no religion. A sports "
        "discipline (Q2312410: 'downhill mountain biking', 'cyclo-cross', 'kumite') is no position a player "
        "plays as (P413's patterns: '[X] plays as a [Y]', thirteenth independent read). A musical "
        "composition or a play (Q207628, Q25379: 'opera', 'symphony') is a form one composes or stages, no "
        "genre a performer plays ('Arthur Bliss played opera', twenty-fourth read). No one 'worked as' a "
        "fictional profession, a character type, a centerfold, a saint's title or an activity "
        "(P106: "
        "'superhero', 'supervillain', 'Playmate', 'Prophet', 'acting', twenty-eighth read), nor as a "
        "social or a legal status (P106: 'eunuch', 'outlaw', thirty-first read). "
        "English names a plant, not its taxon (P138: 'Rosa', twenty-eighth read: 'Lipová is named after "
        "Tilia'). A republic of Russia or a province of Tajikistan is no language (P37: 'Karachay-Cherkess "
        "Republic', 'Gorno-Badakhshan Autonomous Province').",
    )
    excluded_objects: Mapping[str, tuple[str, ...]] = spec_field(
        default_factory=lambda: {
            "P413": ("Q40795", "Q1318941", "Q533097", "Q2380088", "Q3897311"),
            "P140": ("Q7066", "Q288928", "Q93191", "Q170208", "Q269785", "Q208398"),
            "P106": ("Q191421", "Q211236"),
            "P138": ("Q188869", "Q127849", "Q42292", "Q25356", "Q27355", "Q156901"),
            "P1412": ("Q323081", "Q1232159"),
            "P264": ("Q307070",),
        },
        help="Per relation, answers (entity ids) its patterns cannot state, where the source gives them no "
        "class to exclude them by: their instances are dropped, and with them the answer. P413 (position "
        "played): 'kata' (a karate discipline), 'stage race' (a kind of race) and the cycling roles "
        "'cycling sprinter', 'climbing specialist', 'rouleur' (a rider rides, no one 'plays as a rouleur'); "
        "of the 80 answers of the v13 build these and 4 sports disciplines are no playing position, read "
        "one by one (thirteenth independent read: 'Vanessa Quin plays as a downhill mountain biking'). P140 "
        "(religion or worldview): 'atheism' and 'agnosticism', the absence of a religion, which no P140 "
        "pattern can state ('Lemmy Kilmister was a follower of agnosticism', twenty-fourth read); the "
        "source classes them a 'religion' and a 'world view' as it does religions. 'Baptist' and "
        "'Friends' (Q93191, Q170208: the source's labels, an adjective and a bare plural) read as no name "
        "('Al Gore was a follower of Baptist', twenty-sixth read), and the source classes them as it does "
        "Lutheranism (a Protestant denomination), so no class tells them. 'Twelver' (an adjective: 'adhered "
        "to Twelver') and 'Karaim' (the label names the people, not Karaite Judaism) are classed as "
        "denominations are (twenty-eighth read). P106 'Lama' (a title, no class in the source) and "
        "'celebrity' (fame, no work: 'worked as a celebrity'; classed a person, a role and an occupation, "
        "as 'activist' is). P138: 'Field' (a common noun capitalised: 'Polní is named for Field') and the "
        "genera Tilia, Acer, Populus, Taxus and Iris, named by the plant in English ('Lipová is named after "
        "Tilia'), which the source gives no class, so no class tells them from a name. P1412: 'polyglot' (a "
        "speaker of many, no language) and 'Westron' (a fictional language), both of no class. P264: "
        "'1,5-diazabicyclo[4.3.0]non-5-ene', a chemical of no class given as a record label (all "
        "twenty-eighth read).",
    )
    subject_excluded_types: Mapping[str, tuple[str, ...]] = spec_field(
        default_factory=lambda: {
            "P740": ("Q5",),
            "P106": ("Q515", "Q1549591", "Q925381", "Q2039348"),
            "P407": NAME_CLASSES,
            "P276": (*HELD_EVENT_CLASSES, *NOT_LOCATED_CLASSES, "Q5"),
            "P17": NO_PLACE_CLASSES,
            "P37": NOT_A_PLACE_CLASSES,
            "P361": (*SONG_CLASSES, "Q5"),
            "P127": VESSEL_CLASSES,
        },
        help="Per relation, Wikidata classes (P31) a subject may not be an instance of: its instance is "
        "dropped. P17 (country): its patterns say where a place lies, and an organisation, a band, an award "
        "or a currency (``NO_PLACE_CLASSES``) lies nowhere ('Asylum Records lies in the United States', "
        "twenty-eighth and thirtieth reads). P740 (location of formation) is a group's or an organization's; "
        "a person (Q5) with the "
        "property (a musician's act: 'Raven-Symoné was founded in', eighth read) is no subject of it. P106 "
        "(occupation) is no city's (city, big city, city with powiat rights, Dutch municipality: 'Bydgoszcz "
        "worked as a sportsperson', 2 of the 1,988 v12 instances, twelfth read's audit). P407 (language of "
        "work or name) is asked of works: a given name or a surname (``NAME_CLASSES``) is 'written in' no "
        "language ('Levin, a Turkish-language work', twenty-fourth read). P276 (location): an event held "
        "again and again (``HELD_EVENT_CLASSES``: film festivals, races, fairs) takes place, it 'is located' "
        "nowhere ('Amstel Gold Race is located in Limburg', twenty-fourth read), nor is a person (Q5: "
        "'Dudley George is situated in Ontario') or any of ``NOT_LOCATED_CLASSES``, no physical thing "
        "('Evacuation Day is located in Boston', 'Mr Selfridge is located in London', twenty-eighth read). "
        "P37 (official language): its patterns read the subject as a place ('spoken in [X]', 'In [X], the "
        "official language is'), false of an organisation, a people, a body or an office "
        "(``NOT_A_PLACE_CLASSES``: 'In the Collective Security Treaty Organisation, the official "
        "language is', "
        "thirty-first read). P361 (part of): a song, a single, an aria or a composition "
        "(``SONG_CLASSES``) is on an album or in a work; '[X] belongs to [Y]' says it is owned ('Tulips "
        "belongs to Celebration', thirty-first read); a person (Q5) is a member of a group, not a part "
        "('Brian Wilson is part of The Beach Boys', thirty-second read). P127 (owned by): a vessel "
        "(``VESSEL_CLASSES``) changes owners and the slice dates none ('SS Adriatic is owned by White Star "
        "Line', thirty-second read).",
    )
    person_relations: tuple[str, ...] = spec_field(
        ("P101", "P140"),
        help="Relations whose patterns say a person's act ('[X] worked in the field of', '[X] was a follower "
        "of'): a subject not classed human (P31 Q5) in the source is dropped, a typed one ('Creighton "
        "University believes in Catholic Church', 'Turing Award worked in the field of', the twenty-first "
        "independent read) and one of no class ('Cheese believed in Judaism', 'Revue Salamandre', 'minim', "
        "the twenty-fourth read: 510 of the 1,766 P101 and 417 of the 1,682 P140 subjects had none).",
    )
    classed_subjects: tuple[str, ...] = spec_field(
        ("P407",),
        help="Relations whose subjects the patterns read as a thing of some kind (P407: a work, a station, a "
        "word with a language, '[X] is in the [Y] language'): a subject of no class (P31) in the source is "
        "dropped (P407: 578 of the 1,846 subjects of the twenty-fourth read's build had none, surnames and "
        "given names among them, read as people: 'Dalglish', 'Hamaguchi').",
    )
    subject_types: Mapping[str, tuple[str, ...]] = spec_field(
        default_factory=lambda: {"P136": PERFORMER_CLASSES},
        help="Per relation, Wikidata classes (P31) its subjects must be an instance of: an instance whose "
        "subject is of none of them (or of no class in the source) is dropped. P136 takes performers "
        "(people, bands, duos, ensembles, orchestras): every pattern of it says the subject plays the genre "
        "('[X] plays [Y] music'), false of a record label, an album or a song ('Chiaroscuro Records plays "
        "jazz music', twelfth independent read: 177 of 1,929 v12 instances had such a subject, 356 one "
        "of no class).",
    )
    containment: tuple[str, ...] = spec_field(
        CONTAINMENT,
        help="Relations through which a true answer implies others, followed transitively as relation sets "
        "do (Catholicism -> Christianity, Dortmund -> Germany): an answer of the space containing a gold is "
        "a gold too (empty: none), except in ``containment_not_gold``.",
    )
    containment_not_gold: tuple[str, ...] = spec_field(
        ("P127", "P138", "P176", "P178", "P264", "P449"),
        help="Relations whose truth does not pass to a container of the answer: named after (a street named "
        "after Rhine is not named after Europe), record label, original network, owner, manufacturer and "
        "developer (a label's, a channel's or a firm's parent company is another one: 'Jack DeJohnette's "
        "label is Universal Music Group', twenty-first independent read). Their golds are the object alone.",
    )
    place_relations: tuple[str, ...] = spec_field(
        PLACE_RELATIONS,
        help="Relations whose object is where the subject is, was or comes from, as relation sets read them: "
        "where one of a relation's objects is a country or a continent, an instance whose "
        "object is neither a country nor placed by the source (P131/P17/P30/P361) is dropped, and with it "
        "the answer: it may lie inside a country of the space ('Aleppo' beside 'Syria', no fact placing "
        "it), a second true answer no containment marks.",
    )
    name_objects: tuple[str, ...] = spec_field(
        ("P138", "P449"),
        help="Relations whose patterns read the object as a name, with no article ('[X] is named after "
        "[Y].', '[X] debuted on [Y].'): "
        "an object labelled as a common noun (no capital, digit or full stop: ``names.common_noun_label``; "
        "'meadow', 'mill', 'length', 'syndication') would need an "
        "article, a plural or a preposition no pattern can choose ('Luční was named for meadow', fourth "
        "independent read; 'debuted on syndication', twentieth); its instance is dropped. So is a P264 "
        "object so labelled that the source gives no class (``UNCLASSED_NAME_RELATIONS``: 'passport', "
        "'melody', 'political party' as record labels, twenty-eighth read); a classed one ('ersguterjunge', "
        "a record label) stays.",
    )
    leakage: Literal["drop", "keep"] = spec_field(
        "drop",
        help="Instances whose subject (label or any alias) shares a name token (builders/names.py) with the "
        "object (label or any alias), as in relation sets ('Panasonic Lumix DMC-FX90' -> 'Panasonic', "
        "'Colledara' -> 'Colledara'; builders/names.py): drop or keep.",
    )

    def __post_init__(self) -> None:
        for pid, classes in [
            *self.object_types.items(),
            *self.object_excluded_types.items(),
            *self.subject_excluded_types.items(),
            *self.subject_types.items(),
            *self.excluded_objects.items(),
        ]:
            if not re.fullmatch(r"P\d+", pid) or not all(re.fullmatch(r"Q\d+", q) for q in classes):
                raise ValueError(
                    f"object_types: {pid!r}: {list(classes)!r} must map a property id (P30) to class ids "
                    "([Q5107])"
                )


def normalize_pattern(template: str) -> str:
    """Collapse spaces, drop the space before final punctuation, end with a period."""
    text = re.sub(r"\s+", " ", template).strip()
    text = re.sub(r"\s+([.?!])$", r"\1", text)
    return text if text[-1:] in ".?!" else text + "."


def _read_jsonl(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise SourceError(f"{path} is not valid JSONL ({exc}).") from None


@functools.lru_cache(maxsize=4)
def _lama_templates(path: str) -> dict[str, list[str]]:
    templates: dict[str, list[str]] = defaultdict(list)
    for record in _read_jsonl(Path(path)):
        templates[record["relation"]].append(record["template"])
    return dict(templates)


@functools.lru_cache(maxsize=4)
def _bear_templates(path: str) -> dict[str, list[str]]:
    return {pid: meta.get("templates", []) for pid, meta in json.loads(Path(path).read_text()).items()}


def resolve_pattern_sources(sources: PatternSourcesSpec) -> PatternSourcesSpec:
    """The spec's pattern sources with every non-empty path found (or a clear error if missing)."""
    found = {
        f.name: str(data_path(getattr(sources, f.name), f"pattern source `patterns.{f.name}`"))
        for f in dataclasses.fields(sources)
        if f.name not in ("catalog", "reject", "fixes") and getattr(sources, f.name)
    }
    return dataclasses.replace(sources, **found)


def raw_patterns(sources: PatternSourcesSpec, relation: str) -> list[tuple[str, str]]:
    """(template, origin) pairs of a relation from every source, in priority order."""
    found: list[tuple[str, str]] = []
    if sources.causal_probe and (p := Path(sources.causal_probe) / f"{relation}.jsonl").is_file():
        found += [(r["pattern"], "causal_probe") for r in _read_jsonl(p)]
    if sources.pararel and (p := Path(sources.pararel) / f"{relation}.jsonl").is_file():
        found += [(r["pattern"], "pararel") for r in _read_jsonl(p)]
    if sources.lama and Path(sources.lama).is_file():
        found += [(t, "lama") for t in _lama_templates(sources.lama).get(relation, [])]
    if sources.bear and Path(sources.bear).is_file():
        found += [(t, "bear") for t in _bear_templates(sources.bear).get(relation, [])]
    if sources.catalog:
        catalog = load_catalog(sources.catalog)
        if relation in catalog:
            found += [(t, "catalog") for t in catalog[relation].templates]
    # the relations catalog's templates, BEAR's wordings mostly, go through the same fixes: a pattern fixed in
    # BEAR would come back by the catalog's copy ("[X]'s place of birth is [Y]." after the twenty-fourth read)
    fixed = [(apply_fixes("patterns", relation, t, sources.fixes), origin) for t, origin in found]
    return [(t, origin) for t, origin in fixed if t is not None]


def pattern_bank(
    relation: str, raw: list[tuple[str, str]], dropped: Counter, reject: tuple[str, ...] = ()
) -> list[dict]:
    """Validated, deduplicated patterns with merged origins; drops counted by reason."""
    patterns: list[dict] = []
    by_key: dict[str, dict] = {}
    rejected = {template_key(normalize_pattern(t)) for t in reject}
    for template, origin in raw:
        if template.count("[X]") != 1 or template.count("[Y]") != 1:
            dropped[f"{relation}: pattern without exactly one [X] and one [Y]"] += 1
            continue
        text = normalize_pattern(template)
        key = template_key(text)
        if key in rejected:
            dropped[f"{relation}: pattern rejected by hand (patterns.reject)"] += 1
            continue
        if key in by_key:
            if origin not in by_key[key]["origin"].split("+"):
                by_key[key]["origin"] += f"+{origin}"
            continue
        entry = {
            "relation_id": relation,
            "pattern_id": f"{relation}-{len(patterns):02d}",
            "template": text,
            "object_final": is_object_final(text),
            "form": pattern_form(text),
            "origin": origin,
        }
        by_key[key] = entry
        patterns.append(entry)
    return patterns


def checked_patterns(relation: str, bank: list[dict], subject: str, obj: str, dropped: Counter) -> list[dict]:
    """The patterns of a bank that read right when filled with a real instance of the relation."""
    kept = []
    for pattern in bank:
        problem = filled_problem(fill_template(pattern["template"], subject, obj), subject, obj)
        if problem:
            dropped[f"{relation}: pattern dropped, {problem}"] += 1
        else:
            kept.append(pattern)
    return kept


def pattern_edges(relation: str, graphs: str, patterns: list[dict], fixes: str = "") -> list[dict]:
    """ParaRel's graph edges between this relation's patterns, typed.

    An edge's ends are read through the same ``fixes`` as the patterns, so a pattern the template fixes
    rewrite ("[X] is a citizen of [Y]." -> "[X] was a citizen of [Y].") keeps its edges (with ParaRel's types
    for the pair as written), and one the fixes drop loses them (else each rewritten pattern is isolated).
    """
    path = Path(graphs) / f"{relation}.json" if graphs else None
    if path is None or not path.is_file():
        return []
    ids = {template_key(p["template"]): p["pattern_id"] for p in patterns}

    def pattern_id(text: str) -> str | None:
        fixed = apply_fixes("patterns", relation, text, fixes) if fixes else text
        return ids.get(template_key(normalize_pattern(fixed))) if fixed is not None else None

    edges: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for edge in json.loads(path.read_text())["edges"]:
        source = pattern_id(normalize_pattern(edge["source_pattern"]))
        target = pattern_id(normalize_pattern(edge["target_pattern"]))
        if source and target and source != target and (source, target) not in seen:
            seen.add((source, target))  # a/an variants are one pattern: their edges are one edge
            edges.append(
                {
                    "relation_id": relation,
                    "source_pattern_id": source,
                    "target_pattern_id": target,
                    "lexical": bool(edge["lexical_change"]),
                    "syntactic": bool(edge["syntactic_change"]),
                    "determiner": bool(edge["determiner_change"]),
                }
            )
    return edges


def _is_latin(text: str) -> bool:
    for char in text:
        if char.isalpha() and "LATIN" not in unicodedata.name(char, ""):
            return False
    return True


# one capitalised word of two to six letters cut short by a full stop: an abbreviation, no name ('Calif.')
_ABBREVIATED_WORD = re.compile(r"[A-Z][a-z]{1,5}\.")
# an authority file's heading for a ruler: a title, "of", the realm, then the name ('King of Holland Louis I',
# 'Queen of Great Britain and Empress of India Victoria'; the twenty-third read counted ~38 kept)
_RULER_HEADING = re.compile(
    r"(?:(?:Grand|Holy Roman|Crown) )?(?:King|Queen|Emperor|Empress|Prince|Princess|Duke|Duchess|Archduke|"
    r"Archduchess|Count|Countess|Tsar|Tsarina|Czar|Sultan|Elector|Electress|Margrave|Landgrave|Shah|Pharaoh|"
    r"Pope|Khan|Caliph|Regent|Viceroy) of (\S.*)"
)


def alias_problem(alias: str, label: str) -> str | None:
    """Why an alias cannot stand for its entity in a statement, or None.

    Identifiers and codes ("00033522513 IPI", "THA", "gr", "US-TX"), inverted names ("Chadwick, John"),
    disambiguated forms ("Irvine, California", "Mercury (planet)"), the label without its "The" ("Colbert
    Report": a sentence reads "the Colbert Report", the label again), descriptions ("birthplace of
    Rachel Carson"; a lower-case word beside a proper name: "Queen City of the Pacific and others"),
    initials only ("J. C." for John Cage, "U.S.S.R"), lower-cased forms of a proper name ("j. diez"),
    language-region codes ("en-uk"), descriptions with a label prefix ("Nickname: Phoenix of Wits") and
    any alias all in lower case under a capitalised label ("xiang gang" for Hong Kong) are not names a
    sentence would use; nor is one with formatting residue (``names.formatting_residue``: direction marks,
    doubled spaces, quotes around it or a quoted part of it: '"El profeta"', '"Captain" Lou Albano', a
    romanization's tie mark: 'akt︠s︡ionernoe', a bracket opening it, Latin letters mixed with Cyrillic or Greek
    ones in one word: 'Doncho Kolеv Danev').
    """
    if residue := formatting_residue(alias):
        return f"alias with {residue}"
    if any(_is_phonetic_letter(c) and c not in label for c in alias):
        # IPA letters that look like Latin ones ('ɑdidɑs' for Adidas): a stylisation no reader types
        return "phonetic (IPA) letters the label does not have ('ɑdidɑs' for Adidas)"
    if alias.rstrip()[-1:] in ("?", "!") and label.rstrip()[-1:] not in ("?", "!"):
        # a verbalization ends the statements of patterns ending with [X]: "... Monsters?" reads as a question
        return "ending in '?' or '!' under a label that does not ('Jeopardy!' style titles end statements)"
    if _opens_with_punctuation(alias, label):
        # a top-level domain ('.re' for Réunion), a file extension ('.dae'), a stylised spelling ('?uestlove',
        # '/.' for Slashdot) or a note ('&c. Gainsborough'): no name a sentence would use
        return (
            "opening with punctuation ('.re', '/.', '?uestlove', '&c. Gainsborough') "
            "under a label that does not"
        )
    if alias_glued_at_full_stop(alias, label):
        return "words or initials glued at a full stop ('J.Pereira', 'Á.Löve', 'S.v.Hoogstraten', 'Fran.co')"
    words = alias.split()
    if re.search(r"\d", alias) and (re.search(r"\d{4,}", alias) or re.fullmatch(r"[\W\dA-Z]+", alias)):
        return "identifier or code (digits)"
    if re.fullmatch(r"[A-Z][A-Z.]{0,4}", alias) or re.fullmatch(r"[a-z]{1,3}", alias):
        return "code (up to 5 capitals, or 3 lower-case letters)"
    if re.fullmatch(r"[A-Z]{2,3}-[A-Z0-9]{1,3}", alias):
        return "region code (ISO 3166-2: 'DE-BE', 'US-TX')"
    if re.fullmatch(r"[a-z]{2,3}-[A-Za-z]{2,3}", alias):
        return "language-region code ('en-uk', 'ro-md')"
    if alias == alias.lower() and re.fullmatch(r"[\w-]+(?:\.[\w-]+)*\.[a-z]{2,3}|[a-z]+/[\w.+-]+", alias):
        return "web address or media type ('youtube.com', 'application/xhtml+xml')"
    if _WEB_NAME.fullmatch(alias) and not _WEB_NAME.fullmatch(label):
        # in any case: the entity's website, another thing than a channel, a paper or a firm
        return "website name ('Cleveland.com' for The Plain Dealer, 'Filmcritic.com' for AMC)"
    if _FIELD_PREFIX.match(alias):
        return "description with a label prefix ('Nickname: Phoenix of Wits')"
    if _COLON_JOINED.search(alias):
        return "colon-joined code or namespaced title ('ISO 639:be', 'Category:...', 'S:t Michel')"
    if _STANDARD_IDENTIFIER.fullmatch(alias):
        return "standard identifier (capitals then a number: 'ISO 639', 'RFC 2616')"
    if _LETTER_DIGIT_CODE.fullmatch(alias) or _INNER_DIGIT_CODE.fullmatch(alias):
        return "letter-digit code ('34Se', '20e', 'ff14', 'R22eR')"
    if "(" in alias or ")" in alias:
        return "disambiguated form (parentheses)"
    if "[" in alias or "]" in alias:
        # an editor's note in square brackets ('Ray [rejected]', "Coypel [l'ancien]", twenty-first read)
        return "square-bracketed note ('Ray [rejected]', 'Peel Collection [2nd Bart.]')"
    if _ABBREVIATED_WORD.fullmatch(alias) and not _ABBREVIATED_WORD.fullmatch(label):
        # a place's or a botanist's abbreviation ('Calif.', 'Lon.', 'Forssk.'), twenty-first read: 90 kept
        return "one abbreviated word ('Calif.', 'Lon.', a botanist's 'Forssk.')"
    if ruler_heading(alias, label):
        return "a catalogue heading: title, realm, then name ('King of Holland Louis I' for Louis Bonaparte)"
    if "," in alias:
        head, _, tail = alias.partition(",")
        label_words = set(word_tokens(label))
        if word_tokens(head) <= label_words and word_tokens(tail) <= label_words:
            return "inverted name (Last, First)"
        return "disambiguated or qualified form (comma)"
    if len(words) >= 3 and alias[:1].islower() and label[:1].isupper():
        return "description, not a name"
    if _INITIALS_ONLY.fullmatch(alias) or _ABBREVIATIONS_ONLY.fullmatch(alias):
        return "initials or abbreviations only ('J. C.', 'U.S.S.R', 'R.E.Fr.')"
    if _DESCRIPTION_WORDS.search(alias):
        return "description, not a name ('and others', 'formerly', 'etc.')"
    if _is_proper_name(label) and _lower_cased_words_of(words, label):
        return "lower-cased form of a proper name ('j. diez' for Julius Diez)"
    if _lower_cased_proper_name(alias, label):
        return "all lower case under a capitalised label ('xiang gang' for Hong Kong)"
    if label.startswith("The ") and name_key(alias) == name_key(label[4:]):
        # the article is the sentence's ("the Colbert Report"): read so, the alias is its label again
        return "its label without its 'The' ('Colbert Report' for The Colbert Report): the label once read"
    if _lower_cases_the_label_name(alias, label):
        return "lower-cases the proper name its label opens with ('chola kingdom' for Chola dynasty)"
    if _name_then_code(words, label):
        return "label words then initials or a code ('Zeilinger A', 'Evanston IL')"
    return None


def ruler_heading(alias: str, label: str) -> bool:
    """Whether an alias is an authority file's heading for a ruler: a title, "of", a realm, then a name.

    The alias's words after the realm end in a word of the label, or its regnal numeral ('King of Spain
    Carlos IV' for Charles IV of Spain), or in one with a numeral after it ('King of Holland Louis I' for
    Louis Bonaparte). A title with
    its realm alone ('Prince of Wales', 'Duke of Wellington'), a nickname ('King of Pop'), a title of the
    label itself ('King of Kong Island' for Kong Island) and a label that holds the alias's realm and name
    ('The Count of Monte Cristo') are none.
    """
    match = _RULER_HEADING.fullmatch(alias)
    if not match:
        return False
    after_of = match.group(1)
    words = after_of.split()
    label_words = set(re.findall(r"[\w'-]+", label))
    if len(words) >= 3 and _ROMAN_NUMERAL.fullmatch(words[-1]) and words[-1] not in label_words:
        words = words[:-1]  # a numeral the label lacks after a name it holds ('Louis I' for Louis Bonaparte)
    realm_then_name = len(words) >= 2 and words[-1] in label_words
    return realm_then_name and after_of != label and f"of {after_of}" not in label


def _opens_with_punctuation(alias: str, label: str) -> bool:
    """Whether the alias opens with punctuation under a label that does not open with that same mark.

    A letter, a digit or an elision's apostrophe ("'s-Gravenhage", "'Umar") opens a name; '.re' for Réunion
    does not, while a top-level domain labelled '.aq' keeps its own aliases.
    """
    first = alias[:1]
    if not first or first.isalnum() or first in "'’ʿʻ":
        return False
    return label[:1] != first


# a website's name: a name, then a generic top-level domain ("Cleveland.com", "SFGate.com", "Wikipedia.org")
_WEB_NAME = re.compile(r"[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|info|biz|edu|gov|co\.uk)")
# a letter, a colon and a letter or digit with no space: a code ("ISO 639:be"), a wiki namespace
# ("Category:Ritwik Ghatak", "Portal:Libraries") or an abbreviation no English sentence uses ("S:t Michel");
# a time ("1:40") has digits on both sides and is not one
_COLON_JOINED = re.compile(r"[^\W\d_]:[^\W_]")
# a record's field name before the alias ("Nickname: Phoenix of Wits"); a title's own colon ("Feud: Bette and
# Joan", "Law and Order: SVU") is part of its name
_FIELD_PREFIX = re.compile(
    r"(?i)(?:nick ?name|name|alias|a\.?k\.?a\.?|also known as|known as|pseudonym|pen name|stage name|"
    r"birth name|real name|full name|born|title|epithet|byname|sobriquet)\s*:\s"
)
# a standards body's or registry's capitals, then a number, and nothing more ("ISO 639", "RFC 2616")
_STANDARD_IDENTIFIER = re.compile(r"[A-Z]{2,}[ -]?\d{2,}(?:[-.:/]\w+)*")
# one token of digits then one or two letters ("34Se", "68Er", "20e"), or up to three lower-case letters
# then digits ("ff14"); a name mixing them ("2Pac", "Suda51", "Take2") has more letters and is kept
_LETTER_DIGIT_CODE = re.compile(r"\d+[^\W\d_]{1,2}|[a-z]{1,3}\d+")
# a token whose digits stand between letters, with three letters or fewer: a code ("R22eR", "B2B"); a
# name opening with its digits ("2Pac") or with more letters ("Suda51") is kept
_INNER_DIGIT_CODE = re.compile(r"(?=(?:\d*[^\W\d_]){1,3}\d*$)[^\W\d_]+\d+[^\W\d_]+")
# two or more abbreviations of one or two letters, each with its full stop, and nothing else ("R.E.Fr.")
# or a catalogue's abbreviations of up to six letters each, every one closed by its full stop ("C.Rchb.",
# "Donn.Sm.", a botanist's author abbreviation: the fifteenth read found 55 kept)
_ABBREVIATIONS_ONLY = re.compile(r"(?:[^\W\d_]{1,2}\.\s*){2,}|(?:[^\W\d_]{1,6}\.){2,}")
# two or more single letters, with dots or spaces between them and nothing else: "J. C.", "G. I.", "U.S.S.R"
_INITIALS_ONLY = re.compile(r"(?:[^\W\d_](?:\.\s*|\s+|$)){2,}")
# words that make an alias a description of the entity rather than a name of it
_DESCRIPTION_WORDS = re.compile(r"(?i)\b(?:and|&) others\b|\betc\b|\bet al\b|\bformerly\b|\bsee also\b")
# lower-case words a proper name may hold: particles of names and of titles ("Catherine of Aragon")
_NAME_PARTICLES = frozenset(
    "of the and de del della di da do dos das du des la le les los las el al y e von vom zu zur van der "
    "den ter ten bin ibn bint ben on in at by for with upon sur a an to".split()
)


def _lower_case_words(words: list[str]) -> list[str]:
    """The words of a name written all in lower case that are no particle ("others", "diez")."""
    found = []
    for word in words:
        letters = re.sub(r"[^\w'-]", "", word)
        if letters and letters == letters.lower() and re.search(r"[^\W\d_]{2,}", letters):
            if letters.lower().strip("'-") not in _NAME_PARTICLES and not re.fullmatch(r"\w\.?", word):
                found.append(letters)
    return found


def _lower_cased_words_of(words: list[str], label: str) -> list[str]:
    """The alias's lower-case words that the label writes with a capital ("diez" of "Julius Diez")."""
    capitalised = {w.casefold() for w in re.findall(r"[^\W\d_][\w'-]*", label) if w[:1].isupper()}
    return [w for w in _lower_case_words(words) if w.casefold() in capitalised]


def _lower_cased_proper_name(alias: str, label: str) -> bool:
    """Whether an alias is all lower case under a proper name (a label written with capitals).

    "xiang gang" for Hong Kong, "loffler" for Löffler, "bebsi" for PepsiCo, "kapamilya network" for
    ABS-CBN: no sentence writes a proper name so. A single capitalised word that is an English word
    (``english_lexicon``) may be a common noun written with a capital ("Ship", "vessel"): there only the
    label's own letters lower-cased count.
    """
    if not re.search(r"[^\W\d_]", alias) or alias != alias.lower() or not _is_proper_name(label):
        return False
    return (
        len(label.split()) >= 2
        or name_key(alias) == name_key(label)
        or fold(label) not in english_lexicon().known
    )


def _is_phonetic_letter(char: str) -> bool:
    """Whether a character is an IPA or phonetic-extension letter ('ɑ', 'ɪ', 'ʀ', 'ᴀ', modifier letters)."""
    return "\u0250" <= char <= "\u02ff" or "\u1d00" <= char <= "\u1dbf"


def _leads_with_last_word_of(alias: str, name: str) -> bool:
    """Whether the alias opens with the name's last word, then words the name holds before it."""
    words, name_words = alias.split(), name.split()
    return (
        name != alias
        and len(name_words) >= 2
        and all(w[:1].isupper() for w in name_words)
        and words[0] == name_words[-1]
        and set(words[1:]) <= set(name_words[:-1])
    )


def inverted_name(alias: str, label: str, aliases: list[str]) -> str | None:
    """The entity's name of which the alias is a surname-first inversion, or None.

    "Pollio Vitruvius" beside "Marcus Vitruvius Pollio", "Kurosawa Akira" under "Akira Kurosawa": the alias
    opens with the last word of its label or of a longer alias (itself no such inversion of the label) and
    goes on with words that name holds before it. An index form ranked beside the name itself is no name a
    sentence uses. Every word of both must be capitalised and none of the alias's an English word
    (``english_lexicon``): "Edinburgh University", "Lake Gatun", "Sir Walter Scott" are names in their own
    order.
    """
    words = alias.split()
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return None
    if any(fold(w) in english_lexicon().known for w in words):
        return None
    longer = [a for a in aliases if len(a.split()) > len(words) and not _leads_with_last_word_of(a, label)]
    return next((name for name in [label, *longer] if _leads_with_last_word_of(alias, name)), None)


# letters that Unicode does not decompose into a base letter and a mark ("Đàn môi" / "dan moi")
_UNDECOMPOSED = str.maketrans(
    {"đ": "d", "ø": "o", "ł": "l", "ħ": "h", "ı": "i", "æ": "ae", "œ": "oe", "ß": "ss"}
)


def _lower_cases_the_label_name(alias: str, label: str) -> bool:
    """Whether an all lower-case alias writes the capitalised word its label opens with in lower case.

    Wikidata writes an English label of a common noun in lower case ("dynasty", "rice"): a label of two
    words or more that opens with a capital opens with a proper name ("Chola dynasty", "Bagna càuda",
    "Đàn môi"), and an alias that writes that name in lower case ("chola kingdom", "bagna cauda", "dan
    moi") is no form a sentence uses.
    """
    words, label_words = alias.split(), label.split()
    if alias != alias.lower() or len(label_words) < 2 or not re.search(r"[^\W\d_]", alias):
        return False
    first = label_words[0]
    if not first[:1].isupper() or first.isupper():  # an acronym ("BBC One") is no word to lower-case
        return False
    name = fold(first).translate(_UNDECOMPOSED)
    if name in english_lexicon().known:  # a common noun with a capital ("Drug traffic", "drug trafficking")
        return False
    return any(fold(w).translate(_UNDECOMPOSED) == name for w in words)


def _is_proper_name(label: str) -> bool:
    """Whether a label is a proper name written with capitals only ("John Cage", "Manila", "Goethe-Institut").

    Its first word opens with a capital and every other word is capitalised or a name particle.
    """
    words = label.split()
    return bool(words) and words[0][:1].isupper() and not _lower_case_words(words)


# codes after a name that are part of it: legal forms, "FC", "TV" ("Adidas AG", "Liverpool FC")
# ("AG" is Aargau's code too: "Brugg AG" goes, and with it a firm's "Adidas AG" beside "Adidas")
_NAME_SUFFIXES = frozenset("SA SE CO KG NV BV AB AS OY FC SC CF TV".split())
_ROMAN_NUMERAL = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")


def _name_then_code(words: list[str], label: str) -> bool:
    """Whether an alias is its label's surname then initials, or its label then a two-letter code.

    A catalogue's "surname + initials" ("Zeilinger A" for Anton Zeilinger, "Ostrom EL" or "Ostrom E. L."
    for Elinor Ostrom: the label's last word, then initials led by one of its given names') and a place with
    its state or canton code ("Evanston IL", "Basel BS", "Brissago TI": the label, then two capitals
    that are no legal form or name suffix such as "AG", "FC") are indexes' forms, not names a
    sentence uses.
    """
    label_words = label.split()
    if len(words) < 2:
        return False
    *head, code = words
    surname, *initials = words
    if (
        len(label_words) >= 2
        and surname == label_words[-1]
        and surname[:1].isupper()
        and all(re.fullmatch(r"(?:[A-Z]\.?){1,3}", initial) for initial in initials)
    ):
        # the first initial is one of the label's given names' (middle names the label may leave out:
        # "Ostrom EL", "Anderson P. W." for Philip W. Anderson, "Vernet J." for Claude-Joseph Vernet)
        given = re.split(r"[\s-]+", " ".join(label_words[:-1]))
        return initials[0][0] in {name[:1].upper() for name in given if name}
    return (
        head == label.partition(",")[0].split()  # "Evanston IL" beside "Evanston, Illinois"
        and re.fullmatch(r"[A-Z]{2}", code) is not None
        and code not in _NAME_SUFFIXES
        and _ROMAN_NUMERAL.fullmatch(code) is None  # a numeral names another one: "Barack Obama II"
    )


MODEL_ALIAS = "a product model's name without the 'the' English gives it ('Dr16' for the VR Class Dr16)"
NAMED_LIKE_AN_ANSWER = (
    "object shares a name (label or alias, the source's full lists) with a better supported answer "
    "(distinct_answers)"
)
NESTED_NAME = (
    "answer name contains or is contained in a better supported answer's, not nested by the source "
    "(\"Ba'athist Iraq\" beside 'Iraq', 'punk rock' beside 'rock')"
)


def source_nests(a: str, b: str, containers: Mapping[str, set[str]]) -> bool:
    """Whether the source's containment relations put one answer inside the other (transitively)."""
    for inner, outer in ((a, b), (b, a)):
        seen, frontier = {inner}, [inner]
        while frontier:
            for container in containers.get(frontier.pop(), ()):
                if container == outer:
                    return True
                if container not in seen:
                    seen.add(container)
                    frontier.append(container)
    return False


def grid_statement(template: str, verbalization: str, group: bool, features: bool = False) -> str:
    """A pattern filled with a subject's verbalization, the object's slot left open.

    A band or team (``group``: by its class) named in the plural takes plural verbs and "the" inside the
    sentence ("The Four Knights come from [Y]", "[Y] is where the Four Knights come from"), as the rules
    family asks ("Which country do The Breeders come from?"). A group of natural features (``features``: by
    its class) named by a plural head that also ends towns' names takes plural verbs and no "the" ("Quartz
    Hills are located in [Y]").
    """
    plural = frozenset({verbalization}) if group and is_plural_band_name(verbalization) else frozenset()
    named_features = (
        frozenset({verbalization})
        if features and verbalization.split()[-1:] and verbalization.split()[-1] in AMBIGUOUS_PLURAL_HEADS
        else frozenset()
    )
    statement = fill_template(template, verbalization, plural_names=plural, plural_features=named_features)
    if plural and verbalization.startswith("The "):
        head, tail = statement[:1], statement[1:]
        statement = head + tail.replace(verbalization, "the " + verbalization[4:])
    return statement


# classes of a natural feature that a plural name names several of (hill, mountain range, mountain, landform,
# Antarctic oasis, cliff, group of interconnected lakes, hill chain, nunatak): "Quartz Hills" typed hill
NATURAL_FEATURE_GROUP_CLASSES = frozenset(
    "Q54050 Q46831 Q8502 Q271669 Q571398 Q107679 Q25498657 Q9381142 Q194408".split()
)
SOVEREIGN_STATE = "Q3624078"
CONTINENT = "Q5107"
# a state of the past as a place's container: a historical country or dynasty (relations.PAST_POLITY_CLASSES),
# an empire or another polity gone with its land (PAST_PLACE_STATE_CLASSES), or a colonial empire (Q1790360:
# the Portuguese Empire, which the slice classes as nothing else, holds Brazil, Ghana and Cape Verde)
PAST_STATE_CONTAINER_CLASSES = PAST_POLITY_CLASSES | PAST_PLACE_STATE_CLASSES | {"Q1790360"}
# a place the source classes a state of the past beside a place that stands today (a city: "Naples",
# "Florence", classed historical countries too; a historic county of England: "Cornwall") is a place, placed
# in its state as any other (the thirty-second read: "Enrico Caruso was born in Naples" without Italy a gold)
STANDING_PLACE_CLASSES = PLACE_STILL_CLASSES | {"Q1138494", "Q67376938"}
STATE_BY_UNDATED_FACTS = (
    "object placed by the source in a state of the past or in several sovereign states, one of them an "
    "answer ('Venice' P17 Italy, France and the Republic of Venice; 'Prague' P17 Czechoslovakia): the slice "
    "dates no country fact, so whether the subject's place lay in it cannot be told"
)


def without_undated_states(
    client, containers: dict[str, set[str]]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The containers less the states an undated country fact adds; the states each place is left in doubt.

    The slice keeps a place's old country facts beside today's, undated ("Venice" P17 Italy, France, the
    Austrian Empire; "Brazil" P17 the Portuguese Empire, which lies in Portugal), so containment made France
    a gold of whoever worked in Venice (twenty-seventh read). A sovereign state or a state of the past lies
    in no country by containment ("Brazil" not in Portugal). Any other place loses every state of
    the past its containers hold (``PAST_STATE_CONTAINER_CLASSES``, ``PAST_POLITIES``: "Prague" in
    Czechoslovakia is true of a birth in 1967, not of one in 1794) and, where they hold two sovereign states
    or more, all of these (which one is today's no fact says); those are returned as in doubt, and the
    caller does not ask an instance whose object is such a place when one of them is an answer (a true
    answer, or a false one, that no gold would mark). A constituent country stays in its one sovereign
    state ("England" in the United Kingdom).
    """
    entities = sorted(set(containers) | {c for found in containers.values() for c in found})
    classes = classes_of(client, entities)
    past = {
        e
        for e in entities
        if classes[e] & PAST_STATE_CONTAINER_CLASSES
        and not classes[e] & STANDING_PLACE_CLASSES
        or e in PAST_POLITIES
    }
    states = {e for e in entities if SOVEREIGN_STATE in classes[e]} - past
    countries = {e for e in entities if classes[e] & (COUNTRY_CLASSES - {CONTINENT})} | states | past
    kept: dict[str, set[str]] = {}
    doubtful: dict[str, set[str]] = {}
    for place, found in containers.items():
        if place in states or place in past:
            kept[place] = found - countries
            continue
        in_doubt = found & past
        if len(found & states) > 1:
            in_doubt |= found & states
        kept[place] = found - in_doubt
        if in_doubt:
            doubtful[place] = in_doubt
    return kept, doubtful


def golds_with_containers(golds: list[str], containers: dict[str, set[str]], space: set[str]) -> list[str]:
    """The golds and the answers of the space that contain one of them, sorted.

    "Christianity" beside a gold "Catholicism", "Universal Music Group" beside "Interscope Records":
    the containing answer is true too (``containment``: ``containers`` holds each entity's containers,
    transitively, less those ``without_undated_states`` takes out). No answer of the space shares a name
    with another (``distinct_answers``), so none is a gold by its name alone.
    """
    return sorted({*golds, *(c for g in golds for c in containers.get(g, ()) if c in space)})


def alias_order(alias: str, label: str) -> tuple:
    """How a name reads, best first.

    Full names that extend the label ("Frank Vincent Zappa"), then short forms sharing a word with
    it ("Zappa"), then other names; shorter first, then A-Z.
    """
    label_words, words = word_tokens(label), word_tokens(alias)
    if label_words and label_words < words:
        group = 0
    elif words & label_words:
        group = 1
    else:
        group = 2
    return (group, len(alias), alias)


INVERTED_NAME = (
    "surname-first inversion of another of its names ('Pollio Vitruvius' / 'Marcus Vitruvius Pollio')"
)


def alias_bank(
    entity: str, label: str, aliases: list[str], spec: AliasSpec, ambiguous: set[str]
) -> tuple[list[dict], list[dict]]:
    """The verbalizations of one entity (label, then aliases by ``alias_order``); drops with reasons."""
    kept = [{"entity_id": entity, "alias": label, "rank": 0, "source": "label"}]
    seen = {re.sub(r"\W+", "", label.lower())}
    drops = []
    for alias in sorted(aliases, key=lambda a: alias_order(a, label)):
        key = re.sub(r"\W+", "", alias.lower())
        reason = None
        if not alias.strip() or len(alias) > spec.max_chars:
            reason = f"empty or longer than {spec.max_chars} characters"
        elif key in seen:
            reason = "equal to another verbalization up to case and punctuation"
        elif _EMOJI.search(alias):
            reason = "contains emoji"
        elif spec.latin_only and not _is_latin(alias):
            reason = "non-Latin script"
        elif problem := alias_problem(alias, label):
            reason = problem
        elif inverted_name(alias, label, aliases):
            reason = INVERTED_NAME
        elif key in ambiguous:
            reason = "shared by two answers of the same answer space"
        elif len(kept) >= spec.max_verbalizations:
            reason = f"beyond the first {spec.max_verbalizations} verbalizations"
        if reason:
            drops.append({"entity_id": entity, "alias": alias, "reason": reason})
        else:
            seen.add(key)
            kept.append({"entity_id": entity, "alias": alias, "rank": len(kept), "source": "alias"})
    return kept, drops


@register_family(
    "paraphrases",
    ParaphraseSpec,
    default_spec="paraphrases",
    description="ParaRel / Cao et al.: pattern bank, pattern graph, alias bank, probe grids",
)
def generate_paraphrases(spec: ParaphraseSpec) -> TableOutput:
    """Build the pattern and alias banks and the grids of every relation."""
    dropped: Counter = Counter()
    relations = list(spec.relations)
    sources = resolve_pattern_sources(spec.patterns)
    banks: dict[str, list[dict]] = {}
    for relation in relations:
        bank = pattern_bank(relation, raw_patterns(sources, relation), dropped, spec.patterns.reject)
        if len(bank) < spec.min_patterns:
            dropped[f"{relation}: relation skipped, fewer than {spec.min_patterns} valid patterns"] += 1
            continue
        banks[relation] = bank
    instances, answers, grid, kept_aliases, alias_drops = [], [], [], [], []
    with open_wikidata(spec.wikidata) as (client, source):
        labels: dict[str, str] = {}
        per_relation: dict[str, list[tuple[str, str]]] = {}
        for relation in progress(banks, desc="relations", unit="relation"):
            view = source_view(
                client, spec.wikidata.min_popularity, relation, (), tuple(spec.object_types.get(relation, ()))
            )
            pairs, several = [], 0
            # subjects in key order until max_instances of them have one object: bounded by the grid
            for s, s_label, objects in subjects_in_key_order(
                client, view, f"|{spec.seed}|{relation}", 2 * spec.max_instances
            ):
                objects.pop(s, None)
                if len(objects) != 1:
                    several += len(objects) > 1
                    continue
                ((o, o_label),) = objects.items()
                labels[s], labels[o] = s_label, o_label
                pairs.append((s, o))
                if len(pairs) == spec.max_instances:
                    break
            dropped[f"{relation}: subject with several objects"] += several
            per_relation[relation] = pairs
        entities = sorted({e for pairs in per_relation.values() for pair in pairs for e in pair})
        raw_aliases: dict[str, list[str]] = defaultdict(list)
        for row in batched_select(client, aliases_query, entities):
            raw_aliases[entity_id(row["e"])].append(row["alias"])
        # an object labelled by a periphrasis whose plain name is an alias is shown by it ("art of painting",
        # alias "painting": "worked in the field of painting"); its label stays one of its names
        for o in sorted({o for pairs in per_relation.values() for _, o in pairs}):
            plain = plain_name(labels[o], raw_aliases[o])
            if plain != labels[o]:
                raw_aliases[o] = [*raw_aliases[o], labels[o]]
                labels[o] = plain
        # a firm asked by its short name, as the relations family asks it ("Cyan, Inc." -> "Cyan":
        # names.without_legal_form, E2's request after the thirty-first read); its label stays a name
        for s in sorted({s for pairs in per_relation.values() for s, _ in pairs}):
            name = without_legal_form(labels[s], raw_aliases[s])
            if name != labels[s]:
                raw_aliases[s] = [*raw_aliases[s], labels[s]]
                labels[s] = name
        # an object only: a subject opens its statements, where the capital stays ("Dubstep is part of")
        asked_subjects = {s for pairs in per_relation.values() for s, _ in pairs}
        lower_case_named = {o for r in LOWER_CASE_NAME_RELATIONS for _, o in per_relation.get(r, ())}
        for o in sorted(lower_case_named - asked_subjects):
            lowered = lower_cased_alias(labels[o], raw_aliases[o])
            if lowered != labels[o]:
                raw_aliases[o] = [*raw_aliases[o], labels[o]]
                labels[o] = lowered
        subjects = sorted({s for pairs in per_relation.values() for s, _ in pairs})
        measure, degree = popularity(client, subjects)
        misread = misread_names(client, {s: labels[s] for s in subjects}, load_name_classes())
        teams = plural_teams(client, {s: labels[s] for s in subjects})
        # a product model's aliases that take no "the" by their form are no verbalizations of it (its label is
        # dropped by unreadable_names: "Isuzu Gemini is produced by")
        models = {s for s, _, kind in class_facts(client, subjects) if kind in MODEL_CLASSES}
        # a work or a band whose title's comma a pattern would close ("Murder, She Wrote, is from")
        titled = comma_titles(client, {s: labels[s] for s in subjects}, load_name_classes())
        # a band or team whose own "The" opens its plural name ("The Four Knights"): its grid statements
        # agree in the plural ("The Four Knights come from"), each verbalization read by its own form
        named_in_plural = sorted(
            s for s in subjects if any(is_plural_band_name(n) for n in (labels[s], *raw_aliases[s]))
        )
        plural_groups = {s for s, _, kind in class_facts(client, named_in_plural) if kind in TEAM_CLASSES}
        # a subject not classed human in a relation whose patterns say a person's act
        things = not_human(
            client, sorted({s for r in spec.person_relations for s, _ in per_relation.get(r, ())})
        )
        # untyped non-people and a person labelled by its own occupation in a person's relation, as relations
        # drop them (the twenty-ninth read: "Tilläggspension was a national of Sweden", "Politician")
        life_subjects = {s for r in PERSON_LIFE_RELATIONS for s, _ in per_relation.get(r, ())}
        jobs_as_names = occupation_labelled_people(client, {s: labels[s] for s in sorted(life_subjects)})
        # a group of hills, bluffs, lakes or keys by its class, named by a plural head that ends towns' names
        # too ("Quartz Hills is located in": the twenty-eighth read); its statements agree in the plural
        features_in_plural = {
            s
            for s, _, kind in class_facts(
                client,
                sorted(
                    s
                    for s in subjects
                    if labels[s].split()[-1:] and labels[s].split()[-1] in AMBIGUOUS_PLURAL_HEADS
                ),
            )
            if kind in NATURAL_FEATURE_GROUP_CLASSES
        }
        # a person labelled with a comma title in a relation with a possessive pattern ("[X]'s")
        possessive = {r for r, bank in banks.items() if any("[X]'s" in p["template"] for p in bank)}
        comma_titled = {s for r in possessive for s, _ in per_relation.get(r, ()) if ", " in labels[s]}
        comma_titled_people = comma_titled - not_human(client, sorted(comma_titled))
        # a subject of no class in a relation whose patterns say what kind of thing it is
        no_class = unclassed(
            client, sorted({s for r in spec.classed_subjects for s, _ in per_relation.get(r, ())})
        )
        # a person labelled with no capital ('w.r. hearst'), as relations drop them
        uncapitalised = lower_case_people(client, {s: labels[s] for s in subjects})
        # a past event in a relation whose patterns all state a place in the present ("... Championships are
        # in Berlin")
        events = past_events(
            client, {s: labels[s] for r in PRESENT_EVENT_RELATIONS for s, _ in per_relation.get(r, ())}
        )
        # a subject or object the patterns put in a slot with no "the" whose class takes one ("named after
        # Rhine")
        unreadable = {
            relation: unreadable_names(
                client,
                {
                    e: labels[e]
                    for s, o in pairs
                    for e, slot in ((s, "[X]"), (o, "[Y]"))
                    if bare_slot([p["template"] for p in banks[relation]], slot)
                },
                raw_aliases,
            )
            | works_misread(relation, {e: labels[e] for pair in pairs for e in pair}, {s for s, _ in pairs})
            for relation, pairs in per_relation.items()
        }
        subject_classes: dict[str, set[str]] = defaultdict(set)
        typed = [*spec.subject_excluded_types.items(), *spec.subject_types.items()]
        asked_subject_classes = {c for _, classes in typed for c in classes}
        restricted = sorted({s for r, _ in typed for s, _ in per_relation.get(r, ())})
        for s, _, kind in class_facts(client, restricted) if asked_subject_classes else ():
            if kind in asked_subject_classes:
                subject_classes[s].add(kind)
        objects_asked = sorted({o for pairs in per_relation.values() for _, o in pairs})
        excluded_classes = {c for classes in spec.object_excluded_types.values() for c in classes}
        object_classes: dict[str, set[str]] = defaultdict(set)
        for o, _, kind in class_facts(client, objects_asked) if excluded_classes else ():
            if kind in excluded_classes:
                object_classes[o].add(kind)
        containers = (
            EntityLookups().containers_of(client, objects_asked, tuple(spec.containment))
            if spec.containment
            else {}
        )
        containers, state_in_doubt = without_undated_states(client, containers)
        place_objects = sorted({o for r in spec.place_relations for _, o in per_relation.get(r, ())})
        countries = {o for o, _, kind in class_facts(client, place_objects) if kind in COUNTRY_CLASSES}
        placed = {o for o, _, _ in facts_of(client, place_objects, list(GEOGRAPHIC_CONTAINMENT))}
        past_capitals = {
            relation: capitals_of_past_polities(client, relation, pairs)
            for relation, pairs in per_relation.items()
        }
        past_states = {
            relation: states_of_the_past(client, relation, pairs, labels)
            for relation, pairs in per_relation.items()
        }
        past_objects = {
            relation: past_state_objects(client, relation, pairs) for relation, pairs in per_relation.items()
        }
        not_jobs = statuses_not_jobs(
            {o: labels[o] for r in JOB_RELATIONS for _, o in per_relation.get(r, ())}
        )
        # an untyped station named by its place, owned or operated by a railway (relations.untyped_stations:
        # "SNCF is the owner of Saint-Pierre-du-Vauvray"), as the relations family drops it
        stations = {
            relation: untyped_stations(client, {s: labels[s] for s, _ in pairs}, {s: [o] for s, o in pairs})
            for relation, pairs in per_relation.items()
            if relation in OPERATOR_RELATIONS
        }
        gone_owned = {
            relation: gone_or_dead_owners(client, relation, pairs) for relation, pairs in per_relation.items()
        }
        namesakes = {}  # asked by the label alone, a namesake's other answer is as right (as relations drops)
        for relation, pairs in per_relation.items():
            objects_by_subject: dict[str, set[str]] = defaultdict(set)
            for s, o in pairs:
                objects_by_subject[s].add(o)
            namesakes[relation] = namesakes_with_other_objects(client, relation, objects_by_subject)
        no_fields = not_fields(client, [o for r in FIELD_RELATIONS for _, o in per_relation.get(r, ())])
        unclassed_objects = unclassed(
            client, sorted({o for r in UNCLASSED_NAME_RELATIONS for _, o in per_relation.get(r, ())})
        )
        counties = united_states_counties(
            client, [pair[side] for r, side in COUNTY_SEAT_SIDE.items() for pair in per_relation.get(r, ())]
        )
        seat_sides = sorted(
            {pair[side] for r, side in COUNTY_SEAT_SIDE.items() for pair in per_relation.get(r, ())}
        )
        seat_units = {e for e, _, kind in class_facts(client, seat_sides) if kind in MUNICIPAL_SEAT_CLASSES}
        queries = query_log(client)
    generic: dict[str, frozenset[str]] = {}
    unplaced: dict[str, list[str]] = {}  # per relation, the answers neither a country nor placed, if any
    # a part and its whole named as kinds by a lower-case count noun ("Firearm includes body.")
    kinds_named_bare = {
        relation: {s for s, o in pairs if bare_count_noun(labels[s]) or bare_count_noun(labels[o])}
        for relation, pairs in per_relation.items()
        if relation in PARTS_OF_KINDS
    }
    for relation, pairs in per_relation.items():
        of_places = relation in spec.place_relations and places_of(sorted({o for _, o in pairs}), countries)
        # a label with a disambiguator or a sentence is no verbalization: its instance is not asked
        usable = []
        for s, o in pairs:
            problem = label_problem(labels[s]) or label_problem(labels[o])
            if (
                s in misread
            ):  # filled from its label alone at evaluation: "the Mystic River", "troglodytes are"
                dropped[f"{relation}: {MISREAD_NAME}"] += 1
            elif s in namesakes[relation]:
                dropped[f"{relation}: {NAMESAKE_OTHERWISE}"] += 1
            elif s in teams:  # "Chicago Cubs plays baseball": a label alone gives no "the" nor "play"
                dropped[f"{relation}: {PLURAL_TEAM}"] += 1
            elif s in uncapitalised:
                dropped[f"{relation}: {LOWER_CASE_PERSON}"] += 1
            elif relation in spec.person_relations and s in things:
                dropped[f"{relation}: {NOT_HUMAN}"] += 1
            elif relation in PERSON_LIFE_RELATIONS and s in NOT_OF_THE_SUBJECT_CLASS:
                dropped[f"{relation}: {NOT_OF_THE_SUBJECT}"] += 1
            elif relation in PERSON_LIFE_RELATIONS and s in jobs_as_names:
                dropped[f"{relation}: {OCCUPATION_AS_NAME}"] += 1
            elif relation in spec.classed_subjects and s in no_class:
                dropped[f"{relation}: {UNCLASSED_SUBJECT}"] += 1
            elif relation in PRESENT_PLACE_RELATIONS and s in events:
                dropped[f"{relation}: subject {PAST_EVENT}"] += 1
            elif relation in PRESENT_EVENT_RELATIONS and s in events:
                dropped[f"{relation}: subject {PAST_EVENT_PART}"] += 1
            elif s in past_capitals[relation]:
                dropped[f"{relation}: {PAST_POLITY_CAPITAL}"] += 1
            elif s in past_states[relation]:
                dropped[f"{relation}: {PAST_STATE}"] += 1
            elif o in past_objects[relation]:
                dropped[f"{relation}: {PAST_STATE_OBJECT}"] += 1
            elif relation in JOB_RELATIONS and o in not_jobs:
                dropped[f"{relation}: {NOT_A_JOB}"] += 1
            elif s in stations.get(relation, ()):
                dropped[f"{relation}: subject {stations[relation][s]}"] += 1
            elif (s, o) in gone_owned[relation]:
                dropped[f"{relation}: {GONE_OR_DEAD_OWNER}"] += 1
            elif comma_in_compound([p["template"] for p in banks[relation]], labels[o]):
                dropped[f"{relation}: {COMMA_IN_COMPOUND}"] += 1
            elif relation in FIELD_RELATIONS and o in no_fields:
                dropped[f"{relation}: {NOT_A_FIELD}"] += 1
            elif relation in COUNTY_SEAT_SIDE and (s, o)[COUNTY_SEAT_SIDE[relation]] in counties:
                dropped[f"{relation}: {UNITED_STATES_COUNTY}"] += 1
            elif relation in COUNTY_SEAT_SIDE and (s, o)[COUNTY_SEAT_SIDE[relation]] in seat_units:
                dropped[f"{relation}: {MUNICIPAL_SEAT}"] += 1
            elif s in kinds_named_bare.get(relation, ()):
                dropped[f"{relation}: {BARE_COUNT_NOUN_PART}"] += 1
            elif relation in possessive and s in comma_titled_people:
                dropped[f"{relation}: {COMMA_TITLED_PERSON}"] += 1
            elif symbols_only(labels[s]) or symbols_only(labels[o]):
                side = "subject" if symbols_only(labels[s]) else "object"
                dropped[f"{relation}: {side} {SYMBOLS_ONLY}"] += 1
            elif problem:
                side = "subject" if label_problem(labels[s]) else "object"
                dropped[f"{relation}: {side} {problem}"] += 1
            elif any(title_mark_ends_statement(p["template"], "[X]", labels[s]) for p in banks[relation]):
                dropped[f"{relation}: subject {TITLE_MARK_ENDS_STATEMENT}"] += 1
            elif any(title_mark_ends_statement(p["template"], "[Y]", labels[o]) for p in banks[relation]):
                dropped[f"{relation}: object {TITLE_MARK_ENDS_STATEMENT}"] += 1
            elif o in spec.excluded_objects.get(relation, ()):
                dropped[f"{relation}: object no pattern can state (excluded_objects)"] += 1
            elif object_classes[o] & set(spec.object_excluded_types.get(relation, ())):
                dropped[f"{relation}: object of an excluded class (object_excluded_types)"] += 1
            elif subject_classes[s] & set(spec.subject_excluded_types.get(relation, ())):
                dropped[f"{relation}: subject of an excluded class (subject_excluded_types)"] += 1
            elif relation in spec.subject_types and not subject_classes[s] & {*spec.subject_types[relation]}:
                dropped[f"{relation}: subject of no class its patterns fit (subject_types)"] += 1
            elif s in unreadable[relation] and bare_slot([p["template"] for p in banks[relation]], "[X]"):
                dropped[f"{relation}: subject {unreadable[relation][s]}"] += 1
            elif o in unreadable[relation]:
                dropped[f"{relation}: object {unreadable[relation][o]}"] += 1
            elif relation in spec.name_objects and common_noun_label(labels[o]):
                dropped[f"{relation}: object is a common noun (lower case), the patterns want a name"] += 1
            elif (
                relation in UNCLASSED_NAME_RELATIONS
                and o in unclassed_objects
                and common_noun_label(labels[o])
            ):
                dropped[f"{relation}: object is a common noun (lower case) of no class, no name"] += 1
            elif s in titled:
                dropped[f"{relation}: subject {TITLE_COMMA}"] += 1
            elif other_script(labels[s]):
                dropped[f"{relation}: {OTHER_SCRIPT_SUBJECT}"] += 1
            elif of_places and o not in countries and o not in placed:
                dropped[f"{relation}: {UNPLACED}"] += 1
            else:
                usable.append((s, o))
        # two answers that share a name, label or alias ("Norfolk" the county and the city; Scotland and
        # Seychelles, both "SC"), are one to a reader: a model that names either is right and wrong at once.
        # The one with more instances stays (then the smaller id), the other's instances go (the relations
        # family's rule). An answer whose name's words are a proper part of another's ("Iraq" / "Ba'athist
        # Iraq", "rock" / "punk rock") is a second true answer no fact marks, unless the source nests them
        # (then both are golds): it goes too
        support = Counter(o for _, o in usable)
        relation_containers = {} if relation in spec.containment_not_gold else containers
        kept_answers: list[str] = []
        kept_keys: set[str] = set()
        for o in sorted(support, key=lambda a: (-support[a], a)):
            keys = name_keys([labels[o], *raw_aliases[o]])
            if keys & kept_keys:
                dropped[f"{relation}: {NAMED_LIKE_AN_ANSWER}"] += support[o]
            elif any(
                names_nested(labels[o], labels[a]) and not source_nests(o, a, relation_containers)
                for a in kept_answers
            ):
                dropped[f"{relation}: {NESTED_NAME}"] += support[o]
            else:
                kept_answers.append(o)
                kept_keys |= keys
        # a subject one of whose golds shares a name with an answer of the space that is no gold of it is
        # not asked (the relations family's rule, ``named_like_a_gold``); with the answers' names distinct it
        # finds none, and it stays so that no change of the golds can bring one back
        shown = set(kept_answers)
        usable = [(s, o) for s, o in usable if o in shown]
        if relation not in spec.containment_not_gold:
            in_doubt = [(s, o) for s, o in usable if state_in_doubt.get(o, set()) & shown]
            if in_doubt:
                dropped[f"{relation}: {STATE_BY_UNDATED_FACTS}"] += len(in_doubt)
                usable = [pair for pair in usable if pair not in set(in_doubt)]
        answer_keys = functools.cache(lambda e: name_keys([labels[e], *raw_aliases[e]]))
        named_like = {
            (s, o)
            for s, o in usable
            if named_like_a_gold(golds_with_containers([o], relation_containers, shown), shown, answer_keys)
        }
        if named_like:
            dropped[f"{relation}: {NAMED_LIKE_A_GOLD}"] += len(named_like)
        per_relation[relation] = pairs = [pair for pair in usable if pair not in named_like]
        unplaced[relation] = sorted(
            {o for _, o in pairs if of_places and o not in countries and o not in placed}
        )
        objects = sorted({o for _, o in pairs})
        generic[relation] = generic_tokens([labels[o], *raw_aliases[o]] for o in objects)
        if spec.leakage == "drop":
            # every answer that may be a gold of the instance: the object and its containers among the
            # relation's objects (a gold when the space holds them: "Christina I of Sweden" born in Stockholm,
            # whose container Sweden is one)
            candidates = set(objects)
            kept_pairs = [
                (s, o)
                for s, o in pairs
                if not any(
                    name_leak([labels[s], *raw_aliases[s]], [labels[g], *raw_aliases[g]], generic[relation])
                    for g in golds_with_containers([o], relation_containers, candidates)
                )
            ]
            if len(kept_pairs) < len(pairs):
                dropped[f"{relation}: subject and a gold share a name token (label or alias)"] += len(
                    pairs
                ) - len(kept_pairs)
            per_relation[relation] = pairs = kept_pairs
        if pairs:
            banks[relation] = checked_patterns(
                relation, banks[relation], labels[pairs[0][0]], labels[pairs[0][1]], dropped
            )
    verbalizations: dict[str, list[dict]] = {}
    for relation, pairs in per_relation.items():
        space = sorted({o for _, o in pairs}, key=lambda o: (labels[o].lower(), o))
        names = Counter(re.sub(r"\W+", "", n.lower()) for o in space for n in {labels[o], *raw_aliases[o]})
        ambiguous = {n for n, count in names.items() if count > 1}
        answer_idx = {o: i for i, o in enumerate(space)}
        in_space = set(space)
        answers += [
            {"relation_id": relation, "answer_idx": i, "obj_id": o, "obj_label": labels[o]}
            for i, o in enumerate(space)
        ]
        for entity in [*space, *(s for s, _ in pairs)]:
            if entity not in verbalizations:
                aliases = raw_aliases[entity]
                if entity in models:  # "Dr16" for the VR Class Dr16: "Dr16 was created in Finland"
                    bare = [a for a in aliases if a[:4] != "The " and not takes_definite_article(a)]
                    alias_drops += [{"entity_id": entity, "alias": a, "reason": MODEL_ALIAS} for a in bare]
                    aliases = [a for a in aliases if a not in bare]
                kept, drops = alias_bank(
                    entity,
                    labels[entity],
                    aliases,
                    spec.aliases,
                    ambiguous if entity in answer_idx else set(),
                )
                verbalizations[entity] = kept
                kept_aliases += kept
                alias_drops += drops
        for s, o in pairs:
            instances.append(
                {
                    "relation_id": relation,
                    "sub_id": s,
                    "sub_label": labels[s],
                    "sub_aliases": [v["alias"] for v in verbalizations[s][1:]],
                    "obj_id": o,
                    "obj_label": labels[o],
                    "answer_idx": answer_idx[o],
                    "gold_obj_ids": golds_with_containers(
                        [o], {} if relation in spec.containment_not_gold else containers, in_space
                    ),
                    "popularity": degree.get(s),
                }
            )
            for pattern in banks[relation]:
                for verbalization in verbalizations[s]:
                    grid.append(
                        {
                            "relation_id": relation,
                            "sub_id": s,
                            "obj_id": o,
                            "answer_idx": answer_idx[o],
                            "pattern_id": pattern["pattern_id"],
                            "verbalization_rank": verbalization["rank"],
                            "verbalization": verbalization["alias"],
                            "statement": grid_statement(
                                pattern["template"],
                                verbalization["alias"],
                                s in plural_groups,
                                s in features_in_plural,
                            ),
                        }
                    )
    patterns = [p for bank in banks.values() for p in bank]
    edges = [
        e
        for relation, bank in banks.items()
        for e in pattern_edges(relation, sources.pararel_graphs, bank, sources.fixes)
    ]
    summary = _summary(patterns, instances, verbalizations, grid)
    validity = paraphrase_validity(
        patterns, edges, instances, kept_aliases, raw_aliases, labels, spec, generic, containers, unplaced
    )
    card = CardInfo(
        pretty_name="Paraphrase and alias banks with probe grids (probesmith)",
        description=spec.description or __doc__.split("\n\n")[0],
        license="cc-by-nc-sa-4.0",
        licence_text="Facts, labels and aliases: Wikidata (CC0). Patterns: ParaRel (MIT), Cao et al. "
        "2022 (CC BY-NC-SA 4.0), LAMA (CC BY-NC 4.0), BEAR (CC BY-SA 4.0). The most restrictive, "
        "CC BY-NC-SA 4.0, applies to this dataset: non-commercial use only.",
        tags=("probing", "wikidata", "pararel", "paraphrase", "consistency"),
        task_categories=("fill-mask", "text-generation"),
        extra_sections=(("Validity", paraphrase_validity_markdown(validity)),),
    )
    return wikidata_output(
        card,
        source,
        queries,
        {
            "patterns": (PATTERNS, patterns),
            "pattern_edges": (PATTERN_EDGES, edges),
            "aliases": (ALIASES, kept_aliases),
            "alias_drops": (ALIAS_DROPS, alias_drops),
            "instances": (RELATION_INSTANCES, instances),
            "answer_spaces": (ANSWER_SPACES, answers),
            "grid": (GRID, grid),
        },
        summary=summary,
        dropped=dropped,
        validity=validity,
        popularity_measure=measure,
    )


PARAPHRASE_RULES = {
    "no_leak": "no instance's subject (label or any alias) shares a name token (a word of two letters or "
    "more, a number of three digits or more, letters joined by '&' or a run of two or more initials, and "
    "each part of letters glued to digits: 'TED2004' -> 'TED', '2004', 'TVP3' -> 'TVP', '870s' -> '870'; a "
    "single letter, function words and legal forms such as 'Inc' are none), nor a name stem (the first "
    "five letters of a word of four letters or more), nor a "
    "compound part (a token of five letters or more, no English word nor its plural in 's' nor a generic "
    "word such as 'south' or 'great' with at most three letters more, that begins or ends a longer token "
    "of the other side: 'Venediger Group' / 'Großvenediger') with any of its golds' (the object and "
    "the answers that contain it, `gold_obj_ids`: label or any alias), nor a token of five letters or more "
    "one letter (changed, added or dropped) from a token of a gold's label, unless both are English words "
    "('Cython' / 'Python', 'Jolof' / 'Wolof'), nor a token beginning as a token of a gold's label does "
    "for four letters or more and two thirds of the shorter ('Sweden' / 'Swedish', 'Cancri' / 'Cancer'; "
    "not 'Montreal' / 'Montana'), case, diacritics and 'ß'/'ss' "
    "folded (a subject equal to its object included); function words and the relation's generic tokens "
    "(in 10%+, and 5+, of its objects' names, `generic_tokens`) aside; not caught: a name respelled inside "
    "the other ('Agra katewinsletae' / 'Kate Winslet', 'Llandyfaelog' / 'Tyfaelog') or "
    "an English word closing a compound ('archaeoastronomy' / 'astronomy')",
    "equal_answers": "no answer of a space that shares a name (label or alias, the source's full lists; "
    "case, diacritics, spaces and punctuation aside) with one of an instance's golds is left out of its "
    "golds",
    "nested_answers": "every answer of the space that contains a gold through the spec's `containment` "
    "relations (P361, P131, P279, ..., transitively, as the source says: Christianity for Catholicism) is "
    "one of its golds, but in the relations whose truth does not pass to a container "
    "(`containment_not_gold`: P127, P138, P176, P178, P264, P449: a street named after the Rhine is not "
    "named after Europe, a label's parent company is no label): there the golds are the object alone. "
    "Containment passes no undated country fact of the slice (`without_undated_states`): a sovereign "
    "state or a state of the past (by its class, P31; a city or a historic county so classed too is a place: "
    "'Naples', 'Cornwall') lies in no country ('Brazil' not in the Portuguese Empire nor Portugal; "
    "a constituent country stays in its sovereign state: 'England' in the United Kingdom), and another "
    "place in no state of the past and, where its facts give two sovereign states or more, in none of them "
    "('Venice' P17 Italy and France); an instance whose object is such a place is not asked when one of "
    "those states is an answer of the space",
    "answers_placed": "in a place relation's space (`place_relations`) where one of the objects is a "
    "country or a continent (P31; a dependent territory such as 'New Caledonia' is none), every answer is a "
    "country or continent or placed by the "
    "source (P131/P17/P30/P361): none the source cannot tell to lie inside another ('Aleppo' beside 'Syria')",
    "labels_usable": "no kept label has a disambiguator in parentheses (anywhere: 'Montgomery (town), New "
    "York'), brackets inside a word ('Frontier(s)', 'f(x)'), a wiki namespace ('Category:Pink film'), "
    "coordinates, formatting residue (doubled or stray spaces, direction marks, any double quote: quotes "
    "around the name or a quoted part of it, '\"Captain\" Lou Albano', words in single quotes before another "
    'word: "Konrad '
    "'Conny' Plank\", a romanization's tie mark, U+035C-U+0362 or U+FE20-U+FE2F: 'akt︠s︡ionernoe', a bracket "
    "opening the name: '(Ne) Polnoye sobraniye sochineniy', Latin letters mixed with Cyrillic or Greek ones "
    "in one word: 'principality of Kodа' with a Cyrillic 'а', 'Λucifer'), a "
    "survey's sky designation ('RAVE J051406.8-400245'), words glued at a full stop ('Dr.mark W tilden', "
    "'Dr.Simpson', an initial or a run of them: 'D.Daly', 'E.W.Zenberger'; an entity's own stylised name "
    "with a dot is kept: 'India.Arie', 'E.ON', 'Fokker D.VIII'), a quote left alone or a bracket closed "
    "that was not opened or opened and not closed ('pre)Thing', 'Sunn O)))'), "
    "or is a sentence",
    "alias_usable": "no kept alias opens with punctuation other than an elision's apostrophe under a label "
    "that does not ('.re' for Réunion, '/.' for Slashdot, '?uestlove', '&c. Gainsborough'; 's-Gravenhage is "
    "kept), nor is an identifier, code (a colon-joined code or namespace: 'ISO 639:be', "
    "'Category:...'; a standard identifier; a letter-digit code: '34Se'), inverted name, disambiguated form, "
    "description ('and others', 'formerly'), initials or abbreviations only ('J. C.', 'U.S.S.R', "
    "'R.E.Fr.', a catalogue's 'Donn.Sm.'), one abbreviated word under a label that is none ('Calif.', "
    "'Lon.', a botanist's 'Forssk.'), a square-bracketed note ('Ray [rejected]'), a ruler's catalogue "
    "heading (title, 'of', realm, then a name or numeral of the label: 'King of Holland Louis I' for Louis "
    "Bonaparte; 'Prince of Wales', 'King of Pop' are kept), words or initials glued "
    "at a full stop (a letter, a full stop "
    "and a letter with no space in any word: 'J.Pereira', 'C.Rchb.', 'Á.Löve', 'S.v.Hoogstraten', "
    "'Fran.co Trevisani'; runs of initials, 'U.S.', 'J.R.R. Tolkien', web names ending in a top-level "
    "domain, 'Salon.com', and a word written so in the label, 'E.ON SE' under 'E.ON', are kept), "
    "a letter-digit code ('R22eR'), a lower-cased form of its "
    "proper name ('j. diez'), a surname-first inversion (its first word the last of its label or of a longer "
    "alias that is no inversion of the label, then words that name holds before it; every word "
    "capitalised and none an English word: 'Pollio Vitruvius' beside 'Marcus Vitruvius Pollio', 'Kurosawa "
    "Akira' under Akira Kurosawa), phonetic (IPA) letters its label lacks ('ɑdidɑs'), "
    "surname then initials ('Zeilinger A') or label then a two-capital code "
    "('Basel BS'), language-region code ('en-uk'), description with a label prefix ('Nickname: ...'), "
    "lower-case web address or media type ('youtube.com'), a website's name ending in a generic top-level "
    "domain (.com, .org, .net, .info, .biz, .edu, .gov, .co.uk) under a label that is none ('Cleveland.com' "
    "for The Plain Dealer; a country's domain, 'ABC.es' for the newspaper ABC, is not checked), "
    "formatting residue (doubled spaces, direction "
    "marks, any double quote: a name in quotes, '\"El profeta\"', or a quoted part of it, 'Edward Kennedy "
    '"Duke" Ellington\', words in single quotes before another word: "Konrad \'Conny\' Plank", a quote or a '
    "bracket left "
    "alone: '\"I Am The Actor', a romanization's tie mark: 'I͡Uriĭ', a bracket opening it, Latin letters "
    "mixed with Cyrillic or Greek ones in one word: 'Doncho Kolеv Danev', 'KoЯn'), ending in '?' or '!' "
    "under a label that does not (a pattern ending with [X] would end its statement so), or "
    "all lower case under a proper name of two words or more (every word capitalised or a name particle: a "
    "label such as 'Islamic scholar' is a common noun, and 'uluma' under it is not judged), or its own label "
    "lower-cased ('xiang "
    "gang', 'loffler'), or all lower case under a one-word capitalised label that is no word of the "
    "English lexicon ('bebsi' for PepsiCo, 'hallumi' for Halloumi, 'kapamilya network' for ABS-CBN, "
    "'kudla' for Mangalore, 'norsk' for Norwegian; a one-word label that is an English word, 'Ship', may be "
    "a common noun with a capital, and 'vessel' under it is not judged), "
    "or holding the proper name its label opens with in lower case ('chola kingdom' for "
    "Chola dynasty), or its label without its 'The' ('Colbert Report'); vandalism ('buttcrack') "
    "and misspellings with a capital ('Balcans' for "
    "Balkans: 1,315 kept aliases of the v11 build are one letter from their label, nearly all "
    "transliterations or older spellings, 'Lisboa', 'Berne', 'Kharkov', that no rule tells from a typo) are "
    "not checked",
    "distinct_answers": "no two answers of a relation's space share a name (label or alias, the source's "
    "full lists; case, diacritics, punctuation and spaces aside: 'M-Net' / 'Mnet', Scotland and Seychelles "
    "both 'SC'), nor have labels one of which has the other's words and "
    "more (whole words, any script: \"Ba'athist Iraq\" / 'Iraq', 'punk rock' / 'rock') unless the "
    "source's containment relations nest them (then both are golds: `nested_answers`; not in "
    "`containment_not_gold`'s relations)",
    "verbalizations": "at most K verbalizations per entity, the label first (in the form the build shows it "
    "where the label is no name English writes: 'Apple Inc.' -> 'Apple', 'Lond.' -> 'London University', "
    "'art of painting' -> 'painting')",
    "patterns_read": "no pattern doubles a word or an article when filled with its first instance, and no "
    "statement of the grid, filled with its answer, ends with a name ending in '?' or '!' (a subject's "
    "verbalization or an answer: 'The Dexter series includes Remember the Monsters?' reads as a question; "
    "checked over every instance, pattern and kept verbalization)",
}


def paraphrase_validity(
    patterns,
    edges,
    instances,
    kept_aliases,
    raw_aliases,
    labels,
    spec,
    generic=None,
    containers=None,
    unplaced=None,
) -> dict:
    """Each rule of the family checked on every row, and where each pattern stands in the graph.

    ``unplaced``: per relation, the answers of a space of countries and places that are neither a country
    nor placed by the source (``answers_placed``).
    """
    violations: Counter = Counter()
    violations["answers_placed"] = sum(len(answers) for answers in (unplaced or {}).values())
    generic = generic or {}
    containers = containers or {}
    spaces: dict[str, set[str]] = defaultdict(set)
    for row in instances:
        spaces[row["relation_id"]].add(row["obj_id"])

    @functools.cache
    def keys_of(entity: str) -> frozenset[str]:
        return name_keys([labels[entity], *raw_aliases.get(entity, ())]) if entity in labels else frozenset()

    for row in instances:
        if named_like_a_gold(row["gold_obj_ids"], spaces[row["relation_id"]], keys_of):
            violations["equal_answers"] += 1
        containing = set().union(*(containers.get(g, set()) for g in row["gold_obj_ids"]))
        nests = row["relation_id"] not in spec.containment_not_gold
        if nests and containing & spaces[row["relation_id"]] - set(row["gold_obj_ids"]):
            violations["nested_answers"] += 1
        s = row["sub_id"]
        if any(
            name_leak(
                [labels[s], *raw_aliases.get(s, ())],
                [labels[g], *raw_aliases.get(g, ())],
                generic.get(row["relation_id"], frozenset()),
            )
            for g in row["gold_obj_ids"]
        ):
            violations["no_leak"] += 1
    per_entity: dict[str, list[dict]] = defaultdict(list)
    for alias in kept_aliases:
        per_entity[alias["entity_id"]].append(alias)
        entity = alias["entity_id"]
        if alias["source"] == "alias" and (
            alias_problem(alias["alias"], labels[entity])
            or inverted_name(alias["alias"], labels[entity], raw_aliases.get(entity, []))
        ):
            violations["alias_usable"] += 1
        if alias["source"] == "label" and label_problem(alias["alias"]):
            violations["labels_usable"] += 1
    for relation, space in spaces.items():
        nesting = {} if relation in spec.containment_not_gold else containers
        violations["distinct_answers"] += sum(
            bool(keys_of(a) & keys_of(b))
            or (names_nested(labels[a], labels[b]) and not source_nests(a, b, nesting))
            for a, b in itertools.combinations(sorted(space), 2)
        )
    violations["verbalizations"] = sum(
        len(rows) > spec.aliases.max_verbalizations or rows[0]["source"] != "label"
        for rows in per_entity.values()
    )
    first = {}
    for row in instances:
        first.setdefault(row["relation_id"], (row["sub_label"], row["obj_label"]))
    violations["patterns_read"] = sum(
        bool(filled_problem(fill_template(p["template"], *first[p["relation_id"]]), *first[p["relation_id"]]))
        for p in patterns
        if p["relation_id"] in first
    )
    by_relation: dict[str, list[str]] = defaultdict(list)
    for p in patterns:
        by_relation[p["relation_id"]].append(p["template"])
    for row in instances:
        names = [a["alias"] for a in per_entity.get(row["sub_id"], ())] or [row["sub_label"]]
        violations["patterns_read"] += sum(
            title_mark_ends_statement(t, "[X]", name) or title_mark_ends_statement(t, "[Y]", row["obj_label"])
            for t in by_relation[row["relation_id"]]
            for name in names
        )
    gold_counts: dict[str, Counter] = defaultdict(Counter)
    for row in instances:
        gold_counts[row["relation_id"]].update(set(row["gold_obj_ids"]))
    per_relation = Counter(row["relation_id"] for row in instances)
    constant = {}
    for relation, counts in sorted(gold_counts.items()):
        answer, count = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        constant[relation] = {
            "answer": labels.get(answer, answer),
            "share": round(count / per_relation[relation], 4),
            "uniform": round(1 / len(spaces[relation]), 4),
        }
    with_graph = {e["relation_id"] for e in edges}
    graph = {}
    for relation in sorted({p["relation_id"] for p in patterns}):
        # ParaRel's claim: a relation's patterns are paraphrases of one another, linked by typed
        # edits. The graph says which patterns no edit reaches and into how many groups they fall.
        g = nx.Graph()
        g.add_nodes_from(p["pattern_id"] for p in patterns if p["relation_id"] == relation)
        g.add_edges_from(
            (e["source_pattern_id"], e["target_pattern_id"]) for e in edges if e["relation_id"] == relation
        )
        linked = g.subgraph(n for n in g if g.degree(n))
        graph[relation] = {
            "patterns": g.number_of_nodes(),
            "graph": relation in with_graph,
            "isolated": sorted(nx.isolates(g)),
            "linked_groups": nx.number_connected_components(linked),
        }
    return {
        "rules": PARAPHRASE_RULES,
        "violations": {rule: violations[rule] for rule in PARAPHRASE_RULES},
        "instances": len(instances),
        "generic_tokens": {r: sorted(tokens) for r, tokens in sorted(generic.items())},
        "patterns": len(patterns),
        "pattern_forms": dict(sorted(Counter(pattern_form(p["template"]) for p in patterns).items())),
        "constant_answers": constant,
        "isolated_patterns": sum(len(g["isolated"]) for g in graph.values()),
        "relations_without_graph": sorted(r for r, g in graph.items() if not g["graph"]),
        "relations_with_split_graph": sorted(r for r, g in graph.items() if g["linked_groups"] > 1),
        "pattern_graph": graph,
    }


def paraphrase_validity_markdown(report: dict) -> str:
    """The card's validity section of a paraphrase build."""
    lines = rules_table(
        f"Checked on every one of the {report['instances']:,} instances, every kept alias and every "
        "pattern (`validity.json` has the details):",
        PARAPHRASE_RULES,
        report["violations"],
    )
    forms = report["pattern_forms"]
    worst = sorted(report["constant_answers"].items(), key=lambda kv: -kv[1]["share"])
    lines += [
        "",
        f"Pattern forms (every pattern): {forms.get('sentence', 0)} sentences and {forms.get('fragment', 0)} "
        "fragments (`patterns.form`). A fragment is ParaRel's appositive or noun phrase ('[X], located in "
        "[Y].', '[Y]'s capital, [X].'): a cloze to complete, not a sentence a reader calls true or false.",
        "",
        "No balance is claimed: an answer space keeps the answers as the source gives them, so one answer "
        "can be gold for many of a relation's instances (a containing place or continent is gold with the "
        "place it contains). The largest share of instances one answer is gold for, over every instance "
        "(`validity.json` `constant_answers` has every relation): "
        + "; ".join(
            f"{r} '{c['answer']}' {c['share']:.0%} (uniform {c['uniform']:.1%})" for r, c in worst[:8]
        )
        + ". A model that always names that answer scores that share on the relation.",
        "",
        f"Pattern graph: {report['isolated_patterns']} of {report['patterns']} patterns have no edge in "
        "ParaRel's graph (they come from Cao et al., LAMA, BEAR or the catalog); `validity.json` lists "
        "them per relation. Relations with no ParaRel graph at all: "
        + (", ".join(report["relations_without_graph"]) or "none")
        + ". Relations whose linked patterns fall into more than one group (no chain of edits joins "
        "them): " + (", ".join(report["relations_with_split_graph"]) or "none") + ".",
        "",
        'Grid statements leave `[Y]` open after its article ("... is that of a [Y]."): fill it with '
        "`probesmith.builders.text.fill_template(statement, obj=label)`, as the evaluation does, so the "
        'article agrees with each candidate ("an inventor"); a plain `[Y]` replacement misreads '
        '("a inventor"). Filled so, every grid row reads as its pattern filled with the '
        "verbalization and the answer in one go (`fill_template`), which departs from a plain `[X]` "
        "replacement in these ways only: the sentence opens with a capital ('Deadmau5 was born in'); a "
        "label English reads with 'the' takes it ('the Gambia'); a name ending in 's' takes an apostrophe "
        'alone as a possessive ("Charles Algernon Parsons\' place of birth"); an appositive or qualifier '
        "in the name closes with a comma ('Patrick Blackett, Baron Blackett, was born in'), and a "
        "possessive on such a name is written with 'of' ('The occupation of Infante Henry, Duke of Villena, "
        "was that of a [Y].' for '[X]'s occupation was that of a [Y].'); a name's own 'The' is written 'the' "
        "inside a sentence where the rest names a state, islands, a body or a firm ('a member of the Royal "
        "Prussian Academy of Sciences'); a name ending "
        "in a full stop or an ellipsis gets no second one ('[Y] debuted F.Z.Z.T.'); a word of the pattern "
        "that the name repeats beside the slot is not doubled ('The [Y]-owned Sunday Oregonian' for 'The "
        'Sunday Oregonian\'); a name in the plural (a band or a team named "The ...s", islands or mountains '
        "named in the plural) makes its verbs and pronouns agree ('The Falkland Islands use [Y] as their "
        "official language.', where the pattern says '[X] uses [Y] as its official language.').",
        "",
        "Not checked on every item: grammar beyond doubled words, article runs and a/an (no parser "
        "reads the patterns), and whether an alias that passes the filters is a name the entity "
        "really goes by (Wikidata aliases carry vandalism).",
    ]
    return "\n".join(lines)


def _summary(patterns, instances, verbalizations, grid) -> pl.DataFrame:
    per_pattern = Counter(p["relation_id"] for p in patterns)
    object_final = Counter(p["relation_id"] for p in patterns if p["object_final"])
    per_instance = Counter(i["relation_id"] for i in instances)
    multi = Counter(i["relation_id"] for i in instances if len(verbalizations[i["sub_id"]]) >= 2)
    per_grid = Counter(g["relation_id"] for g in grid)
    return pl.DataFrame(
        [
            {
                "relation_id": r,
                "patterns": per_pattern[r],
                "object_final": object_final[r],
                "instances": per_instance[r],
                "subjects_2plus_verbalizations": multi[r],
                "grid_rows": per_grid[r],
            }
            for r in sorted(per_pattern)
        ],
        schema={
            "relation_id": pl.String,
            "patterns": pl.Int64,
            "object_final": pl.Int64,
            "instances": pl.Int64,
            "subjects_2plus_verbalizations": pl.Int64,
            "grid_rows": pl.Int64,
        },
    )

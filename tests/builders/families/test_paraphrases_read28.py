"""The twenty-eighth independent read of the paraphrases build: patterns that misread a class of subjects
and answers that are not of their relation's kind, judged over every row of a real build from the slice's
TSV (issue 25)."""

import re

import polars as pl
import pytest

from probesmith.schemas.parquet import read_parquet

from ...conftest import build_default_spec_of, slice_classes, slice_names

pytestmark = pytest.mark.integration

READ28_RELATIONS = ["P17", "P407", "P178", "P276", "P36", "P1376", "P138", "P101", "P106", "P1412", "P37"]
READ28_RELATIONS += ["P264", "P140", "P136"]
US_STATE = "Q35657"
# P276 subjects of the read, no physical thing: "Evacuation Day is located in Boston" (a holiday),
# "Mr Selfridge" (a series), "Polkagris" (a sweet), "Spanish Armada" (a fleet), "Falash Mura" (a people),
# "Andrew Crooke and William Cooke" (a duo), "32nd Chess Olympiad", "Immortal Game", "Wikipedia"
READ28_UNLOCATED_SUBJECTS = {"Q3186762", "Q4127467", "Q5479684", "Q179684", "Q5431669", "Q4756719"}
READ28_UNLOCATED_SUBJECTS |= {"Q287085", "Q723704", "Q52"}
# answers the read named, not of their relation's kind: P101 composer, journalist, physician, physicist,
# singer, statesperson, Islamic scholar, Afghanistan, IBM, People's Liberation Army Navy, a chromosome's
# region; P106 superhero, supervillain, celebrity, Playmate, Prophet, Lama, acting; P1412 polyglot,
# Westron; P37 Karachay-Cherkess Republic, Gorno-Badakhshan Autonomous Province; P264 a chemical; P140
# Twelver, Karaim; P138 Field and the genera Tilia, Taxus, Populus, Acer, Iris, Rosa
READ28_WRONG_ANSWERS = {
    "P101": {"Q36834", "Q1930187", "Q39631", "Q169470", "Q177220", "Q372436", "Q189459", "Q889", "Q37156"},
    "P106": {"Q188784", "Q6498903", "Q211236", "Q728711", "Q42857", "Q191421", "Q222749"},
    "P1412": {"Q323081", "Q1232159"},
    "P37": {"Q5328", "Q207319"},
    "P264": {"Q307070"},
    "P140": {"Q269785", "Q208398"},
    "P138": {"Q188869", "Q127849", "Q27355", "Q25356", "Q42292", "Q156901", "Q34687"},
}
READ28_WRONG_ANSWERS["P101"] |= {"Q755179", "Q185057"}
# P17 subjects that lie nowhere, by their class: record label, business, company, political party,
# newspaper, association football club, band, award, radio station (the twenty-eighth and thirtieth reads)
READ30_NO_PLACE_CLASSES = {"Q18127", "Q4830453", "Q783794", "Q7278", "Q11032", "Q476028", "Q215380"}
READ30_NO_PLACE_CLASSES |= {"Q618779", "Q14350"}
LANGUAGE_CLASS_LABEL = re.compile(r"(?i)language|dialect|languoid|creole|pidgin")


def table(result, config):
    return pl.concat([pl.from_arrow(read_parquet(p)) for p in sorted(result.out.glob(f"{config}/*.parquet"))])


@pytest.fixture(scope="module")
def twenty_eighth_read_build(tmp_path_factory, wikidata_store):
    """The relations of the twenty-eighth read's pattern and answer findings, built once."""
    return build_default_spec_of(
        tmp_path_factory, wikidata_store, "paraphrases", "paraphrases-read28", READ28_RELATIONS
    )


def united_states_counties() -> set[str]:
    """Entities of a class labelled 'county/parish/borough of S', S a state of the United States, from the
    slice's TSV (the slice gives counties no P17 and no class of all of them)."""
    classes, names = slice_classes(), slice_names()
    states = {names[e][0] for e, kinds in classes.items() if US_STATE in kinds and e in names}
    county_classes = {
        c
        for c in {c for kinds in classes.values() for c in kinds}
        if (m := re.fullmatch(r"(?:county|parish|borough) of (.+)", names.get(c, ("",))[0]))
        and m.group(1) in states
    }
    return {e for e, kinds in classes.items() if kinds & county_classes}


def test_twenty_eighth_read_no_pattern_filled_with_a_subject_it_does_not_fit(twenty_eighth_read_build):
    """Over every grid row: no P17 statement is the property label's calque ('The country of Agimuga is',
    ', whose country is': the thirtieth read) and no P17 subject is an organisation, a band or an award by
    its class (P17's patterns say where a place lies: 'Asylum Records lies in the United States of America'),
    no P407 one calls its subject a 'work' (words, websites, stations: 'Kyne is
    an English-language work'), no P178 one says 'which developed/created' or 'and its product' (human
    developers: 'Alexey Pajitnov, which developed'); no P276 subject is one the read found no physical thing
    ('Evacuation Day is located in Boston'); no P36 subject nor P1376 answer is a county of the United States
    ('The capital of Sequoyah County, Oklahoma, is Sallisaw': English says county seat). Each relation keeps
    at least 5 patterns."""
    result = twenty_eighth_read_build
    patterns, grid, instances = (table(result, c) for c in ("patterns", "grid", "instances"))
    per_relation = patterns.group_by("relation_id").len()
    assert dict(per_relation.rows()).keys() >= {"P17", "P407", "P178", "P276", "P36", "P1376"}
    assert min(n for _, n in per_relation.rows()) >= 5
    wordings = {
        "P17": re.compile(r"^The country of |, whose country is "),
        "P407": re.compile(r"-language work\b|\ba work in the\b"),
        "P178": re.compile(r"\bwhich (?:developed|created)\b|\band its product\b"),
    }
    statements = grid.select("relation_id", "statement").rows()
    faulted = [(r, s) for r, s in statements if r in wordings and wordings[r].search(s)]
    assert faulted[:10] == [] and len(statements) > 50000
    counties, classes = united_states_counties(), slice_classes()
    assert len(counties) > 500
    misfits = [
        (r, s, o)
        for r, s, o in instances.select("relation_id", "sub_id", "obj_id").rows()
        if (r == "P276" and s in READ28_UNLOCATED_SUBJECTS)
        or (r == "P17" and classes.get(s, set()) & READ30_NO_PLACE_CLASSES)
        or (r == "P36" and s in counties)
        or (r == "P1376" and o in counties)
    ]
    assert misfits[:10] == []
    asked = dict(instances.group_by("relation_id").len().rows())
    assert asked["P36"] > 300 and asked["P1376"] > 300 and asked["P276"] > 100


def test_twenty_eighth_read_every_answer_is_of_its_relations_kind(twenty_eighth_read_build):
    """Over every instance, judged from the slice's TSV: none of the answers the read found of the wrong
    kind is asked (READ28_WRONG_ANSWERS: 'worked in the field of composer', 'worked as a superhero', 'spoke
    polyglot', 'adhered to Twelver', 'is named after Tilia'); every classed P37/P1412 answer has a language
    class; no P138 answer is a taxon or a plant (Q16521, Q756); no P264 answer is a lower-case label of no
    class ('Spears's label was passport'); no P136 or P101 answer (no subject) is shown capitalised where
    the slice gives the label's lower-case form as an alias ('Magnetic Man played Dubstep', 'Crystallography')."""
    result = twenty_eighth_read_build
    classes, names = slice_classes(), slice_names()
    instances = table(result, "instances")
    rows = instances.select("relation_id", "obj_id").rows()
    wrong = [(r, o) for r, o in rows if o in READ28_WRONG_ANSWERS.get(r, ())]
    not_languages = [
        (r, o)
        for r, o in rows
        if r in ("P37", "P1412")
        and classes.get(o)
        and not any(LANGUAGE_CLASS_LABEL.search(names.get(c, ("",))[0]) for c in classes[o])
    ]
    taxa = [(r, o) for r, o in rows if r == "P138" and classes.get(o, set()) & {"Q16521", "Q756"}]
    common_labels = [
        (r, o) for r, o in rows if r == "P264" and not classes.get(o) and names.get(o, ("",))[0][:1].islower()
    ]
    # a P136 genre or a P101 field shown as English writes it where the slice's aliases say so ('Dubstep' ->
    # 'dubstep', 'Crystallography'), unless it is a subject too (a statement opens with it)
    subjects = set(instances["sub_id"])
    capitalised = [
        label
        for r, o, label in instances.select("relation_id", "obj_id", "obj_label").rows()
        if r in ("P136", "P101")
        and o not in subjects
        and label[:1].isupper()
        and label[:1].lower() + label[1:] in names.get(o, ())[1:]
    ]
    assert (wrong, not_languages, taxa, common_labels, capitalised) == ([], [], [], [], [])
    assert len(rows) > 15000

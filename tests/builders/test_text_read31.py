"""The thirty-first and thirty-second reads' label faults (issue 25): shared label rules of the Wikidata families.

A label English reads with "the" filled without it ("part of Beijing Subway", "1704 is part of 1700s"), a name's
own "The" capitalised inside a sentence ("a member of The Royal Prussian Academy of Sciences"), "the" before a
firm named by its partners ("The Dow Jones & Company"), a possessive on a name closed by a comma ("Infante Henry,
Duke of Villena's occupation"), and residue: a firm's or a club's abbreviation ending the name ("Warner Bros.",
"Electric Boat Co.", "Queens Park Rangers F.C."), an acronym before a place ("HU Berlin"), catalogue and season
headings, titles cut at a colon, a backtick, a user's handle ("GregKH"). Each rule by its form, then over every
fill of real builds: the oracles read the slice's TSV and the reviewers' heads, not the builders' tables.
"""

import re

import pytest

from probesmith.builders.names import (
    acronym_before_name,
    full_name,
    label_problem,
    plain_name,
    spelled_out,
    without_legal_form,
)
from probesmith.builders.text import (
    fill_template,
    lower_case_own_article,
    possessive_after_qualifier,
    takes_definite_article,
)
from tests.builders.families.test_relations import build_relations, every_fill, table
from tests.conftest import slice_classes, slice_names


@pytest.mark.parametrize(
    "name, takes_the",
    [
        # the thirty-first read's labels filled without "the"
        ("Guadalcanal Campaign", True),
        ("Iron Age", True),
        ("Beijing Subway", True),
        ("Northwest Territories", True),
        ("Northern Territory", True),
        ("Royal Dramatic Theatre", True),
        ("World Wide Web Consortium", True),
        ("South Pole", True),
        ("Ytterby mine", True),
        ("Gotthard Base Tunnel", True),
        ("Basilica Cistern", True),
        ("Swan Inn", True),
        ("Galleria Palatina", True),
        ("Universe Championships", True),
        ("Pontcysyllte Aqueduct", True),
        ("New Zealand Journal of Asian Studies", True),
        ("Zeitun Rebellion", True),
        ("Action of 14 August 1564", True),
        ("Nymphenburg Porcelain Manufactory", True),
        ("Hala'ib Triangle", True),
        # the thirty-second read's
        ("1700s", True),
        ("890s", True),
        ("Isrosene Nunataks", True),
        ("Bach Ice Shelf", True),
        ("Taking Chances Tour", True),
        ("Rijksmuseum", True),
        ("Kunstmuseum Basel", True),
        ("Alte Nationalgalerie", True),
        ("Pinacoteca di Brera", True),
        ("Museo del Prado", True),
        ("Musée d'Orsay", True),
        ("boulevard Saint-Germain", True),
        ("place de la Concorde", True),
        # no "the": a firm named by its partners, a name with its own article, names English writes bare
        ("Dow Jones & Company", False),
        ("Needham & Company", False),
        ("Le Journal", False),
        ("Harvard University", False),
        ("Lake Superior", False),
        ("Hudson Bay", False),
        ("Ford's Theatre", False),
        ("He's Mine", False),
        ("Coming of Age", False),
        ("Mind Games", False),
        ("Elizabeth: The Golden Age", False),
        ("London Bridge", False),
        ("Wembley Stadium", False),
        ("Buckingham Palace", False),
        ("Chemikal Underground", False),
        ("1984", False),
    ],
)
def test_thirty_first_read_names_read_with_the(name, takes_the):
    assert takes_definite_article(name) is takes_the


@pytest.mark.parametrize(
    "template, subject, obj, statement",
    [
        (
            "[X] was a member of [Y].",
            "Max Planck",
            "The Royal Prussian Academy of Sciences",
            "Max Planck was a member of the Royal Prussian Academy of Sciences.",
        ),
        ("[X] is endemic to [Y].", "Leiocephalus greenwayi", "The Bahamas", "Leiocephalus greenwayi is endemic to the Bahamas."),
        ("[X] is located in [Y].", "The Bahamas", "Caribbean", "The Bahamas is located in the Caribbean."),
        ("[Y] owns [X].", "The Walt Disney Company", "ABC", "ABC owns the Walt Disney Company."),
        # a title and names whose rest takes no "the" keep their capital
        ("[X] was directed by [Y].", "The Thin Red Line", "Terrence Malick", "The Thin Red Line was directed by Terrence Malick."),
        ("[Y] wrote [X].", "The Republic of Wine", "Mo Yan", "Mo Yan wrote The Republic of Wine."),
        ("[X] lies in [Y].", "Scheveningen", "The Hague", "Scheveningen lies in The Hague."),
        ("The owner of [X] is [Y].", "Dow Jones & Company", "News Corp", "The owner of Dow Jones & Company is News Corp."),
        ("[X] is part of [Y].", "Xuanwumen station", "Beijing Subway", "Xuanwumen station is part of the Beijing Subway."),
        ("[X] is part of [Y].", "1704", "1700s", "1704 is part of the 1700s."),
        ("[X] is situated in [Y].", "Isrosene Nunataks", "Antarctica", "The Isrosene Nunataks are situated in Antarctica."),
        # a possessive on a name closed by a comma is written with "of"; the comma closes the name
        (
            "[X]'s occupation was that of a [Y].",
            "Infante Henry, Duke of Villena",
            "soldier",
            "The occupation of Infante Henry, Duke of Villena, was that of a soldier.",
        ),
        ("[X]'s capital city is [Y].", "Central Division, Fiji", "Suva", "The capital city of Central Division, Fiji, is Suva."),
        ("[Y] was [X]'s mother tongue.", "Infante Henry, Duke of Villena", "Spanish", "Spanish was the mother tongue of Infante Henry, Duke of Villena."),
        ("[X]'s death took place in [Y].", "Juan Prim, 1st Marquis of los Castillejos", "Madrid", "The death of Juan Prim, 1st Marquis of los Castillejos, took place in Madrid."),
        # a list's comma is no appositive: the possessive stays
        ("[X]'s label was [Y].", "Blood, Sweat & Tears", "Columbia", "Blood, Sweat & Tears' label was Columbia."),
    ],
)  # fmt: skip
def test_thirty_first_read_fills(template, subject, obj, statement):
    filled = fill_template(template, subject, obj)
    assert filled == statement
    if "&" not in subject:  # a list's possessive is the whole name's
        assert not possessive_after_qualifier(filled, subject)


def test_a_names_own_the_is_lowered_for_states_bodies_and_firms_only():
    assert lower_case_own_article("The Bahamas") and lower_case_own_article("The Coca-Cola Company")
    assert not lower_case_own_article("The Gambia") and not lower_case_own_article("The Plastic Age")
    assert not lower_case_own_article("Royal Prussian Academy of Sciences")
    # a name known by its class as a work's or a band's keeps its capital ("The Learning Company" a film's name)
    assert fill_template("[X] was made by [Y].", "Reader Rabbit", "The Learning Company") == (
        "Reader Rabbit was made by the Learning Company."
    )
    assert fill_template(
        "[X] was made by [Y].",
        "Reader Rabbit",
        "The Learning Company",
        names=frozenset({"The Learning Company"}),
    ) == ("Reader Rabbit was made by The Learning Company.")


@pytest.mark.parametrize(
    "label, aliases, shown",
    [
        ("Warner Bros.", ["WB", "Warner Bros. Pictures", "Warner Brothers"], "Warner Brothers"),
        ("Warner Bros.", ["WBR", "Warner Bros. Records"], "Warner Bros. Records"),
        ("Electric Boat Co.", ["GDEB", "General Dynamics Electric Boat"], "General Dynamics Electric Boat"),
        ("Mediaset S.p.A.", ["Gruppo Mediaset", "Mediaset"], "Mediaset"),
        ("Queens Park Rangers F.C.", ["QPR", "Queens Park Rangers"], "Queens Park Rangers"),
        ("Rhyl F.C.", ["Rhyl Football Club"], "Rhyl Football Club"),
        ("Sun Shipbuilding & Drydock Co.", ["Sun Shipbuilding & Drydock Company"], "Sun Shipbuilding & Drydock Company"),
        ("Kitson & Co.", ["Kitson and Company", "Kitson, Hewitson & Thompson"], "Kitson and Company"),
        ("Super Smash Bros.", ["SSB", "Smash Bros.", "Super Smash", "Super Smash Brothers"], "Super Smash Brothers"),
        # an alias of another club (a figure) or a phrase is no name of it
        ("Modena F.C.", ["Modena F.C. 2018"], "Modena F.C."),
        ("Beijing Guoan F.C.", ["Beijing Guoan in Asian football"], "Beijing Guoan F.C."),
        ("Tose Co.", ["Tose Co., Ltd."], "Tose Co."),
        ("Cyan, Inc.", ["Cyan"], "Cyan"),
        ("HU Berlin", ["Humboldt University of Berlin", "Humboldt-Universität zu Berlin"], "Humboldt University of Berlin"),
        ("AC Milan", ["Associazione Calcio Milan"], "AC Milan"),
        ("Martin Luther King Jr.", ["MLK"], "Martin Luther King Jr."),
    ],
)  # fmt: skip
def test_residue_shown_by_an_alias_without_it(label, aliases, shown):
    assert plain_name(label, aliases) == shown
    if label.endswith(".") and label != "Martin Luther King Jr.":
        assert without_legal_form(label, aliases) == shown
    # a label no alias rescues is no name (its rows are left out); a shown alias is one
    assert bool(label_problem(shown)) is bool(shown == label and FIRM_ABBREVIATION.search(label))


def test_acronyms_before_a_place_handles_and_spelled_out_schools():
    assert spelled_out("HU Berlin", ["Humboldt University of Berlin"]) == "Humboldt University of Berlin"
    assert (
        acronym_before_name("UT Austin", ["University of Texas at Austin"]) == "University of Texas at Austin"
    )
    assert acronym_before_name("PJ Harvey", ["Polly Jean Harvey"]) is None
    assert full_name("GregKH", ["Greg Kroah-Hartman"]) == "Greg Kroah-Hartman"
    assert full_name("GregKH", ["Gregory Hartman"]) is None


@pytest.mark.parametrize(
    "label, problem",
    [
        ("Pipe-1906.408.0023.1-2", "inventory"),
        ("Octopus inrō-BHM 1073", "inventory"),
        ("Attic funerary stele-Inv. 376", "inventory"),
        ("Lavoisier in his laboratory-Louis Ernest Barrias-MG 1617", "inventory"),
        ("Bones, season 9", "season"),
        ("Vol. 3:", "colon"),
        ("Shafi`i", "backtick"),
        ("Św.Klary Bridge", "glued"),  # the thirty-second read's P177 ("Św." is Polish "Saint")
        ("Milestone S.r.l.", "abbreviation"),
        ("skip Ltd.", "abbreviation"),
        ("Yak-9", None),
        ("Mercedes-Benz W123", None),
        ("sixth season of The Simpsons", None),
        ("NTSF:SD:SUV::", None),
        ("Washington, D.C.", None),
    ],
)
def test_residue_labels_are_no_names(label, problem):
    found = label_problem(label)
    assert (found is None) if problem is None else (problem in found)


# ---- over every fill of real builds ------------------------------------------------------------------------------

# heads the reviewers read with "the" (the thirty-first and thirty-second reads' lists), as a label's last word
# after a capitalised modifier, and decades in figures
REVIEWED_THE = re.compile(
    r"^(?:[A-Z][\w'’-]* )+(?:Subway|Tunnel|Aqueduct|Cistern|Theatre|Consortium|Age|Campaign|Rebellion|Pole|"
    r"Territory|Territories|Manufactory|Nunataks|Shelf|Tour)$|^\d*0s$"
)
# a firm's or a club's abbreviation and its full stop ending a label
FIRM_ABBREVIATION = re.compile(r"\b(?:Bros|Co|Ltd|Inc|Corp|S\.r\.l|S\.p\.A|S\.A|N\.V|F\.C|A\.F\.C|C\.F)\.$")
WORK_CLASSES = {
    "Q11424",
    "Q7725634",
    "Q47461344",
    "Q571",
    "Q482994",
    "Q134556",
    "Q7366",
    "Q5398426",
    "Q215380",
}


def bare_reviewed_heads(texts_and_labels) -> list[str]:
    """Texts that hold a label of a reviewed head with no "the" before it."""
    return [
        text
        for text, label in texts_and_labels
        if REVIEWED_THE.match(label)
        and label in text
        and not re.search(rf"(?i)\bthe {re.escape(label)}", text)
        and not re.search(rf"\b(?:its|their|his|her|whose|a|an) {re.escape(label)}", text)
    ]


@pytest.fixture(scope="module")
def read31_labels_build(tmp_path_factory, wikidata_store):
    """The relations where the reads found these labels: P463, P69, P264, P176, P183, P195, P115, P1441."""
    relations = ["P463", "P69", "P264", "P176", "P183", "P195", "P115", "P1441"]
    return build_relations(tmp_path_factory, wikidata_store, "relations-read31-labels", relations)


def test_relations_labels_over_every_fill(read31_labels_build):
    """Over every instance x template x answer: no reviewed head without "the", no capital "The" of a state's,
    body's or firm's name inside a sentence (classes from the slice: not a work nor a band), no label ending in
    a firm's or club's abbreviation, no school's acronym that the slice spells out."""
    names, classes = slice_names(), slice_classes()
    instances = table(read31_labels_build, "instances")
    ids = {
        label: e
        for row in instances.iter_rows(named=True)
        for label, e in ((row["sub_label"], row["sub_id"]), (row["obj_label"], row["obj_id"]))
    }
    bare, capital, residue, acronyms, fills = [], [], [], [], 0
    for row, answer, text in every_fill(read31_labels_build):
        fills += 1
        bare += bare_reviewed_heads([(text, row["sub_label"]), (text, answer)])
        for label in (row["sub_label"], answer):
            entity = ids.get(label)
            if (
                label.startswith("The ")
                and label[4:] in names.get(entity, ())
                and not classes.get(entity, set()) & WORK_CLASSES
                and re.search(
                    r"(?:Academy|Company|Institute|University|Islands|Bahamas|Philippines)\b", label
                )
                and f" {label}" in text
            ):
                capital.append(text)
            if FIRM_ABBREVIATION.search(label):
                residue.append(text)
            if re.fullmatch(r"[A-Z]{2,5} [A-Z]\w+", label) and any(
                " of " in alias and "University" in alias for alias in names.get(entity, ())
            ):
                acronyms.append(text)
    assert fills > 10_000
    assert (bare, capital, residue, acronyms) == ([], [], [], [])


def test_paraphrases_grid_reads_reviewed_heads_with_the_and_no_possessive_on_a_comma(small_paraphrases_build):
    """Over every grid row of the small build (P19, P36, P103, P30, P138): a verbalization of a reviewed head
    has "the" ("The Isrosene Nunataks are situated in"), and no possessive falls on a comma's qualifier."""
    grid = table(small_paraphrases_build, "grid").select("verbalization", "statement").rows()
    assert grid
    assert bare_reviewed_heads([(s, v) for v, s in grid]) == []
    # a list's commas are the name's own ("Southern Nations, Nationalities, and Peoples' Region's capital")
    appositives = [s for v, s in grid if possessive_after_qualifier(s, v) and not re.search(r"&| and ", v)]
    assert appositives == []


def test_rules_items_bear_no_abbreviation_residue(small_rules_build):
    """Over every item of the small rules build: no answer nor question holds a label ending in a firm's or a
    club's abbreviation, nor a school's acronym before its place ("HU Berlin")."""
    items = table(small_rules_build, "knowledge_items")
    texts = [t for col in ("question", "answer") for t in items[col].to_list()]
    assert texts
    assert [t for t in items["answer"].to_list() if FIRM_ABBREVIATION.search(t)] == []
    assert [t for t in texts if "HU Berlin" in t] == []

"""The thirty-first read's class faults of relation templates (issue 25), over every instance of a real build.

A template true of most subjects and golds of a relation but false of a class of them: P669 "stands on"
a square ("stands on Charles Square": in), P2632 "imprisoned at" an island ("at Robben Island": on; a
ghetto is filled "in the Łódź Ghetto") or a place taking "the" ("at Penal colony of New Caledonia"),
P610 "the highest peak" (a range's, a massif's), P466 "was based at" an event, a deity or a tomb's dead, P945
"served" a movement ("served Carlism"), P97 a foreign title ("held the title of graf") or a masculine one of a woman named by her title
("Margravine Magdalene Sibylle" / "marquess"), P427 a taxon's common
name ("typified by Bay bolete") and a family-group subject named after its type genus ("Apiaceae" -> "Apium"),
P495 people ("Dannii Minogue comes from"), P36 a dissolved state in the present ("The capital of Republic of
Artsakh is"), P7937 "a" before a mass noun ("a instrumental music"); and relation_info's changes_over_time
(P98 editor, P1532 country for sport were missing). The thirty-second read's: P86 "composed the music for" a
work that is music ("Trout Quintet"), P7959 and P30 events and past polities in the present ("Tiwanaku Empire
is located in South America"), P610 "the highest peak" of hills, P177 "The Putney Bridge crosses the River
Thames" (British bridges take no "the"); P98 an organisation "served as editor of" (the thirty-first read). Every check reads the slice's TSV, not the builder.
"""

import itertools
import re

import polars as pl
import pytest

from probesmith.builders.textcheck import spell_checker
from tests.builders.families.test_relations import build_relations, every_fill, table
from tests.conftest import slice_classes, slice_names, slice_relations

READ_31 = "P669 P2632 P610 P466 P945 P97 P427 P495 P36 P1376 P7937 P98 P1532 P86 P7959 P30 P177".split()

# classes read from the slice's P31 labels (square, island, mountain range, massif, event, deity, tomb,
# movement, ideology, human)
SQUARES = {"Q174782", "Q2026833", "Q28793904"}
ISLANDS = {"Q23442", "Q13691", "Q33837", "Q42523", "Q1226252", "Q1402592"}
RANGES = {"Q46831", "Q1061151", "Q1437459", "Q56298568"}
DEITIES = {"Q178885", "Q205985", "Q6058157", "Q22989102", "Q11688446", "Q979507", "Q146083", "Q16513881"}
EVENTS = {"Q276", "Q178561", "Q1656682", "Q1190554"}  # Eurovision Song Contest, battle, event, occurrence
MOVEMENTS = {"Q2738074", "Q49773", "Q12909644", "Q7257", "Q138796", "Q20642011", "Q1826286"}
TOMBS = {"Q381885"}
HUMAN = "Q5"
# the P669 objects of the slice that are squares by their name, read one by one among its 100 (not the
# builder's SQUARE_NAME): Moravské náměstí, Trafalgar Square, Charles Square, Helvetiaplatz, place de la
# République, place de la Concorde, Grand Place, Piazza San Marco, Oriente square, Praça da Sé, Freedom
# Square, Náměstí Zachariáše z Hradce, Place Vendôme, Wenceslas Square, place des Vosges
SQUARES_BY_NAME = set(
    "Q12038666 Q129143 Q1514053 Q1604636 Q175055 Q189503 Q215429 Q217527 Q2193218 Q2880208 Q3565942 "
    "Q43587475 Q643520 Q847613 Q898629".split()
)


def named_from_its_gold(subject: str, gold: str) -> bool:
    """Whether a one-word taxon name is formed from its type's stem ("Apiaceae" from "Apium", "Lithosiina" from
    "Lithosia"): it opens with the gold's first three letters and is not the gold's genus (a species of the
    genus is the leak rule's). Written from what the fault is, not from the builder's rank endings; it misses
    "Rutaceae", whose type the slice labels "Ruda"."""
    return len(subject.split()) == 1 and gold.split()[0] != subject and subject[:3] == gold[:3]


WOMAN = re.compile(
    r"(?i)\b(?:queen|empress|princess|duchess|archduchess|countess|margravine|landgravine|electress"
    r"|marchioness|viscountess|baroness|lady|dame|infanta)\b"
)
# Republic of Artsakh, dissolved 1 January 2024; Tiwanaku Empire, about 500-1000 AD (the slice dates neither)
DISSOLVED = {"Q244165", "Q1307407"}
PAST_POLITIES = {"Q3024240", "Q164950", "Q12857432"}  # historical country, dynasty, Chinese dynasty
EVENT_WORD = re.compile(r"\b(?:Championships?|disaster|Battle|War|Olympics|massacre|Games)\b")


def class_faults(instances: pl.DataFrame, templates: pl.DataFrame) -> dict[str, list]:
    """Per rule of the thirty-first read, the instances (relation, subject, gold) of the class it names."""
    classes, speller = slice_classes(), spell_checker()
    found: dict[str, list] = {
        rule: []
        for rule in (
            "P669 square or lower-case street",
            "P2632 island or a place that takes the",
            "P610 range or massif",
            "P466 event, deity or tomb",
            "P945 movement",
            "P97 foreign title",
            "P97 woman with a masculine title",
            "P427 common name or family-group subject",
            "P495 person",
            "P36 dissolved state",
            "P86 music of a work that is music",
            "P7959 or P30 event or past polity in the present",
            "P177 a British bridge after the template's 'The'",
            "P98 editor typed as no person",
        )
    }
    for row in instances.iter_rows(named=True):
        pid, s, o = row["relation_id"], row["sub_id"], row["obj_id"]
        label, subject = row["obj_label"], row["sub_label"]
        gold_classes, subject_classes = classes.get(o, set()), classes.get(s, set())
        item = (pid, subject, label)
        if pid == "P669" and (gold_classes & SQUARES or o in SQUARES_BY_NAME or label[:1].islower()):
            found["P669 square or lower-case street"].append(item)
        if pid == "P2632" and (
            gold_classes & ISLANDS or re.search(r"\bIsland\b", label) or label.startswith("Penal colony of ")
        ):
            found["P2632 island or a place that takes the"].append(item)
        if pid == "P610" and (gold_classes & RANGES or re.search(r"\b(?:Mountains|Range|Massif)\b", label)):
            found["P610 range or massif"].append(item)
        if pid == "P466" and (
            gold_classes & (DEITIES | EVENTS) or subject_classes & TOMBS or o == "Q455602" or s == "Q1719144"
        ):
            found["P466 event, deity or tomb"].append(item)
        if pid == "P945" and (gold_classes & MOVEMENTS or re.search(r"(?:ism|ismo)$", label)):
            found["P945 movement"].append(item)
        if pid == "P97" and not all(speller.known(w) for w in re.split(r"[\s-]+", label) if w):
            found["P97 foreign title"].append(item)
        if pid == "P97" and WOMAN.search(subject) and not WOMAN.search(label) and "consort" not in label:
            found["P97 woman with a masculine title"].append(item)
        if pid == "P427" and (
            named_from_its_gold(subject, label)
            or (len(label.split()) > 1 and label.split()[0].lower() in {"bay", "red", "northern"})
            or any(p.islower() and speller.known(p) for w in label.split()[1:] for p in w.split("-") if p)
        ):
            found["P427 common name or family-group subject"].append(item)
        if pid == "P177" and o == "Q19686":  # River Thames: "The Putney Bridge crosses the River Thames"
            found["P177 a British bridge after the template's 'The'"].append(item)
        if pid == "P98" and gold_classes and not gold_classes & {HUMAN, "Q15632617"}:
            found["P98 editor typed as no person"].append(item)
        if pid == "P495" and HUMAN in subject_classes:
            found["P495 person"].append(item)
        if pid in ("P36", "P37") and s in DISSOLVED or pid == "P1376" and o in DISSOLVED:
            found["P36 dissolved state"].append(item)
        if pid in ("P7959", "P30") and (
            s in DISSOLVED
            or subject_classes & PAST_POLITIES
            or EVENT_WORD.search(subject)
            or re.match(r"(?:1[5-9]|20)\d\d ", subject)
        ):
            found["P7959 or P30 event or past polity in the present"].append(item)
    for pid, template in templates.select("relation_id", "template").iter_rows():
        if pid == "P86" and re.search(r"\bmusic (?:of|for)\b", template):
            found["P86 music of a work that is music"].append((pid, "template", template))
    if "P610" in set(templates["relation_id"]):
        p610 = templates.filter(pl.col("relation_id") == "P610")["template"].to_list()
        found["P610 range or massif"] += [("P610", "template", t) for t in p610 if "highest peak" in t]
    return found


@pytest.fixture(scope="module")
def read31_build(tmp_path_factory, wikidata_store):
    """The relations of the thirty-first read's class findings, built once from the default spec."""
    return build_relations(tmp_path_factory, wikidata_store, "relations-read31", READ_31)


def test_thirty_first_read_no_instance_of_a_misstated_class(read31_build):
    """Over every instance (classes and names from the slice's TSV): no gold or subject of a class the
    relation's templates misstate (the HEAD build 6d32ff44 had 42 P669, 40 P2632, 2 P610 and its template,
    3 P466, 17 P945, 99 P97, 7 P427, 6 P495, 2 P36/P1376, 3 P7959/P30, 14 P177, 2 P98 such instances and P86's
    3 templates);
    every relation is still built with 5+ answers."""
    instances, templates = table(read31_build, "instances"), table(read31_build, "templates")
    found = class_faults(instances, templates)
    assert {r: v for r, v in found.items() if v} == {}
    counts = instances.group_by("relation_id").agg(pl.col("obj_id").n_unique())
    assert set(counts["relation_id"]) == set(READ_31) and counts["obj_id"].min() >= 5


def test_thirty_first_read_no_article_before_a_mass_noun_over_every_fill(read31_build):
    """Over every instance x template x answer: no "a"/"an" before an answer the filler reads as a mass
    noun ("takes the form of a instrumental music": the filler says "takes the form of instrumental music")."""
    fills = list(every_fill(read31_build))
    assert any(answer == "instrumental music" for _, answer, _ in fills)  # the mass noun is asked
    bad = [text for _, answer, text in fills if re.search(rf"\ban? {re.escape(answer)}\b", text)]
    assert not [t for t in bad if "instrumental music" in t]


def test_thirty_first_read_relations_that_change_with_time_are_marked(read31_build):
    """relation_info marks P98 (editors are succeeded), P1532 (athletes change countries), P945, P36 (capitals
    move and are renamed: Nur-Sultan, Astana) as changing with time, and the card names each."""
    info = table(read31_build, "relation_info")
    marked = set(info.filter(pl.col("changes_over_time"))["relation_id"])
    assert {"P98", "P1532", "P945", "P36"} <= marked
    card = (read31_build.out / "README.md").read_text()
    assert all(f"- {pid} " in card for pid in ("P98", "P1532", "P945", "P36")) and "Astana" in card


def test_slice_names_are_read():
    """The slice's names the checks above read are there (Amaterasu, KV34, Republic of Artsakh)."""
    names = slice_names()
    assert names["Q455602"][0] == "Amaterasu" and names["Q1719144"][0] == "KV34"
    assert names["Q244165"][0] == "Republic of Artsakh"


def test_square_and_type_name_oracles_read_the_slice():
    """The hand-read squares are P669 objects of the slice labelled as read; the type-name oracle reads the
    family-group names and the subtribes ('-ina', which the builder's endings lack) of the slice's P427 pairs,
    and not a genus typified by a species of another stem ('Arctonotus')."""
    names, p669 = slice_names(), slice_relations()["P669"]
    assert SQUARES_BY_NAME <= {o for objects in p669.values() for o in objects}
    assert {names[o][0] for o in SQUARES_BY_NAME} >= {"Trafalgar Square", "Oriente square", "Praça da Sé"}
    typed = {(names[s][0], names[o][0]) for s, objects in slice_relations()["P427"].items() for o in objects}
    assert {("Apiaceae", "Apium"), ("Phabini", "Phaps"), ("Lithosiina", "Lithosia")} <= typed
    assert all(named_from_its_gold(s, o) for s, o in [("Apiaceae", "Apium"), ("Lithosiina", "Lithosia")])
    assert not named_from_its_gold("Arctonotus", "Arctonotus lucidus")
    assert not any(named_from_its_gold(s, o) for s, o in typed if s == "Arctonotus")


# the thirty-second read's label faults (section (2) and review32 (b)) that are a class: a school or institution
# shown by its place's name alone ("educated at Eton": Eton College, 20 P69 rows) and a person's vandalised label
# ("France Prešeren liam je gey died from liver cirrhosis"; the slice's alias is "France Prešern")
READ_32_LABELS = "P69 P108 P509".split()
INSTITUTION_HEADS = (
    "School College University Academy Institute Institution Seminary Conservatory Gymnasium Lyceum Polytechnic"
).split()


def shown_by_a_place_name(shown: str, names: tuple[str, ...], class_labels: list[str]) -> bool:
    """Whether an entity is a school or institution shown by its place's name: the label has no institution
    head noun, a slice alias is the label with one ('Eton' / 'Eton College', 'Oregon' / 'University of Oregon')
    and the slice types it by a class of schools (not of teams: 'university and college sports club') or not
    at all."""
    if any(head.lower() in shown.lower().split() for head in INSTITUTION_HEADS):
        return False
    extended = {f"{shown} {head}" for head in INSTITUTION_HEADS} | {
        f"{the}{head} of {shown}" for head in INSTITUTION_HEADS for the in ("", "The ")
    }
    schoolish = [
        c for c in class_labels if any(h.lower() in c.lower() for h in INSTITUTION_HEADS) and "club" not in c
    ]
    return bool(extended & set(names[1:])) and (schoolish or not class_labels)


def vandalised_person_label(label: str, speller) -> bool:
    """Whether a person's label runs on after capitalised name words into two or more lower-case words of
    which one is no Hunspell en_US word ('France Prešeren liam je gey'; 'John Kersey the elder' reads)."""
    words = label.split()
    tail = list(itertools.takewhile(lambda w: re.fullmatch("[a-z]+", w), reversed(words)))
    name = words[: len(words) - len(tail)]
    return (
        len(tail) >= 2
        and name[-1:] != []
        and name[-1][:1].isupper()
        and any(not speller.known(w) for w in tail)
    )


def label_faults(instances: pl.DataFrame) -> dict[str, list]:
    """Per label fault of the thirty-second read, the instances (relation, subject, answer) that show it."""
    names, classes, speller = slice_names(), slice_classes(), spell_checker()
    found: dict[str, list] = {"institution by its place's name": [], "person's vandalised label": []}
    for row in instances.iter_rows(named=True):
        item = (row["relation_id"], row["sub_label"], row["obj_label"])
        for side in ("sub", "obj"):
            e = row[f"{side}_id"]
            class_labels = [names.get(c, ("",))[0] for c in classes.get(e, set())]
            if shown_by_a_place_name(row[f"{side}_label"], names.get(e, ("",)), class_labels):
                found["institution by its place's name"].append(item)
        if HUMAN in classes.get(row["sub_id"], set()) and vandalised_person_label(row["sub_label"], speller):
            found["person's vandalised label"].append(item)
    return found


@pytest.fixture(scope="module")
def read32_labels_build(tmp_path_factory, wikidata_store):
    """The relations of the thirty-second read's label faults, built once from the default spec."""
    return build_relations(tmp_path_factory, wikidata_store, "relations-read32-labels", READ_32_LABELS)


def test_thirty_second_read_no_label_of_a_faulty_class(read32_labels_build):
    """Over every instance (names and classes from the slice's TSV): no school shown by its place's name
    ("educated at Eton"; 20 P69 instances on the HEAD build 6d32ff44) and no person by a vandalised label (1
    P509 instance); Eton College is shown so, and France Prešeren, where asked, by the alias 'France Prešern' (the
    vandal's label is no alias either)."""
    instances = table(read32_labels_build, "instances")
    assert {r: v for r, v in label_faults(instances).items() if v} == {}
    eton = instances.filter(pl.col("obj_id") == "Q192088")
    assert eton.height and set(eton["obj_label"]) == {"Eton College"}
    preseren = instances.filter(pl.col("sub_id") == "Q1031")
    assert preseren.height and set(preseren["sub_label"]) == {"France Prešern"}
    assert not any("France Prešeren liam je gey" in aliases for aliases in preseren["sub_aliases"])


def test_thirty_second_read_label_oracles_read_the_faults():
    """The oracles above find the read's cases and pass names that read ('John Kersey the elder', 'Oregon
    Ducks', a team whose alias is 'University of Oregon Ducks')."""
    speller = spell_checker()
    assert vandalised_person_label("France Prešeren liam je gey", speller)
    assert not vandalised_person_label("John Kersey the elder", speller)
    assert not vandalised_person_label("Vincent van Gogh", speller)
    names = slice_names()
    assert shown_by_a_place_name("Eton", names["Q192088"], ["boarding school"])
    assert not shown_by_a_place_name("Oregon Ducks", names["Q200410"], ["university and college sports club"])
    assert not shown_by_a_place_name("Eton College", ("Eton", "Eton College"), ["boarding school"])


def namesake_faults(instances: pl.DataFrame, answers: pl.DataFrame) -> list[tuple[str, str, str, str]]:
    """``(relation, subject, namesake, answer)`` where another entity of the slice bears the subject's label
    (names and facts from the slice's TSV, not the builder) and holds the relation with an answer of the
    space that is no gold of the instance: asked by the name alone, that answer is as right as the gold."""
    by_label: dict[str, list[str]] = {}
    for qid, names in slice_names().items():
        if names[0]:
            by_label.setdefault(names[0], []).append(qid)
    facts = slice_relations()
    space = {r: set(g["obj_id"]) for (r,), g in answers.group_by("relation_id")}
    faults = []
    for row in instances.iter_rows(named=True):
        pid, subject = row["relation_id"], row["sub_id"]
        for other in by_label.get(row["sub_label"], ()):
            if other != subject:
                wrong = (facts[pid].get(other, set()) & space[pid]) - set(row["gold_obj_ids"])
                faults += [(pid, row["sub_label"], other, answer) for answer in sorted(wrong)]
    return faults


NAMESAKE_RELATIONS = "P449 P264 P413 P364 P1303".split()


@pytest.fixture(scope="module")
def namesakes_build(tmp_path_factory, wikidata_store):
    """The relations where the thirty-third read found most subjects named as another entity is."""
    return build_relations(tmp_path_factory, wikidata_store, "relations-read33-namesakes", NAMESAKE_RELATIONS)


def test_thirty_third_read_no_subject_shares_its_name_with_another_answer_holder(namesakes_build):
    """Over every instance: no other entity of the slice bears the subject's label and holds the relation with
    a non-gold answer of the space ('The Magic Flute': Bergman's film's Swedish beside the opera's German;
    'Prince': the artist's labels beside the album's). The default build 087d6a06 had 46 such pairs in 37
    instances (P413 11, P449 11, P264 8, P364 8, P1303 3, ...); relations drops them
    (wikidata_queries.namesakes_with_other_objects)."""
    faults = namesake_faults(table(namesakes_build, "instances"), table(namesakes_build, "answer_spaces"))
    assert faults == []


def test_namesake_oracle_reads_the_slice():
    """The oracle sees what the read found: the film 'The Magic Flute' (Q1651543) is in Swedish (P364)."""
    instances = pl.DataFrame(
        {
            "relation_id": ["P364"],
            "sub_id": ["Q5064"],
            "sub_label": ["The Magic Flute"],
            "gold_obj_ids": [["Q188"]],
        }
    )
    answers = pl.DataFrame({"relation_id": ["P364", "P364"], "obj_id": ["Q188", "Q9027"]})
    assert ("P364", "The Magic Flute", "Q1651543", "Q9027") in namesake_faults(instances, answers)

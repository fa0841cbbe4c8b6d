"""The one name-leak rule and name key of the Wikidata families (builders/names.py)."""

import pytest

from probesmith.builders.names import (
    FUNCTION_WORDS,
    bare_count_noun,
    full_name,
    generic_tokens,
    label_problem,
    name_key,
    name_leak,
    name_tokens,
    plain_name,
    respellings,
    spelled_out,
    spelled_out_plain_name,
    without_legal_form,
)


@pytest.mark.parametrize(
    ("subject", "gold", "shared"),
    [
        (["BMW X5"], ["BMW"], "bmw"),  # an acronym of three letters
        (["BBC Radio 1"], ["BBC"], "bbc"),
        (["ZIL-130"], ["ZiL"], "zil"),  # hyphen split, case aside
        (["Zhengtong Emperor", "Zhu Qizhen"], ["House of Zhu", "Zhu dynasty"], "zhu"),  # via an alias
        (["Nina Li"], ["Jet Li", "Li Lianjie"], "li"),  # a surname of two letters
        (["Colledara"], ["Colledara"], "colledara"),  # subject and answer identical
        (["hsa-miR-548ab"], ["hsa-mir-548ab"], "mir"),
        (["Zürich Opera House"], ["Zurich"], "zurich"),  # diacritics aside
        (["AppleWorks"], ["Apple Inc."], "apple"),  # the stems of the old rule still count
        (["The Legendary A&M Sessions"], ["A&M Records"], "a&m"),  # letters joined by "&" (third read)
        (["A. R. Reihana"], ["A. R. Rahman"], "a.r."),  # a run of two initials (third read)
        (["Venediger Group"], ["Großvenediger"], "venediger"),  # a compound's part, ß folded (fourth read)
        (["Kuththutamil"], ["Tamil"], "tamil"),  # the part ends the compound
        (["cuproneyite"], ["neyite"], "neyite"),
        (["Lo-Reninge"], ["Lo"], "lo"),  # a function word that is a whole name (sixth read)
        (["La-Roche-sur-Yon"], ["La Rochelle", "La-Ville"], "la"),  # a capitalised hyphen part
        # twenty-second read: a word plus a letter is no plural ('sole', 'brake'), a generic stem opening a
        # longer name does not hide it ('north')
        (["VéloSoleX"], ["Solex"], "solex"),
        (["Brakel"], ["Nederbrakel"], "brakel"),
        (["Northamptonshire"], ["Northampton"], "northampton"),
    ],
)
def test_the_issues_leaks_are_caught(subject, gold, shared):
    assert shared in name_leak(subject, gold)


@pytest.mark.parametrize(
    ("subject", "gold", "generic"),
    [
        (["University of Oxford"], ["Harvard University"], {"university"}),  # a generic head
        (["Bank of the West"], ["Isle of Man"], set()),  # function words only
        (["John F. Kennedy"], ["F. Scott Fitzgerald"], set()),  # an initial is no name
        (["Apollo 11"], ["Ocean's 11"], set()),  # a number is no name
        (["Toyota Corolla"], ["Toyota Motor Co., Ltd"], {"toyota"}),  # declared generic: not a leak
        (["Arizona State University"], ["United States of America"], set()),  # an English word's plural
        (["Orthopoxvirus"], ["Vaccinia virus"], set()),  # an English word heads the compound
        (["South Shetland Islands"], ["Southern Ocean"], set()),  # a generic stem
        (["Heidelberg"], ["Berg"], set()),  # a part of four letters
        (["Saint-Martin-de-Ré"], ["Pont de Vaux"], set()),  # a lower-case particle inside a compound
    ],
)
def test_function_words_generic_tokens_initials_and_numbers_are_no_leak(subject, gold, generic):
    assert not name_leak(subject, gold, frozenset(generic))


def test_generic_tokens_are_the_heads_many_answers_share():
    languages = ("English", "German", "French", "Dutch", "Welsh")
    answers = [[f"{name} language", f"{name}"] for name in languages]
    answers += [["Li"], ["Zhu"], ["Esperanto"], ["Latin"], ["Greek"]]
    generic = generic_tokens(answers)
    assert generic == {"language"}  # in 5 of 10 answers; "li" in one
    queens = [["queen regnant"], ["queen consort"], ["Queen"], ["king"], ["duke"]]
    assert generic_tokens(queens) == frozenset()  # 3 of 5 answers, but fewer than 5: still a give-away
    assert not FUNCTION_WORDS & {"li", "zhu", "bmw", "bbc", "zil"}


def test_name_tokens_and_name_key():
    assert name_tokens("ZIL-130") == {"zil", "130"}
    assert (
        name_tokens("BBC Radio 1") == name_tokens("BBC Radio 1 11") == {"bbc", "radio"}
    )  # 1-2 digits: no name
    assert name_leak(["2012 United States Grand Prix"], ["2012 Formula One season"]) == {
        "2012"
    }  # a year names
    assert name_leak(["Antártico"], ["Antarctica"])  # stems compared folded
    assert name_tokens("J. R. R. Tolkien") == {"tolkien", "j.r.r."}  # a run of initials is one token
    assert name_tokens("F. Scott Fitzgerald") == {"scott", "fitzgerald"}  # one initial is none
    assert name_tokens("AT & T") == {"at", "at&t"}
    assert name_key("Russia") == name_key("russia") == name_key("RUSSIA!")
    assert name_key("São Tomé") == name_key("Sao Tome")
    assert name_key("Russian Empire") != name_key("Russia")
    assert name_key("M-Net") == name_key("Mnet") == name_key("MNET")  # punctuation and spaces aside
    assert name_key("🇷🇺") == ""  # a flag names nothing


@pytest.mark.parametrize(
    ("label", "aliases", "shown"),
    [
        ("RSL", ["Royal Society of Literature"], "Royal Society of Literature"),
        ("NAS", ["US National Academy of Sciences"], "NAS"),  # the initials spell "UNAS"
        ("NAS", ["National Academy of Sciences"], "National Academy of Sciences"),
        ("NATO", ["Atlantic Alliance"], "NATO"),  # no alias spells it out: the acronym stays
        ("Royal Society", ["RS"], "Royal Society"),
        ("IBM", ["International Business Machines"], "IBM"),  # a firm keeps the acronym it is known by
        ("NEC", ["NEC Electronics Corporation"], "NEC"),  # its initials spell NEC, but it holds it
        ("RAS", ["Royal Astronomical Society"], "Royal Astronomical Society"),
        ("RA", ["Royal Academy of Arts"], "Royal Academy of Arts"),  # the initials before its "of"
    ],
)
def test_an_acronym_label_is_spelled_out_by_its_alias(label, aliases, shown):
    """Fifth read: "is a member of RSL" (Q1468277)."""
    assert spelled_out(label, aliases) == shown


@pytest.mark.parametrize(
    "label",
    [
        "Vladimír  Krajina",
        "Anne de Béarn , Princesse de Broglie",
        "RAVE J051406.8-400245",
        "Dr.mark W tilden",
        "\u200fpapa Clemente XIV",
        '"El profeta"',
    ],
)
def test_ninth_read_labels_with_residue_or_a_designation_are_no_names(label):
    """The ninth read's labels: formatting residue, a sky designation, words glued at a full stop."""
    assert label_problem(label) is not None


@pytest.mark.parametrize("label", ["Booking.com", "Amazon.com", "Washington, D.C.", "S.O.B.", "NGC 1851"])
def test_names_with_full_stops_or_commas_of_their_own_stay(label):
    assert label_problem(label) is None


@pytest.mark.parametrize(
    "label", ['"I Am The Actor', "pre)Thing", "Dr.Simpson", "Mr.Pmn", "Frontier (s", "Sunn O)))", "Apple ]["]
)
def test_tenth_read_unbalanced_quotes_brackets_and_glued_titles_are_no_names(label):
    """The tenth read's verbalizations: a quote or a bracket left alone, a title glued to a name; the sixteenth
    read's 'Sunn O)))', which closes brackets it never opened (labels_usable said none was left alone)."""
    assert label_problem(label) is not None


@pytest.mark.parametrize(
    "label",
    [
        "India.Arie",
        "Media.Vision",
        "E.ON",
        "Fokker D.VIII",
        "Cute 'n' Country",
        "Guns N' Roses",
        "Rosa 'La France'",
    ],
)
def test_tenth_read_stylised_names_stay(label):
    assert label_problem(label) is None


@pytest.mark.parametrize(
    "label",
    [
        '"Captain" Lou Albano',
        'Otkrytoe akt\ufe20s\ufe21ionernoe obshchestvo "Tupolev"',
        "(Ne) Polnoye sobraniye sochineniy",
        "William „Bill“ Bailey",
        'A "B" C',
        "Konrad 'Conny' Plank",
        "I\u0361Uri\u012d Konstantinovich Babansky",
    ],
)
def test_twelfth_read_quoted_parts_tie_marks_and_opening_brackets_are_no_names(label):
    """The twelfth read's labels and aliases that broke labels_usable / alias_usable: a quoted part of a name
    (the tenth read kept paired quotes: the twelfth found the card's wording false for them), a romanization's
    tie mark, a bracket opening the name."""
    assert label_problem(label) is not None


@pytest.mark.parametrize(
    "label", ["D.Daly", "K.Bakker", "R.Betis Energía Plus", "E.W.Zenberger", "K.N.Taylor", "K.V.B.Puram"]
)
def test_eleventh_read_an_initial_glued_to_a_name_is_no_name(label):
    """The eleventh read's 'D.Daly', kept though labels_usable said "words glued at a full stop"; the
    fifteenth read's runs of initials ('E.W.Zenberger')."""
    assert label_problem(label) is not None


@pytest.mark.parametrize("label", ["J.R.R. Tolkien", "A. R. Rahman", "U.S. Naval Academy", "S.O.B."])
def test_eleventh_read_initials_with_their_space_stay(label):
    assert label_problem(label) is None


@pytest.mark.parametrize(
    ("label", "aliases", "shown"),
    [
        ("RISD", ["RIZ-dee", "Rhode Island School of Design", "risd"], "Rhode Island School of Design"),
        ("RCA", ["Government School of Design", "Royal College of Art"], "Royal College of Art"),
        ("IBM", ["International Business Machines Corporation"], "IBM"),
    ],
)
def test_eleventh_read_a_schools_acronym_is_spelled_out(label, aliases, shown):
    """The eleventh read's "Which country is RCA located in?" (the Royal College of Art, read as RCA Records)."""
    assert spelled_out(label, aliases) == shown


@pytest.mark.parametrize(
    ("subject", "gold", "shared"),
    [
        ("TED2004", "TED", {"ted"}),
        ("870s", "870", {"870"}),
        ("TVP3", "TVP", {"tvp"}),
        ("ITV3", "ITV Digital Channels", {"itv"}),
        ("1st Army", "St. Louis", set()),  # an ordinal's ending is no name
        ("Apollo 11", "Apollo program", {"apollo"}),
    ],
)
def test_sixteenth_read_a_name_glued_to_digits_leaks_its_parts(subject, gold, shared):
    """The sixteenth read's give-aways through a word glued to a number: each part is a name token."""
    assert set(name_leak([subject], [gold])) >= shared
    if not shared:
        assert name_leak([subject], [gold]) == frozenset()


def _mixes_latin_with_cyrillic_or_greek(name: str) -> bool:
    """Written apart from names.mixed_script_word: a run of letters holding a Latin letter and a Cyrillic or
    Greek one, scripts told by the Unicode block of each letter's code point."""
    import re

    def script(char: str) -> str:
        point = ord(char)
        if 0x0370 <= point <= 0x03FF or 0x1F00 <= point <= 0x1FFF:
            return "greek"
        if 0x0400 <= point <= 0x052F:
            return "cyrillic"
        return (
            "latin" if char.isascii() or 0x00C0 <= point <= 0x024F or 0x1E00 <= point <= 0x1EFF else "other"
        )

    return any(
        "latin" in scripts and scripts & {"greek", "cyrillic"}
        for scripts in ({script(c) for c in word} for word in re.findall(r"[^\W\d_]+", name))
    )


def test_eighteenth_read_no_label_or_alias_of_the_slice_mixes_latin_with_cyrillic_or_greek():
    """Over every label and alias of the shared slice (issue 25, the eighteenth read's "principality of Kodа",
    a Cyrillic "а" in a Latin name): every name with a word mixing Latin letters with Cyrillic or Greek ones is
    rejected by label_problem (labels) or alias_problem (aliases), for that reason; no name of one script per
    word is rejected for it ("Київ", "Zürich", "α-synuclein")."""
    import gzip
    import json

    from probesmith.builders.families.paraphrases import alias_problem

    from ..conftest import SHARED_DATA

    mixed, rejected_wrongly, kept = [], [], []
    with gzip.open(SHARED_DATA / "wikidata_slice" / "entities.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            _, label, aliases = line.rstrip("\n").split("\t")
            names = [(label, label_problem(label))]
            names += [(a, alias_problem(a, label)) for a in json.loads(aliases or "[]")]
            for name, problem in names:
                says_mixed = bool(problem) and "Cyrillic or Greek" in problem
                if _mixes_latin_with_cyrillic_or_greek(name):
                    mixed.append(name)
                    if not says_mixed:
                        kept.append(name)
                elif says_mixed:
                    rejected_wrongly.append(name)
    assert "principality of Kodа" in mixed and "Doncho Kolеv Danev" in mixed
    assert kept == [] and rejected_wrongly == []
    for name in ("Київ", "Zürich", "α-synuclein", "Curaçao"):
        assert not (label_problem(name) or "").startswith("label with Latin")


def test_bare_count_noun_is_a_lower_case_head_only_countable():
    """The twenty-third read's "Firearm includes body.": a lower-case label whose head Link Grammar's
    dictionary counts and never uses as a mass noun; a field, a mass noun or a name is none."""
    assert [
        w for w in ("firearm", "body", "dorsal fin", "frame of reference") if not bare_count_noun(w)
    ] == []
    assert [
        w for w in ("arithmetic", "brain", "egyptology", "Firearm", "iPhone", "cheese") if bare_count_noun(w)
    ] == []


@pytest.mark.parametrize(
    ("label", "aliases", "shown"),
    [
        ("HU Berlin", ["Humboldt University of Berlin"], "Humboldt University of Berlin"),  # acronym, name
        ("RSL", ["Royal Society of Literature"], "Royal Society of Literature"),  # a learned body's acronym
        ("art of painting", ["painting"], "painting"),  # a periphrasis
        ("Lond.", ["London University"], "London University"),  # an abbreviated label
        ("Cyan, Inc.", ["Cyan"], "Cyan"),  # a legal form
        ("IBM", ["International Business Machines"], "IBM"),  # a firm keeps its acronym
        ("PJ Harvey", ["Polly Jean Harvey"], "PJ Harvey"),  # a person keeps hers
        ("TU Dresden", [], "TU Dresden"),  # no alias spells it out
    ],
)
def test_an_answer_is_shown_spelled_out_and_by_its_plain_name(label, aliases, shown):
    """``spelled_out_plain_name``, how relations shows an answer: each form's plain name, written out here."""
    assert spelled_out_plain_name(label, aliases) == shown
    assert plain_name(spelled_out(label, aliases), aliases) == shown  # what it reads once stands for


def test_plain_name_spells_out_an_abbreviated_label():
    """The twenty-second read's 'Lond.' (University of London) and 'Freiburg i. B.': shown by the first alias that
    writes their words in full; a label with no such alias, or a name ending in one abbreviation, stays."""
    from probesmith.builders.names import plain_name

    assert plain_name("Lond.", ["London University", "University of London"]) == "London University"
    assert plain_name("Freiburg i. B.", ["Freiburg i. Br.", "Freiburg im Breisgau"]) == "Freiburg im Breisgau"
    assert plain_name("Janet.", []) == "Janet."
    assert plain_name("Martin Luther King Jr.", ["Martin Luther King"]) == "Martin Luther King Jr."


@pytest.mark.parametrize(
    "label, problem",
    [
        ("Biel/Bienne", "slash"),
        ("Bajo Cinca/Baix Cinca", "slash"),
        ("Southern Alps/Kā Tiritiri o te Moana", "slash"),
        ("naaboudoufu@nana", "@"),
        ("el patricio un señor loquillo que su ex mujer la señora", "sentence"),
        ("AC/DC", None),
        ("Either/Or", None),
        ("Face/Off", None),
        ("SNCB/NMBS", None),
    ],
)
def test_twenty_sixth_read_junk_and_slash_joined_labels(label, problem):
    found = label_problem(label)
    assert (found is None) if problem is None else (problem in found)


def test_full_name_and_legal_form_give_the_name_a_sentence_reads():
    nixon = ["Dick Nixon", "President Nixon", "R. M. Nixon", "Richard Nixon", "Richard Milhous Nixon"]
    assert full_name("Nixon", nixon) == "Richard Milhous Nixon"
    assert full_name("Tempesta", ["Antonio Tempesta"]) == "Antonio Tempesta"
    assert full_name("Avicii", ["DJ Avicii"]) is None and full_name("Zachary", ["Pope Zachary"]) is None
    assert full_name("Richard Nixon", nixon) is None
    assert plain_name("Cyan, Inc.", ["Cyan"]) == "Cyan" and plain_name("Kuju Ltd", []) == "Kuju Ltd"
    assert without_legal_form("Alpha Denshi Co., Ltd.", ["Alpha Denshi"]) == "Alpha Denshi"


def test_twenty_seventh_read_full_name_leaves_mononyms_and_bynames_over_the_slices_aliases():
    """On the slice's own aliases (the twenty-seventh read): a mononym, a name aliased in both orders and a
    painter's byname keep their label ('Urbinas Raphael', 'Pollio Vitruvius', 'Tommaso Guidi Masaccio',
    'Cenni Di Pepo Cimabue', 'The Game' were given before); a surname takes the name other aliases confirm,
    not a Latin form ('Antonius Tempesta')."""
    import gzip
    import json
    from pathlib import Path

    entities = Path(__file__).resolve().parents[3] / "shared" / "data" / "wikidata_slice" / "entities.tsv.gz"
    names = {}
    with gzip.open(entities, "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, label, aliases = line.rstrip("\n").split("\t")
            names[qid] = (label, *json.loads(aliases))

    def named(qid):
        return full_name(names[qid][0], names[qid][1:])

    for mononym in ("Q5597", "Q47163", "Q5811", "Q15790", "Q8459", "Q189936", "Q9200", "Q43499", "Q133337"):
        assert named(mononym) is None, (names[mononym][0], named(mononym))
    assert named("Q9588") == "Richard Milhous Nixon" and named("Q91") == "Abraham Lincoln"
    assert named("Q605447") == "Antonio Tempesta" and named("Q1541") == "Marcus Tullius Cicero"


@pytest.mark.parametrize(
    ("subject", "gold", "leaked"),
    [
        (["Cython"], ["Python"], True),  # one letter changed (the twenty-eighth read)
        (["Khvahan"], ["Khwahan"], True),
        (["Ikarus"], ["Ikarbus"], True),  # one letter added
        (["Jolof Empire"], ["Wolof"], True),
        (["Moncton"], ["Robert Monckton"], True),
        (["Lima"], ["Lina"], False),  # four letters: one letter from too many names
        (["Germany"], ["Hermann"], False),  # two letters apart
        (["royal"], ["loyal"], False),  # two English words
    ],
)
def test_a_name_respelled_by_one_letter_is_a_leak(subject, gold, leaked):
    assert bool(respellings(name_tokens(subject[0]), name_tokens(gold[0]))) == leaked
    assert bool(name_leak(subject, gold)) == leaked


def test_a_respelling_counts_against_the_gold_label_only():
    """The gold's aliases hold spellings in other languages one letter from many a name: Beijing's "Ching"
    beside "China", Sarajevo's "Bosna" beside "Bosnia" are no leak; the gold's label respelled is."""
    assert not name_leak(["China Poly Group Corporation"], ["Beijing", "Ching"])
    assert not name_leak(["Prnjavor, Bosnia and Herzegovina"], ["Sarajevo", "Bosna Saraj"])
    assert name_leak(["Roy Orbison", "Lefty Wilbury"], ["Traveling Wilburys"])  # the subject's alias counts


@pytest.mark.parametrize(
    ("subject", "gold", "leaks"),
    [
        (["Carl XVI Gustaf of Sweden"], ["Swedish"], True),
        (["Syrian Arab Republic"], ["Arabic"], True),
        (["55 Cancri"], ["Cancer"], True),
        (["Freyr"], ["Freyja"], True),
        (["O.Carm."], ["Carmelites"], True),
        (["Montreal"], ["Montana"], False),
        (["Northern Ireland Assembly"], ["North America"], False),
        (["China Poly Group Corporation"], ["Beijing", "Ching"], False),
    ],
)
def test_an_inflected_form_of_the_gold_label_is_a_leak(subject, gold, leaks):
    """The thirty-first read's leaks the five-letter stems missed ("Sweden" / "Swedish", "Cancri" / "Cancer"):
    a shared beginning of 4+ letters that is two thirds of the shorter token; a shorter share is none."""
    assert bool(name_leak(subject, gold)) is leaks
